package moderated

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/storetest"
)

// guideOnce guides after round 1 and continues after the others, whichever
// run asks.
var guideOnce = CheckpointFunc(func(_ context.Context, st State) (Decision, error) {
	if st.Round == 1 {
		return Decision{Action: Guide, Guidance: "Mind the budget."}, nil
	}
	return Decision{Action: Continue}, nil
})

// TestResumeAtEveryRecord stops a debate after each of its records in turn
// and resumes it: the resumed debate ends as the uninterrupted one did.
func TestResumeAtEveryRecord(t *testing.T) {
	ctx := t.Context()
	clock := duelogic.WithClock(func() time.Time { return time.Date(2025, 12, 5, 10, 0, 0, 0, time.UTC) })
	for _, seed := range []int64{2} {
		cfg := testConfig()
		cfg.TokenBudget = 150 // some replies are cut
		ref := store.NewMemory()
		want := mustRun(t, llm.NewStub(seed), cfg, cachingQuestion, Hooks{Checkpointer: guideOnce}, duelogic.WithStore(ref), clock)
		if len(want.Rounds) < 2 || want.Rounds[1].Guidance == "" {
			t.Fatalf("seed %d: the reference debate has %d rounds", seed, len(want.Rounds))
		}
		recs, _ := ref.Records(ctx, cachingQuestion.ID)
		ignore := cmp.Options{cmpopts.IgnoreFields(duelogic.Utterance{}, "Seq"), cmpopts.IgnoreFields(Argument{}, "Seq")}
		for n := 1; n < len(recs); n++ {
			mem := store.NewMemory()
			_, err := Run(ctx, llm.NewStub(seed), cfg, cachingQuestion, Hooks{Checkpointer: guideOnce},
				duelogic.WithStore(storetest.FailAfter(mem, n, errDisk)), clock)
			if !errors.Is(err, errDisk) {
				t.Fatalf("seed %d, n=%d: %v", seed, n, err)
			}
			followUps := 0
			got, err := Resume(ctx, llm.NewStub(seed), cachingQuestion.ID, Hooks{Checkpointer: guideOnce,
				FollowUp: func(context.Context, Synthesis) error { followUps++; return nil }}, duelogic.WithStore(mem), clock)
			if err != nil {
				t.Fatalf("seed %d, n=%d: resume: %v", seed, n, err)
			}
			if diff := cmp.Diff(want.Transcript, got.Transcript, ignore); diff != "" {
				t.Fatalf("seed %d, n=%d: transcript (-want +got):\n%s", seed, n, diff)
			}
			if diff := cmp.Diff(want.Rounds, got.Rounds, ignore); diff != "" {
				t.Fatalf("seed %d, n=%d: rounds (-want +got):\n%s", seed, n, diff)
			}
			if diff := cmp.Diff(want.Synthesis, got.Synthesis); diff != "" {
				t.Fatalf("seed %d, n=%d: synthesis (-want +got):\n%s", seed, n, diff)
			}
			if diff := cmp.Diff(want.Perspectives, got.Perspectives); diff != "" {
				t.Fatalf("seed %d, n=%d: perspectives (-want +got):\n%s", seed, n, diff)
			}
			// The follow-up record comes before the synthesis segment's end
			// and the debate's: a debate stopped before it hands the
			// decision over on resume (the first run had no FollowUp).
			if wantFollow := n < len(recs)-2; followUps != boolInt(wantFollow) || got.FollowedUp != wantFollow {
				t.Fatalf("seed %d, n=%d: %d follow-ups, followed up %v", seed, n, followUps, got.FollowedUp)
			}
			stored, _ := mem.Records(ctx, cachingQuestion.ID)
			if len(stored) != len(recs) {
				t.Fatalf("seed %d, n=%d: %d records after resume, want %d", seed, n, len(stored), len(recs))
			}
		}
	}
}

func TestResumeErrors(t *testing.T) {
	st := store.NewMemory()
	if _, err := Resume(t.Context(), llm.NewStub(1), "nope", Hooks{}, duelogic.WithStore(st)); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown debate: %v", err)
	}
	if _, err := duelogic.RunFormat(t.Context(), llm.NewStub(1), &otherFormat{}, duelogic.Debate{ID: "other", Proposition: "p"}, duelogic.WithStore(st)); err != nil {
		t.Fatal(err)
	}
	if _, err := Resume(t.Context(), llm.NewStub(1), "other", Hooks{}, duelogic.WithStore(st)); !errors.Is(err, duelogic.ErrCorruptLog) {
		t.Errorf("a debate of another format: %v", err)
	}
	if _, err := Run(t.Context(), nil, DefaultConfig(), cachingQuestion, Hooks{}); err == nil {
		t.Errorf("nil client accepted")
	}
}

// otherFormat is a format that says one thing.
type otherFormat struct{}

func (*otherFormat) Name() string { return "other" }

func (*otherFormat) Play(ctx context.Context, s *duelogic.Session) error {
	_, err := s.Record(ctx, "hello", duelogic.Utterance{Speaker: "host", Content: "Hello."})
	return err
}
