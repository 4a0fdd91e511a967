package llmtest_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
)

const verdictSchema = `{"type":"object","properties":{"winner":{"type":"string","enum":["pro","con"]},"margin":{"type":["integer","null"]}},"required":["winner","margin"],"additionalProperties":false}`

// errRecorder is a testing.TB that keeps what is reported with Errorf.
type errRecorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *errRecorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *errRecorder) reported() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.errs)
}

func verdictReq(schema string) llm.Request {
	return llm.Request{Model: "m", Purpose: "verdict", Messages: []llm.Message{{Role: llm.User, Content: "who won?"}}, Schema: json.RawMessage(schema)}
}

func TestCheckSchemas(t *testing.T) {
	tests := []struct {
		name     string
		script   func(f *llmtest.Fake)
		req      llm.Request
		want     string // the reply; "" for an error
		wantErr  string
		mismatch bool
	}{
		{name: "a fitting reply", script: func(f *llmtest.Fake) { f.OnPurpose("verdict").Reply(`{"winner":"pro","margin":3}`) },
			req: verdictReq(verdictSchema), want: `{"winner":"pro","margin":3}`},
		{name: "a reply that does not fit", script: func(f *llmtest.Fake) { f.OnPurpose("verdict").Reply(`{"winner":"draw"}`) },
			req: verdictReq(verdictSchema), mismatch: true,
			wantErr: `llmtest: reply to "verdict": llm: reply does not satisfy the request's schema: jsonschema: $: missing required property "margin"; $.winner: "draw" is not one of "pro", "con"`},
		{name: "a reply that is not JSON", script: func(f *llmtest.Fake) { f.OnPurpose("verdict").Reply(`Pro wins.`) },
			req: verdictReq(verdictSchema), mismatch: true, wantErr: "$: not valid JSON"},
		{name: "the built-in reply fits", script: func(f *llmtest.Fake) {},
			req: verdictReq(verdictSchema), want: `{"margin":null,"winner":"pro"}`},
		{name: "a schema outside strict mode", script: func(f *llmtest.Fake) { f.OnPurpose("verdict").Reply(`{}`) },
			req: verdictReq(`{"type":"object","properties":{"winner":{"type":"string"}}}`), wantErr: `llmtest: request "verdict": its schema: jsonschema: not valid for strict mode`},
		{name: "no schema, no check", script: func(f *llmtest.Fake) { f.OnPurpose("verdict").Reply(`Pro wins.`) },
			req: verdictReq(""), want: "Pro wins."},
		{name: "scripted errors pass", script: func(f *llmtest.Fake) { f.OnPurpose("verdict").Fail(errors.New("boom")) },
			req: verdictReq(verdictSchema), wantErr: "boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, stream := range []bool{false, true} {
				rec := &errRecorder{TB: t}
				f := llmtest.New().CheckSchemas(rec)
				tt.script(f)
				var resp llm.Response
				var err error
				deltas := 0
				if stream {
					resp, err = f.Stream(t.Context(), tt.req, func(string) error { deltas++; return nil })
				} else {
					resp, err = f.Complete(t.Context(), tt.req)
				}
				if tt.wantErr == "" {
					if err != nil || resp.Content != tt.want || rec.reported() != 0 {
						t.Errorf("stream %v: %q, %v, %d reported; want %q", stream, resp.Content, err, rec.reported(), tt.want)
					}
					continue
				}
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("stream %v: error %v, want one saying %q", stream, err, tt.wantErr)
				}
				if errors.Is(err, llm.ErrSchemaMismatch) != tt.mismatch {
					t.Errorf("stream %v: errors.Is(ErrSchemaMismatch) = %v, want %v", stream, !tt.mismatch, tt.mismatch)
				}
				schemaFault := tt.wantErr != "boom"
				if got := rec.reported(); schemaFault && got != 1 || !schemaFault && got != 0 {
					t.Errorf("stream %v: reported %d times to the test", stream, got)
				}
				if deltas != 0 {
					t.Errorf("stream %v: %d deltas before the error, want none", stream, deltas)
				}
				if got := f.Requests(); len(got) != 1 || string(got[0].Schema) != string(tt.req.Schema) {
					t.Errorf("stream %v: recorded %v, want the request with its schema", stream, got)
				}
			}
		})
	}
}

func TestCheckSchemasOff(t *testing.T) {
	f := llmtest.New()
	f.OnPurpose("verdict").Reply(`{"winner":"draw"}`)
	if got := ask(t, f, verdictReq(verdictSchema)); got != `{"winner":"draw"}` {
		t.Errorf("got %q; a Fake that does not check schemas replies as scripted", got)
	}
	if got := ask(t, llmtest.New(), verdictReq(verdictSchema)); got != "fake reply for verdict" {
		t.Errorf("got %q, want the built-in reply", got)
	}
}

func TestRequestsKeepSchema(t *testing.T) {
	f := llmtest.New()
	req := verdictReq(verdictSchema)
	ask(t, f, req)
	req.Schema[0] = 'X' // the caller's bytes change; the record does not
	got := f.Requests()
	if string(got[0].Schema) != verdictSchema {
		t.Errorf("recorded Schema %s, want %s", got[0].Schema, verdictSchema)
	}
	got[0].Schema[0] = 'Y'
	if again := f.Requests(); string(again[0].Schema) != verdictSchema {
		t.Errorf("Requests shares the recorded Schema")
	}
}
