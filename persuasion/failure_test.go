package persuasion

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/storetest"
)

// pinned is the clock of the failure tests: the same transcript on any day.
func pinned() time.Time { return time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC) }

// failingOn sends the requests fail picks to a fake whose model is down,
// the others to the stub, and calls then (if set) before each request
// fail picks.
type failingOn struct {
	stub llm.Client
	down *llmtest.Fake
	mu   sync.Mutex
	n    map[string]int // requests by purpose
	fail func(req llm.Request, nth int) bool
}

func newFailingOn(seed int64, err error, fail func(req llm.Request, nth int) bool) *failingOn {
	down := llmtest.New()
	down.Default().Fail(err)
	return &failingOn{stub: llm.NewStub(seed), down: down, n: map[string]int{}, fail: fail}
}

func (c *failingOn) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	c.mu.Lock()
	c.n[req.Purpose]++
	fail := c.fail(req, c.n[req.Purpose])
	c.mu.Unlock()
	if fail {
		return c.down.Complete(ctx, req)
	}
	return c.stub.Complete(ctx, req)
}

// sameOutcome fails t unless got, a debate resumed through the registry,
// ended as want, an uninterrupted run.
func sameOutcome(t *testing.T, want *engine.Result[*Outcome], got *engine.Result[engine.Outcome]) {
	t.Helper()
	o, ok := got.Detail.(*Outcome)
	if !ok {
		t.Fatalf("Detail is a %T", got.Detail)
	}
	if diff := cmp.Diff(want.Detail, o, cmpopts.IgnoreFields(Outcome{}, "Report")); diff != "" {
		t.Errorf("outcome (-uninterrupted +resumed):\n%s", diff)
	}
	if diff := cmp.Diff(want.Transcript, got.Transcript); diff != "" {
		t.Errorf("transcript (-uninterrupted +resumed):\n%s", diff)
	}
	if got.Format != FormatName || got.DebateID != want.DebateID {
		t.Errorf("resumed %s debate %s", got.Format, got.DebateID)
	}
}

// TestFailureKeepsTheDebate: a debate stopped by a model error, a store
// error or cancellation returns what it has so far — its ID, the format's
// name, the transcript — with the error, and engine.ResumeStored on the
// stub finishes it as an uninterrupted run ends.
func TestFailureKeepsTheDebate(t *testing.T) {
	const seed = 4
	want, err := run(t.Context(), llm.NewStub(seed), Config{}, testDebate, engine.WithClock(pinned))
	if err != nil {
		t.Fatal(err)
	}
	boom, disk := errors.New("provider down"), errors.New("disk full")
	tests := []struct {
		name string
		// play runs the debate on mem until it fails, and returns the error
		// it should fail with.
		play func(ctx context.Context, mem store.Store) (*engine.Result[*Outcome], error, error)
	}{
		{"the moderator's model fails", func(ctx context.Context, mem store.Store) (*engine.Result[*Outcome], error, error) {
			c := newFailingOn(seed, boom, func(r llm.Request, _ int) bool { return r.Purpose == PurposeVerdict })
			res, err := run(ctx, c, Config{}, testDebate, engine.WithStore(mem), engine.WithClock(pinned))
			return res, err, boom
		}},
		{"a debater's model fails", func(ctx context.Context, mem store.Store) (*engine.Result[*Outcome], error, error) {
			c := newFailingOn(seed, boom, func(r llm.Request, nth int) bool { return r.Purpose == PurposeTurn && nth == 6 })
			res, err := run(ctx, c, Config{}, testDebate, engine.WithStore(mem), engine.WithClock(pinned))
			return res, err, boom
		}},
		{"the store fails", func(ctx context.Context, mem store.Store) (*engine.Result[*Outcome], error, error) {
			st := storetest.FailAfter(mem, 9, disk)
			res, err := run(ctx, llm.NewStub(seed), Config{}, testDebate, engine.WithStore(st), engine.WithClock(pinned))
			return res, err, disk
		}},
		{"cancelled", func(ctx context.Context, mem store.Store) (*engine.Result[*Outcome], error, error) {
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			c := newFailingOn(seed, boom, func(r llm.Request, nth int) bool {
				if r.Purpose == PurposeTurn && nth == 8 {
					cancel()
				}
				return false
			})
			res, err := run(ctx, c, Config{}, testDebate, engine.WithStore(mem), engine.WithClock(pinned))
			return res, err, context.Canceled
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem := store.NewMemory()
			res, err, wantErr := tt.play(t.Context(), mem)
			if !errors.Is(err, wantErr) {
				t.Fatalf("err = %v, want %v", err, wantErr)
			}
			var te *engine.TurnError
			if wantErr == boom && !errors.As(err, &te) {
				t.Errorf("a model error %v is not a TurnError", err)
			}
			if res == nil {
				t.Fatal("no result with the error")
			}
			n := len(res.Transcript)
			if res.DebateID != testDebate.ID || res.Format != FormatName || n == 0 || n >= len(want.Transcript) || res.Detail != nil {
				t.Fatalf("result %s %s with %d of %d utterances, detail %v", res.Format, res.DebateID, n, len(want.Transcript), res.Detail)
			}
			if diff := cmp.Diff(want.Transcript[:n], res.Transcript); diff != "" {
				t.Errorf("transcript so far (-uninterrupted +stopped):\n%s", diff)
			}
			again, err := engine.ResumeStored(t.Context(), llm.NewStub(seed), testDebate.ID, engine.WithStore(mem), engine.WithClock(pinned))
			if err != nil {
				t.Fatal(err)
			}
			sameOutcome(t, want, again)
		})
	}
}

// TestResumeOldShape: a debate stored by an earlier version, its
// configuration under "config", resumes with &Format{} and by name.
func TestResumeOldShape(t *testing.T) {
	const seed = 3
	want, err := run(t.Context(), llm.NewStub(seed), oldConfig(), testDebate, engine.WithClock(pinned))
	if err != nil {
		t.Fatal(err)
	}
	mem := store.NewMemory()
	disk := errors.New("disk full")
	if _, err := run(t.Context(), llm.NewStub(seed), oldConfig(), testDebate,
		engine.WithStore(storetest.FailAfter(mem, 7, disk)), engine.WithClock(pinned)); !errors.Is(err, disk) {
		t.Fatalf("err = %v, want %v", err, disk)
	}
	t.Run("Resume", func(t *testing.T) {
		st := withSpec(t, mem, testDebate.ID, oldSpec)
		got, err := engine.Resume(t.Context(), llm.NewStub(seed), &Format{}, testDebate.ID, engine.WithStore(st), engine.WithClock(pinned))
		if err != nil {
			t.Fatal(err)
		}
		sameOutcome(t, want, &engine.Result[engine.Outcome]{DebateID: got.DebateID, Format: got.Format, Transcript: got.Transcript, Detail: got.Detail})
	})
	t.Run("ResumeStored", func(t *testing.T) {
		st := withSpec(t, mem, testDebate.ID, oldSpec)
		got, err := engine.ResumeStored(t.Context(), llm.NewStub(seed), testDebate.ID, engine.WithStore(st), engine.WithClock(pinned))
		if err != nil {
			t.Fatal(err)
		}
		sameOutcome(t, want, got)
	})
}
