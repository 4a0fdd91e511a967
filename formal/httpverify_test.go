package formal

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/duelogic/duelogic/llm/llmtest"
)

const page = `<!doctype html><html><head><title>Urban Traffic Report 2024</title>
<script>var t = "Secret Script Title";</script><style>.x{}</style></head>
<body><h1>Urban Traffic &amp; Air Quality Report</h1><p>Car traffic in the centre fell by 40%% after the ban.</p>%s</body></html>`

func TestHTTPVerifier(t *testing.T) {
	var hits atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, page, "")
	})
	mux.HandleFunc("/text", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, "urban traffic report 2024: figures")
	})
	mux.HandleFunc("/pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		fmt.Fprint(w, "%PDF-1.7")
	})
	mux.HandleFunc("/gone", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusGone) })
	mux.HandleFunc("/forbidden", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusForbidden) })
	mux.HandleFunc("/broken", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusInternalServerError) })
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/page", http.StatusFound) })
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/to-ftp", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "ftp://example.org/x", http.StatusFound)
	})
	for _, target := range []string{"http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/", "http://192.168.1.1:8080/",
		"http://[::ffff:172.16.0.1]/", "http://[fe80::1]/", "http://[fd00::1]/", "http://0.0.0.0/", "http://100.64.0.1/"} {
		mux.HandleFunc("/to-private/"+url.PathEscape(target), func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, target, http.StatusFound)
		})
	}
	big := strings.Repeat("<p>filler text</p>", 10_000) // about 180 KB
	mux.HandleFunc("/big-title-late", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html><body>"+big+"<h1>Urban Traffic Report 2024</h1></body></html>")
	})
	mux.HandleFunc("/big-title-early", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html><body><h1>Urban Traffic Report 2024</h1>"+big+"</body></html>")
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		mux.ServeHTTP(w, r)
	}))
	defer srv.Close()

	v := NewHTTPVerifier(HTTPOptions{AllowLoopback: true, MaxBytes: 64 << 10})
	title := "Urban Traffic Report 2024"
	for _, tc := range []struct {
		path, title, claim string
		want               Status
		reason             string
	}{
		{"/page", title, "", StatusVerified, "exists and mentions the cited title"},
		{"/page", "urban traffic & air-quality report", "", StatusVerified, "exists and mentions the cited title"},
		{"/page", "Report on Urban Traffic and Cycling in the Centre", "", StatusVerified, "mentions 4 of 5 significant words of the cited title"},
		{"/page", "Global Shipping Outlook", "", StatusUnreliable, "does not mention the cited title (0 of 3"},
		{"/page", "Secret Script Title", "", StatusUnreliable, "does not mention the cited title"},
		{"/page", "", "Car traffic in the centre fell after the ban.", StatusVerified, "significant words of the cited claim"},
		{"/page", "", "", StatusUnreliable, "nothing was cited to look for"},
		{"/text", title, "", StatusVerified, "mentions the cited title"},
		{"/pdf", title, "", StatusUnreliable, "its content (application/pdf) could not be checked"},
		{"/missing", title, "", StatusFabricated, "does not exist (HTTP 404)"},
		{"/gone", title, "", StatusFabricated, "does not exist (HTTP 410)"},
		{"/forbidden", title, "", StatusUnreliable, "answered HTTP 403"},
		{"/broken", title, "", StatusUnreliable, "answered HTTP 500"},
		{"/moved", title, "", StatusVerified, "mentions the cited title"},
		{"/loop", title, "", StatusUnreliable, "redirects too many times"},
		{"/to-ftp", title, "", StatusUnreliable, "could not be fetched"},
		{"/big-title-early", title, "", StatusVerified, "The first 65536 bytes of the page exists and mentions"},
		{"/big-title-late", title, "", StatusUnreliable, "The first 65536 bytes of the page exists but does not mention"},
	} {
		t.Run(tc.path+" "+tc.title, func(t *testing.T) {
			got, err := v.Verify(t.Context(), Source{URL: srv.URL + tc.path, Title: tc.title}, tc.claim)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != tc.want || !strings.Contains(got.Reason, tc.reason) {
				t.Errorf("%s %q, want %s %q", got.Status, got.Reason, tc.want, tc.reason)
			}
		})
	}

	// Redirects to non-public addresses are refused when dialling.
	for _, target := range []string{"http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/", "http://192.168.1.1:8080/",
		"http://[::ffff:172.16.0.1]/", "http://[fe80::1]/", "http://[fd00::1]/", "http://0.0.0.0/", "http://100.64.0.1/"} {
		got, err := v.Verify(t.Context(), Source{URL: srv.URL + "/to-private/" + url.PathEscape(target), Title: title}, "")
		if err != nil || got.Status != StatusUnreliable || !strings.Contains(got.Reason, "non-public address") {
			t.Errorf("redirect to %s: %+v, %v", target, got, err)
		}
	}

	// Without AllowLoopback the test server itself is out of bounds: it is
	// never reached.
	before := hits.Load()
	strict := NewHTTPVerifier(HTTPOptions{})
	for _, u := range []string{srv.URL + "/page", strings.Replace(srv.URL, "127.0.0.1", "localhost", 1) + "/page"} {
		got, err := strict.Verify(t.Context(), Source{URL: u, Title: title}, "")
		if err != nil || got.Status != StatusUnreliable || !strings.Contains(got.Reason, "non-public address") {
			t.Errorf("%s: %+v, %v", u, got, err)
		}
	}
	if hits.Load() != before {
		t.Errorf("the server was reached %d times", hits.Load()-before)
	}
}

func TestHTTPVerifierURLs(t *testing.T) {
	v := NewHTTPVerifier(HTTPOptions{})
	for u, want := range map[string]Status{
		"not a url":                StatusFabricated,
		"https://":                 StatusFabricated,
		"http://%zz":               StatusFabricated,
		"ftp://example.org/x":      StatusUnreliable,
		"mailto:a@example.org":     StatusFabricated,
		"http://127.0.0.1:1/x":     StatusUnreliable, // loopback, blocked
		"http://[::1]:1/x":         StatusUnreliable,
		"http://10.1.2.3:80/x":     StatusUnreliable,
		"http://[fe80::1%25eth0]/": StatusUnreliable,
	} {
		got, err := v.Verify(t.Context(), Source{URL: u, Title: "T"}, "")
		if err != nil || got.Status != want {
			t.Errorf("%s: %+v, %v; want %s", u, got, err, want)
		}
	}
}

func TestHTTPVerifierContext(t *testing.T) {
	arrived := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-r.Context().Done()
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-arrived
		cancel()
	}()
	_, err := NewHTTPVerifier(HTTPOptions{AllowLoopback: true}).Verify(ctx, Source{URL: srv.URL, Title: "T"}, "")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}

func TestFetchFailure(t *testing.T) {
	wrap := func(err error) error { return &url.Error{Op: "Get", URL: "https://x.example", Err: err} }
	for _, tc := range []struct {
		err  error
		want Status
		why  string
	}{
		{wrap(&net.DNSError{Err: "no such host", Name: "x.example", IsNotFound: true}), StatusFabricated, "host does not exist"},
		{wrap(&net.DNSError{Err: "server misbehaving", Name: "x.example", IsTemporary: true}), StatusUnreliable, "could not be fetched"},
		{wrap(&net.OpError{Op: "dial", Err: fmt.Errorf("%w: 10.0.0.1", ErrBlockedAddress)}), StatusUnreliable, "non-public address"},
		{wrap(context.DeadlineExceeded), StatusUnreliable, "did not answer in time"},
		{wrap(errTooManyRedirects), StatusUnreliable, "redirects too many times"},
		{wrap(errors.New("connection refused")), StatusUnreliable, "could not be fetched"},
	} {
		got := fetchFailure(tc.err)
		if got.Status != tc.want || !strings.Contains(got.Reason, tc.why) {
			t.Errorf("%v: %+v, want %s %q", tc.err, got, tc.want, tc.why)
		}
	}
}

func TestBlocked(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1": true, "127.9.9.9": true, "::1": true, "10.0.0.1": true, "172.16.5.4": true, "172.32.0.1": false,
		"192.168.0.1": true, "169.254.169.254": true, "fe80::1": true, "fd12::1": true, "0.0.0.0": true, "::": true,
		"100.64.0.1": true, "224.0.0.1": true, "ff02::1": true, "255.255.255.255": true, "198.18.0.1": true,
		"::ffff:10.0.0.1": true, "::ffff:8.8.8.8": false, "8.8.8.8": false, "93.184.215.14": false,
		"2606:4700::6810:84e5": false, "fe80::1%eth0": true, "64:ff9b::10.0.0.1": true, "64:ff9b::8.8.8.8": false,
	} {
		if got := blocked(netip.MustParseAddr(addr), false); got != want {
			t.Errorf("blocked(%s) = %v, want %v", addr, got, want)
		}
	}
	if blocked(netip.MustParseAddr("127.0.0.1"), true) || blocked(netip.MustParseAddr("::1"), true) || !blocked(netip.MustParseAddr("10.0.0.1"), true) {
		t.Error("AllowLoopback allows more or less than loopback")
	}
	v := NewHTTPVerifier(HTTPOptions{})
	for _, addr := range []string{"no-port", "example.org:80", "[::1]:80", "10.0.0.1:443"} {
		if err := v.control("tcp", addr, nil); !errors.Is(err, ErrBlockedAddress) {
			t.Errorf("control(%s) = %v", addr, err)
		}
	}
	if err := v.control("tcp", "93.184.215.14:443", nil); err != nil {
		t.Errorf("public address refused: %v", err)
	}
}

func TestHTTPCheckInDebate(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/page" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, page, "")
	}))
	defer srv.Close()
	good := map[string]string{"url": srv.URL + "/page", "title": "Urban Traffic Report 2024", "accessed": "2026-02-20"}
	missing := map[string]string{"url": srv.URL + "/missing", "title": "Urban Traffic Report 2024", "accessed": "2026-02-20"}
	f := newFake(1, func(f *llmtest.Fake) {
		f.OnModel("promoter-model").Reply(
			reply("opening_statement", "Open.", nil, missing), reply("new_point", "Point.", nil, good), reply("closing_statement", "Close.", nil, good))
		f.OnModel("detractor-model").Reply(
			reply("opening_statement", "Open.", nil, good), reply("new_point", "Point.", nil, good), reply("closing_statement", "Close.", nil, good))
	})
	cfg := testConfig()
	cfg.MaxRounds = 1
	res, err := runWith(t, f, cfg, []Option{WithVerifier(FetchThenJudge(HTTPOptions{AllowLoopback: true}))})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Detail.Redactions) != 1 || res.Detail.Redactions[0].Seq != 2 {
		t.Errorf("redactions %+v", res.Detail.Redactions)
	}
	if vr := ofType(res.Detail.Entries, TypeVerificationResult)[0]; *vr.TargetSeq != 2 || !strings.Contains(vr.Content, "fabricated") {
		t.Errorf("first finding %+v", vr)
	}
	// The judge is asked about every source the page check did not find
	// missing: the detractor's opening and closing (the promoter,
	// disqualified at the start of round 1, speaks no more, and the rounds
	// end there).
	if n := f.Calls(PurposeVerification); n != 2 {
		t.Errorf("%d judge calls, want 2", n)
	}
}

func TestDefaultVerifierAsksTheJudge(t *testing.T) {
	// Every source is on a loopback address, which the default HTTP check
	// refuses to fetch (unreliable), so the judge decides.
	local := map[string]string{"url": "http://127.0.0.1:9/report", "title": "Report", "accessed": "2026-02-20"}
	f := newFake(1, func(f *llmtest.Fake) {
		for _, m := range []string{"promoter-model", "detractor-model"} {
			f.OnModel(m).Reply(reply("opening_statement", "Open.", nil, local), reply("new_point", "Point.", nil, local), reply("closing_statement", "Close.", nil, local))
		}
		f.OnPurpose(PurposeVerification).Reply(`{"status": "verified", "reason": "The judge knows it."}`)
	})
	cfg := testConfig()
	cfg.MaxRounds = 1
	res, err := runWith(t, f, cfg, []Option{WithVerifier(FetchThenJudge(HTTPOptions{}))})
	if err != nil {
		t.Fatal(err)
	}
	vr := ofType(res.Detail.Entries, TypeVerificationResult)
	if len(vr) != 6 || f.Calls(PurposeVerification) != 6 {
		t.Fatalf("%d findings, %d judge calls", len(vr), f.Calls(PurposeVerification))
	}
	if !strings.Contains(vr[0].Content, "verified") || !strings.Contains(vr[0].Content, "non-public address") || !strings.Contains(vr[0].Content, "The judge knows it.") {
		t.Errorf("finding %q", vr[0].Content)
	}
}
