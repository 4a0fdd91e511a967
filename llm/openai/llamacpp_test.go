package openai_test

// Integration tests against a real llama.cpp llama-server, built and started
// by .ci/llama.sh (`source .ci/llama.sh`, or `.ci/llama.sh go test ...`),
// which sets DUELOGIC_LLAMACPP_URL to its base URL (ending in /v1). Without
// it these tests skip, unless DUELOGIC_REQUIRE_LLAMACPP=1 (as in CI), when
// they fail.
//
// The server runs the tiny synthetic model of .ci/llama/make_model.py: random
// weights with a real Qwen2 tokenizer and chat template, made to answer every
// chat with llamaReply and then end its turn, so that both finish reasons can
// be seen. Its context is 2048 tokens shared by 2 slots.

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/openai"
)

// llamaReply is what the model of .ci/llama/make_model.py answers, in
// llamaReplyTokens tokens before its end-of-turn token.
const (
	llamaReply       = "Hello from a tiny test model."
	llamaReplyTokens = 7
)

// llamaURL returns the server's base URL, or skips the test (fails it when
// DUELOGIC_REQUIRE_LLAMACPP=1).
func llamaURL(t *testing.T) string {
	t.Helper()
	base := os.Getenv("DUELOGIC_LLAMACPP_URL")
	if base == "" {
		if os.Getenv("DUELOGIC_REQUIRE_LLAMACPP") == "1" {
			t.Fatal("DUELOGIC_REQUIRE_LLAMACPP=1 but DUELOGIC_LLAMACPP_URL is not set: start llama-server with `source .ci/llama.sh`")
		}
		t.Skip("DUELOGIC_LLAMACPP_URL not set: run `source .ci/llama.sh` or `.ci/llama.sh go test ./llm/openai/` for the llama.cpp integration tests")
	}
	return base
}

// llamaClient returns a client for the server .ci/llama.sh started, which
// needs no API key. It sends no retries, so that each test sees the
// server's own answer, and opens a connection for each request: llama-server
// closes the connection after each stream without saying so, which
// TestLlamaServerReuseAfterStream is about.
func llamaClient(t *testing.T, cfg openai.Config) *openai.Client {
	t.Helper()
	cfg.BaseURL, cfg.MaxRetries = llamaURL(t), -1
	tr := &http.Transport{DisableKeepAlives: true}
	t.Cleanup(tr.CloseIdleConnections)
	cfg.HTTPClient = &http.Client{Transport: tr}
	return openai.New(cfg)
}

// llamaChat is a request with a system prompt and text from the user, at
// temperature 0.
func llamaChat(text string, maxTokens int) llm.Request {
	zero := 0.0
	return llm.Request{
		Model:       "tiny-qwen2",
		Messages:    []llm.Message{{Role: llm.System, Content: "Be brief."}, {Role: llm.User, Content: text}},
		Temperature: &zero,
		MaxTokens:   maxTokens,
	}
}

// TestLlamaServerFinish reads the answer, its finish reason and its usage, with
// and without streaming: the whole reply ends with "stop", one cut by
// max_tokens with "length".
func TestLlamaServerFinish(t *testing.T) {
	c := llamaClient(t, openai.Config{})
	tests := []struct {
		name       string
		maxTokens  int
		stream     bool
		content    string
		finish     string
		completion int
	}{
		{"complete", 64, false, llamaReply, "stop", llamaReplyTokens},
		{"stream", 64, true, llamaReply, "stop", llamaReplyTokens},
		{"complete cut", 5, false, "Hello from a tiny test", "length", 5},
		{"stream cut", 5, true, "Hello from a tiny test", "length", 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := llamaChat("Who are you?", tt.maxTokens)
			var (
				got    llm.Response
				err    error
				deltas []string
			)
			if tt.stream {
				got, err = c.Stream(t.Context(), req, func(d string) error {
					deltas = append(deltas, d)
					return nil
				})
			} else {
				got, err = c.Complete(t.Context(), req)
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Content != tt.content || got.FinishReason != tt.finish {
				t.Errorf("content %q, finish reason %q; want %q, %q", got.Content, got.FinishReason, tt.content, tt.finish)
			}
			// The prompt is the chat template applied to both messages: a
			// few dozen tokens.
			if got.Usage.PromptTokens < 10 || got.Usage.CompletionTokens < tt.completion || got.Usage.CompletionTokens > tt.completion+1 || got.UsageEstimated {
				t.Errorf("usage %+v (estimated %v): want the server's count, %d completion tokens (or one more for the end of turn)",
					got.Usage, got.UsageEstimated, tt.completion)
			}
			if tt.stream && (len(deltas) < 3 || strings.Join(deltas, "") != got.Content) {
				t.Errorf("deltas %q: want several, adding up to the content %q", deltas, got.Content)
			}
		})
	}
}

// TestLlamaServerConcurrent sends more requests at once than the server has
// slots: it queues them and answers each.
func TestLlamaServerConcurrent(t *testing.T) {
	c := llamaClient(t, openai.Config{})
	const n = 4
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			got, err := c.Stream(t.Context(), llamaChat(strings.Repeat("Go on. ", i+1), 64), nil)
			if err == nil && (got.Content != llamaReply || got.FinishReason != "stop") {
				err = errors.New("unexpected answer " + got.Content + " (" + got.FinishReason + ")")
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("request %d: %v", i, err)
		}
	}
}

// TestLlamaServerContextOverflow sends a prompt longer than the server's
// context: llama-server refuses it with a 400, which is final.
func TestLlamaServerContextOverflow(t *testing.T) {
	c := llamaClient(t, openai.Config{})
	long := strings.Repeat("the quick brown fox jumps over the lazy dog ", 600) // about 5400 tokens
	for _, stream := range []bool{false, true} {
		var err error
		if stream {
			_, err = c.Stream(t.Context(), llamaChat(long, 16), nil)
		} else {
			_, err = c.Complete(t.Context(), llamaChat(long, 16))
		}
		var apiErr *openai.APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || !strings.Contains(err.Error(), "400") {
			t.Fatalf("stream=%v: error = %v, want the server's 400", stream, err)
		}
		if llm.IsRetryable(err) {
			t.Errorf("stream=%v: error %v is retryable", stream, err)
		}
		if !errors.Is(err, llm.ErrContextOverflow) || apiErr.PromptTokens <= apiErr.ContextTokens || apiErr.ContextTokens == 0 {
			t.Errorf("stream=%v: error %v is not llm.ErrContextOverflow with the server's token counts (%d > %d)", stream, err, apiErr.PromptTokens, apiErr.ContextTokens)
		}
		t.Logf("stream=%v: %v", stream, err)
	}
}

// TestLlamaServerJSON asks for JSON: the server constrains the model's
// tokens by a grammar made from the response_format, so even random weights
// answer in shape.
func TestLlamaServerJSON(t *testing.T) {
	const schema = `{"type":"json_schema","json_schema":{"name":"verdict","strict":true,"schema":{
		"type":"object",
		"properties":{"winner":{"type":"string","enum":["pro","con"]},"reason":{"type":"string"},"score":{"type":"integer","minimum":0,"maximum":10}},
		"required":["winner","reason","score"],"additionalProperties":false}}}`
	tests := []struct {
		name   string
		format json.RawMessage // Config.ResponseFormat
		check  func(content string) error
	}{
		{"json_object", nil, func(content string) error {
			var v map[string]any
			return json.Unmarshal([]byte(content), &v)
		}},
		{"json_schema", json.RawMessage(schema), func(content string) error {
			dec := json.NewDecoder(bytes.NewReader([]byte(content)))
			dec.DisallowUnknownFields()
			var v struct {
				Winner *string `json:"winner"`
				Reason *string `json:"reason"`
				Score  *int    `json:"score"`
			}
			if err := dec.Decode(&v); err != nil {
				return err
			}
			if v.Winner == nil || v.Reason == nil || v.Score == nil || (*v.Winner != "pro" && *v.Winner != "con") || *v.Score < 0 || *v.Score > 10 {
				return errors.New("does not match the schema")
			}
			return nil
		}},
	}
	// What every format does: llm.Request.Schema, sent as a strict
	// json_schema response_format.
	tests = append(tests, struct {
		name   string
		format json.RawMessage
		check  func(content string) error
	}{"Request.Schema", nil, tests[1].check})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := llamaClient(t, openai.Config{ResponseFormat: tt.format})
			req := llamaChat("Who won the debate?", 200)
			req.JSON = true
			if tt.name == "Request.Schema" {
				var f struct {
					JSONSchema struct {
						Schema json.RawMessage `json:"schema"`
					} `json:"json_schema"`
				}
				if err := json.Unmarshal([]byte(schema), &f); err != nil {
					t.Fatal(err)
				}
				req.JSON, req.Schema, req.Purpose = false, f.JSONSchema.Schema, "verdict"
			}
			got, err := c.Complete(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			if got.FinishReason != "stop" {
				t.Errorf("finish reason %q, want stop", got.FinishReason)
			}
			if err := tt.check(got.Content); err != nil {
				t.Errorf("content %q: %v", got.Content, err)
			}
		})
	}
}

// TestLlamaServerReuseAfterStream sends requests one after another through
// the default client, which keeps connections alive. llama-server closes the
// connection after each streamed response, without "Connection: close"; a
// client that sends the next request on it before it sees the close reads
// EOF. The window is narrow: 50 rounds showed it in most runs before the
// client marked its requests resendable (Idempotency-Key), which lets Go's
// transport send such a request again on a new connection.
func TestLlamaServerReuseAfterStream(t *testing.T) {
	base := llamaURL(t)
	c := openai.New(openai.Config{BaseURL: base, MaxRetries: -1})
	for i := range 50 {
		if _, err := c.Stream(t.Context(), llamaChat("Hi", 5), nil); err != nil {
			t.Fatalf("stream %d: %v", i, err)
		}
		if _, err := c.Complete(t.Context(), llamaChat("Hi", 5)); err != nil {
			t.Fatalf("request %d after a stream: %v", i, err)
		}
	}
}
