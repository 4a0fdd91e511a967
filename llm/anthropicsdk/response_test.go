package anthropicsdk_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/anthropicsdk"
)

// Complete and Stream return the text, the model, the usage with the cache
// reads counted in the prompt and as cached, the thinking tokens as
// reasoning, and the stop reason normalized.
func TestResponse(t *testing.T) {
	usage := llm.Usage{PromptTokens: 120, CompletionTokens: 30, CachedPromptTokens: 100, ReasoningTokens: 12}
	tests := []struct{ stop, want string }{
		{"end_turn", llm.FinishStop},
		{"stop_sequence", llm.FinishStop},
		{"max_tokens", llm.FinishLength},
		{"model_context_window_exceeded", llm.FinishLength},
		{"refusal", "refusal"},
	}
	for _, tt := range tests {
		srv := &mockServer{answer: func(*http.Request, llm.Request) (llm.Response, error) {
			return llm.Response{Content: "A short answer.", FinishReason: tt.stop, Usage: usage}, nil
		}}
		c := anthropicsdk.New(serve(t, srv))
		req := llm.Request{Model: "claude-test", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}
		want := llm.Response{Content: "A short answer.", Model: "claude-test", FinishReason: tt.want, Usage: usage}
		got, err := c.Complete(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Complete, stop %q (-want +got):\n%s", tt.stop, diff)
		}
		got, err = c.Stream(context.Background(), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Stream, stop %q (-want +got):\n%s", tt.stop, diff)
		}
	}
}
