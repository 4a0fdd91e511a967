package moderated

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/storetest"
)

// approving answers every approval with a, counting the calls.
func approving(a Approval, calls *int) ApproveFunc {
	return func(context.Context, Synthesis) (Approval, error) {
		*calls++
		return a, nil
	}
}

// TestApproveOrRejectTheSynthesis: seed 004, the Human "approves final
// synthesis", and after it the moderator asks "Would you like me to create
// a workflow from this decision?" An approved synthesis is handed to the
// follow-up, a rejected one is marked so in the document and is not; a
// person who declines the workflow is recorded as such.
func TestApproveOrRejectTheSynthesis(t *testing.T) {
	tests := []struct {
		name     string
		approval Approval
		followUp error // what the follow-up returns
		asked    bool  // whether the follow-up is called
		followed bool
		doc      []string // in the document
		notDoc   []string
	}{
		{"approved, workflow", Approval{Status: Approved, Note: "Go with it."}, nil, true, true,
			[]string{"**Status:** Approved — Go with it.\n"}, []string{"> **Rejected.**"}},
		{"approved, declined", Approval{Status: Approved}, ErrDeclined, true, false,
			[]string{"**Status:** Approved\n"}, nil},
		{"rejected", Approval{Status: Rejected, Note: "It ignores our on-call load."}, nil, false, false,
			[]string{"# Decision: Caching store\n\n> **Rejected.** The people who asked rejected this synthesis: it is not the decision.\n",
				"**Status:** Rejected — It ignores our on-call load.\n"}, nil},
		{"no answer", Approval{}, nil, true, true, nil, []string{"**Status:**"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var approvals, followUps int
			var handed Synthesis
			opts := []Option{
				WithApprover(approving(tt.approval, &approvals)),
				WithFollowUp(func(_ context.Context, s Synthesis) error {
					followUps++
					handed = s
					return tt.followUp
				}),
			}
			var events []engine.Event
			sink := engine.SinkFunc(func(_ context.Context, e engine.Event) { events = append(events, e) })
			res := mustRun(t, newFake(judgeAgree), testConfig(), cachingQuestion, opts, engine.WithSink(sink))
			want := tt.approval
			if want.Status == "" {
				want.Status = Unreviewed
			}
			if approvals != 1 || res.Synthesis.Approval == nil || *res.Synthesis.Approval != want {
				t.Fatalf("%d approvals; synthesis approval %+v, want %+v", approvals, res.Synthesis.Approval, want)
			}
			if (followUps == 1) != tt.asked || res.FollowedUp != tt.followed {
				t.Errorf("follow-up called %d times, followed up %v; want called %v, followed %v", followUps, res.FollowedUp, tt.asked, tt.followed)
			}
			if tt.asked && (handed.Approval == nil || *handed.Approval != want) {
				t.Errorf("the follow-up got approval %+v", handed.Approval)
			}
			md := res.Synthesis.Markdown()
			for _, s := range tt.doc {
				if !strings.Contains(md, s) {
					t.Errorf("document lacks %q:\n%s", s, md)
				}
			}
			for _, s := range tt.notDoc {
				if strings.Contains(md, s) {
					t.Errorf("document has %q:\n%s", s, md)
				}
			}
			var got []ApprovalOutcome
			for _, e := range events {
				if e.Type == EventApproval {
					a, err := engine.DataAs[ApprovalOutcome](e)
					if err != nil || e.Speaker != SpeakerHuman {
						t.Errorf("approval event by %q: %v", e.Speaker, err)
					}
					got = append(got, a)
				}
			}
			if diff := cmp.Diff([]ApprovalOutcome{{Approval: want}}, got); diff != "" {
				t.Errorf("approval events (-want +got):\n%s", diff)
			}
		})
	}
}

// TestApprovalIsStored: the approval is stored, so a debate stopped after
// it resumes without asking again; nobody answering pauses the debate,
// and Resume asks again; an unknown status stops it.
func TestApprovalIsStored(t *testing.T) {
	ctx := t.Context()
	ref := store.NewMemory()
	var n int
	mustRun(t, newFake(judgeAgree), testConfig(), cachingQuestion, []Option{WithApprover(approving(Approval{Status: Rejected}, &n))}, engine.WithStore(ref))
	recs, _ := ref.Records(ctx, cachingQuestion.ID)
	k := 0
	for i, r := range recs {
		if r.Type == RecordApproval {
			k = i + 1
		}
	}
	st := store.NewMemory()
	n = 0
	if _, err := run(ctx, newFake(judgeAgree), testConfig(), cachingQuestion, []Option{WithApprover(approving(Approval{Status: Rejected}, &n))},
		engine.WithStore(storetest.FailAfter(st, k, errDisk))); !errors.Is(err, errDisk) || n != 1 {
		t.Fatalf("err = %v after %d approvals", err, n)
	}
	var again int
	res, err := resume(ctx, newFake(), cachingQuestion.ID, []Option{WithApprover(approving(Approval{Status: Approved}, &again))}, engine.WithStore(st))
	if err != nil || again != 0 || res.Synthesis.Approval.Status != Rejected {
		t.Fatalf("resume: %v, asked %d times, approval %+v", err, again, res.Synthesis.Approval)
	}

	st = store.NewMemory()
	away := ApproveFunc(func(context.Context, Synthesis) (Approval, error) { return Approval{}, ErrPaused })
	_, err = run(ctx, newFake(judgeAgree), testConfig(), cachingQuestion, []Option{WithApprover(away)}, engine.WithStore(st))
	if !errors.Is(err, ErrPaused) || !strings.Contains(err.Error(), "approval of the synthesis") {
		t.Fatalf("err = %v, want a pause at the approval", err)
	}
	if list, _ := List(ctx, st); list[0].Status != StatusPaused {
		t.Errorf("list %+v", list)
	}
	res, err = resume(ctx, newFake(), cachingQuestion.ID, []Option{WithApprover(approving(Approval{Status: Approved}, &again))}, engine.WithStore(st))
	if err != nil || again != 1 || res.Synthesis.Approval.Status != Approved {
		t.Fatalf("resume after the pause: %v, asked %d times, approval %+v", err, again, res.Synthesis.Approval)
	}
	if list, _ := List(ctx, st); list[0].Status != StatusComplete {
		t.Errorf("list %+v", list)
	}

	odd := ApproveFunc(func(context.Context, Synthesis) (Approval, error) { return Approval{Status: "maybe"}, nil })
	if _, err := run(ctx, newFake(judgeAgree), testConfig(), cachingQuestion, []Option{WithApprover(odd)}); err == nil || !strings.Contains(err.Error(), `unknown status "maybe"`) {
		t.Errorf("err = %v", err)
	}
}
