package openaisdk_test

import (
	"context"
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
