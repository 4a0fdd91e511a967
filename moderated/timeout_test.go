package moderated

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/duelogic/duelogic/catalog"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/storetest"
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

// slowSimplicity is slowFake whose Simplicity Advocate takes 40 s to write
// its argument: a round takes 100 s, the Performance Advocate's argument
// being written 20 s into it, the Simplicity Advocate's 40 s.
func slowSimplicity() *llmtest.Fake {
	f := llmtest.New()
	f.On(func(r llm.Request) bool {
		return r.Purpose == PurposeArgument && strings.Contains(r.Messages[0].Content, "Perspective: Simplicity Advocate")
	}).Delay(40 * time.Second).Reply(texts("simple", 50)...)
	f.OnPurpose(PurposeArgument).Delay(20 * time.Second).Reply(texts("argument", 50)...)
	f.OnPurpose(PurposeRebuttal).Delay(20 * time.Second).Reply(texts("argument-rebuttal", 50)...)
	f.OnPurpose(PurposeJudgment).Delay(20 * time.Second).Reply(judgeOn)
	return addRules(f, []string{analysisTwo}, texts("argument", 50))
}

// TestTotalTimeoutCutsTheRoundShort: seed 004, "Total debate timeout: 30
// minutes (configurable)". Between rounds, a spent total ends the rounds;
// during one, the total cuts the round short where it runs out (issue 24):
// what was said stays, the moderator does not judge the round, and the
// synthesis, Low in confidence, says so. The cut is stored: a resumed
// debate — stopped right after the cut, or finished — plays the round as
// it was, without asking the model.
func TestTotalTimeoutCutsTheRoundShort(t *testing.T) {
	tests := []struct {
		name      string
		fake      func() *llmtest.Fake
		total     time.Duration
		rounds    int
		cut       string // the last round's Judgment.Cut
		arguments []catalog.Framework
		rebuttals int
		caveat    string
	}{
		// 80 s a round. Round 3: arguments 160-180 s, rebuttals 180-200 and 200-220,
		// judgment 220-240.
		{"in the first rebuttal", func() *llmtest.Fake { return slowFake("argument") }, 190 * time.Second, 3, stageRebuttals, []catalog.Framework{perf, simp}, 0,
			"ran out of its 3m10s time budget during round 3, which it cut short in its rebuttals (what was said before stands)"},
		{"in the second rebuttal", func() *llmtest.Fake { return slowFake("argument") }, 210 * time.Second, 3, stageRebuttals, []catalog.Framework{perf, simp}, 1,
			"during round 3, which it cut short in its rebuttals"},
		{"in the judgment", func() *llmtest.Fake { return slowFake("argument") }, 230 * time.Second, 3, stageJudgment, []catalog.Framework{perf, simp}, 2,
			"during round 3, which it cut short in its judgment"},
		// 100 s a round: round 3's Performance Advocate argues by 220 s,
		// the Simplicity Advocate would by 240.
		{"in the arguments", slowSimplicity, 230 * time.Second, 3, stageArguments, []catalog.Framework{perf}, 0,
			"during round 3, which it cut short in its arguments"},
		{"before any argument", slowSimplicity, 210 * time.Second, 3, stageArguments, nil, 0,
			"during round 3, which it cut short in its arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := t.Context()
				cfg := testConfig()
				cfg.MaxRounds = 5
				cfg.TotalTimeout = tt.total
				st := store.NewMemory()
				res, err := run(ctx, tt.fake(), cfg, cachingQuestion, nil, engine.WithStore(st))
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Rounds) != tt.rounds || res.EndReason != EndTimeout || res.Elapsed != tt.total {
					t.Fatalf("%d rounds, end %s, elapsed %v; want %d rounds, %s, %v", len(res.Rounds), res.EndReason, res.Elapsed, tt.rounds, EndTimeout, tt.total)
				}
				last := res.Rounds[len(res.Rounds)-1]
				var argued []catalog.Framework
				for _, a := range last.Arguments {
					argued = append(argued, a.Perspective)
				}
				if last.Judgment.Cut != tt.cut || !slices.Equal(argued, tt.arguments) || len(last.Rebuttals) != tt.rebuttals {
					t.Errorf("round %d: cut in %q with arguments %v and %d rebuttals; want cut in %q, %v, %d",
						last.Number, last.Judgment.Cut, argued, len(last.Rebuttals), tt.cut, tt.arguments, tt.rebuttals)
				}
				if tt.cut != "" && (last.Judgment.End != EndTimeout || !strings.Contains(last.Judgment.Summary, "ran out during round 3's "+tt.cut)) {
					t.Errorf("the cut round's judgment: %+v", last.Judgment)
				}
				// The transcript holds what was said: every argument and
				// rebuttal of the round, then the moderator's judgment.
				var spoken []engine.UtteranceKind
				for _, u := range res.Transcript {
					if u.Exchange == last.Number {
						spoken = append(spoken, u.Kind)
					}
				}
				want := []engine.UtteranceKind{KindOpening}
				for range tt.arguments {
					want = append(want, KindArgument)
				}
				for range tt.rebuttals {
					want = append(want, KindRebuttal)
				}
				want = append(want, KindJudgment)
				if diff := cmp.Diff(want, spoken); diff != "" {
					t.Errorf("round %d's transcript (-want +got):\n%s", last.Number, diff)
				}
				syn := res.Synthesis
				if syn.EndReason != EndTimeout || syn.Confidence != ConfidenceLow || !strings.Contains(strings.Join(syn.Caveats, " "), tt.caveat) {
					t.Errorf("synthesis: end %s, confidence %s, caveats %q; want one saying %q", syn.EndReason, syn.Confidence, syn.Caveats, tt.caveat)
				}

				// Replayed, the debate is the same, and no model is asked.
				none := llmtest.New()
				again, err := resume(ctx, none, cachingQuestion.ID, nil, engine.WithStore(st))
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(res.Rounds, again.Rounds); diff != "" || len(none.Requests()) != 0 {
					t.Errorf("replayed with %d requests; rounds (-run +replayed):\n%s", len(none.Requests()), diff)
				}
				if tt.cut == "" {
					return
				}
				// Stopped right after the cut was stored, resumed: the
				// round ends as it did.
				recs, _ := st.Records(ctx, cachingQuestion.ID)
				k := slices.IndexFunc(recs, func(r store.Record) bool { return r.Type == RecordCut }) + 1
				if k == 0 {
					t.Fatal("no cut stored")
				}
				stopped := store.NewMemory()
				if _, err := run(ctx, tt.fake(), cfg, cachingQuestion, nil, engine.WithStore(storetest.FailAfter(stopped, k, errDisk))); !errors.Is(err, errDisk) {
					t.Fatalf("err = %v; want the store's", err)
				}
				f := llmtest.New()
				f.OnPurpose(PurposeSynthesis).Reply(synthesisOK)
				resumed, err := resume(ctx, f, cachingQuestion.ID, nil, engine.WithStore(stopped))
				if err != nil {
					t.Fatal(err)
				}
				// (Which text each debater got depends on the order of
				// the parallel calls: the rounds' shape is compared.)
				ignore := cmpopts.IgnoreFields(Argument{}, "Seq", "Content", "Tokens", "RespondingTo", "Repetition")
				if diff := cmp.Diff(res.Rounds, resumed.Rounds, ignore); diff != "" || len(f.Requests()) != f.Calls(PurposeSynthesis) {
					t.Errorf("resumed after the cut with %d requests; rounds (-run +resumed):\n%s", len(f.Requests()), diff)
				}
			})
		})
	}
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
		cfg.TotalTimeout = 190 * time.Second
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
		// With its own 190 s the resumed call would have played rounds 2
		// and 3 whole; counting the first run's 80 s, round 3 is cut short
		// at 190 s, in its first rebuttal.
		if len(res.Rounds) != 3 || res.EndReason != EndTimeout || res.Elapsed != 190*time.Second || res.Rounds[2].Judgment.Cut != stageRebuttals {
			t.Errorf("%d rounds, end %s, elapsed %v, last cut in %q; want 3 rounds, %s, 3m10s, cut in the rebuttals",
				len(res.Rounds), res.EndReason, res.Elapsed, res.Rounds[2].Judgment.Cut, EndTimeout)
		}
		// The stored time is read back, not measured again.
		again, err := resume(ctx, llmtest.New(), cachingQuestion.ID, nil, engine.WithStore(st))
		if err != nil || again.Elapsed != res.Elapsed {
			t.Errorf("resuming the finished debate: elapsed %v, %v; want %v", again.Elapsed, err, res.Elapsed)
		}
	})
}
