package openaisdk_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/openaisdk"
)

// purposeHeader carries a request's Purpose to the mock server, set by the
// test's openaisdk.WithPerRequest, so that the server can answer as the
// stub model would.
const purposeHeader = "X-Test-Purpose"

// mockServer speaks OpenAI's Chat Completions wire format: a JSON
// completion, or an event stream of one chunk per word, a finish chunk, a
// usage chunk and [DONE]. It answers each request with answer, and records
// the request bodies.
type mockServer struct {
	answer func(r *http.Request, req llm.Request) (llm.Response, error)

	mu     sync.Mutex
	bodies []map[string]any
}

// wireRequest is the part of a chat completion request the server reads.
type wireRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	MaxCompletionTokens int      `json:"max_completion_tokens"`
	Temperature         *float64 `json:"temperature"`
	Stream              bool     `json:"stream"`
	ResponseFormat      *struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
			Strict bool            `json:"strict"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

func (m *mockServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var raw map[string]any
	var wr wireRequest
	if r.URL.Path != "/v1/chat/completions" || json.Unmarshal(body, &raw) != nil || json.Unmarshal(body, &wr) != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`)
		return
	}
	m.mu.Lock()
	m.bodies = append(m.bodies, raw)
	m.mu.Unlock()

	req := llm.Request{Model: wr.Model, Purpose: r.Header.Get(purposeHeader), MaxTokens: wr.MaxCompletionTokens, Temperature: wr.Temperature}
	for _, msg := range wr.Messages {
		req.Messages = append(req.Messages, llm.Message{Role: llm.Role(msg.Role), Content: msg.Content})
	}
	if f := wr.ResponseFormat; f != nil {
		req.Schema = f.JSONSchema.Schema
		req.JSON = f.Type == "json_object"
	}
	resp, err := m.answer(r, req)
	if err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, `{"error":{"message":%q,"type":"server_error"}}`, err.Error())
		return
	}
	finish := resp.FinishReason
	if finish == "" {
		finish = "stop"
	}
	usage := fmt.Sprintf(`{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d,"prompt_tokens_details":{"cached_tokens":%d},"completion_tokens_details":{"reasoning_tokens":%d}}`,
		resp.Usage.PromptTokens, resp.Usage.CompletionTokens, resp.Usage.Total(), resp.Usage.CachedPromptTokens, resp.Usage.ReasoningTokens)
	if !wr.Stream {
		msg, _ := json.Marshal(resp.Content)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"c1","object":"chat.completion","created":1,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":%q}],"usage":%s}`,
			wr.Model, msg, finish, usage)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(choices, usage string) {
		fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":%q,\"choices\":[%s],\"usage\":%s}\n\n", wr.Model, choices, usage)
		w.(http.Flusher).Flush()
	}
	for _, word := range strings.SplitAfter(resp.Content, " ") {
		if word == "" {
			continue
		}
		d, _ := json.Marshal(word)
		chunk(fmt.Sprintf(`{"index":0,"delta":{"content":%s},"finish_reason":null}`, d), "null")
	}
	chunk(fmt.Sprintf(`{"index":0,"delta":{},"finish_reason":%q}`, finish), "null")
	chunk("", usage)
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// requests returns the request bodies the server has received.
func (m *mockServer) requests() []map[string]any {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]map[string]any(nil), m.bodies...)
}

// hello answers every request with a short greeting and a fixed usage.
func hello(*http.Request, llm.Request) (llm.Response, error) {
	return llm.Response{
		Content:      "Hello there, friend.",
		FinishReason: "stop",
		Usage:        llm.Usage{PromptTokens: 9, CompletionTokens: 4, CachedPromptTokens: 3, ReasoningTokens: 1},
	}, nil
}

// serve starts an httptest server with h and returns an SDK client of it.
func serve(t *testing.T, h http.Handler) openai.Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return openai.NewClient(option.WithBaseURL(srv.URL+"/v1/"), option.WithAPIKey("test-key"))
}

// withPurpose sends each request's Purpose in purposeHeader.
var withPurpose = openaisdk.WithPerRequest(func(req llm.Request) []option.RequestOption {
	return []option.RequestOption{option.WithHeader(purposeHeader, req.Purpose)}
})
