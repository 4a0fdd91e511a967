package formal

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"syscall"
	"time"
	"unicode"
)

// ErrBlockedAddress is the dial error of an [HTTPVerifier] that refused to
// connect to a private, loopback, link-local or otherwise non-public address.
var ErrBlockedAddress = errors.New("formal: address not allowed")

// HTTPOptions configures an [HTTPVerifier]. The zero value is ready to use.
type HTTPOptions struct {
	// Timeout bounds one check, redirects included; default 10 s.
	Timeout time.Duration
	// MaxBytes bounds how much of a page is read; default 1 MiB. A larger
	// page is checked on its first MaxBytes.
	MaxBytes int64
	// MaxRedirects bounds the redirects followed; default 5.
	MaxRedirects int
	// AllowLoopback permits loopback addresses (127.0.0.0/8, ::1), for tests
	// against an httptest server. Other non-public addresses stay blocked.
	AllowLoopback bool
	// UserAgent is sent with each request; default "duelogic-formal-verifier/1".
	UserAgent string
}

// HTTPVerifier checks a source by fetching it: the page must exist (a 2xx
// answer after at most MaxRedirects redirects) and mention what is cited —
// the source's title, or most of its significant words (or, for a source
// without a title, of the claim's).
//
// Findings: a page that answers 404 or 410, a host that does not exist or a
// malformed URL is fabricated; a page that exists but does not mention the
// title, cannot be read (not text), answers another error, times out, or lies
// on a blocked address is unreliable; otherwise verified.
//
// It never connects to a non-public address: the check runs when dialling,
// on the address the name resolved to, so a redirect or a DNS name leading to
// a private (10/8, 172.16/12, 192.168/16, fc00::/7), loopback, link-local,
// unspecified, multicast, shared (100.64/10) or reserved address is refused
// ([ErrBlockedAddress]) before a packet is sent. Proxies from the environment
// are not used. An HTTPVerifier is safe for concurrent use.
type HTTPVerifier struct {
	opts   HTTPOptions
	client *http.Client
}

// NewHTTPVerifier returns an HTTP verifier with opts.
func NewHTTPVerifier(opts HTTPOptions) *HTTPVerifier {
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = 1 << 20
	}
	if opts.MaxRedirects <= 0 {
		opts.MaxRedirects = 5
	}
	if opts.UserAgent == "" {
		opts.UserAgent = "duelogic-formal-verifier/1"
	}
	v := &HTTPVerifier{opts: opts}
	dialer := &net.Dialer{Timeout: opts.Timeout, Control: v.control}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   opts.Timeout,
		ResponseHeaderTimeout: opts.Timeout,
		// Sources are on many hosts: nothing to gain from idle connections,
		// and none of their goroutines outlives a check.
		DisableKeepAlives: true,
	}
	v.client = &http.Client{
		Transport: tr,
		Timeout:   opts.Timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > opts.MaxRedirects {
				return errTooManyRedirects
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("redirect to a %q URL", req.URL.Scheme)
			}
			return nil
		},
	}
	return v
}

var errTooManyRedirects = errors.New("too many redirects")

// control refuses a connection to a blocked address; the dialer calls it
// with the resolved address of every connection attempt.
func (v *HTTPVerifier) control(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("%w: %q", ErrBlockedAddress, address)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("%w: %q", ErrBlockedAddress, address)
	}
	if blocked(ip, v.opts.AllowLoopback) {
		return fmt.Errorf("%w: %s", ErrBlockedAddress, ip)
	}
	return nil
}

// blockedPrefixes are non-public ranges the netip predicates do not cover.
var blockedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // shared address space (carrier NAT)
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, broadcast
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use IPv4/IPv6 translation
	netip.MustParsePrefix("fec0::/10"),       // deprecated site-local
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
}

// nat64 is the well-known NAT64 prefix, whose addresses reach the IPv4
// address in their last 32 bits.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// blocked reports whether ip is an address the verifier must not connect to.
func blocked(ip netip.Addr, allowLoopback bool) bool {
	ip = ip.Unmap().WithZone("")
	if nat64.Contains(ip) {
		b := ip.As16()
		ip = netip.AddrFrom4([4]byte(b[12:]))
	}
	if ip.IsLoopback() {
		return !allowLoopback
	}
	if !ip.IsValid() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return true
	}
	for _, p := range blockedPrefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// Verify fetches src.URL and reports whether the page exists and mentions
// what is cited. Only ctx's end is an error.
func (v *HTTPVerifier) Verify(ctx context.Context, src Source, claim string) (Verification, error) {
	u, err := url.Parse(strings.TrimSpace(src.URL))
	if err != nil || u.Host == "" {
		return Verification{Status: StatusFabricated, Reason: "The URL is malformed."}, nil
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return Verification{Status: StatusUnreliable, Reason: fmt.Sprintf("A %s URL cannot be checked.", u.Scheme)}, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Verification{Status: StatusFabricated, Reason: "The URL is malformed."}, nil
	}
	req.Header.Set("User-Agent", v.opts.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5")
	resp, err := v.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return Verification{}, ctx.Err()
		}
		return fetchFailure(err), nil
	}
	defer resp.Body.Close()
	switch code := resp.StatusCode; {
	case code == http.StatusNotFound || code == http.StatusGone:
		return Verification{Status: StatusFabricated, Reason: fmt.Sprintf("The page does not exist (HTTP %d).", code)}, nil
	case code < 200 || code > 299:
		return Verification{Status: StatusUnreliable, Reason: fmt.Sprintf("The server answered HTTP %d.", code)}, nil
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt != "" && !textual(mt) {
		return Verification{Status: StatusUnreliable, Reason: fmt.Sprintf("The page exists, but its content (%s) could not be checked.", mt)}, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, v.opts.MaxBytes+1))
	if err != nil {
		if ctx.Err() != nil {
			return Verification{}, ctx.Err()
		}
		return Verification{Status: StatusUnreliable, Reason: "The page could not be read completely."}, nil
	}
	truncated := int64(len(body)) > v.opts.MaxBytes
	if truncated {
		body = body[:v.opts.MaxBytes]
	}
	return mentions(pageText(string(body), mt), src.Title, claim, truncated, v.opts.MaxBytes), nil
}

// fetchFailure turns a failed request into a finding.
func fetchFailure(err error) Verification {
	var dns *net.DNSError
	switch {
	case errors.Is(err, ErrBlockedAddress):
		return Verification{Status: StatusUnreliable, Reason: "The URL leads to a private, loopback or otherwise non-public address, which is not checked."}
	case errors.As(err, &dns) && dns.IsNotFound:
		return Verification{Status: StatusFabricated, Reason: "The host does not exist."}
	case errors.Is(err, errTooManyRedirects):
		return Verification{Status: StatusUnreliable, Reason: "The URL redirects too many times."}
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		return Verification{Status: StatusUnreliable, Reason: "The page did not answer in time."}
	}
	return Verification{Status: StatusUnreliable, Reason: "The page could not be fetched."}
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

func textual(mediaType string) bool {
	return strings.HasPrefix(mediaType, "text/") || strings.HasSuffix(mediaType, "+xml") ||
		mediaType == "application/xml" || mediaType == "application/json"
}

var (
	htmlHidden = regexp.MustCompile(`(?is)<script\b.*?</script\s*>|<style\b.*?</style\s*>|<!--.*?-->`)
	htmlTag    = regexp.MustCompile(`(?s)<[^>]*>`)
)

// pageText returns the words of a page, lower-cased and separated by single
// spaces, tags and scripts removed from HTML.
func pageText(body, mediaType string) string {
	if mediaType == "" || strings.Contains(mediaType, "html") || strings.HasSuffix(mediaType, "xml") {
		body = htmlHidden.ReplaceAllString(body, " ")
		body = htmlTag.ReplaceAllString(body, " ")
		body = html.UnescapeString(body)
	}
	return normalWords(body)
}

// normalWords lower-cases s and keeps its letters and digits, words separated
// by single spaces.
func normalWords(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}

// mentions judges whether text (normalWords of a page) mentions the title or,
// without one, the claim.
func mentions(text, title, claim string, truncated bool, maxBytes int64) Verification {
	where := "The page"
	if truncated {
		where = fmt.Sprintf("The first %d bytes of the page", maxBytes)
	}
	t := normalWords(title)
	if t != "" && strings.Contains(" "+text+" ", " "+t+" ") {
		return Verification{Status: StatusVerified, Reason: where + " exists and mentions the cited title."}
	}
	what, terms := "title", keywords(title)
	if len(terms) == 0 {
		what, terms = "claim", keywords(claim)
	}
	if len(terms) == 0 {
		return Verification{Status: StatusUnreliable, Reason: where + " exists, but nothing was cited to look for on it."}
	}
	words := map[string]bool{}
	for _, w := range strings.Fields(text) {
		words[w] = true
	}
	found := 0
	for _, k := range terms {
		if words[k] {
			found++
		}
	}
	if found*5 >= len(terms)*3 {
		return Verification{Status: StatusVerified, Reason: fmt.Sprintf("%s exists and mentions %d of %d significant words of the cited %s.", where, found, len(terms), what)}
	}
	return Verification{Status: StatusUnreliable, Reason: fmt.Sprintf("%s exists but does not mention the cited %s (%d of %d significant words).", where, what, found, len(terms))}
}

// stopWords are left out of the words a page must mention.
var stopWords = map[string]bool{
	"about": true, "after": true, "also": true, "been": true, "before": true, "being": true, "between": true,
	"could": true, "does": true, "from": true, "have": true, "into": true, "more": true, "most": true,
	"much": true, "only": true, "other": true, "over": true, "should": true, "some": true, "such": true,
	"than": true, "that": true, "their": true, "them": true, "then": true, "there": true, "these": true,
	"they": true, "this": true, "those": true, "very": true, "were": true, "what": true, "when": true,
	"where": true, "which": true, "while": true, "will": true, "with": true, "would": true, "your": true,
}

// keywords returns the distinct significant words of s (four letters or
// more, no stop words), at most twelve.
func keywords(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.Fields(normalWords(s)) {
		if len([]rune(w)) < 4 || stopWords[w] || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
		if len(out) == 12 {
			break
		}
	}
	return out
}
