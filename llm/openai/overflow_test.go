package openai

import (
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/duelogic/duelogic/llm"
)

func TestContextOverflow(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		header   http.Header
		body     string
		overflow bool
		says     string // the error says this
	}{
		{
			name:   "llama.cpp, with the sizes",
			status: 400,
			body:   `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":10240,"n_ctx":8192}}`,
			// Even a server that says it may be retried is not.
			header:   http.Header{"X-Should-Retry": {"true"}},
			overflow: true,
			says:     "prompt 10240 tokens, context 8192 tokens",
		},
		{
			name:     "OpenAI",
			status:   400,
			body:     `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
			overflow: true,
			says:     "code context_length_exceeded",
		},
		{
			name:     "vLLM, a message only",
			status:   400,
			body:     `{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4500 in the messages, 500 in the completion).","type":"BadRequestError","param":null,"code":400}`,
			overflow: true,
		},
		{
			name:     "OpenRouter",
			status:   400,
			body:     `{"error":{"code":400,"message":"This endpoint's maximum context length is 32768 tokens. However, you requested about 40000 tokens."}}`,
			overflow: true,
		},
		{
			name:   "another 400",
			status: 400,
			body:   `{"error":{"message":"Invalid 'messages': empty array.","type":"invalid_request_error","param":"messages","code":"empty_array"}}`,
		},
		{
			name:   "a rate limit on tokens is not an overflow",
			status: 429,
			body:   `{"error":{"message":"Request too large for gpt-4o: the prompt is too long for your tier's tokens per minute","type":"tokens","code":"context_length_exceeded"}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hits atomic.Int32
			base := serve(t, func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				for k, vs := range tt.header {
					w.Header()[k] = vs
				}
				reply(tt.status, "application/json", tt.body)(w, r)
			}).URL
			c, _ := testClient(Config{BaseURL: base, MaxRetries: 1})
			_, err := c.Complete(t.Context(), userReq("a long prompt"))
			if got := errors.Is(err, llm.ErrContextOverflow); got != tt.overflow {
				t.Fatalf("errors.Is(%v, llm.ErrContextOverflow) = %v, want %v", err, got, tt.overflow)
			}
			if !tt.overflow {
				return
			}
			if llm.IsRetryable(err) || hits.Load() != 1 {
				t.Errorf("IsRetryable = %v after %d requests; want false after 1", llm.IsRetryable(err), hits.Load())
			}
			if !strings.Contains(err.Error(), tt.says) {
				t.Errorf("error %q does not say %q", err, tt.says)
			}
		})
	}
}

func TestContextOverflowInStream(t *testing.T) {
	body := chunk("Par") + `data: {"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":8192}}` + "\n\n"
	c, _ := testClient(Config{BaseURL: serve(t, sse(body)).URL})
	_, err := c.Stream(t.Context(), userReq("x"), nil)
	var se *StreamError
	if !errors.Is(err, llm.ErrContextOverflow) || !errors.As(err, &se) || llm.IsRetryable(err) {
		t.Errorf("Stream: %v; want a StreamError matching llm.ErrContextOverflow, not retryable", err)
	}
}
