package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/duelogic/duelogic/internal/sleep"
	"github.com/duelogic/duelogic/llm"
)

// Defaults used when the corresponding [Config] field is zero.
const (
	DefaultBaseURL     = "https://api.openai.com/v1"
	DefaultMaxRetries  = 2
	DefaultIdleTimeout = 2 * time.Minute
)

// Size limits on what the server sends.
const (
	maxErrorBody    = 1 << 20  // error bodies: the rest is not read
	maxResponseBody = 32 << 20 // a non-streamed body, and a streamed answer's text
	maxStreamLine   = 8 << 20  // one stream line or event
)

// Retry timing.
const (
	initialBackoff = 500 * time.Millisecond
	maxBackoff     = 8 * time.Second
	maxRetryWait   = 60 * time.Second // cap on a server's Retry-After
)

// Config configures a [Client]. Only BaseURL (for anything but OpenAI) and
// APIKey are usually needed.
type Config struct {
	// BaseURL is the API's base URL, e.g. "https://openrouter.ai/api/v1" or
	// "http://localhost:11434/v1"; "": [DefaultBaseURL]. Requests go to
	// BaseURL + "/chat/completions" when its path has a version segment
	// (v1, v1beta, v4, ...) anywhere, to BaseURL + "/v1/chat/completions"
	// when it has none, and to BaseURL itself when it already ends in
	// "/chat/completions". Trailing slashes are ignored and the query is
	// kept. See the package documentation for examples.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer <APIKey>"; "" sends no
	// Authorization header (local servers), unless Headers has one.
	APIKey string
	// HTTPClient sends the requests; nil: a shared client with dial, TLS
	// and keep-alive timeouts but no total timeout, which would cut long
	// streams. A client of your own should have no Timeout either: use
	// contexts and IdleTimeout.
	HTTPClient *http.Client
	// Headers are sent with every request, e.g. OpenRouter's HTTP-Referer
	// and X-Title. They may replace the default Content-Type, Accept and
	// User-Agent; APIKey, when set, wins over an Authorization header here,
	// and the client's own Idempotency-Key over one here.
	Headers http.Header
	// MaxRetries is how many times a failed request is sent again when that
	// is safe (see the package documentation); 0: [DefaultMaxRetries];
	// negative: never.
	MaxRetries int

	// ExtraBody holds further request body fields, e.g. OpenRouter's
	// "provider" routing preferences or vLLM's "top_k". The fields the
	// client sets from the request win over these; a field the request
	// leaves unset (temperature, max_tokens) may be given a default here.
	ExtraBody map[string]any
	// UseMaxCompletionTokens sends llm.Request.MaxTokens as
	// "max_completion_tokens" (required by OpenAI's reasoning models)
	// instead of "max_tokens" (understood by every compatible server).
	UseMaxCompletionTokens bool
	// PromptCacheKey sends llm.Request.CacheKey (the engine sets the
	// debate's ID) as "prompt_cache_key", which OpenAI uses to route
	// requests that share a prefix to the same prompt cache. It is on for
	// OpenAI's own endpoint ([DefaultBaseURL]); set it for another server
	// that takes the field (others may refuse a field they do not know).
	PromptCacheKey bool
	// ResponseFormat is the "response_format" sent when a request wants
	// JSON but carries no llm.Request.Schema, and when a server has refused
	// json_schema (see the package documentation); nil:
	// {"type":"json_object"}. Set a {"type":"json_schema",...} object for
	// servers that accept only schemas (LM Studio), or JSON null to send
	// none (the prompt alone then asks for JSON).
	ResponseFormat json.RawMessage
	// IdleTimeout bounds the silence while a response is read: between the
	// bytes of a stream (including the wait for it to start), and while the
	// body of a non-streamed response arrives. Comment lines and keep-alives
	// count as data. It is not a total timeout: a stream may last as long as
	// it keeps sending. 0: [DefaultIdleTimeout]; negative: none.
	IdleTimeout time.Duration
	// Logger, when set, receives a warning for each retry, and one when the
	// server refuses a response_format and the client steps down to a
	// simpler one. Nothing logged contains the API key or header values.
	Logger *slog.Logger
}

// String describes c without its secrets: the API key and header values are
// left out, and so are a password or query in BaseURL.
func (c Config) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "openai.Config{BaseURL: %q, APIKey: %s", redactURL(c.BaseURL), keyState(c.APIKey))
	if len(c.Headers) > 0 {
		fmt.Fprintf(&b, ", Headers: %v", headerNames(c.Headers))
	}
	fmt.Fprintf(&b, ", MaxRetries: %d", c.MaxRetries)
	if len(c.ExtraBody) > 0 {
		fmt.Fprintf(&b, ", ExtraBody: %v", slices.Sorted(maps.Keys(c.ExtraBody)))
	}
	if c.IdleTimeout != 0 {
		fmt.Fprintf(&b, ", IdleTimeout: %v", c.IdleTimeout)
	}
	b.WriteString("}")
	return b.String()
}

// GoString is String, so that %#v does not print the key either.
func (c Config) GoString() string { return c.String() }

// LogValue implements [slog.LogValuer] without the secrets String leaves out.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("base_url", redactURL(c.BaseURL)),
		slog.String("api_key", keyState(c.APIKey)),
		slog.Any("headers", headerNames(c.Headers)),
		slog.Int("max_retries", c.MaxRetries),
		slog.Duration("idle_timeout", c.IdleTimeout),
	)
}

func keyState(key string) string {
	if key == "" {
		return `""`
	}
	return "[redacted]"
}

func headerNames(h http.Header) []string {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, http.CanonicalHeaderKey(k))
	}
	slices.Sort(names)
	return names
}

// redactURL shows a URL without its password and query values.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "[unparsable URL]"
	}
	if u.RawQuery != "" {
		u.RawQuery = "[redacted]"
	}
	u.Fragment = ""
	return u.Redacted()
}

// Client is an OpenAI-compatible chat completions client. It implements
// [llm.Client] and [llm.Streamer], and is safe for concurrent use.
type Client struct {
	endpoint         string // the chat completions URL
	safeURL          string // endpoint as shown in errors
	cfgErr           error  // a Config problem, returned by every call
	apiKey           string
	headers          http.Header
	hc               *http.Client
	extra            map[string]any
	maxRetries       int
	idle             time.Duration
	useMaxCompletion bool
	cacheKey         bool            // send llm.Request.CacheKey as prompt_cache_key
	jsonFormat       json.RawMessage // nil: send no response_format
	refused          sync.Map        // model → *atomic.Uint32, bit 1<<f: the server refused response_format f (formatSchema, formatJSON) for that model
	logger           *slog.Logger
	secrets          []string // removed from server-supplied error text
	display          string   // String()

	// Hooks replaced by tests.
	sleep   func(ctx context.Context, d time.Duration) error
	now     func() time.Time
	jitter  func() float64 // in [0,1)
	maxBody int
	maxLine int
}

var (
	_ llm.Client   = (*Client)(nil)
	_ llm.Streamer = (*Client)(nil)
)

// New returns a client for cfg. It does not contact the server. A problem
// with cfg (an unusable BaseURL, a ResponseFormat or ExtraBody that is not
// JSON) is reported by every call.
func New(cfg Config) *Client {
	c := &Client{
		apiKey:           cfg.APIKey,
		headers:          cfg.Headers.Clone(),
		hc:               cfg.HTTPClient,
		extra:            maps.Clone(cfg.ExtraBody),
		maxRetries:       cfg.MaxRetries,
		idle:             cfg.IdleTimeout,
		useMaxCompletion: cfg.UseMaxCompletionTokens,
		jsonFormat:       json.RawMessage(`{"type":"json_object"}`),
		logger:           cfg.Logger,
		display:          "openai.Client" + strings.TrimPrefix(cfg.String(), "openai.Config"),
		sleep:            sleep.For,
		now:              time.Now,
		jitter:           randFloat,
		maxBody:          maxResponseBody,
		maxLine:          maxStreamLine,
	}
	if c.hc == nil {
		c.hc = defaultHTTPClient
	}
	switch {
	case c.maxRetries == 0:
		c.maxRetries = DefaultMaxRetries
	case c.maxRetries < 0:
		c.maxRetries = 0
	}
	if c.idle == 0 {
		c.idle = DefaultIdleTimeout
	}
	if cfg.ResponseFormat != nil {
		switch f := bytes.TrimSpace(cfg.ResponseFormat); {
		case !json.Valid(f):
			c.cfgErr = errors.New("openai: Config.ResponseFormat is not valid JSON")
		case string(f) == "null":
			c.jsonFormat = nil
		default:
			c.jsonFormat = bytes.Clone(f)
		}
	}
	u, err := endpointURL(cfg.BaseURL)
	if err != nil {
		c.cfgErr = err
	} else {
		c.endpoint = u.String()
		c.safeURL = redactURL(c.endpoint)
		c.cacheKey = cfg.PromptCacheKey || u.Host == "api.openai.com"
	}
	c.secrets = secretsOf(cfg)
	return c
}

// secretsOf lists the strings that must never show in an error: the API key,
// and the values of headers whose names suggest credentials. Strings shorter
// than 4 bytes are left alone, since removing them would garble messages.
func secretsOf(cfg Config) []string {
	var out []string
	add := func(s string) {
		if len(s) >= 4 && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	add(cfg.APIKey)
	for k, vs := range cfg.Headers {
		name := strings.ToLower(k)
		if !strings.Contains(name, "auth") && !strings.Contains(name, "key") &&
			!strings.Contains(name, "token") && !strings.Contains(name, "secret") && !strings.Contains(name, "cookie") {
			continue
		}
		for _, v := range vs {
			add(v)
			if _, cred, ok := strings.Cut(v, " "); ok { // "Bearer <token>"
				add(strings.TrimSpace(cred))
			}
		}
	}
	// Longest first, so that a secret containing another is removed whole.
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// String describes the client without its secrets, like [Config.String].
func (c *Client) String() string { return c.display }

// GoString is String.
func (c *Client) GoString() string { return c.display }

// versionSegment matches an API version path segment: v1, v1beta, v4, v2alpha1.
var versionSegment = regexp.MustCompile(`^v[0-9]+[a-z0-9]*$`)

// endpointURL derives the chat completions URL from a base URL; see
// [Config.BaseURL] for the rule.
func endpointURL(base string) (*url.URL, error) {
	base = strings.TrimSpace(base)
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// The URL itself stays out of the message: it may hold credentials.
		return nil, errors.New("openai: Config.BaseURL must be an absolute http or https URL")
	}
	p := strings.TrimRight(u.Path, "/")
	switch {
	case strings.HasSuffix(p, "/chat/completions"):
	case slices.ContainsFunc(strings.Split(p, "/"), versionSegment.MatchString):
		p += "/chat/completions"
	default:
		p += "/v1/chat/completions"
	}
	u.Path, u.RawPath, u.Fragment = p, "", ""
	return u, nil
}

// defaultHTTPClient is shared by the clients made without one, so that they
// share connections. It has no total timeout; see Config.HTTPClient.
var defaultHTTPClient = &http.Client{Transport: &http.Transport{
	Proxy: http.ProxyFromEnvironment,
	DialContext: (&net.Dialer{
		Timeout:   30 * time.Second,
		KeepAlive: 30 * time.Second,
	}).DialContext,
	ForceAttemptHTTP2:     true,
	MaxIdleConns:          100,
	MaxIdleConnsPerHost:   16,
	IdleConnTimeout:       90 * time.Second,
	TLSHandshakeTimeout:   10 * time.Second,
	ExpectContinueTimeout: time.Second,
	// No ResponseHeaderTimeout: a non-streamed completion sends its headers
	// only when the whole answer is ready, which may take minutes.
}}

// Complete sends req and returns the whole answer. See the package
// documentation for retries and errors.
func (c *Client) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	a, err := c.post(ctx, req, false)
	if err != nil {
		return llm.Response{}, err
	}
	defer a.close()
	data, err := readCapped(a.body, c.maxBody)
	if err != nil {
		return llm.Response{}, a.readError(ctx, err)
	}
	return c.decodeCompletion(data, req.Model)
}

// chatRequest is the body of POST /chat/completions.
type chatRequest struct {
	Model               string          `json:"model"`
	Messages            []chatMessage   `json:"messages"`
	Temperature         *float64        `json:"temperature,omitempty"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	ResponseFormat      json.RawMessage `json:"response_format,omitempty"`
	PromptCacheKey      string          `json:"prompt_cache_key,omitempty"`
	Stream              bool            `json:"stream,omitempty"`
	StreamOptions       *streamOptions  `json:"stream_options,omitempty"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// requestBody encodes req, merging in Config.ExtraBody. It returns the
// format level of the response_format it carries (formatNone: none).
func (c *Client) requestBody(req llm.Request, stream bool) ([]byte, int32, error) {
	if c.cfgErr != nil {
		return nil, formatNone, c.cfgErr
	}
	if len(req.Schema) > 0 && !json.Valid(req.Schema) {
		return nil, formatNone, errors.New("openai: llm.Request.Schema is not valid JSON")
	}
	cr := chatRequest{Model: req.Model, Messages: make([]chatMessage, len(req.Messages)), Temperature: req.Temperature}
	for i, m := range req.Messages {
		cr.Messages[i] = chatMessage{Role: string(m.Role), Content: m.Content}
	}
	if req.MaxTokens > 0 {
		if c.useMaxCompletion {
			cr.MaxCompletionTokens = req.MaxTokens
		} else {
			cr.MaxTokens = req.MaxTokens
		}
	}
	if c.cacheKey {
		cr.PromptCacheKey = req.CacheKey
	}
	var sent int32
	cr.ResponseFormat, sent = c.responseFormat(req)
	if stream {
		cr.Stream, cr.StreamOptions = true, &streamOptions{IncludeUsage: true}
	}
	body, err := json.Marshal(cr)
	if err != nil {
		return nil, formatNone, fmt.Errorf("openai: encoding request: %w", err)
	}
	if len(c.extra) == 0 {
		return body, sent, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return nil, formatNone, fmt.Errorf("openai: encoding request: %w", err)
	}
	for k, v := range c.extra {
		if _, set := fields[k]; set {
			continue
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, formatNone, fmt.Errorf("openai: encoding Config.ExtraBody[%q]: %w", k, err)
		}
		fields[k] = raw
	}
	body, err = json.Marshal(fields)
	return body, sent, err
}

// chatResponse is a non-streamed completion.
type chatResponse struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content contentText `json:"content"`
		} `json:"message"`
		FinishReason string          `json:"finish_reason"`
		Error        json.RawMessage `json:"error"` // OpenRouter
	} `json:"choices"`
	Usage   *wireUsage      `json:"usage"`
	Timings *wireTimings    `json:"timings"` // llama.cpp
	Error   json.RawMessage `json:"error"`
	Object  string          `json:"object"`
}

// wireUsage is a usage object: OpenAI's, with the details of cached prompt
// tokens and reasoning tokens that OpenAI, llama.cpp, vLLM and OpenRouter
// send.
type wireUsage struct {
	PromptTokens     tokenCount `json:"prompt_tokens"`
	CompletionTokens tokenCount `json:"completion_tokens"`
	PromptDetails    *struct {
		CachedTokens tokenCount `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionDetails *struct {
		ReasoningTokens tokenCount `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

// wireTimings is llama.cpp's timings object, whose cache_n is the prompt
// tokens its slot reused from its cache.
type wireTimings struct {
	CacheN tokenCount `json:"cache_n"`
}

// usageOf reads a usage object, and llama.cpp's timings for the cached
// tokens when the usage does not say them.
func usageOf(u *wireUsage, t *wireTimings) llm.Usage {
	if u == nil {
		return llm.Usage{}
	}
	out := llm.Usage{PromptTokens: int(u.PromptTokens), CompletionTokens: int(u.CompletionTokens)}
	if d := u.PromptDetails; d != nil {
		out.CachedPromptTokens = int(d.CachedTokens)
	}
	if out.CachedPromptTokens == 0 && t != nil {
		out.CachedPromptTokens = int(t.CacheN)
	}
	if d := u.CompletionDetails; d != nil {
		out.ReasoningTokens = int(d.ReasoningTokens)
	}
	out.CachedPromptTokens = min(out.CachedPromptTokens, out.PromptTokens)
	out.ReasoningTokens = min(out.ReasoningTokens, out.CompletionTokens)
	return out
}

// contentText is a message's content: a string, null, or a list of parts
// (Mistral's reasoning models) whose text parts count.
type contentText string

func (c *contentText) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*c = contentText(s)
		return nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(b, &parts) == nil {
		var text strings.Builder
		for _, p := range parts {
			if p.Type == "text" {
				text.WriteString(p.Text)
			}
		}
		*c = contentText(text.String())
	}
	return nil
}

// tokenCount is a token count that tolerates null and fractional numbers,
// so that an odd usage object never costs the answer.
type tokenCount int

func (t *tokenCount) UnmarshalJSON(b []byte) error {
	var f float64
	if json.Unmarshal(b, &f) == nil && f >= 0 && f < 1<<31 {
		*t = tokenCount(f)
	}
	return nil
}

// decodeCompletion turns a 200 body into a response, or into the error the
// body reports.
func (c *Client) decodeCompletion(data []byte, model string) (llm.Response, error) {
	var r chatResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return llm.Response{}, fmt.Errorf("openai: malformed response body: %w", err)
	}
	if !isNull(r.Error) && len(r.Error) > 0 || r.Object == "error" {
		return llm.Response{}, c.eventError(data)
	}
	if len(r.Choices) == 0 {
		return llm.Response{}, errors.New("openai: response has no choices")
	}
	ch := r.Choices[0]
	if len(ch.Error) > 0 && !isNull(ch.Error) {
		return llm.Response{}, c.eventError(ch.Error)
	}
	if r.Model != "" {
		model = r.Model
	}
	return llm.Response{Content: string(ch.Message.Content), Model: model, FinishReason: finishReason(ch.FinishReason), Usage: usageOf(r.Usage, r.Timings)}, nil
}

// eventError turns an error object found in a 200 response into an error.
func (c *Client) eventError(data []byte) error { return errorFromEvent(data, c.secrets) }

// readCapped reads all of r, failing with ErrTooLarge beyond limit bytes.
func readCapped(r io.Reader, limit int) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	if len(data) > limit {
		return nil, fmt.Errorf("%w: body over %d bytes", ErrTooLarge, limit)
	}
	return data, nil
}

// finishReason normalizes a provider's finish reason; see
// [llm.Response.FinishReason].
func finishReason(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "max_tokens", "max_output_tokens", "max_length", "model_length":
		return llm.FinishLength
	case "end_turn", "stop_sequence", "eos", "eos_token":
		return llm.FinishStop
	}
	return s
}
