package openai

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/duelogic/duelogic/llm"
	"github.com/google/go-cmp/cmp"
)

const okCompletion = `{"id":"chatcmpl-1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`

// captured is what a test server saw of a request.
type captured struct {
	path   string
	header http.Header
	body   map[string]any
}

// capture serves okCompletion (or a stream for stream requests) and records
// each request.
func capture(t *testing.T, got *captured) string {
	t.Helper()
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		got.path, got.header, got.body = r.URL.Path, r.Header.Clone(), nil
		if err := json.Unmarshal(data, &got.body); err != nil {
			t.Errorf("request body is not JSON: %v", err)
		}
		if got.body["stream"] == true {
			sse("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")(w, r)
			return
		}
		reply(200, "application/json", okCompletion)(w, r)
	})
	return s.URL
}

func ptr[T any](v T) *T { return &v }

func TestRequestBody(t *testing.T) {
	msgs := []llm.Message{{Role: llm.System, Content: "be brief"}, {Role: llm.User, Content: "hi"}}
	tests := []struct {
		name   string
		cfg    Config
		req    llm.Request
		stream bool
		want   map[string]any
	}{
		{
			name: "minimal: no temperature, no max tokens, no response_format",
			req:  llm.Request{Model: "gpt-4.1", Messages: msgs},
			want: map[string]any{"model": "gpt-4.1", "messages": []any{
				map[string]any{"role": "system", "content": "be brief"},
				map[string]any{"role": "user", "content": "hi"},
			}},
		},
		{
			name: "temperature 0 is sent",
			req:  llm.Request{Model: "m", Messages: msgs[1:], Temperature: ptr(0.0)},
			want: map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": "hi"}}, "temperature": 0.0},
		},
		{
			name: "max_tokens",
			req:  llm.Request{Model: "m", Messages: msgs[1:], MaxTokens: 64, Temperature: ptr(0.7)},
			want: map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": "hi"}}, "temperature": 0.7, "max_tokens": 64.0},
		},
		{
			name: "max_completion_tokens instead",
			cfg:  Config{UseMaxCompletionTokens: true},
			req:  llm.Request{Model: "m", Messages: msgs[1:], MaxTokens: 64},
			want: map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": "hi"}}, "max_completion_tokens": 64.0},
		},
		{
			name: "JSON mode",
			req:  llm.Request{Model: "m", Messages: msgs[1:], JSON: true},
			want: map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": "hi"}}, "response_format": map[string]any{"type": "json_object"}},
		},
		{
			name: "JSON mode with a schema",
			cfg:  Config{ResponseFormat: json.RawMessage(` {"type":"json_schema","json_schema":{"name":"r","schema":{"type":"object"}}} `)},
			req:  llm.Request{Model: "m", Messages: msgs[1:], JSON: true},
			want: map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": "hi"}}, "response_format": map[string]any{
				"type": "json_schema", "json_schema": map[string]any{"name": "r", "schema": map[string]any{"type": "object"}},
			}},
		},
		{
			name: "JSON mode with response_format switched off",
			cfg:  Config{ResponseFormat: json.RawMessage(`null`)},
			req:  llm.Request{Model: "m", Messages: msgs[1:], JSON: true},
			want: map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": "hi"}}},
		},
		{
			name:   "stream asks for usage",
			req:    llm.Request{Model: "m", Messages: msgs[1:]},
			stream: true,
			want: map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": "hi"}},
				"stream": true, "stream_options": map[string]any{"include_usage": true}},
		},
		{
			name: "ExtraBody adds fields; the request's own fields win",
			cfg: Config{ExtraBody: map[string]any{
				"provider":    map[string]any{"order": []string{"Anthropic"}},
				"top_k":       20,
				"model":       "overridden?",
				"temperature": 0.3,
			}},
			req: llm.Request{Model: "m", Messages: msgs[1:]},
			want: map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": "hi"}},
				"provider": map[string]any{"order": []any{"Anthropic"}}, "top_k": 20.0, "temperature": 0.3},
		},
		{
			name: "ExtraBody temperature loses to the request's",
			cfg:  Config{ExtraBody: map[string]any{"temperature": 0.3}},
			req:  llm.Request{Model: "m", Messages: msgs[1:], Temperature: ptr(0.0)},
			want: map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": "hi"}}, "temperature": 0.0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got captured
			cfg := tt.cfg
			cfg.BaseURL = capture(t, &got)
			c, _ := testClient(cfg)
			var err error
			if tt.stream {
				_, err = c.Stream(t.Context(), tt.req, nil)
			} else {
				_, err = c.Complete(t.Context(), tt.req)
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.body); diff != "" {
				t.Errorf("request body (-want +got):\n%s", diff)
			}
			if got.path != "/v1/chat/completions" {
				t.Errorf("path = %q, want /v1/chat/completions", got.path)
			}
		})
	}
}

func TestRequestHeaders(t *testing.T) {
	tests := []struct {
		name   string
		cfg    Config
		stream bool
		want   map[string]string // "" : header absent
	}{
		{
			name: "key and OpenRouter headers",
			cfg: Config{APIKey: "sk-or-v1-abc", Headers: http.Header{
				"HTTP-Referer": {"https://example.com/app"},
				"X-Title":      {"Duelogic"},
			}},
			want: map[string]string{
				"Authorization": "Bearer sk-or-v1-abc", "Http-Referer": "https://example.com/app", "X-Title": "Duelogic",
				"Content-Type": "application/json", "Accept": "application/json",
			},
		},
		{
			name: "no key: no Authorization",
			cfg:  Config{},
			want: map[string]string{"Authorization": "", "Content-Type": "application/json"},
		},
		{
			name: "an Authorization header of one's own when there is no key",
			cfg:  Config{Headers: http.Header{"Authorization": {"Basic dXNlcjpwYXNz"}}},
			want: map[string]string{"Authorization": "Basic dXNlcjpwYXNz"},
		},
		{
			name: "the key wins over a configured Authorization",
			cfg:  Config{APIKey: "sk-key", Headers: http.Header{"Authorization": {"Bearer other"}}},
			want: map[string]string{"Authorization": "Bearer sk-key"},
		},
		{
			name:   "streams accept event streams",
			stream: true,
			want:   map[string]string{"Accept": "text/event-stream"},
		},
		{
			name: "a header may replace the User-Agent",
			cfg:  Config{Headers: http.Header{"User-Agent": {"my-app/2"}}},
			want: map[string]string{"User-Agent": "my-app/2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got captured
			cfg := tt.cfg
			cfg.BaseURL = capture(t, &got)
			c, _ := testClient(cfg)
			var err error
			if tt.stream {
				_, err = c.Stream(t.Context(), userReq("hi"), nil)
			} else {
				_, err = c.Complete(t.Context(), userReq("hi"))
			}
			if err != nil {
				t.Fatal(err)
			}
			gotH := map[string]string{}
			for k := range tt.want {
				gotH[k] = got.header.Get(k)
			}
			if diff := cmp.Diff(tt.want, gotH); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConfigErrors(t *testing.T) {
	for name, cfg := range map[string]Config{
		"ResponseFormat not JSON": {BaseURL: "http://127.0.0.1:1/v1", ResponseFormat: json.RawMessage(`{nope`)},
		"ExtraBody not encodable": {BaseURL: "http://127.0.0.1:1/v1", ExtraBody: map[string]any{"f": func() {}}},
	} {
		t.Run(name, func(t *testing.T) {
			c, _ := testClient(cfg)
			if _, err := c.Complete(t.Context(), userReq("hi")); err == nil {
				t.Error("Complete succeeded, want a configuration error")
			}
		})
	}
}
