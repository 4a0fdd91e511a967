package moderated

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/storetest"
)

func TestCheckpointChoices(t *testing.T) {
	tests := []struct {
		name      string
		decisions []Decision
		rounds    int
		end       EndReason
		guidance  []string
	}{
		{"continue", []Decision{{Action: Continue}, {Action: Continue}}, 3, EndMaxRounds, nil},
		{"end early", []Decision{{Action: Continue}, {Action: End, Guidance: "ignored"}}, 2, EndHuman, nil},
		{"guide", []Decision{{Action: Guide, Guidance: "  Focus on our team's PostgreSQL experience  "}}, 3, EndMaxRounds,
			[]string{"Focus on our team's PostgreSQL experience"}},
		{"guide without guidance continues", []Decision{{Action: Guide, Guidance: " "}}, 3, EndMaxRounds, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake()
			cp := &decisions{list: append([]Decision(nil), tt.decisions...)}
			res := mustRun(t, f, testConfig(), cachingQuestion, []Option{WithCheckpointer(cp)})
			if len(res.Rounds) != tt.rounds || res.EndReason != tt.end {
				t.Fatalf("%d rounds ending in %q, want %d ending in %q", len(res.Rounds), res.EndReason, tt.rounds, tt.end)
			}
			// A checkpoint after every round but the last.
			if len(cp.states) != tt.rounds-boolInt(tt.end != EndHuman) {
				t.Fatalf("%d checkpoints", len(cp.states))
			}
			for i, st := range cp.states {
				if st.Round != i+1 || st.Status != StatusCheckpoint || len(st.Rounds) != i+1 || st.MaxRounds != 3 ||
					st.Question != cachingQuestion.Proposition || st.DebateID != cachingQuestion.ID || len(st.Perspectives) != 2 {
					t.Errorf("state %d: %+v", i, st)
				}
				if got := res.Rounds[i].Checkpoint; got == nil || got.Auto {
					t.Errorf("round %d checkpoint %+v", i+1, got)
				}
			}
			if diff := cmp.Diff(tt.guidance, res.Guidance()); diff != "" {
				t.Errorf("guidance (-want +got):\n%s", diff)
			}
			if tt.guidance != nil {
				if res.Rounds[1].Guidance != tt.guidance[0] || res.Rounds[0].Checkpoint.Action != Guide {
					t.Errorf("round 2 guidance %q, round 1 checkpoint %+v", res.Rounds[1].Guidance, res.Rounds[0].Checkpoint)
				}
				if !strings.Contains(res.Rounds[1].Opening, "Guidance for this round: "+tt.guidance[0]) {
					t.Errorf("round 2 opening: %q", res.Rounds[1].Opening)
				}
				var said bool
				for _, u := range res.Transcript {
					said = said || u.Speaker == SpeakerHuman && u.Kind == KindGuidance && u.Exchange == 1 && u.Content == tt.guidance[0]
				}
				if !said {
					t.Errorf("the guidance is not in the transcript")
				}
				fenced := fence("guidance", tt.guidance[0])
				for _, r := range f.Requests() {
					user := lastUser(r)
					round2 := strings.Contains(user, "Round: 2 of")
					if r.Purpose != PurposeSynthesis && strings.Contains(user, fenced) != round2 {
						t.Errorf("%s: round 2 %v, guidance %v", r.Purpose, round2, !round2)
					}
				}
				if !strings.Contains(lastUser(requests(f, PurposeSynthesis)[0]), fenced) {
					t.Errorf("the synthesis request lacks the guidance")
				}
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestCheckpointErrors(t *testing.T) {
	boom := errors.New("dashboard down")
	tests := []struct {
		name string
		cp   CheckpointFunc
		want error
	}{
		{"unknown action", func(context.Context, State) (Decision, error) { return Decision{Action: "skip"}, nil }, nil},
		{"error", func(context.Context, State) (Decision, error) { return Decision{}, boom }, boom},
		{"explicit pause", func(context.Context, State) (Decision, error) {
			return Decision{}, fmt.Errorf("user left: %w", ErrPaused)
		}, ErrPaused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := store.NewMemory()
			_, err := run(t.Context(), newFake(), testConfig(), cachingQuestion, []Option{WithCheckpointer(tt.cp)}, engine.WithStore(st))
			if err == nil || tt.want != nil && !errors.Is(err, tt.want) || tt.want == nil && !strings.Contains(err.Error(), `unknown action "skip"`) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			list, _ := List(t.Context(), st)
			want := StatusCheckpoint
			if tt.want == ErrPaused {
				want = StatusPaused
			}
			if len(list) != 1 || list[0].Status != want || list[0].Round != 1 {
				t.Errorf("list %+v, want %s after round 1", list, want)
			}
		})
	}
}

// blocking is a Checkpointer nobody answers: it waits for its deadline.
var blocking = CheckpointFunc(func(ctx context.Context, _ State) (Decision, error) {
	<-ctx.Done()
	return Decision{}, ctx.Err()
})

// TestCheckpointTimeoutPausesAndResumes lets a checkpoint time out (on
// synctest's clock), then resumes the paused debate, whose checkpoint is
// asked again and whose transcript matches an uninterrupted debate's.
func TestCheckpointTimeoutPausesAndResumes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		st := store.NewMemory()
		var asked atomic.Int32
		start := time.Now()
		_, err := run(ctx, llm.NewStub(1), testConfig(), cachingQuestion, []Option{
			WithCheckpointer(CheckpointFunc(func(ctx context.Context, st State) (Decision, error) {
				if asked.Add(1) == 1 {
					return Decision{Action: Guide, Guidance: "Mind the budget."}, nil
				}
				return blocking(ctx, st)
			})),
		}, engine.WithStore(st))
		if !errors.Is(err, ErrPaused) {
			t.Fatalf("err = %v, want ErrPaused", err)
		}
		if waited := time.Since(start); waited < DefaultConfig().CheckpointTimeout {
			t.Errorf("paused after %v", waited)
		}
		list, err := List(ctx, st)
		if err != nil || len(list) != 1 || list[0].Status != StatusPaused || list[0].Round != 2 {
			t.Fatalf("list %+v, %v", list, err)
		}

		// Paused again: resuming with nobody there pauses again, at once
		// asking the same checkpoint.
		if _, err := resume(ctx, llm.NewStub(1), cachingQuestion.ID, []Option{WithCheckpointer(blocking)}, engine.WithStore(st)); !errors.Is(err, ErrPaused) {
			t.Fatalf("second pause: %v", err)
		}
		var states []State
		res, err := resume(ctx, llm.NewStub(1), cachingQuestion.ID, []Option{WithCheckpointer(CheckpointFunc(func(_ context.Context, st State) (Decision, error) {
			states = append(states, st)
			return Decision{Action: Continue}, nil
		}))}, engine.WithStore(st))
		if err != nil {
			t.Fatal(err)
		}
		if len(states) == 0 || states[0].Round != 2 || len(states[0].Rounds) != 2 || states[0].Guidance[0] != "Mind the budget." {
			t.Errorf("resumed checkpoint saw %+v", states)
		}

		// The same debate, never paused.
		var n int
		want := mustRun(t, llm.NewStub(1), testConfig(), engine.Debate{ID: "ref", Proposition: cachingQuestion.Proposition, Context: cachingQuestion.Context},
			[]Option{WithCheckpointer(CheckpointFunc(func(context.Context, State) (Decision, error) {
				if n++; n == 1 {
					return Decision{Action: Guide, Guidance: "Mind the budget."}, nil
				}
				return Decision{Action: Continue}, nil
			}))})
		ignore := cmp.Options{cmpopts.IgnoreFields(engine.Utterance{}, "Seq"), cmpopts.IgnoreFields(Argument{}, "Seq"),
			cmpopts.IgnoreFields(Synthesis{}, "DebateID", "Date")}
		if diff := cmp.Diff(want.Transcript[:len(want.Transcript)-1], res.Transcript[:len(res.Transcript)-1], ignore); diff != "" {
			t.Errorf("transcript (-never paused +paused):\n%s", diff)
		}
		if diff := cmp.Diff(want.Rounds, res.Rounds, ignore); diff != "" {
			t.Errorf("rounds (-never paused +paused):\n%s", diff)
		}
		list, _ = List(ctx, st)
		if list[0].Status != StatusComplete {
			t.Errorf("status %s after completion", list[0].Status)
		}
	})
}

// TestCheckpointDecisionIsReplayed resumes a debate that stopped after a
// checkpoint decided: the decision is not asked again.
func TestCheckpointDecisionIsReplayed(t *testing.T) {
	st := store.NewMemory()
	f := newFake()
	cp := &decisions{list: []Decision{{Action: Guide, Guidance: "Think about cost."}}}
	// The store fails right after the first checkpoint's record.
	ref := store.NewMemory()
	mustRun(t, newFake(), testConfig(), cachingQuestion, []Option{WithCheckpointer(&decisions{list: []Decision{{Action: Guide, Guidance: "Think about cost."}}})}, engine.WithStore(ref))
	recs, _ := ref.Records(t.Context(), cachingQuestion.ID)
	n := 0
	for i, r := range recs {
		if r.Type == RecordCheckpoint {
			n = i + 1
			break
		}
	}
	if _, err := run(t.Context(), f, testConfig(), cachingQuestion, []Option{WithCheckpointer(cp)}, engine.WithStore(storetest.FailAfter(st, n, errDisk))); !errors.Is(err, errDisk) {
		t.Fatalf("err = %v", err)
	}
	again := &decisions{list: []Decision{{Action: End}}}
	// New words, so round 2 does not repeat round 1.
	res, err := resume(t.Context(), newFakeArgs(texts("resumed", 50)), cachingQuestion.ID, []Option{WithCheckpointer(again)}, engine.WithStore(st))
	if err != nil {
		t.Fatal(err)
	}
	if res.Rounds[1].Guidance != "Think about cost." || len(again.states) != 1 || again.states[0].Round != 2 || res.EndReason != EndHuman {
		t.Errorf("round 2 guidance %q, resumed checkpoints %d, end %s", res.Rounds[1].Guidance, len(again.states), res.EndReason)
	}
}

func TestFollowUp(t *testing.T) {
	st := store.NewMemory()
	var got []Synthesis
	fail := true
	var approvals int
	h := []Option{WithFollowUp(func(_ context.Context, s Synthesis) error {
		got = append(got, s)
		if fail {
			return errors.New("tracker down")
		}
		return nil
	}), WithApprover(approving(Approval{Status: Approved}, &approvals))}
	_, err := run(t.Context(), newFake(judgeAgree), testConfig(), cachingQuestion, h, engine.WithStore(st))
	if err == nil || !strings.Contains(err.Error(), "tracker down") {
		t.Fatalf("err = %v", err)
	}
	fail = false
	f := newFake()
	res, err := resume(t.Context(), f, cachingQuestion.ID, h, engine.WithStore(st))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Requests()) != 0 || !res.FollowedUp || len(got) != 2 {
		t.Fatalf("resume: %d requests, followed up %v, %d calls", len(f.Requests()), res.FollowedUp, len(got))
	}
	if diff := cmp.Diff(res.Synthesis, got[1]); diff != "" {
		t.Errorf("follow-up synthesis (-result +handed):\n%s", diff)
	}
	// Once it succeeded it is not called again.
	if _, err := resume(t.Context(), f, cachingQuestion.ID, h, engine.WithStore(st)); err != nil || len(got) != 2 {
		t.Errorf("resume of a finished debate: %v, %d follow-ups", err, len(got))
	}
	// Without a hook nothing is handed over, and that is stored too.
	res = mustRun(t, newFake(judgeAgree), testConfig(), cachingQuestion, nil)
	if res.FollowedUp {
		t.Errorf("followed up without a hook")
	}
}
