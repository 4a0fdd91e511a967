package duelogic_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	_ "github.com/duelogic/duelogic/formal"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// evalRecorder keeps the evaluation requests a stub is sent, first asks
// only (a re-ask carries the unusable reply).
type evalRecorder struct {
	llm.Client
	mu   sync.Mutex
	reqs []llm.Request
}

func (r *evalRecorder) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if req.Purpose == duelogic.PurposeEvaluation && len(req.Messages) <= 2 {
		r.mu.Lock()
		r.reqs = append(r.reqs, req)
		r.mu.Unlock()
	}
	return r.Client.Complete(ctx, req)
}

// comparable strips what the engine adds to a request on its way to the
// client (the prompt-cache key, JSON, the schema's own cap).
func comparable(req llm.Request) llm.Request {
	req.CacheKey, req.JSON, req.MaxTokens = "", false, 0
	return req
}

// TestStoredEvaluationsRebuildTheRequests: the requests StoredEvaluations
// rebuilds from a stored podcast are the very requests the arbiter was
// sent for its evaluations, in order — with the turn each response
// answers (a chair's, an interruption's, the arbiter's interjection) and
// the note on a response cut off — and the evaluations are those stored.
func TestStoredEvaluationsRebuildTheRequests(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		seed         int64
	}{
		{"moderate", `{"flow": {"maxExchanges": 3}}`, 5},
		{"strict three chairs", `{"arbiter": {"accountabilityLevel": "strict"}, "flow": {"maxExchanges": 4},
			"chairs": [{"position": "chair_1", "framework": "utilitarian", "modelId": "m/a"}, {"position": "chair_2", "framework": "virtue_ethics", "modelId": "m/b"}, {"position": "chair_3", "framework": "deontological", "modelId": "m/c"}]}`, 11},
		{"no interruptions", `{"interruptions": {"enabled": false}, "flow": {"maxExchanges": 3}}`, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			st := store.NewMemory()
			f, err := engine.Open(duelogic.FormatName, json.RawMessage(tc.config))
			if err != nil {
				t.Fatal(err)
			}
			c := &evalRecorder{Client: llm.NewStub(tc.seed)}
			res, err := engine.Run(ctx, c, f, engine.Debate{ID: "p", Proposition: "Should cities ban private cars from their centres?"}, engine.WithStore(st))
			if err != nil {
				t.Fatal(err)
			}
			got, err := duelogic.StoredEvaluations(ctx, st, "p", nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 || len(got) != len(c.reqs) {
				t.Fatalf("%d stored evaluations, %d asked", len(got), len(c.reqs))
			}
			cuts := 0
			for _, u := range res.Transcript {
				if u.Cut {
					cuts++
				}
			}
			t.Logf("%d evaluations, %d responses cut off", len(got), cuts)
			keys := map[string]bool{}
			for i, se := range got {
				if diff := cmp.Diff(comparable(c.reqs[i]), comparable(se.Request)); diff != "" {
					t.Errorf("evaluation %d (%s): the rebuilt request differs (-asked +rebuilt):\n%s", i, se.Key, diff)
				}
				u, ok := findUtterance(res.Transcript, se.UtteranceSeq)
				if !ok || u.Speaker != se.Speaker {
					t.Errorf("evaluation %s: utterance %d by %s not in the transcript", se.Key, se.UtteranceSeq, se.Speaker)
				}
				if diff := cmp.Diff(u.Evaluation, se.Evaluation); diff != "" {
					t.Errorf("evaluation %s differs from the transcript's:\n%s", se.Key, diff)
				}
				if keys[se.Key] {
					t.Errorf("key %s twice", se.Key)
				}
				keys[se.Key] = true
			}
		})
	}
}

func findUtterance(tr []engine.Utterance, seq int64) (engine.Utterance, bool) {
	for _, u := range tr {
		if u.Seq == seq {
			return u, true
		}
	}
	return engine.Utterance{}, false
}

// TestStoredEvaluationsRefusesOtherFormats: a debate of another format is
// ErrNotPodcast, a missing one store.ErrNotFound.
func TestStoredEvaluationsRefusesOtherFormats(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	f, err := engine.Open("formal", json.RawMessage(`{"minRounds": 1, "maxRounds": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := engine.Run(ctx, llm.NewStub(1), f, engine.Debate{ID: "f", Proposition: "Remote work should be the default."}, engine.WithStore(st)); err != nil {
		t.Fatal(err)
	}
	if _, err := duelogic.StoredEvaluations(ctx, st, "f", nil); !errors.Is(err, duelogic.ErrNotPodcast) {
		t.Errorf("a formal debate: %v", err)
	}
	if _, err := duelogic.StoredEvaluations(ctx, st, "none", nil); !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), "none") {
		t.Errorf("a missing debate: %v", err)
	}
}
