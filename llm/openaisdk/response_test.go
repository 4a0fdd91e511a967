package openaisdk_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/openaisdk"
)

// Complete and Stream return the content, the model, the usage with its
// cached and reasoning tokens, and the finish reason normalized.
func TestResponse(t *testing.T) {
	usage := llm.Usage{PromptTokens: 120, CompletionTokens: 30, CachedPromptTokens: 100, ReasoningTokens: 12}
	tests := []struct{ finish, want string }{
		{"stop", llm.FinishStop},
		{"length", llm.FinishLength},
		{"max_tokens", llm.FinishLength},
		{"content_filter", "content_filter"},
	}
	for _, tt := range tests {
		srv := &mockServer{answer: func(*http.Request, llm.Request) (llm.Response, error) {
			return llm.Response{Content: "A short answer.", FinishReason: tt.finish, Usage: usage}, nil
		}}
		c := openaisdk.New(serve(t, srv))
		req := llm.Request{Model: "gpt-test", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}
		want := llm.Response{Content: "A short answer.", Model: "gpt-test", FinishReason: tt.want, Usage: usage}
		got, err := c.Complete(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Complete, finish %q (-want +got):\n%s", tt.finish, diff)
		}
		got, err = c.Stream(context.Background(), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Stream, finish %q (-want +got):\n%s", tt.finish, diff)
		}
	}
}

// A stream whose server sends no usage chunk succeeds with an estimated
// usage, marked as such.
func TestStreamWithoutUsage(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Twelve chars\"}}]}\n\n")
		fmt.Fprint(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	})
	c := openaisdk.New(serve(t, h))
	got, err := c.Stream(context.Background(), llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.User, Content: "sixteen chars.."}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Response{Content: "Twelve chars", Model: "m", FinishReason: llm.FinishStop, Usage: llm.Usage{PromptTokens: 4, CompletionTokens: 3}, UsageEstimated: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
