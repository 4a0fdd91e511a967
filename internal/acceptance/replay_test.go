package acceptance

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/events"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// TestReplayEqualsLive: the events rebuilt from a debate's records are the
// non-token events emitted live: same type, seq, segment, speaker and
// payload (compared as JSON).
func TestReplayEqualsLive(t *testing.T) {
	for _, f := range formats() {
		t.Run(f.name, func(t *testing.T) {
			st := store.NewMemory()
			sink := &collect{}
			if err := f.run(context.Background(), env{llm.NewStub(5), st, sink, fixedClock(clockA)}, debate); err != nil {
				t.Fatal(err)
			}
			recs, err := st.Records(context.Background(), debate.ID)
			if err != nil {
				t.Fatal(err)
			}
			type row struct {
				Seq                    int64
				Type, Segment, Speaker string
				Payload                string
			}
			norm := func(e duelogic.Event) row {
				p := map[string]any{"utterance": e.Utterance, "evaluation": e.Evaluation, "interrupt": e.Interrupt, "data": e.Data}
				j, _ := json.Marshal(p)
				return row{e.Seq, string(e.Type), string(e.Segment), e.Speaker, string(j)}
			}
			var live, replayed []row
			for _, e := range sink.events {
				if e.Type == "debate_ended" {
					continue // carries the whole result live; its record the totals
				}
				live = append(live, norm(e))
			}
			for _, rec := range recs {
				if e, ok := events.FromRecord(rec); ok && e.Type != "debate_ended" {
					replayed = append(replayed, norm(e))
				}
			}
			if diff := cmp.Diff(live, replayed); diff != "" {
				t.Errorf("replayed events differ from live ones (-live +replayed):\n%s", diff)
			}
		})
	}
}

var _ = time.Now
