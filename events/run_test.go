package events_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/events"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
)

// debateRun runs a podcast debate with id in st through engine.Run.
func debateRun(client llm.Client, st store.Store, id string) events.RunFunc {
	return func(ctx context.Context, sink engine.EventSink) error {
		p, err := duelogic.NewPodcast(testConfig(nil))
		if err != nil {
			return err
		}
		_, err = engine.Run(ctx, client, p, engine.Debate{ID: id, Proposition: proposition},
			engine.WithStore(st), engine.WithSink(sink))
		return err
	}
}

// collect ranges over seq, returning its events and its errors.
func collect(seq func(func(engine.Event, error) bool)) (evs []engine.Event, errs []error) {
	for e, err := range seq {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		evs = append(evs, e)
	}
	return evs, errs
}

// TestRunYieldsEveryEventInOrder: the iterators yield what a sink given to
// engine.Run receives, tokens included, the same debate run the same way.
func TestRunYieldsEveryEventInOrder(t *testing.T) {
	ctx := t.Context()
	var want, ignored collector // ignored: a sink the iterator's overrides
	// The tokens a speaker streams past a cut depend on when the check
	// that cut ended, so the debate compared token by token has no
	// interruptions.
	calm := func(c *duelogic.Config) { c.Interruptions.Enabled = false }
	res := runDebate(t, ctx, "d1", llm.NewStub(4), store.NewMemory(), &want, calm, engine.WithClock(pinned))

	tests := []struct {
		name string
		seq  func(st store.Store) func(func(engine.Event, error) bool)
	}{
		{"RunFormat", func(st store.Store) func(func(engine.Event, error) bool) {
			return events.RunFormat(ctx, llm.NewStub(4), podcast(t, calm), engine.Debate{ID: "d1", Proposition: proposition},
				engine.WithStore(st), engine.WithSink(&ignored), engine.WithClock(pinned))
		}},
		{"Run", func(st store.Store) func(func(engine.Event, error) bool) {
			return events.Run(ctx, func(ctx context.Context, sink engine.EventSink) error {
				_, err := engine.Run(ctx, llm.NewStub(4), podcast(t, calm), engine.Debate{ID: "d1", Proposition: proposition},
					engine.WithStore(st), engine.WithSink(sink), engine.WithClock(pinned))
				return err
			})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := collect(tt.seq(store.NewMemory()))
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			if diff := diffEvents(want.all(), got); diff != "" {
				t.Errorf("(-sink +iterator):\n%s", diff)
			}
			if n := len(ignored.all()); n > 0 {
				t.Errorf("the sink among the options got %d events; want none", n)
			}
			last := got[len(got)-1]
			ended, err := engine.DataAs[engine.Ended](last)
			if last.Type != engine.EventDebateEnded || err != nil {
				t.Fatalf("last event %s (%v); want debate_ended with an engine.Ended", last.Type, err)
			}
			var out duelogic.Outcome
			if err := json.Unmarshal(ended.Detail, &out); err != nil {
				t.Fatal(err)
			}
			// What the outcome holds for its documents is not stored: the result has it.
			if diff := cmp.Diff(*res.Detail, out, cmpopts.IgnoreFields(duelogic.Outcome{}, "Debate", "Transcript")); diff != "" {
				t.Errorf("outcome (-result +event):\n%s", diff)
			}
		})
	}
}

func TestRunYieldsTheErrorLast(t *testing.T) {
	f := llmtest.New()
	boom := errors.New("model down")
	f.OnPurpose(duelogic.PurposeOpening).Fail(boom)
	var types []engine.EventType
	var errs []error
	for e, err := range events.RunFormat(t.Context(), f, podcast(t, nil), engine.Debate{ID: "d1", Proposition: proposition}) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if len(errs) > 0 {
			t.Fatalf("event %s after the error", e.Type)
		}
		if e.Type != engine.EventToken {
			types = append(types, e.Type)
		}
	}
	want := []engine.EventType{engine.EventDebateStarted, engine.EventSegmentStarted, engine.EventUtterance,
		engine.EventSegmentEnded, engine.EventSegmentStarted}
	if diff := cmp.Diff(want, types); diff != "" {
		t.Errorf("events before the error (-want +got):\n%s", diff)
	}
	var te *engine.TurnError
	if len(errs) != 1 || !errors.Is(errs[0], boom) || !errors.As(errs[0], &te) {
		t.Errorf("errors %v; want one *engine.TurnError wrapping %v", errs, boom)
	}
}

// failing is the stub model, failing every call of one purpose.
type failing struct {
	*llm.Stub
	purpose string
}

var errFailing = errors.New("model down")

func (f failing) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if req.Purpose == f.purpose {
		return llm.Response{}, errFailing
	}
	return f.Stub.Complete(ctx, req)
}

func (f failing) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	if req.Purpose == f.purpose {
		return llm.Response{}, errFailing
	}
	return f.Stub.Stream(ctx, req, onDelta)
}

// TestResumeFormatYieldsTheRestOfTheDebate stops a debate at various points
// and resumes it with ResumeFormat: the resumed run yields the events of the
// records it adds, and nothing already stored, so the events of the two runs
// are the debate's replayed events; resuming it once finished yields nothing.
func TestResumeFormatYieldsTheRestOfTheDebate(t *testing.T) {
	for _, purpose := range []string{duelogic.PurposeOpening, duelogic.PurposeEvaluation, duelogic.PurposeClosing} {
		t.Run(purpose, func(t *testing.T) {
			ctx := t.Context()
			st := store.NewMemory()
			d := engine.Debate{ID: "d1", Proposition: proposition}
			first, errs := collect(events.RunFormat(ctx, failing{llm.NewStub(6), purpose}, podcast(t, nil), d, engine.WithStore(st)))
			if len(errs) != 1 || !errors.Is(errs[0], errFailing) {
				t.Fatalf("first run errors %v; want %v", errs, errFailing)
			}
			// The stored configuration is decoded into the format.
			rest, errs := collect(events.ResumeFormat(ctx, llm.NewStub(6), &duelogic.Podcast{}, d.ID, engine.WithStore(st)))
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			if last := rest[len(rest)-1]; last.Type != engine.EventDebateEnded {
				t.Errorf("resumed run ends with %s", last.Type)
			}
			live := slices.Concat(nonTokens(first), nonTokens(rest))
			if diff := diffEvents(replayed(t, st, d.ID, 0), live); diff != "" {
				t.Errorf("(-records +events of both runs):\n%s", diff)
			}

			again, errs := collect(events.ResumeFormat(ctx, llm.NewStub(6), &duelogic.Podcast{}, d.ID, engine.WithStore(st)))
			if len(again) > 0 || len(errs) > 0 {
				t.Errorf("resuming a finished debate yielded %d events, errors %v", len(again), errs)
			}
		})
	}
}

// TestRunStopsTheDebateWhenTheLoopStops breaks out of and panics in the
// loop: each time the run's context is cancelled and the run has returned
// before the loop statement ends (synctest fails the test on a goroutine
// left behind).
func TestRunStopsTheDebateWhenTheLoopStops(t *testing.T) {
	tests := []struct {
		name string
		loop func(seq func(func(engine.Event, error) bool))
	}{
		{"break", func(seq func(func(engine.Event, error) bool)) {
			n := 0
			for range seq {
				if n++; n == 3 {
					break
				}
			}
		}},
		{"panic", func(seq func(func(engine.Event, error) bool)) {
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
				seq := events.Run(context.Background(), func(ctx context.Context, sink engine.EventSink) error {
					err := run(ctx, sink)
					runErr, returned = err, true
					return err
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
	for _, err := range events.Run(t.Context(), func(context.Context, engine.EventSink) error { return nil }) {
		n++
		t.Errorf("yielded %v", err)
	}
	if n != 0 {
		t.Errorf("%d yields; want none", n)
	}
}
