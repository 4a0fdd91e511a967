package duelogic

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// TestStoredEvaluationsOfCutResponses: the request rebuilt for a response
// cut off by an interruption tells the judge it was cut, and by whom, as
// the debate's own request did; every rebuilt request is the one asked.
func TestStoredEvaluationsOfCutResponses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := shortConfig()
		c := newLiveClient(func(r llm.Request) (string, error) {
			if strings.Contains(r.Messages[len(r.Messages)-1].Content, "- chair_2:") {
				return interruptBy("chair_2", 0.9)(r) // chair_2 cuts chair_1 off
			}
			return noInterrupt, nil
		})
		c.tc.on(PurposeEvaluation, always(noSelfCritique))
		st := store.NewMemory()
		res, err := mustNew(t, cfg, c, engine.WithStore(st)).Run(context.Background(), prop)
		if err != nil {
			t.Fatal(err)
		}
		var asked []llm.Request
		for _, r := range c.tc.requests() {
			if r.Purpose == PurposeEvaluation {
				r.CacheKey, r.JSON, r.MaxTokens = "", false, 0
				asked = append(asked, r)
			}
		}
		got, err := StoredEvaluations(context.Background(), st, res.DebateID, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(asked) {
			t.Fatalf("%d evaluations rebuilt, %d asked", len(got), len(asked))
		}
		note := fmt.Sprintf(CutNote, "Grok 3 (Virtue Ethics Chair)")
		told := 0
		for i, se := range got {
			req := se.Request
			req.MaxTokens = 0
			if diff := cmp.Diff(asked[i], req); diff != "" {
				t.Errorf("evaluation %s: the rebuilt request differs (-asked +rebuilt):\n%s", se.Key, diff)
			}
			if strings.Contains(req.Messages[len(req.Messages)-1].Content, note) {
				told++
			}
		}
		if told != cfg.Flow.MaxExchanges {
			t.Errorf("%d rebuilt requests tell of a cut, want chair_1's %d", told, cfg.Flow.MaxExchanges)
		}
	})
}
