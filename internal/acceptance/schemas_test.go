package acceptance

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
)

// schemaLog passes calls to a client and keeps each purpose's schema.
type schemaLog struct {
	llm.Client
	mu      sync.Mutex
	schemas map[string]json.RawMessage
	caps    map[string]int
}

func (r *schemaLog) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	r.keep(req)
	return r.Client.Complete(ctx, req)
}

func (r *schemaLog) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	r.keep(req)
	return llm.Stream(ctx, r.Client, req, onDelta)
}

func (r *schemaLog) keep(req llm.Request) {
	if len(req.Schema) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.schemas[req.Purpose] = req.Schema
	r.caps[req.Purpose] = min(r.caps[req.Purpose], req.MaxTokens)
	if r.caps[req.Purpose] == 0 {
		r.caps[req.Purpose] = req.MaxTokens
	}
}

// TestEverySchemaBoundsItsReplies: every JSON call of every format, argument
// extraction included, sends a schema that bounds its replies (every
// string has a maxLength, every array a maxItems), and a completion cap
// that fits the longest reply it allows, so that a server that keeps
// replies in shape (llama.cpp's grammar) can always close one.
func TestEverySchemaBoundsItsReplies(t *testing.T) {
	for _, name := range engine.Formats() {
		t.Run(name, func(t *testing.T) {
			f, err := engine.Open(name, nil)
			if err != nil {
				t.Fatal(err)
			}
			rec := &schemaLog{Client: llm.NewStub(3), schemas: map[string]json.RawMessage{}, caps: map[string]int{}}
			if _, err := engine.Run(t.Context(), rec, f, engine.Debate{Proposition: "Should we rewrite the billing service in Go?"},
				engine.WithArgumentMap(argumentation.Additive)); err != nil {
				t.Fatal(err)
			}
			purposes := make([]string, 0, len(rec.schemas))
			for p := range rec.schemas {
				purposes = append(purposes, p)
			}
			slices.Sort(purposes)
			if len(purposes) == 0 {
				t.Fatal("no JSON call was made")
			}
			for _, p := range purposes {
				need, err := engine.SchemaTokens(rec.schemas[p])
				if err != nil {
					t.Errorf("%s: %v", p, err)
					continue
				}
				if rec.caps[p] < need {
					t.Errorf("%s: a cap of %d tokens; the longest valid reply needs %d", p, rec.caps[p], need)
				}
			}
		})
	}
}
