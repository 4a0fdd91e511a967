package openai

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/duelogic/duelogic/llm"
)

// TestUsageDetails: cached prompt tokens and reasoning tokens are read from
// the usage details OpenAI, vLLM and llama.cpp send, else from llama.cpp's
// timings, in a reply and at the end of a stream; counts that do not add
// up are held within their totals.
func TestUsageDetails(t *testing.T) {
	const choice = `"choices":[{"index":0,"message":{"role":"assistant","content":"x"},"finish_reason":"stop"}]`
	tests := []struct {
		name, usage string
		want        llm.Usage
	}{
		{"OpenAI", `"usage":{"prompt_tokens":100,"completion_tokens":30,"prompt_tokens_details":{"cached_tokens":64},"completion_tokens_details":{"reasoning_tokens":12}}`,
			llm.Usage{PromptTokens: 100, CompletionTokens: 30, CachedPromptTokens: 64, ReasoningTokens: 12}},
		{"llama.cpp", `"usage":{"prompt_tokens":24,"completion_tokens":8,"prompt_tokens_details":{"cached_tokens":23}},"timings":{"cache_n":23,"prompt_n":1}`,
			llm.Usage{PromptTokens: 24, CompletionTokens: 8, CachedPromptTokens: 23}},
		{"llama.cpp timings only", `"usage":{"prompt_tokens":24,"completion_tokens":8},"timings":{"cache_n":20,"prompt_n":4}`,
			llm.Usage{PromptTokens: 24, CompletionTokens: 8, CachedPromptTokens: 20}},
		{"no details", `"usage":{"prompt_tokens":5,"completion_tokens":2}`, llm.Usage{PromptTokens: 5, CompletionTokens: 2}},
		{"details beyond their totals", `"usage":{"prompt_tokens":5,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":9},"completion_tokens_details":{"reasoning_tokens":null}}`,
			llm.Usage{PromptTokens: 5, CompletionTokens: 2, CachedPromptTokens: 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"model":"m",` + choice + `,` + tt.usage + `}`
			c, _ := testClient(Config{BaseURL: serve(t, reply(200, "application/json", body)).URL})
			resp, err := c.Complete(t.Context(), userReq("x"))
			if err != nil || resp.Usage != tt.want {
				t.Errorf("Complete: usage %+v, %v; want %+v", resp.Usage, err, tt.want)
			}
			stream := `data: {"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}` + "\n\n" +
				`data: {"choices":[],` + tt.usage + "}\n\ndata: [DONE]\n\n"
			c, _ = testClient(Config{BaseURL: serve(t, sse(stream)).URL})
			resp, err = c.Stream(t.Context(), userReq("x"), nil)
			if err != nil || resp.Usage != tt.want {
				t.Errorf("Stream: usage %+v, %v; want %+v", resp.Usage, err, tt.want)
			}
		})
	}
}

// TestSlots reads a llama.cpp server's slots from /props at its root, and
// says ErrNoSlots for a server that does not report them.
func TestSlots(t *testing.T) {
	for _, tt := range []struct {
		name, path, body string
		status           int
		want             int
		err              error
	}{
		{"llama.cpp", "/props", `{"total_slots": 2, "n_ctx": 8192}`, 200, 2, nil},
		{"no such endpoint", "/props", `{"error": {"message": "not found"}}`, 404, 0, ErrNoSlots},
		{"no field", "/props", `{"n_ctx": 8192}`, 200, 0, ErrNoSlots},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != tt.path {
					w.WriteHeader(404)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			})
			c, _ := testClient(Config{BaseURL: srv.URL + "/v1"})
			n, err := c.Slots(t.Context())
			if n != tt.want || !errors.Is(err, tt.err) {
				t.Errorf("Slots = %d, %v; want %d, %v", n, err, tt.want, tt.err)
			}
		})
	}
}

// TestPromptCacheKey: the request's cache key goes out as prompt_cache_key
// when the client is told to send it (OpenAI's endpoint is), and not
// otherwise.
func TestPromptCacheKey(t *testing.T) {
	for _, tt := range []struct {
		name string
		on   bool
	}{{"sent", true}, {"not sent", false}} {
		t.Run(tt.name, func(t *testing.T) {
			var body map[string]any
			srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
				_ = json.NewDecoder(r.Body).Decode(&body)
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"x"},"finish_reason":"stop"}]}`)
			})
			c, _ := testClient(Config{BaseURL: srv.URL, PromptCacheKey: tt.on})
			req := userReq("x")
			req.CacheKey = "dl-123"
			if _, err := c.Complete(t.Context(), req); err != nil {
				t.Fatal(err)
			}
			if got, ok := body["prompt_cache_key"]; ok != tt.on || tt.on && got != "dl-123" {
				t.Errorf("prompt_cache_key = %v (present %t), want present %t", got, ok, tt.on)
			}
		})
	}
	if c := New(Config{APIKey: "k"}); !c.cacheKey {
		t.Error("OpenAI's own endpoint does not get the cache key")
	}
}
