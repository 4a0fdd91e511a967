package moderated

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
)

// slowFake answers like newFake, every argument, rebuttal and judgment
// taking 20 s, so that a round of two debaters takes 80 s: the arguments
// side by side (20), two rebuttals in turn (40), the judgment (20). Its
// judgments never end the debate.
func slowFake(kind string) *llmtest.Fake {
	f := llmtest.New()
	f.OnPurpose(PurposeArgument).Delay(20 * time.Second).Reply(texts(kind, 50)...)
	f.OnPurpose(PurposeRebuttal).Delay(20 * time.Second).Reply(texts(kind+"-rebuttal", 50)...)
	f.OnPurpose(PurposeJudgment).Delay(20 * time.Second).Reply(judgeOn)
	return addRules(f, []string{analysisTwo}, texts(kind, 50))
}

// TestTotalTimeoutEndsTheRounds: seed 004, "Total debate timeout: 30
// minutes (configurable)". The total is checked between rounds: the round
// under way when it runs out finishes, then the moderator synthesizes, as
// at the round cap, with Low confidence.
func TestTotalTimeoutEndsTheRounds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.MaxRounds = 5
		cfg.TotalTimeout = 200 * time.Second
		res, err := run(t.Context(), slowFake("argument"), cfg, cachingQuestion, nil)
		if err != nil {
			t.Fatal(err)
		}
		// 80 s a round: 80, 160, then round 3 starts with 40 s left and
		// finishes at 240.
		if len(res.Rounds) != 3 || res.EndReason != EndTimeout || res.Elapsed != 240*time.Second {
			t.Fatalf("%d rounds, end %s, elapsed %v; want 3 rounds, %s, 4m0s", len(res.Rounds), res.EndReason, res.Elapsed, EndTimeout)
		}
		syn := res.Synthesis
		if syn.EndReason != EndTimeout || syn.Confidence != ConfidenceLow || !strings.Contains(strings.Join(syn.Caveats, " "), "ran out of its 3m20s time budget after 3 rounds") {
			t.Errorf("synthesis: end %s, confidence %s, caveats %q", syn.EndReason, syn.Confidence, syn.Caveats)
		}
	})
}

// TestTotalTimeoutCountsAcrossResumes: the total counts the time of the
// first run and of the resume, read on the session's clock and stored,
// and not the checkpoint's wait before it paused nor the hours before the
// resume (seed 004: "Checkpoint timeout: 30 minutes before auto-pause",
// "Total debate timeout: 30 minutes").
func TestTotalTimeoutCountsAcrossResumes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		st := store.NewMemory()
		cfg := testConfig()
		cfg.MaxRounds = 5
		cfg.TotalTimeout = 200 * time.Second
		_, err := run(ctx, slowFake("argument"), cfg, cachingQuestion, []Option{WithCheckpointer(blocking)}, engine.WithStore(st))
		if !errors.Is(err, ErrPaused) {
			t.Fatalf("err = %v, want a pause after round 1", err)
		}
		list, err := List(ctx, st)
		if err != nil || len(list) != 1 || list[0].Round != 1 || list[0].Elapsed != 80*time.Second {
			t.Fatalf("list %+v, %v; want round 1 paused after 1m20s spent (the 30-minute wait excluded)", list, err)
		}
		time.Sleep(3 * time.Hour) // nobody comes back for a while

		cont := CheckpointFunc(func(context.Context, State) (Decision, error) { return Decision{Action: Continue}, nil })
		res, err := resume(ctx, slowFake("resumed"), cachingQuestion.ID, []Option{WithCheckpointer(cont)}, engine.WithStore(st))
		if err != nil {
			t.Fatal(err)
		}
		// With its own 200 s the resumed call would have played rounds 2,
		// 3 and 4; counting the first run's 80 s, round 3 is the last.
		if len(res.Rounds) != 3 || res.EndReason != EndTimeout || res.Elapsed != 240*time.Second {
			t.Errorf("%d rounds, end %s, elapsed %v; want 3 rounds, %s, 4m0s", len(res.Rounds), res.EndReason, res.Elapsed, EndTimeout)
		}
		// The stored time is read back, not measured again.
		again, err := resume(ctx, llmtest.New(), cachingQuestion.ID, nil, engine.WithStore(st))
		if err != nil || again.Elapsed != res.Elapsed {
			t.Errorf("resuming the finished debate: elapsed %v, %v; want %v", again.Elapsed, err, res.Elapsed)
		}
	})
}
