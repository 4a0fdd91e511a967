package openaisdk_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/openaisdk"
)

// strictSchema is in OpenAI's strict subset; looseSchema is not (a
// property is not required).
var (
	strictSchema = json.RawMessage(`{"type":"object","properties":{"winner":{"type":"string"}},"required":["winner"],"additionalProperties":false}`)
	looseSchema  = json.RawMessage(`{"type":"object","properties":{"winner":{"type":"string"}}}`)
)

// Each request's fields reach the wire: messages by role, temperature,
// max_completion_tokens, and the schema as a json_schema response_format
// named after the purpose, strict only when the schema allows it.
func TestRequestBody(t *testing.T) {
	temp := 0.25
	base := llm.Request{
		Model:       "gpt-test",
		Messages:    []llm.Message{{Role: llm.System, Content: "sys"}, {Role: llm.User, Content: "hi"}, {Role: llm.Assistant, Content: "yo"}},
		Temperature: &temp,
		MaxTokens:   77,
	}
	with := func(f func(*llm.Request)) llm.Request { r := base; f(&r); return r }
	tests := []struct {
		name string
		req  llm.Request
		want map[string]any // fields of the body besides model and messages
	}{
		{"text", base, map[string]any{"temperature": 0.25, "max_completion_tokens": 77.0}},
		{"strict schema", with(func(r *llm.Request) { r.Purpose = "verdict"; r.Schema = strictSchema }), map[string]any{
			"temperature": 0.25, "max_completion_tokens": 77.0,
			"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{
				"name": "verdict", "strict": true, "schema": decode(t, strictSchema)}},
		}},
		{"loose schema, odd purpose", with(func(r *llm.Request) { r.Purpose = "round 2/verdict"; r.Schema = looseSchema }), map[string]any{
			"temperature": 0.25, "max_completion_tokens": 77.0,
			"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{
				"name": "round_2_verdict", "strict": false, "schema": decode(t, looseSchema)}},
		}},
		{"json", with(func(r *llm.Request) { r.JSON = true; r.Temperature = nil; r.MaxTokens = 0 }), map[string]any{
			"response_format": map[string]any{"type": "json_object"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := &mockServer{answer: hello}
			c := openaisdk.New(serve(t, srv))
			if _, err := c.Complete(context.Background(), tt.req); err != nil {
				t.Fatal(err)
			}
			body := srv.requests()[0]
			wantMsgs := []any{
				map[string]any{"role": "system", "content": "sys"},
				map[string]any{"role": "user", "content": "hi"},
				map[string]any{"role": "assistant", "content": "yo"},
			}
			if diff := cmp.Diff(wantMsgs, body["messages"]); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
			if body["model"] != "gpt-test" {
				t.Errorf("model %v, want gpt-test", body["model"])
			}
			delete(body, "messages")
			delete(body, "model")
			if diff := cmp.Diff(tt.want, body); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
		})
	}
}

// A stream asks for the usage chunk.
func TestStreamAsksForUsage(t *testing.T) {
	srv := &mockServer{answer: hello}
	c := openaisdk.New(serve(t, srv))
	if _, err := c.Stream(context.Background(), llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}, nil); err != nil {
		t.Fatal(err)
	}
	body := srv.requests()[0]
	if body["stream"] != true || !cmp.Equal(body["stream_options"], map[string]any{"include_usage": true}) {
		t.Errorf("stream %v, stream_options %v; want true, include_usage", body["stream"], body["stream_options"])
	}
}

// WithModel fills in the model of a request that has none.
func TestWithModel(t *testing.T) {
	srv := &mockServer{answer: hello}
	c := openaisdk.New(serve(t, srv), openaisdk.WithModel("gpt-default"))
	if _, err := c.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}); err != nil {
		t.Fatal(err)
	}
	if got := srv.requests()[0]["model"]; got != "gpt-default" {
		t.Errorf("model %v, want gpt-default", got)
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
