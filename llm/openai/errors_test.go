package openai

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/duelogic/duelogic/internal/httperr"
	"github.com/duelogic/duelogic/llm"
	"github.com/google/go-cmp/cmp"
)

func TestNewAPIError(t *testing.T) {
	tests := []struct {
		name   string
		status int
		header http.Header
		body   string
		want   *APIError
	}{
		{
			name:   "OpenAI, string code",
			status: 429,
			header: http.Header{"X-Request-Id": {"req_abc"}, "Retry-After-Ms": {"1500"}},
			body:   `{"error":{"message":"Rate limit reached for gpt-4o","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
			want:   &APIError{StatusCode: 429, Type: "requests", Code: "rate_limit_exceeded", Message: "Rate limit reached for gpt-4o", RequestID: "req_abc", RetryAfter: 1500 * time.Millisecond},
		},
		{
			name:   "OpenAI, null code and param",
			status: 401,
			body:   `{"error":{"message":"Incorrect API key provided: sk-abc***xyz.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			want:   &APIError{StatusCode: 401, Type: "invalid_request_error", Code: "invalid_api_key", Message: "Incorrect API key provided: sk-abc***xyz."},
		},
		{
			name:   "OpenAI, param",
			status: 400,
			body:   `{"error":{"message":"Unsupported value","type":"invalid_request_error","param":"temperature","code":null}}`,
			want:   &APIError{StatusCode: 400, Type: "invalid_request_error", Param: "temperature", Message: "Unsupported value"},
		},
		{
			name:   "OpenRouter, numeric code and metadata",
			status: 502,
			header: http.Header{"X-Generation-Id": {"gen-123"}},
			body:   `{"error":{"code":502,"message":"Provider returned error","metadata":{"provider_name":"Anthropic","raw":"{\"type\":\"overloaded_error\"}"}}}`,
			want: &APIError{StatusCode: 502, Code: "502", Message: "Provider returned error", RequestID: "gen-123", Provider: "Anthropic",
				Metadata: []byte(`{"provider_name":"Anthropic","raw":"{\"type\":\"overloaded_error\"}"}`)},
		},
		{
			name:   "OpenRouter, out of credits",
			status: 402,
			body:   `{"error":{"code":402,"message":"Insufficient credits. Add more using https://openrouter.ai/credits"}}`,
			want:   &APIError{StatusCode: 402, Code: "402", Message: "Insufficient credits. Add more using https://openrouter.ai/credits"},
		},
		{
			name:   "vLLM, top-level error object",
			status: 404,
			body:   `{"object":"error","message":"The model ` + "`gpt-5`" + ` does not exist.","type":"NotFoundError","param":null,"code":404}`,
			want:   &APIError{StatusCode: 404, Type: "NotFoundError", Code: "404", Message: "The model `gpt-5` does not exist."},
		},
		{
			name:   "vLLM, newer nested shape",
			status: 400,
			body:   `{"error":{"message":"max_tokens must be at least 1, got 0.","type":"BadRequestError","param":null,"code":400}}`,
			want:   &APIError{StatusCode: 400, Type: "BadRequestError", Code: "400", Message: "max_tokens must be at least 1, got 0."},
		},
		{
			name:   "FastAPI detail string",
			status: 404,
			body:   `{"detail":"Not Found"}`,
			want:   &APIError{StatusCode: 404, Message: "Not Found"},
		},
		{
			name:   "FastAPI validation errors",
			status: 422,
			body:   `{"detail":[{"loc":["body","messages"],"msg":"field required","type":"value_error.missing"},{"loc":["body","model"],"msg":"str type expected","type":"type_error.str"}]}`,
			want:   &APIError{StatusCode: 422, Message: "field required; str type expected"},
		},
		{
			name:   "Ollama and LM Studio: error as a string",
			status: 404,
			body:   `{"error":"model \"llama9\" not found, try pulling it first"}`,
			want:   &APIError{StatusCode: 404, Message: `model "llama9" not found, try pulling it first`},
		},
		{
			name:   "llama.cpp",
			status: 400,
			body:   `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}}`,
			want: &APIError{StatusCode: 400, Type: "exceed_context_size_error", Code: "400", Message: "the request exceeds the available context size, try increasing it",
				PromptTokens: 5000, ContextTokens: 4096},
		},
		{
			name:   "Google, a list with a status",
			status: 400,
			body:   `[{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT"}}]`,
			want:   &APIError{StatusCode: 400, Type: "INVALID_ARGUMENT", Code: "400", Message: "API key not valid."},
		},
		{
			name:   "plain text",
			status: 500,
			body:   "Internal Server Error\n",
			want:   &APIError{StatusCode: 500, Message: "Internal Server Error"},
		},
		{
			name:   "HTML page from a proxy",
			status: 502,
			header: http.Header{"Cf-Ray": {"8f1e2d3c4b5a6978-FRA"}},
			body:   "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>",
			want:   &APIError{StatusCode: 502, Message: "502 Bad Gateway", RequestID: "8f1e2d3c4b5a6978-FRA"},
		},
		{
			name:   "empty body",
			status: 503,
			want:   &APIError{StatusCode: 503, Message: "Service Unavailable"},
		},
		{
			name:   "JSON of another shape",
			status: 500,
			body:   `{"status":"down"}`,
			want:   &APIError{StatusCode: 500, Message: `{"status":"down"}`},
		},
		{
			name:   "error null falls back to the text",
			status: 500,
			body:   `{"error":null}`,
			want:   &APIError{StatusCode: 500, Message: `{"error":null}`},
		},
		{
			name:   "message that is not a string",
			status: 400,
			body:   `{"error":{"message":{"detail":"x"},"code":true}}`,
			want:   &APIError{StatusCode: 400, Code: "true", Message: `{"detail":"x"}`},
		},
		{
			name:   "a long message is cut",
			status: 400,
			body:   `{"error":{"message":"` + strings.Repeat("é", 3000) + `"}}`,
			want:   &APIError{StatusCode: 400, Message: strings.Repeat("é", maxMessageLen/2) + "…"},
		},
		{
			name:   "invalid UTF-8 is replaced",
			status: 500,
			body:   "bad \xff byte",
			want:   &APIError{StatusCode: 500, Message: "bad \uFFFD byte"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := newAPIError(tt.status, tt.header, []byte(tt.body), fixedNow, nil)
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(APIError{})); diff != "" {
				t.Errorf("newAPIError (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	tests := []struct {
		name   string
		header http.Header
		want   time.Duration
	}{
		{"none", http.Header{}, 0},
		{"seconds", http.Header{"Retry-After": {"3"}}, 3 * time.Second},
		{"fractional seconds", http.Header{"Retry-After": {"0.25"}}, 250 * time.Millisecond},
		{"milliseconds win", http.Header{"Retry-After-Ms": {"1200"}, "Retry-After": {"9"}}, 1200 * time.Millisecond},
		{"bad milliseconds fall back", http.Header{"Retry-After-Ms": {"soon"}, "Retry-After": {"2"}}, 2 * time.Second},
		{"HTTP date", http.Header{"Retry-After": {fixedNow.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second},
		{"date in the past", http.Header{"Retry-After": {fixedNow.Add(-time.Hour).Format(http.TimeFormat)}}, 0},
		{"zero", http.Header{"Retry-After": {"0"}}, 0},
		{"negative", http.Header{"Retry-After": {"-5"}}, 0},
		{"garbage", http.Header{"Retry-After": {"tomorrow"}}, 0},
		{"NaN", http.Header{"Retry-After": {"NaN"}}, 0},
		{"huge is clamped, not overflowed", http.Header{"Retry-After": {"1e300"}}, 7 * 24 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := httperr.RetryAfter(tt.header, fixedNow); got != tt.want {
				t.Errorf("retryAfter = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestAPIErrorRetryable(t *testing.T) {
	tests := []struct {
		err  *APIError
		want bool
	}{
		{&APIError{StatusCode: 400}, false},
		{&APIError{StatusCode: 401}, false},
		{&APIError{StatusCode: 402}, false},
		{&APIError{StatusCode: 403}, false},
		{&APIError{StatusCode: 404}, false},
		{&APIError{StatusCode: 408}, true},
		{&APIError{StatusCode: 409}, true},
		{&APIError{StatusCode: 422}, false},
		{&APIError{StatusCode: 429}, true},
		{&APIError{StatusCode: 500}, true},
		{&APIError{StatusCode: 502}, true},
		{&APIError{StatusCode: 503}, true},
		{&APIError{StatusCode: 529}, true},
		{&APIError{StatusCode: 500, shouldRetry: -1}, false},
		{&APIError{StatusCode: 400, shouldRetry: 1}, true},
		{&APIError{Type: "server_error"}, true},
		{&APIError{Code: "server_error"}, true},
		{&APIError{Type: "rate_limit_error"}, true},
		{&APIError{Type: "invalid_request_error"}, false},
		{&APIError{}, false},
	}
	for _, tt := range tests {
		if got := tt.err.Retryable(); got != tt.want {
			t.Errorf("%+v.Retryable() = %v, want %v", *tt.err, got, tt.want)
		}
		if got := llm.IsRetryable(fmt.Errorf("wrapped: %w", tt.err)); got != tt.want {
			t.Errorf("llm.IsRetryable(%+v) = %v, want %v", *tt.err, got, tt.want)
		}
	}
	e := &APIError{StatusCode: 429, RetryAfter: 3 * time.Second}
	if got := llm.RetryDelay(e); got != 3*time.Second {
		t.Errorf("llm.RetryDelay = %v, want 3s", got)
	}
}

func TestAPIErrorString(t *testing.T) {
	tests := []struct {
		err  *APIError
		want string
	}{
		{
			&APIError{StatusCode: 429, Type: "rate_limit_error", Code: "rate_limit_exceeded", Message: "slow down", RequestID: "req_1", RetryAfter: 3 * time.Second},
			"openai: HTTP 429 Too Many Requests: slow down (type rate_limit_error, code rate_limit_exceeded, request req_1, retry after 3s)",
		},
		{
			&APIError{StatusCode: 402, Code: "402", Message: "Insufficient credits", Provider: "OpenAI"},
			"openai: HTTP 402 Payment Required: Insufficient credits (provider OpenAI)",
		},
		{
			&APIError{Type: "server_error", Message: "boom"},
			"openai: server error: boom (type server_error)",
		},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q\nwant      %q", got, tt.want)
		}
	}
}

// TestSecretsNeverShow checks errors, logs and String forms for the key and
// credential header values, including when the server echoes them.
func TestSecretsNeverShow(t *testing.T) {
	const key = "sk-proj-SECRETKEY0123456789"
	const token = "cf-access-TOKEN-abcdef"
	echo := func(w http.ResponseWriter, r *http.Request) {
		body := fmt.Sprintf(`{"error":{"message":"bad key %s, headers %v","type":"%s","metadata":{"echo":"%s"}}}`,
			r.Header.Get("Authorization"), r.Header, key, r.Header.Get("Cf-Access-Token"))
		w.Header().Set("X-Request-Id", "req-"+key)
		w.WriteHeader(500)
		fmt.Fprint(w, body)
	}
	plain := func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(401)
		fmt.Fprintf(w, "invalid token: Bearer %s", key)
	}
	long := func(w http.ResponseWriter, r *http.Request) {
		// The key straddles the point where the message is cut.
		w.WriteHeader(400)
		fmt.Fprintf(w, `{"error":{"message":"%s%s"}}`, strings.Repeat("x", maxMessageLen-6), key)
	}
	var logs strings.Builder
	for name, h := range map[string]http.HandlerFunc{"JSON echo": echo, "text echo": plain, "cut message": long} {
		t.Run(name, func(t *testing.T) {
			srv := serve(t, h)
			cfg := Config{
				BaseURL: srv.URL + "/v1?key=" + key, APIKey: key,
				Headers: http.Header{"Cf-Access-Token": {token}, "X-Title": {"Duelogic"}},
				Logger:  slog.New(slog.NewTextHandler(&logs, nil)),
			}
			c, _ := testClient(cfg)
			_, err := c.Complete(t.Context(), llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.User, Content: "my body " + key}}})
			if err == nil {
				t.Fatal("no error")
			}
			_, serr := c.Stream(t.Context(), userReq("hi"), nil)
			var apiErr *APIError
			errors.As(err, &apiErr)
			texts := map[string]string{
				"Complete error": err.Error(), "Stream error": fmt.Sprint(serr),
				"APIError %+v": fmt.Sprintf("%+v", apiErr), "metadata": string(apiErr.Metadata),
				"logs": logs.String(), "Config %v": fmt.Sprintf("%v", cfg), "Config %+v": fmt.Sprintf("%+v", cfg),
				"Config %#v": fmt.Sprintf("%#v", cfg), "Config %s": fmt.Sprintf("%s", cfg), //lint:ignore S1025 the test checks what %s prints
				"Client %v": fmt.Sprintf("%v", c), "Client %+v": fmt.Sprintf("%+v", c), "Client %#v": fmt.Sprintf("%#v", c),
				"slog Config": logValue(cfg),
			}
			for what, text := range texts {
				for _, secret := range []string{key, token, "SECRETKEY", "sk-proj"} {
					if strings.Contains(text, secret) {
						t.Errorf("%s shows a secret: %s", what, text)
					}
				}
			}
			if !strings.Contains(err.Error(), "[redacted]") && name == "JSON echo" {
				t.Errorf("error %q: want the echoed key replaced by [redacted]", err)
			}
		})
	}
	if !strings.Contains(logs.String(), "retrying") {
		t.Errorf("no retry was logged: %q", logs.String())
	}
}

func logValue(cfg Config) string {
	var b strings.Builder
	slog.New(slog.NewJSONHandler(&b, nil)).Info("config", "cfg", cfg)
	return b.String()
}

func TestConfigString(t *testing.T) {
	cfg := Config{
		BaseURL: "https://user:pw@openrouter.ai/api/v1?k=v", APIKey: "sk-x-1234",
		Headers:   http.Header{"X-Title": {"Duelogic"}, "HTTP-Referer": {"https://example.com"}},
		ExtraBody: map[string]any{"provider": nil, "top_k": 1}, MaxRetries: 3, IdleTimeout: time.Minute,
	}
	want := `openai.Config{BaseURL: "https://user:xxxxx@openrouter.ai/api/v1?[redacted]", APIKey: [redacted], Headers: [Http-Referer X-Title], MaxRetries: 3, ExtraBody: [provider top_k], IdleTimeout: 1m0s}`
	if got := cfg.String(); got != want {
		t.Errorf("String() = %s\nwant       %s", got, want)
	}
	if got := (Config{}).String(); got != `openai.Config{BaseURL: "", APIKey: "", MaxRetries: 0}` {
		t.Errorf("zero Config String() = %s", got)
	}
	if got := New(cfg).String(); !strings.HasPrefix(got, "openai.Client{BaseURL: ") || strings.Contains(got, "sk-x") {
		t.Errorf("Client String() = %s", got)
	}
}
