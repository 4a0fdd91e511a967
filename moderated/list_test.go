package moderated

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
)

func TestList(t *testing.T) {
	ctx := t.Context()
	st := store.NewMemory()
	play := func(id string, client llm.Client, opts ...Option) {
		d := cachingQuestion
		d.ID = id
		_, _ = run(ctx, client, testConfig(), d, opts, engine.WithStore(st))
	}
	boom := errors.New("provider down")

	play("a-complete", newFake(judgeAgree))
	failAnalysis := llmtest.New()
	failAnalysis.OnPurpose(PurposeAnalysis).Fail(boom)
	play("b-analyzing", failAnalysis)
	failRound2 := llmtest.New()
	failRound2.On(func(r llm.Request) bool {
		return r.Purpose == PurposeRebuttal && len(r.Messages) > 1 && strings.Contains(r.Messages[1].Content, "Round: 2 of")
	}).Fail(boom)
	addRules(failRound2, []string{analysisTwo}, texts("argument", 50))
	play("c-in-round", failRound2)
	play("d-paused", newFake(), WithCheckpointer(CheckpointFunc(func(context.Context, State) (Decision, error) { return Decision{}, ErrPaused })))
	play("e-checkpoint", newFake(), WithCheckpointer(CheckpointFunc(func(context.Context, State) (Decision, error) { return Decision{}, boom })))
	failSynthesis := llmtest.New()
	failSynthesis.OnPurpose(PurposeSynthesis).Fail(boom)
	addRules(failSynthesis, []string{analysisTwo}, texts("argument", 50), judgeAgree)
	play("f-synthesizing", failSynthesis)
	if _, err := engine.Run(ctx, llm.NewStub(1), &otherFormat{}, engine.Debate{ID: "g-other", Proposition: "p"}, engine.WithStore(st)); err != nil {
		t.Fatal(err)
	}

	got, err := List(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"Performance Advocate", "Simplicity Advocate"}
	q := cachingQuestion.Proposition
	want := []Summary{
		{DebateID: "a-complete", Question: q, Status: StatusComplete, Round: 1, MaxRounds: 3, Perspectives: names},
		{DebateID: "b-analyzing", Question: q, Status: StatusAnalyzing, Round: 0, MaxRounds: 3},
		{DebateID: "c-in-round", Question: q, Status: StatusInRound, Round: 2, MaxRounds: 3, Perspectives: names},
		{DebateID: "d-paused", Question: q, Status: StatusPaused, Round: 1, MaxRounds: 3, Perspectives: names},
		{DebateID: "e-checkpoint", Question: q, Status: StatusCheckpoint, Round: 1, MaxRounds: 3, Perspectives: names},
		{DebateID: "f-synthesizing", Question: q, Status: StatusSynthesizing, Round: 1, MaxRounds: 3, Perspectives: names},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(Summary{}, "Started", "Updated", "Elapsed")); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
	for _, s := range got {
		if s.Started.IsZero() || s.Updated.Before(s.Started) {
			t.Errorf("%s: started %v, updated %v", s.DebateID, s.Started, s.Updated)
		}
	}

	// A paused debate resumed past its checkpoint is in a round again.
	if _, err := resume(ctx, newFakeArgs(texts("resumed", 50), judgeOn), "d-paused", []Option{WithCheckpointer(CheckpointFunc(
		func(_ context.Context, st State) (Decision, error) {
			if st.Round == 2 {
				return Decision{}, ErrPaused
			}
			return Decision{Action: Continue}, nil
		}))}, engine.WithStore(st)); !errors.Is(err, ErrPaused) {
		t.Fatalf("resume: %v", err)
	}
	got, _ = List(ctx, st)
	if got[3].Status != StatusPaused || got[3].Round != 2 {
		t.Errorf("after resuming: %+v", got[3])
	}
}
