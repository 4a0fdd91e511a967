package anthropicsdk_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/anthropicsdk"
)

// purposeHeader carries a request's Purpose to the mock server, set by the
// test's anthropicsdk.WithPerRequest, so that the server can answer as the
// stub model would.
const purposeHeader = "X-Test-Purpose"

// mockServer speaks Anthropic's Messages wire format: a JSON message, or
// the event stream message_start, content_block_start, one
// content_block_delta per word, content_block_stop, message_delta and
// message_stop. It answers each request with answer, and records the
// request bodies.
type mockServer struct {
	answer func(r *http.Request, req llm.Request) (llm.Response, error)

	mu     sync.Mutex
	bodies []map[string]any
}

type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// wireRequest is the part of a messages request the server reads.
type wireRequest struct {
	Model     string      `json:"model"`
	MaxTokens int         `json:"max_tokens"`
	System    []textBlock `json:"system"`
	Messages  []struct {
		Role    string      `json:"role"`
		Content []textBlock `json:"content"`
	} `json:"messages"`
	Stream       bool `json:"stream"`
	OutputConfig struct {
		Format struct {
			Type   string          `json:"type"`
			Schema json.RawMessage `json:"schema"`
		} `json:"format"`
	} `json:"output_config"`
}

func (m *mockServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var raw map[string]any
	var wr wireRequest
	if r.URL.Path != "/v1/messages" || json.Unmarshal(body, &raw) != nil || json.Unmarshal(body, &wr) != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad request"}}`)
		return
	}
	m.mu.Lock()
	m.bodies = append(m.bodies, raw)
	m.mu.Unlock()

	req := llm.Request{Model: wr.Model, Purpose: r.Header.Get(purposeHeader), MaxTokens: wr.MaxTokens, Schema: wr.OutputConfig.Format.Schema}
	text := func(blocks []textBlock) string {
		var b strings.Builder
		for _, t := range blocks {
			b.WriteString(t.Text)
		}
		return b.String()
	}
	for _, s := range wr.System {
		req.Messages = append(req.Messages, llm.Message{Role: llm.System, Content: s.Text})
	}
	for _, msg := range wr.Messages {
		req.Messages = append(req.Messages, llm.Message{Role: llm.Role(msg.Role), Content: text(msg.Content)})
	}
	resp, err := m.answer(r, req)
	if err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, `{"type":"error","error":{"type":"api_error","message":%q}}`, err.Error())
		return
	}
	stop := resp.FinishReason
	switch stop {
	case "", llm.FinishStop:
		stop = "end_turn"
	case llm.FinishLength:
		stop = "max_tokens"
	}
	u := resp.Usage
	usage := fmt.Sprintf(`{"input_tokens":%d,"cache_read_input_tokens":%d,"cache_creation_input_tokens":0,"output_tokens":%d,"output_tokens_details":{"thinking_tokens":%d}}`,
		u.PromptTokens-u.CachedPromptTokens, u.CachedPromptTokens, u.CompletionTokens, u.ReasoningTokens)
	if !wr.Stream {
		content, _ := json.Marshal(resp.Content)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"msg_1","type":"message","role":"assistant","model":%q,"content":[{"type":"text","text":%s}],"stop_reason":%q,"stop_sequence":null,"usage":%s}`,
			wr.Model, content, stop, usage)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(name, data string) {
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data)
		w.(http.Flusher).Flush()
	}
	event("message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":%q,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":%d,"cache_read_input_tokens":%d,"cache_creation_input_tokens":0,"output_tokens":1}}}`,
		wr.Model, u.PromptTokens-u.CachedPromptTokens, u.CachedPromptTokens))
	event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
	for _, word := range strings.SplitAfter(resp.Content, " ") {
		if word == "" {
			continue
		}
		d, _ := json.Marshal(word)
		event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%s}}`, d))
	}
	event("content_block_stop", `{"type":"content_block_stop","index":0}`)
	event("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":%d,"output_tokens_details":{"thinking_tokens":%d}}}`,
		stop, u.CompletionTokens, u.ReasoningTokens))
	event("message_stop", `{"type":"message_stop"}`)
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
		FinishReason: llm.FinishStop,
		Usage:        llm.Usage{PromptTokens: 9, CompletionTokens: 4, CachedPromptTokens: 3, ReasoningTokens: 1},
	}, nil
}

// stubAnswer answers a request as stub does.
func stubAnswer(stub *llm.Stub) func(*http.Request, llm.Request) (llm.Response, error) {
	return func(r *http.Request, req llm.Request) (llm.Response, error) {
		return stub.Complete(r.Context(), req)
	}
}

// serve starts an httptest server with h and returns an SDK client of it.
func serve(t *testing.T, h http.Handler) anthropic.Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return anthropic.NewClient(option.WithBaseURL(srv.URL+"/"), option.WithAPIKey("test-key"))
}

// withPurpose sends each request's Purpose in purposeHeader.
var withPurpose = anthropicsdk.WithPerRequest(func(req llm.Request) []option.RequestOption {
	return []option.RequestOption{option.WithHeader(purposeHeader, req.Purpose)}
})
