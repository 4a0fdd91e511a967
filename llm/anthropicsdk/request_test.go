package anthropicsdk_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/anthropicsdk"
)

var schema = json.RawMessage(`{"type":"object","properties":{"winner":{"type":"string"}},"required":["winner"],"additionalProperties":false}`)

// Each request's fields reach the wire: leading system messages as the
// system prompt, a later one as a system message, max_tokens (a default
// when the request has none), the schema as output_config.format, and no
// temperature.
func TestRequestBody(t *testing.T) {
	temp := 0.25
	text := func(s string) []any { return []any{map[string]any{"type": "text", "text": s}} }
	tests := []struct {
		name string
		opts []anthropicsdk.Option
		req  llm.Request
		want map[string]any
	}{
		{"conversation", nil, llm.Request{
			Model: "claude-test", MaxTokens: 77, Temperature: &temp,
			Messages: []llm.Message{{Role: llm.System, Content: "sys"}, {Role: llm.System, Content: "more"}, {Role: llm.User, Content: "hi"},
				{Role: llm.Assistant, Content: "yo"}, {Role: llm.System, Content: "late"}, {Role: llm.User, Content: "go"}},
		}, map[string]any{
			"model": "claude-test", "max_tokens": 77.0,
			"system": append(text("sys"), text("more")...),
			"messages": []any{
				map[string]any{"role": "user", "content": text("hi")},
				map[string]any{"role": "assistant", "content": text("yo")},
				map[string]any{"role": "system", "content": text("late")},
				map[string]any{"role": "user", "content": text("go")},
			},
		}},
		{"schema, default max tokens", nil, llm.Request{
			Model: "claude-test", Purpose: "verdict", Schema: schema,
			Messages: []llm.Message{{Role: llm.User, Content: "hi"}},
		}, map[string]any{
			"model": "claude-test", "max_tokens": float64(anthropicsdk.DefaultMaxTokens),
			"messages":      []any{map[string]any{"role": "user", "content": text("hi")}},
			"output_config": map[string]any{"format": map[string]any{"type": "json_schema", "schema": decode(t, schema)}},
		}},
		{"options", []anthropicsdk.Option{anthropicsdk.WithModel("claude-default"), anthropicsdk.WithMaxTokens(500)}, llm.Request{
			JSON: true, Messages: []llm.Message{{Role: llm.User, Content: "hi"}},
		}, map[string]any{
			"model": "claude-default", "max_tokens": 500.0,
			"messages": []any{map[string]any{"role": "user", "content": text("hi")}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := &mockServer{answer: hello}
			c := anthropicsdk.New(serve(t, srv), tt.opts...)
			if _, err := c.Complete(context.Background(), tt.req); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, srv.requests()[0]); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
		})
	}
}

func decode(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}
