package openai

// Replays of each server's real payload shapes (recorded from their
// documentation and sources): field order, extra fields, nulls, keep-alive
// comments and error shapes as each one sends them.

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/duelogic/duelogic/llm"
	"github.com/google/go-cmp/cmp"
)

// replay serves one recorded answer at path (and 404s elsewhere), recording
// the request.
func replay(t *testing.T, path string, status int, header http.Header, body string, got *captured) string {
	t.Helper()
	return serve(t, func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		if got != nil {
			got.path, got.header = r.URL.Path, r.Header.Clone()
			json.Unmarshal(data, &got.body)
		}
		if r.URL.Path != path {
			http.Error(w, "404 page not found", http.StatusNotFound)
			return
		}
		for k, vs := range header {
			w.Header()[k] = vs
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}).URL
}

var (
	sseHeader  = http.Header{"Content-Type": {"text/event-stream; charset=utf-8"}}
	jsonHeader = http.Header{"Content-Type": {"application/json"}}
)

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func TestOpenAI(t *testing.T) {
	t.Run("complete", func(t *testing.T) {
		body := `{
  "id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
  "object": "chat.completion",
  "created": 1741570283,
  "model": "gpt-4o-2024-08-06",
  "choices": [
    {
      "index": 0,
      "message": {
        "role": "assistant",
        "content": "Utility is not the only good.",
        "refusal": null,
        "annotations": []
      },
      "logprobs": null,
      "finish_reason": "stop"
    }
  ],
  "usage": {
    "prompt_tokens": 1117,
    "completion_tokens": 46,
    "total_tokens": 1163,
    "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
    "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}
  },
  "service_tier": "default",
  "system_fingerprint": "fp_fc9f1d7035"
}`
		var req captured
		base := replay(t, "/v1/chat/completions", 200, http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"req_1"}}, body, &req)
		c, _ := testClient(Config{BaseURL: base + "/v1", APIKey: "sk-test", UseMaxCompletionTokens: true})
		got, err := c.Complete(t.Context(), llm.Request{Model: "gpt-4o", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}, MaxTokens: 100, Temperature: ptr(0.0)})
		if err != nil {
			t.Fatal(err)
		}
		want := llm.Response{Content: "Utility is not the only good.", Model: "gpt-4o-2024-08-06", FinishReason: "stop", Usage: llm.Usage{PromptTokens: 1117, CompletionTokens: 46}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("response (-want +got):\n%s", diff)
		}
		if req.body["max_completion_tokens"] != 100.0 || req.body["temperature"] != 0.0 || req.header.Get("Authorization") != "Bearer sk-test" {
			t.Errorf("request body %v, Authorization %q", req.body, req.header.Get("Authorization"))
		}
	})
	t.Run("stream", func(t *testing.T) {
		body := lines(
			`data: {"id":"chatcmpl-BwoiPTGR","object":"chat.completion.chunk","created":1753357673,"model":"gpt-4.1-2025-04-14","service_tier":"default","system_fingerprint":"fp_51e1070cf2","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"kX9"}`, ``,
			`data: {"id":"chatcmpl-BwoiPTGR","object":"chat.completion.chunk","created":1753357673,"model":"gpt-4.1-2025-04-14","service_tier":"default","system_fingerprint":"fp_51e1070cf2","choices":[{"index":0,"delta":{"content":"The"},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"a1"}`, ``,
			`data: {"id":"chatcmpl-BwoiPTGR","object":"chat.completion.chunk","created":1753357673,"model":"gpt-4.1-2025-04-14","service_tier":"default","system_fingerprint":"fp_51e1070cf2","choices":[{"index":0,"delta":{"content":" answer"},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"b2"}`, ``,
			`data: {"id":"chatcmpl-BwoiPTGR","object":"chat.completion.chunk","created":1753357673,"model":"gpt-4.1-2025-04-14","service_tier":"default","system_fingerprint":"fp_51e1070cf2","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}`, ``,
			`data: {"id":"chatcmpl-BwoiPTGR","object":"chat.completion.chunk","created":1753357673,"model":"gpt-4.1-2025-04-14","service_tier":"default","system_fingerprint":"fp_51e1070cf2","choices":[],"usage":{"prompt_tokens":19,"completion_tokens":2,"total_tokens":21,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}`, ``,
			`data: [DONE]`, ``)
		base := replay(t, "/v1/chat/completions", 200, sseHeader, body, nil)
		c, _ := testClient(Config{BaseURL: base + "/v1/"})
		var deltas []string
		got, err := c.Stream(t.Context(), userReq("hi"), collect(&deltas))
		if err != nil {
			t.Fatal(err)
		}
		want := llm.Response{Content: "The answer", Model: "gpt-4.1-2025-04-14", FinishReason: "stop", Usage: llm.Usage{PromptTokens: 19, CompletionTokens: 2}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("response (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"The", " answer"}, deltas); diff != "" {
			t.Errorf("deltas (-want +got):\n%s", diff)
		}
	})
	t.Run("error mid-stream", func(t *testing.T) {
		body := lines(
			`data: {"id":"chatcmpl-Bw","object":"chat.completion.chunk","created":1753357673,"model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}`, ``,
			`data: {"id":"chatcmpl-Bw","object":"chat.completion.chunk","created":1753357673,"model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":{"content":"The question"},"logprobs":null,"finish_reason":null}],"usage":null}`, ``,
			`data: {"error": {"message": "The server had an error while processing your request. Sorry about that!", "type": "server_error"}}`, ``)
		base := replay(t, "/v1/chat/completions", 200, http.Header{"Content-Type": {"text/event-stream"}, "X-Request-Id": {"req_mid"}}, body, nil)
		c, _ := testClient(Config{BaseURL: base + "/v1"})
		got, err := c.Stream(t.Context(), userReq("hi"), nil)
		var se *StreamError
		var apiErr *APIError
		if !errors.As(err, &se) || !errors.As(err, &apiErr) {
			t.Fatalf("error = %v, want a StreamError holding an APIError", err)
		}
		if got.Content != "The question" || se.Partial.Content != "The question" || se.RequestID != "req_mid" || apiErr.RequestID != "req_mid" {
			t.Errorf("partial %q / %q, request IDs %q %q", got.Content, se.Partial.Content, se.RequestID, apiErr.RequestID)
		}
		if apiErr.Type != "server_error" || !llm.IsRetryable(err) {
			t.Errorf("APIError %+v: want a retryable server_error", apiErr)
		}
	})
	t.Run("rate limited", func(t *testing.T) {
		h := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"req_rl"}, "Retry-After-Ms": {"20"},
			"X-Ratelimit-Limit-Requests": {"500"}, "X-Ratelimit-Remaining-Requests": {"0"}}
		base := replay(t, "/v1/chat/completions", 429, h, `{
    "error": {
        "message": "Rate limit reached for gpt-4o in organization org-x on requests per min (RPM): Limit 500, Used 500, Requested 1.",
        "type": "requests",
        "param": null,
        "code": "rate_limit_exceeded"
    }
}`, nil)
		c, sleeps := testClient(Config{BaseURL: base + "/v1", MaxRetries: -1})
		_, err := c.Complete(t.Context(), userReq("hi"))
		want := &APIError{StatusCode: 429, Type: "requests", Code: "rate_limit_exceeded", RequestID: "req_rl", RetryAfter: 20_000_000,
			Message: "Rate limit reached for gpt-4o in organization org-x on requests per min (RPM): Limit 500, Used 500, Requested 1."}
		var apiErr *APIError
		errors.As(err, &apiErr)
		if diff := cmp.Diff(want, apiErr, cmp.AllowUnexported(APIError{})); diff != "" {
			t.Errorf("APIError (-want +got):\n%s", diff)
		}
		if len(sleeps.got()) != 0 {
			t.Error("retried with MaxRetries < 0")
		}
	})
}

func TestOpenRouter(t *testing.T) {
	cfg := func(base string) Config {
		return Config{
			BaseURL: base + "/api/v1", APIKey: "sk-or-v1-test",
			Headers:   http.Header{"HTTP-Referer": {"https://duelogic.example"}, "X-Title": {"Duelogic"}},
			ExtraBody: map[string]any{"provider": map[string]any{"order": []string{"anthropic"}, "allow_fallbacks": false}},
		}
	}
	t.Run("stream with comments, provider field and cost", func(t *testing.T) {
		body := lines(
			`: OPENROUTER PROCESSING`, ``,
			`: OPENROUTER PROCESSING`, ``,
			`data: {"id":"gen-1747","provider":"Anthropic","model":"anthropic/claude-sonnet-4","object":"chat.completion.chunk","created":1747000000,"choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning":null},"finish_reason":null,"native_finish_reason":null,"logprobs":null}]}`, ``,
			`: OPENROUTER PROCESSING`, ``,
			`data: {"id":"gen-1747","provider":"Anthropic","model":"anthropic/claude-sonnet-4","object":"chat.completion.chunk","created":1747000000,"choices":[{"index":0,"delta":{"role":"assistant","content":"Virtue","reasoning":null},"finish_reason":null,"native_finish_reason":null,"logprobs":null}]}`, ``,
			`data: {"id":"gen-1747","provider":"Anthropic","model":"anthropic/claude-sonnet-4","object":"chat.completion.chunk","created":1747000000,"choices":[{"index":0,"delta":{"role":"assistant","content":" matters.","reasoning":null},"finish_reason":null,"native_finish_reason":null,"logprobs":null}]}`, ``,
			`data: {"id":"gen-1747","provider":"Anthropic","model":"anthropic/claude-sonnet-4","object":"chat.completion.chunk","created":1747000000,"choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning":null},"finish_reason":"stop","native_finish_reason":"end_turn","logprobs":null}]}`, ``,
			`data: {"id":"gen-1747","provider":"Anthropic","model":"anthropic/claude-sonnet-4","object":"chat.completion.chunk","created":1747000000,"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null,"native_finish_reason":null,"logprobs":null}],"usage":{"prompt_tokens":42,"completion_tokens":4,"total_tokens":46,"cost":0.000186,"is_byok":false,"prompt_tokens_details":{"cached_tokens":0},"cost_details":{"upstream_inference_cost":null},"completion_tokens_details":{"reasoning_tokens":0}}}`, ``,
			`data: [DONE]`, ``)
		var req captured
		base := replay(t, "/api/v1/chat/completions", 200, http.Header{"Content-Type": {"text/event-stream"}, "X-Generation-Id": {"gen-1747"}}, body, &req)
		c, _ := testClient(cfg(base))
		var deltas []string
		got, err := c.Stream(t.Context(), llm.Request{Model: "anthropic/claude-sonnet-4", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}, collect(&deltas))
		if err != nil {
			t.Fatal(err)
		}
		want := llm.Response{Content: "Virtue matters.", Model: "anthropic/claude-sonnet-4", FinishReason: "stop", Usage: llm.Usage{PromptTokens: 42, CompletionTokens: 4}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("response (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"Virtue", " matters."}, deltas); diff != "" {
			t.Errorf("deltas (-want +got):\n%s", diff)
		}
		wantProvider := map[string]any{"order": []any{"anthropic"}, "allow_fallbacks": false}
		if diff := cmp.Diff(wantProvider, req.body["provider"]); diff != "" {
			t.Errorf("provider field (-want +got):\n%s", diff)
		}
		if req.header.Get("HTTP-Referer") != "https://duelogic.example" || req.header.Get("X-Title") != "Duelogic" {
			t.Errorf("attribution headers: %v", req.header)
		}
	})
	t.Run("error mid-stream", func(t *testing.T) {
		body := lines(
			`: OPENROUTER PROCESSING`, ``,
			`data: {"id":"cmpl-abc123","object":"chat.completion.chunk","created":1234567890,"model":"gpt-3.5-turbo","provider":"openai","choices":[{"index":0,"delta":{"role":"assistant","content":"Part"},"finish_reason":null}]}`, ``,
			`data: {"id":"cmpl-abc123","object":"chat.completion.chunk","created":1234567890,"model":"gpt-3.5-turbo","provider":"openai","error":{"code":"server_error","message":"Provider disconnected unexpectedly"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}`, ``)
		base := replay(t, "/api/v1/chat/completions", 200, sseHeader, body, nil)
		c, _ := testClient(cfg(base))
		got, err := c.Stream(t.Context(), userReq("hi"), nil)
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.Code != "server_error" || apiErr.Message != "Provider disconnected unexpectedly" {
			t.Fatalf("error = %v, want OpenRouter's server_error", err)
		}
		if got.Content != "Part" || got.FinishReason != "error" {
			t.Errorf("partial response %+v", got)
		}
	})
	t.Run("error mid-stream with a numeric code", func(t *testing.T) {
		body := lines(
			`data: {"id":"gen-2","object":"chat.completion.chunk","model":"openai/gpt-4o","provider":"OpenAI","choices":[{"index":0,"delta":{"content":"Par"},"finish_reason":null}]}`, ``,
			`data: {"id":"gen-2","object":"chat.completion.chunk","model":"openai/gpt-4o","provider":"OpenAI","error":{"code":502,"message":"Provider returned error","metadata":{"provider_name":"OpenAI","raw":"upstream reset"}},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}`, ``)
		base := replay(t, "/api/v1/chat/completions", 200, sseHeader, body, nil)
		c, _ := testClient(cfg(base))
		_, err := c.Stream(t.Context(), userReq("hi"), nil)
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 502 || apiErr.Provider != "OpenAI" || !llm.IsRetryable(err) {
			t.Fatalf("error = %v (%+v), want a retryable 502 from provider OpenAI", err, apiErr)
		}
	})
	t.Run("complete with leading keep-alive whitespace", func(t *testing.T) {
		body := "\n\n\n" + `{"id":"gen-9","provider":"Google","model":"google/gemini-2.5-flash","object":"chat.completion","created":1747000000,"choices":[{"logprobs":null,"finish_reason":"stop","native_finish_reason":"STOP","index":0,"message":{"role":"assistant","content":"Care ethics.","refusal":null,"reasoning":null}}],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15,"cost":0.0000111}}`
		base := replay(t, "/api/v1/chat/completions", 200, jsonHeader, body, nil)
		c, _ := testClient(cfg(base))
		got, err := c.Complete(t.Context(), userReq("hi"))
		want := llm.Response{Content: "Care ethics.", Model: "google/gemini-2.5-flash", FinishReason: "stop", Usage: llm.Usage{PromptTokens: 12, CompletionTokens: 3}}
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("response (-want +got):\n%s", diff)
		}
	})
	t.Run("error in a 200 body", func(t *testing.T) {
		body := `{"error":{"message":"No endpoints found that support the requested parameters","code":404}}`
		base := replay(t, "/api/v1/chat/completions", 200, jsonHeader, body, nil)
		c, _ := testClient(cfg(base))
		_, err := c.Complete(t.Context(), userReq("hi"))
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 || llm.IsRetryable(err) {
			t.Errorf("error = %v, want a final 404 APIError", err)
		}
	})
	t.Run("out of credits is final", func(t *testing.T) {
		var req captured
		base := replay(t, "/api/v1/chat/completions", 402, jsonHeader,
			`{"error":{"code":402,"message":"This request requires more credits, or fewer max_tokens. You requested up to 4096 tokens, but can only afford 1000."}}`, &req)
		c, sleeps := testClient(cfg(base))
		_, err := c.Complete(t.Context(), userReq("hi"))
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 402 || apiErr.Code != "402" || len(sleeps.got()) != 0 {
			t.Errorf("error = %v, waits %v: want one final 402", err, sleeps.got())
		}
	})
	t.Run("moderation error metadata", func(t *testing.T) {
		base := replay(t, "/api/v1/chat/completions", 403, jsonHeader,
			`{"error":{"code":403,"message":"openai/gpt-4o requires moderation on OpenAI. Your input was flagged for \"harassment\".","metadata":{"reasons":["harassment"],"flagged_input":"...","provider_name":"OpenAI","model_slug":"openai/gpt-4o"}}}`, nil)
		c, _ := testClient(cfg(base))
		_, err := c.Complete(t.Context(), userReq("hi"))
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.Provider != "OpenAI" || !strings.Contains(string(apiErr.Metadata), `"reasons":["harassment"]`) {
			t.Errorf("error = %v, metadata %s", err, apiErr.Metadata)
		}
	})
}

func TestOllama(t *testing.T) {
	t.Run("stream", func(t *testing.T) {
		body := lines(
			`data: {"id":"chatcmpl-412","object":"chat.completion.chunk","created":1747000000,"model":"llama3.2","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":"Duty"},"finish_reason":null}]}`, ``,
			`data: {"id":"chatcmpl-412","object":"chat.completion.chunk","created":1747000000,"model":"llama3.2","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":" first."},"finish_reason":null}]}`, ``,
			`data: {"id":"chatcmpl-412","object":"chat.completion.chunk","created":1747000000,"model":"llama3.2","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":"stop"}]}`, ``,
			`data: {"id":"chatcmpl-412","object":"chat.completion.chunk","created":1747000000,"model":"llama3.2","system_fingerprint":"fp_ollama","choices":[],"usage":{"prompt_tokens":26,"completion_tokens":3,"total_tokens":29}}`, ``,
			`data: [DONE]`, ``)
		var req captured
		base := replay(t, "/v1/chat/completions", 200, sseHeader, body, &req)
		c, _ := testClient(Config{BaseURL: base}) // no /v1: it is added
		got, err := c.Stream(t.Context(), llm.Request{Model: "llama3.2", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}, JSON: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := llm.Response{Content: "Duty first.", Model: "llama3.2", FinishReason: "stop", Usage: llm.Usage{PromptTokens: 26, CompletionTokens: 3}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("response (-want +got):\n%s", diff)
		}
		if req.header.Get("Authorization") != "" {
			t.Errorf("Authorization %q sent without a key", req.header.Get("Authorization"))
		}
		if diff := cmp.Diff(map[string]any{"type": "json_object"}, req.body["response_format"]); diff != "" {
			t.Errorf("response_format (-want +got):\n%s", diff)
		}
	})
	t.Run("model not found", func(t *testing.T) {
		base := replay(t, "/v1/chat/completions", 404, jsonHeader,
			`{"error":{"message":"model \"llama9\" not found, try pulling it first","type":"api_error","param":null,"code":null}}`, nil)
		c, sleeps := testClient(Config{BaseURL: base + "/v1"})
		_, err := c.Complete(t.Context(), userReq("hi"))
		want := &APIError{StatusCode: 404, Type: "api_error", Message: `model "llama9" not found, try pulling it first`}
		var apiErr *APIError
		errors.As(err, &apiErr)
		if diff := cmp.Diff(want, apiErr, cmp.AllowUnexported(APIError{})); diff != "" {
			t.Errorf("APIError (-want +got):\n%s", diff)
		}
		if len(sleeps.got()) != 0 {
			t.Error("retried a 404")
		}
	})
}

func TestVLLM(t *testing.T) {
	t.Run("stream", func(t *testing.T) {
		body := lines(
			`data: {"id":"chatcmpl-8e4","object":"chat.completion.chunk","created":1747000000,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`, ``,
			`data: {"id":"chatcmpl-8e4","object":"chat.completion.chunk","created":1747000000,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":{"content":"Harm"},"logprobs":null,"finish_reason":null}]}`, ``,
			`data: {"id":"chatcmpl-8e4","object":"chat.completion.chunk","created":1747000000,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":{"content":" first"},"logprobs":null,"finish_reason":"length","stop_reason":null}]}`, ``,
			`data: {"id":"chatcmpl-8e4","object":"chat.completion.chunk","created":1747000000,"model":"Qwen/Qwen3-8B","choices":[],"usage":{"prompt_tokens":15,"total_tokens":17,"completion_tokens":2,"prompt_tokens_details":null}}`, ``,
			`data: [DONE]`, ``)
		var req captured
		base := replay(t, "/v1/chat/completions", 200, sseHeader, body, &req)
		c, _ := testClient(Config{BaseURL: base, ExtraBody: map[string]any{"top_k": 20, "chat_template_kwargs": map[string]any{"enable_thinking": false}}})
		got, err := c.Stream(t.Context(), llm.Request{Model: "Qwen/Qwen3-8B", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}, MaxTokens: 2}, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := llm.Response{Content: "Harm first", Model: "Qwen/Qwen3-8B", FinishReason: "length", Usage: llm.Usage{PromptTokens: 15, CompletionTokens: 2}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("response (-want +got):\n%s", diff)
		}
		if req.body["top_k"] != 20.0 || req.body["max_tokens"] != 2.0 {
			t.Errorf("request body %v: want top_k and max_tokens", req.body)
		}
	})
	t.Run("error shape", func(t *testing.T) {
		base := replay(t, "/v1/chat/completions", 400, jsonHeader,
			`{"object":"error","message":"This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.","type":"BadRequestError","param":null,"code":400}`, nil)
		c, sleeps := testClient(Config{BaseURL: base + "/v1"})
		_, err := c.Complete(t.Context(), userReq("hi"))
		want := &APIError{StatusCode: 400, Type: "BadRequestError", Code: "400",
			Message: "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens."}
		var apiErr *APIError
		errors.As(err, &apiErr)
		if diff := cmp.Diff(want, apiErr, cmp.AllowUnexported(APIError{})); diff != "" {
			t.Errorf("APIError (-want +got):\n%s", diff)
		}
		if len(sleeps.got()) != 0 {
			t.Error("retried a 400")
		}
	})
	t.Run("error mid-stream, then [DONE]", func(t *testing.T) {
		body := lines(
			`data: {"id":"chatcmpl-8e5","object":"chat.completion.chunk","created":1747000000,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":{"role":"assistant","content":"Par"},"logprobs":null,"finish_reason":null}]}`, ``,
			`data: {"error": {"object": "error", "message": "Request aborted: engine dead", "type": "InternalServerError", "param": null, "code": 500}}`, ``,
			`data: [DONE]`, ``)
		base := replay(t, "/v1/chat/completions", 200, sseHeader, body, nil)
		c, _ := testClient(Config{BaseURL: base + "/v1"})
		got, err := c.Stream(t.Context(), userReq("hi"), nil)
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 500 || apiErr.Type != "InternalServerError" {
			t.Fatalf("error = %v, want vLLM's 500 — the [DONE] after it must not turn it into a success", err)
		}
		if got.Content != "Par" {
			t.Errorf("partial = %q", got.Content)
		}
	})
}

func TestLlamaCpp(t *testing.T) {
	t.Run("stream with usage and timings on the last chunk", func(t *testing.T) {
		body := lines(
			`data: {"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],"created":1747000000,"id":"chatcmpl-Xg2","model":"gpt-3.5-turbo","system_fingerprint":"b5466-8f9cd0a3","object":"chat.completion.chunk"}`, ``,
			`data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":"Ought"}}],"created":1747000000,"id":"chatcmpl-Xg2","model":"gpt-3.5-turbo","system_fingerprint":"b5466-8f9cd0a3","object":"chat.completion.chunk"}`, ``,
			`data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" implies can."}}],"created":1747000000,"id":"chatcmpl-Xg2","model":"gpt-3.5-turbo","system_fingerprint":"b5466-8f9cd0a3","object":"chat.completion.chunk"}`, ``,
			`data: {"choices":[{"finish_reason":"stop","index":0,"delta":{}}],"created":1747000000,"id":"chatcmpl-Xg2","model":"gpt-3.5-turbo","system_fingerprint":"b5466-8f9cd0a3","object":"chat.completion.chunk","usage":{"completion_tokens":4,"prompt_tokens":11,"total_tokens":15},"timings":{"prompt_n":11,"prompt_ms":20.5,"prompt_per_token_ms":1.86,"prompt_per_second":536.5,"predicted_n":4,"predicted_ms":60.1,"predicted_per_token_ms":15.0,"predicted_per_second":66.5}}`, ``,
			`data: [DONE]`, ``)
		base := replay(t, "/v1/chat/completions", 200, http.Header{"Content-Type": {"text/event-stream"}}, body, nil)
		c, _ := testClient(Config{BaseURL: base})
		got, err := c.Stream(t.Context(), userReq("hi"), nil)
		if err != nil {
			t.Fatal(err)
		}
		want := llm.Response{Content: "Ought implies can.", Model: "gpt-3.5-turbo", FinishReason: "stop", Usage: llm.Usage{PromptTokens: 11, CompletionTokens: 4}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("response (-want +got):\n%s", diff)
		}
	})
	t.Run("error field mid-stream, then [DONE]", func(t *testing.T) {
		body := lines(
			`data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":"Par"}}],"created":1747000000,"id":"chatcmpl-Xg3","model":"gpt-3.5-turbo","object":"chat.completion.chunk"}`, ``,
			`error: {"code":500,"message":"Input prompt is too big compared to KV size. Please try increasing KV size.","type":"server_error"}`, ``,
			`data: [DONE]`, ``)
		base := replay(t, "/v1/chat/completions", 200, sseHeader, body, nil)
		c, _ := testClient(Config{BaseURL: base})
		got, err := c.Stream(t.Context(), userReq("hi"), nil)
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 500 || apiErr.Type != "server_error" || !strings.Contains(apiErr.Message, "KV size") {
			t.Fatalf("error = %v, want llama.cpp's server_error", err)
		}
		if got.Content != "Par" {
			t.Errorf("partial = %q", got.Content)
		}
	})
	t.Run("context exceeded", func(t *testing.T) {
		base := replay(t, "/v1/chat/completions", 400, jsonHeader,
			`{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}}`, nil)
		c, sleeps := testClient(Config{BaseURL: base})
		_, err := c.Complete(t.Context(), userReq("hi"))
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.Type != "exceed_context_size_error" || len(sleeps.got()) != 0 {
			t.Errorf("error = %v, want a final exceed_context_size_error", err)
		}
	})
	t.Run("loading model is retried", func(t *testing.T) {
		var hits int
		base := serve(t, func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			if hits++; hits == 1 {
				reply(503, "application/json", `{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`)(w, r)
				return
			}
			reply(200, "application/json", `{"choices":[{"finish_reason":"stop","index":0,"message":{"role":"assistant","content":"Ready."}}],"created":1747000000,"model":"gpt-3.5-turbo","object":"chat.completion","usage":{"completion_tokens":2,"prompt_tokens":5,"total_tokens":7},"id":"chatcmpl-Y","timings":{}}`)(w, r)
		}).URL
		c, sleeps := testClient(Config{BaseURL: base})
		got, err := c.Complete(t.Context(), userReq("hi"))
		if err != nil || got.Content != "Ready." || len(sleeps.got()) != 1 {
			t.Errorf("got %+v, %v, waits %v; want success after one retry", got, err, sleeps.got())
		}
	})
}

func TestLMStudio(t *testing.T) {
	schema := json.RawMessage(`{"type":"json_schema","json_schema":{"name":"evaluation","strict":true,"schema":{"type":"object","properties":{"adherenceScore":{"type":"integer"}},"required":["adherenceScore"]}}}`)
	t.Run("stream JSON with a schema", func(t *testing.T) {
		body := lines(
			`data: {"id":"chatcmpl-lms1","object":"chat.completion.chunk","created":1747000000,"model":"qwen2.5-7b-instruct","system_fingerprint":"qwen2.5-7b-instruct","choices":[{"index":0,"delta":{"role":"assistant","content":"{\"adherenceScore\""},"logprobs":null,"finish_reason":null}]}`, ``,
			`data: {"id":"chatcmpl-lms1","object":"chat.completion.chunk","created":1747000000,"model":"qwen2.5-7b-instruct","system_fingerprint":"qwen2.5-7b-instruct","choices":[{"index":0,"delta":{"content":": 82}"},"logprobs":null,"finish_reason":null}]}`, ``,
			`data: {"id":"chatcmpl-lms1","object":"chat.completion.chunk","created":1747000000,"model":"qwen2.5-7b-instruct","system_fingerprint":"qwen2.5-7b-instruct","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}`, ``,
			`data: {"id":"chatcmpl-lms1","object":"chat.completion.chunk","created":1747000000,"model":"qwen2.5-7b-instruct","system_fingerprint":"qwen2.5-7b-instruct","choices":[],"usage":{"prompt_tokens":50,"completion_tokens":6,"total_tokens":56}}`, ``,
			`data: [DONE]`, ``)
		var req captured
		base := replay(t, "/v1/chat/completions", 200, sseHeader, body, &req)
		c, _ := testClient(Config{BaseURL: base + "/v1", ResponseFormat: schema, APIKey: "lm-studio"})
		got, err := c.Stream(t.Context(), llm.Request{Model: "qwen2.5-7b-instruct", Messages: []llm.Message{{Role: llm.User, Content: "evaluate"}}, JSON: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := llm.Response{Content: `{"adherenceScore": 82}`, Model: "qwen2.5-7b-instruct", FinishReason: "stop", Usage: llm.Usage{PromptTokens: 50, CompletionTokens: 6}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("response (-want +got):\n%s", diff)
		}
		var wantFormat any
		json.Unmarshal(schema, &wantFormat)
		if diff := cmp.Diff(wantFormat, req.body["response_format"]); diff != "" {
			t.Errorf("response_format (-want +got):\n%s", diff)
		}
	})
	t.Run("error as a string", func(t *testing.T) {
		base := replay(t, "/v1/chat/completions", 400, jsonHeader, `{"error":"'response_format.type' must be 'json_schema' or 'text'"}`, nil)
		c, _ := testClient(Config{BaseURL: base + "/v1"})
		_, err := c.Complete(t.Context(), userReq("hi"))
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.Message != "'response_format.type' must be 'json_schema' or 'text'" {
			t.Errorf("error = %v", err)
		}
	})
	t.Run("CRLF stream", func(t *testing.T) {
		body := "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"},\"finish_reason\":null}]}\r\n\r\n" +
			"data:{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"},\"finish_reason\":\"stop\"}]}\r\n\r\ndata: [DONE]\r\n\r\n"
		base := replay(t, "/v1/chat/completions", 200, sseHeader, body, nil)
		c, _ := testClient(Config{BaseURL: base + "/v1"})
		got, err := c.Stream(t.Context(), userReq("hi"), nil)
		if err != nil || got.Content != "ab" || got.FinishReason != "stop" {
			t.Errorf("got %+v, %v", got, err)
		}
	})
}
