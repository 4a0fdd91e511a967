package engine_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// sinkFunc is an EventSink of a function.
type sinkFunc func(engine.Event)

func (f sinkFunc) Emit(_ context.Context, e engine.Event) { f(e) }

// A client that holds a call back announces the wait to the debate's sink,
// with the call's purpose, segment and speaker, and its end with how long
// it took by the debate's clock; nothing of it is stored, and the
// announcement does nothing outside a debate's call.
func TestAnnounceWait(t *testing.T) {
	var (
		mu  sync.Mutex
		now = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	)
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return now
	}
	var calls int
	c := llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		calls++
		if calls == 2 {
			over := engine.AnnounceWait(ctx, "a slot of provider p")
			mu.Lock()
			now = now.Add(1500 * time.Millisecond)
			mu.Unlock()
			over()
			over() // once only
		}
		return llm.NewStub(1).Complete(ctx, req)
	})
	var waits []engine.Event
	sink := sinkFunc(func(e engine.Event) {
		if e.Type == engine.EventWaiting {
			waits = append(waits, e)
		}
	})
	mem := store.NewMemory()
	res, err := engine.Run(t.Context(), c, &toy{Rounds: 1}, engine.Debate{ID: "waits", Proposition: "x?"},
		engine.WithStore(mem), engine.WithSink(sink), engine.WithClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	var got []engine.Wait
	for _, e := range waits {
		w, err := engine.DataAs[engine.Wait](e)
		if err != nil {
			t.Fatal(err)
		}
		if e.Seq != 0 || !e.Transient() || e.Segment != "rounds" || e.Speaker != "con" || e.DebateID != "waits" {
			t.Errorf("wait event %+v; want the second call's (con, rounds), announcing no record", e)
		}
		got = append(got, w)
	}
	want := []engine.Wait{
		{Purpose: "opening", For: "a slot of provider p"},
		{Purpose: "opening", For: "a slot of provider p", Over: true, Seconds: 1.5},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	recs, _ := mem.Records(t.Context(), "waits")
	replayed, err := engine.Replay(recs)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range replayed {
		if e.Type == engine.EventWaiting || e.Transient() {
			t.Errorf("replayed %s event %+v", e.Type, e)
		}
	}
	if len(res.Transcript) != 2 {
		t.Errorf("%d utterances; want 2", len(res.Transcript))
	}
	engine.AnnounceWait(context.Background(), "nothing")() // outside a debate: nothing, no panic
}
