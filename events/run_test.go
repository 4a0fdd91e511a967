package events_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/events"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
)

// debateRun runs a stub debate with id in st.
func debateRun(client llm.Client, st store.Store, id string) events.RunFunc {
	return func(ctx context.Context, sink duelogic.EventSink) (*duelogic.Result, error) {
		o, err := duelogic.New(testConfig(nil), client, duelogic.WithStore(st), duelogic.WithSink(sink))
		if err != nil {
			return nil, err
		}
		return o.Run(ctx, duelogic.Debate{ID: id, Proposition: "Should cities ban cars from their centres?"})
	}
}

func TestRunYieldsEveryEventInOrder(t *testing.T) {
	ctx := t.Context()
	var want collector
	runDebate(t, ctx, "d1", llm.NewStub(4), store.NewMemory(), &want, nil)

	var got []duelogic.Event
	for e, err := range events.Run(ctx, debateRun(llm.NewStub(4), store.NewMemory(), "d1")) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e)
	}
	if diff := cmp.Diff(jsonOf(t, want.all()), jsonOf(t, got)); diff != "" {
		t.Errorf("(-sink +iterator):\n%s", diff)
	}
	if last := got[len(got)-1]; last.Type != duelogic.EventDebateEnded || last.Result == nil {
		t.Errorf("last event %s; want debate_ended with the result", last.Type)
	}
}

func TestRunYieldsTheErrorLast(t *testing.T) {
	f := llmtest.New()
	boom := errors.New("model down")
	f.OnPurpose(duelogic.PurposeOpening).Fail(boom)
	var types []duelogic.EventType
	var errs []error
	for e, err := range events.Run(t.Context(), debateRun(f, store.NewMemory(), "d1")) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if len(errs) > 0 {
			t.Fatalf("event %s after the error", e.Type)
		}
		if e.Type != duelogic.EventToken {
			types = append(types, e.Type)
		}
	}
	want := []duelogic.EventType{duelogic.EventDebateStarted, duelogic.EventSegmentStarted, duelogic.EventUtterance,
		duelogic.EventSegmentEnded, duelogic.EventSegmentStarted}
	if diff := cmp.Diff(want, types); diff != "" {
		t.Errorf("events before the error (-want +got):\n%s", diff)
	}
	if len(errs) != 1 || !errors.Is(errs[0], boom) {
		t.Errorf("errors %v; want one wrapping %v", errs, boom)
	}
}

// TestRunStopsTheDebateWhenTheLoopStops breaks out of, returns from and
// panics in the loop: each time the run's context is cancelled and the run
// has returned before the loop statement ends (synctest fails the test on a
// goroutine left behind).
func TestRunStopsTheDebateWhenTheLoopStops(t *testing.T) {
	tests := []struct {
		name string
		loop func(seq func(func(duelogic.Event, error) bool))
	}{
		{"break", func(seq func(func(duelogic.Event, error) bool)) {
			n := 0
			for range seq {
				if n++; n == 3 {
					break
				}
			}
		}},
		{"panic", func(seq func(func(duelogic.Event, error) bool)) {
			defer func() { recover() }()
			for range seq {
				panic("loop body fails")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := llmtest.New()
				f.Default().Delay(time.Second) // every call takes a (fake) second
				st := store.NewMemory()
				var runErr error
				returned := false
				run := debateRun(f, st, "d1")
				seq := events.Run(context.Background(), func(ctx context.Context, sink duelogic.EventSink) (*duelogic.Result, error) {
					res, err := run(ctx, sink)
					runErr, returned = err, true
					return res, err
				})
				tt.loop(seq)
				if !returned {
					t.Fatal("the run had not returned when the loop ended")
				}
				if !errors.Is(runErr, context.Canceled) {
					t.Errorf("run error %v; want context.Canceled", runErr)
				}
				// The stopped debate is resumable: its first record is stored.
				if _, err := st.Records(context.Background(), "d1"); err != nil {
					t.Error(err)
				}
			})
		})
	}
}

func TestRunWithoutEvents(t *testing.T) {
	n := 0
	for _, err := range events.Run(t.Context(), func(context.Context, duelogic.EventSink) (*duelogic.Result, error) {
		return nil, nil
	}) {
		n++
		t.Errorf("yielded %v", err)
	}
	if n != 0 {
		t.Errorf("%d yields; want none", n)
	}
}
