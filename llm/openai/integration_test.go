package openai

// Integration tests against aimock (npm @copilotkit/aimock), an independent
// OpenAI-compatible mock server, serving the fixtures in testdata/aimock.
// Start it with `source .ci/aimock.sh` (or `.ci/aimock.sh go test ...`),
// which sets DUELOGIC_AIMOCK_URL; without it these tests skip.
//
// Each test sends its own X-Test-Id, which scopes aimock's per-fixture
// sequence counters and request journal, so the tests can be rerun against
// the same server. The journal shows what aimock received.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/duelogic/duelogic/llm"
	"github.com/google/go-cmp/cmp"
)

// aimockKey is the only key .ci/aimock.sh lets aimock accept.
const aimockKey = "sk-aimock-test-key"

// aimockServer returns the server's URL and a test ID unique to this run.
func aimockServer(t *testing.T) (base, testID string) {
	t.Helper()
	base = os.Getenv("DUELOGIC_AIMOCK_URL")
	if base == "" {
		t.Skip("DUELOGIC_AIMOCK_URL not set: run `source .ci/aimock.sh` or `.ci/aimock.sh go test ./llm/openai/` for the aimock integration tests")
	}
	return strings.TrimRight(base, "/"), fmt.Sprintf("%s-%d", strings.ReplaceAll(t.Name(), "/", "_"), time.Now().UnixNano())
}

// aimockClient is a test client (no real sleeps) for baseURL that tags its
// requests with testID.
func aimockClient(cfg Config, baseURL, testID string) (*Client, *sleepLog) {
	cfg.BaseURL = baseURL
	cfg.APIKey = aimockKey
	cfg.Headers = cfg.Headers.Clone()
	if cfg.Headers == nil {
		cfg.Headers = http.Header{}
	}
	cfg.Headers.Set("X-Test-Id", testID)
	return testClient(cfg)
}

type journalEntry struct {
	Path     string            `json:"path"`
	Headers  map[string]string `json:"headers"`
	Body     map[string]any    `json:"body"`
	Response struct {
		Status          int    `json:"status"`
		Interrupted     bool   `json:"interrupted"`
		InterruptReason string `json:"interruptReason"`
	} `json:"response"`
}

// journal returns what aimock recorded for testID, oldest first.
func journal(t *testing.T, base, testID string) []journalEntry {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/__aimock/journal?testId="+url.QueryEscape(testID), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+aimockKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("reading aimock's journal: %v", err)
	}
	defer resp.Body.Close()
	var entries []journalEntry
	if err := json.NewDecoder(resp.Body).Decode(&entries); err != nil {
		t.Fatalf("decoding aimock's journal: %v", err)
	}
	return entries
}

func statuses(entries []journalEntry) []int {
	var out []int
	for _, e := range entries {
		out = append(out, e.Response.Status)
	}
	return out
}

func TestAimockComplete(t *testing.T) {
	base, id := aimockServer(t)
	c, _ := aimockClient(Config{Headers: http.Header{"X-Title": {"Duelogic"}}}, base+"/v1", id)
	got, err := c.Complete(t.Context(), llm.Request{Model: "gpt-4o", Messages: []llm.Message{
		{Role: llm.System, Content: "Be brief."}, {Role: llm.User, Content: "itest-plain"}}, Temperature: ptr(0.0), MaxTokens: 64})
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Response{Content: "Hello from aimock.", Model: "aimock-model-1", FinishReason: "stop", Usage: llm.Usage{PromptTokens: 12, CompletionTokens: 5}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
	j := journal(t, base, id)
	if len(j) != 1 {
		t.Fatalf("aimock saw %d requests, want 1", len(j))
	}
	e := j[0]
	if e.Path != "/v1/chat/completions" || e.Body["temperature"] != 0.0 || e.Body["max_tokens"] != 64.0 || e.Body["stream"] != nil {
		t.Errorf("aimock saw %s %v", e.Path, e.Body)
	}
	// aimock's journal hides the Authorization header; that aimock accepted
	// the key is shown by the success above and TestAimockWrongKey.
	if e.Headers["x-title"] != "Duelogic" || e.Headers["content-type"] != "application/json" {
		t.Errorf("aimock saw headers %v", e.Headers)
	}
}

func TestAimockWrongKey(t *testing.T) {
	base, id := aimockServer(t)
	const wrong = "sk-wrong-key-0123456789"
	c, sleeps := aimockClient(Config{}, base+"/v1", id)
	c.apiKey, c.secrets = wrong, []string{wrong}
	_, err := c.Complete(t.Context(), userReq("itest-plain"))
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 401 || apiErr.Type != "authentication_error" || apiErr.Code != "invalid_api_key" {
		t.Fatalf("error = %v, want aimock's 401", err)
	}
	if len(sleeps.got()) != 0 || strings.Contains(err.Error(), wrong) {
		t.Errorf("error %q, waits %v: want a final error without the key", err, sleeps.got())
	}
}

func TestAimockStream(t *testing.T) {
	base, id := aimockServer(t)
	c, _ := aimockClient(Config{}, base, id) // no /v1: the client adds it
	var deltas []string
	got, err := c.Stream(t.Context(), llm.Request{Model: "gpt-4o", Messages: []llm.Message{{Role: llm.User, Content: "itest-stream"}}}, collect(&deltas))
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Response{Content: "The quick brown fox jumps over the lazy dog.", Model: "gpt-4o", FinishReason: "stop", Usage: llm.Usage{PromptTokens: 21, CompletionTokens: 10}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
	if len(deltas) < 2 || strings.Join(deltas, "") != want.Content {
		t.Errorf("deltas %q: want several, adding up to the content", deltas)
	}
	j := journal(t, base, id)
	if len(j) != 1 || j[0].Body["stream"] != true || !cmp.Equal(j[0].Body["stream_options"], map[string]any{"include_usage": true}) {
		t.Errorf("aimock saw %+v", j)
	}
}

func TestAimockJSONMode(t *testing.T) {
	base, id := aimockServer(t)
	c, _ := aimockClient(Config{}, base+"/v1/", id)
	req := llm.Request{Model: "gpt-4o", Messages: []llm.Message{{Role: llm.User, Content: "itest-json"}}, JSON: true}
	for _, stream := range []bool{false, true} {
		var got llm.Response
		var err error
		if stream {
			got, err = c.Stream(t.Context(), req, nil)
		} else {
			got, err = c.Complete(t.Context(), req)
		}
		if err != nil {
			t.Fatal(err)
		}
		var v struct {
			Winner string `json:"winner"`
			Score  int    `json:"score"`
		}
		if err := json.Unmarshal([]byte(got.Content), &v); err != nil || v.Winner != "pro" || v.Score != 7 {
			t.Errorf("stream=%v: content %q (%v): want the JSON fixture, served only for response_format json_object", stream, got.Content, err)
		}
	}
}

func TestAimockRateLimitThenSuccess(t *testing.T) {
	base, id := aimockServer(t)
	c, sleeps := aimockClient(Config{}, base+"/v1", id)
	got, err := c.Complete(t.Context(), userReq("itest-429"))
	if err != nil || got.Content != "recovered after 429" {
		t.Fatalf("got %+v, %v", got, err)
	}
	if diff := cmp.Diff([]time.Duration{3 * time.Second}, sleeps.got()); diff != "" {
		t.Errorf("waits (-want +got): the Retry-After of aimock's 429:\n%s", diff)
	}
	if diff := cmp.Diff([]int{429, 200}, statuses(journal(t, base, id))); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
}

func TestAimockRateLimitError(t *testing.T) {
	base, id := aimockServer(t)
	c, _ := aimockClient(Config{MaxRetries: -1}, base+"/v1", id)
	_, err := c.Complete(t.Context(), userReq("itest-429"))
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("error = %v, want an APIError", err)
	}
	if apiErr.StatusCode != 429 || apiErr.Type != "rate_limit_error" || apiErr.Code != "rate_limit_exceeded" ||
		apiErr.RetryAfter != 3*time.Second || !strings.HasPrefix(apiErr.RequestID, "req-") || !llm.IsRetryable(err) {
		t.Errorf("APIError %+v", *apiErr)
	}
}

func TestAimockUnavailableThenSuccess(t *testing.T) {
	base, id := aimockServer(t)
	c, sleeps := aimockClient(Config{}, base+"/v1", id)
	got, err := c.Stream(t.Context(), userReq("itest-503"), nil)
	if err != nil || got.Content != "recovered after 503" {
		t.Fatalf("got %+v, %v", got, err)
	}
	if diff := cmp.Diff([]time.Duration{initialBackoff}, sleeps.got()); diff != "" {
		t.Errorf("waits (-want +got): backoff, since aimock's 503 has no Retry-After:\n%s", diff)
	}
	if diff := cmp.Diff([]int{503, 200}, statuses(journal(t, base, id))); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
}

func TestAimockBadRequestIsFinal(t *testing.T) {
	base, id := aimockServer(t)
	c, sleeps := aimockClient(Config{}, base+"/v1", id)
	_, err := c.Complete(t.Context(), userReq("itest-400"))
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Type != "invalid_request_error" ||
		apiErr.Code != "invalid_value" || apiErr.Message != "Invalid value for 'messages'" {
		t.Fatalf("error = %v", err)
	}
	if len(sleeps.got()) != 0 || len(journal(t, base, id)) != 1 {
		t.Errorf("a 400 was retried")
	}
	if strings.Contains(err.Error(), aimockKey) {
		t.Errorf("error %q shows the key", err)
	}
}

func TestAimockNoFixture(t *testing.T) {
	base, id := aimockServer(t)
	c, sleeps := aimockClient(Config{}, base+"/v1", id)
	_, err := c.Complete(t.Context(), userReq("itest-nothing-matches-this"))
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 || apiErr.Code != "no_fixture_match" || len(sleeps.got()) != 0 {
		t.Errorf("error = %v, waits %v: want a final 404", err, sleeps.got())
	}
}

func TestAimockTruncatedStream(t *testing.T) {
	base, id := aimockServer(t)
	c, sleeps := aimockClient(Config{}, base+"/v1", id)
	const full = "one two three four five six seven eight nine ten eleven twelve"
	got, err := c.Stream(t.Context(), userReq("itest-truncate"), nil)
	if !errors.Is(err, ErrTruncated) {
		t.Fatalf("error = %v, want ErrTruncated", err)
	}
	var se *StreamError
	if !errors.As(err, &se) || se.Partial.Content != got.Content || !strings.HasPrefix(full, got.Content) || len(got.Content) >= len(full) {
		t.Errorf("partial %q: want a proper prefix of %q kept in the StreamError", got.Content, full)
	}
	j := journal(t, base, id)
	if len(sleeps.got()) != 0 || len(j) != 1 || !j[0].Response.Interrupted {
		t.Errorf("waits %v, journal %+v: want one interrupted request and no retry", sleeps.got(), j)
	}
}

func TestAimockCancelMidStream(t *testing.T) {
	base, id := aimockServer(t)
	c, _ := aimockClient(Config{}, base+"/v1", id)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	got, err := c.Stream(ctx, userReq("itest-truncate"), func(string) error { cancel(); return nil })
	if !errors.Is(err, context.Canceled) || got.Content == "" {
		t.Errorf("got %q, %v; want context.Canceled after the first delta", got.Content, err)
	}
}

func TestAimockDisconnect(t *testing.T) {
	base, id := aimockServer(t)
	c, sleeps := aimockClient(Config{}, base+"/v1", id)
	_, err := c.Complete(t.Context(), userReq("itest-disconnect"))
	var apiErr *APIError
	if err == nil || errors.As(err, &apiErr) {
		t.Fatalf("error = %v, want a connection error", err)
	}
	if llm.IsRetryable(err) || len(sleeps.got()) != 0 || len(journal(t, base, id)) != 1 {
		t.Errorf("a request aimock had read was retried (or reported retryable): %v, waits %v", err, sleeps.got())
	}
}

func TestAimockOpenRouter(t *testing.T) {
	base, id := aimockServer(t)
	cfg := Config{
		Headers:   http.Header{"HTTP-Referer": {"https://duelogic.example"}, "X-Title": {"Duelogic"}},
		ExtraBody: map[string]any{"provider": map[string]any{"order": []string{"Anthropic"}, "allow_fallbacks": false}},
	}
	c, _ := aimockClient(cfg, base+"/api/v1", id)
	req := llm.Request{Model: "anthropic/claude-sonnet-4", Messages: []llm.Message{{Role: llm.User, Content: "itest-openrouter"}}}
	want := llm.Response{Content: "Routed through the OpenRouter surface.", Model: "anthropic/claude-sonnet-4", FinishReason: "stop", Usage: llm.Usage{PromptTokens: 30, CompletionTokens: 7}}

	var deltas []string
	got, err := c.Stream(t.Context(), req, collect(&deltas))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stream response (-want +got):\n%s", diff)
	}
	if len(deltas) < 2 {
		t.Errorf("deltas %q", deltas)
	}
	got, err = c.Complete(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("complete response (-want +got):\n%s", diff)
	}
	for _, e := range journal(t, base, id) {
		if e.Path != "/api/v1/chat/completions" || e.Headers["http-referer"] != "https://duelogic.example" || e.Headers["x-title"] != "Duelogic" ||
			!cmp.Equal(e.Body["provider"], map[string]any{"order": []any{"Anthropic"}, "allow_fallbacks": false}) {
			t.Errorf("aimock saw %s %v %v", e.Path, e.Headers, e.Body)
		}
	}

	// The stream above did carry OpenRouter's keep-alive comment: look at the
	// raw bytes, so that the success above is not vacuous.
	body := `{"model":"anthropic/claude-sonnet-4","messages":[{"role":"user","content":"itest-openrouter"}],"stream":true}`
	hreq, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/api/v1/chat/completions", strings.NewReader(body))
	hreq.Header.Set("X-Test-Id", id)
	hreq.Header.Set("Authorization", "Bearer "+aimockKey)
	hresp, err := http.DefaultClient.Do(hreq)
	if err != nil {
		t.Fatal(err)
	}
	defer hresp.Body.Close()
	raw, _ := io.ReadAll(hresp.Body)
	if !strings.HasPrefix(string(raw), ": OPENROUTER PROCESSING\n") {
		t.Errorf("aimock's OpenRouter stream starts %q, want the keep-alive comment", raw[:min(len(raw), 60)])
	}
}

func TestAimockOpenRouterOutOfCredits(t *testing.T) {
	base, id := aimockServer(t)
	c, sleeps := aimockClient(Config{}, base+"/api/v1/", id)
	_, err := c.Complete(t.Context(), userReq("itest-402"))
	want := &APIError{StatusCode: 402, Code: "402", Message: "Insufficient credits", Provider: "OpenAI", Metadata: []byte(`{"provider_name":"OpenAI"}`)}
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("error = %v, want an APIError", err)
	}
	apiErr.RequestID = "" // minted by aimock
	if diff := cmp.Diff(want, apiErr, cmp.AllowUnexported(APIError{})); diff != "" {
		t.Errorf("APIError (-want +got):\n%s", diff)
	}
	if len(sleeps.got()) != 0 || len(journal(t, base, id)) != 1 {
		t.Error("a 402 was retried")
	}
}

func TestAimockBaseURLForms(t *testing.T) {
	base, id := aimockServer(t)
	for _, b := range []string{base, base + "/", base + "/v1", base + "/v1/", base + "/v1/chat/completions", base + "/api/v1", base + "/api"} {
		c, _ := aimockClient(Config{}, b, id)
		got, err := c.Complete(t.Context(), userReq("itest-plain"))
		if err != nil || got.Content != "Hello from aimock." {
			t.Errorf("BaseURL %q: %+v, %v", b, got, err)
		}
	}
	var paths []string
	for _, e := range journal(t, base, id) {
		paths = append(paths, e.Path)
	}
	want := []string{"/v1/chat/completions", "/v1/chat/completions", "/v1/chat/completions", "/v1/chat/completions",
		"/v1/chat/completions", "/api/v1/chat/completions", "/api/v1/chat/completions"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("paths aimock saw (-want +got):\n%s", diff)
	}
}
