package moderated

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm/llmtest"
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
// follow-up, a rejected one is marked so in the document and is not, nor is
// one nobody reviewed; a person who declines the workflow is recorded as
// such.
func TestApproveOrRejectTheSynthesis(t *testing.T) {
	tests := []struct {
		name     string
		approval Approval
		followUp error // what the follow-up returns
		asked    bool  // whether the follow-up is called
		followed bool
		doc      []string // in the document
		notDoc   []string
		reviews  int // approvals asked: a rejected synthesis is revised, and asked again
	}{
		{"approved, workflow", Approval{Status: Approved, Note: "Go with it."}, nil, true, true,
			[]string{"**Status:** Approved — Go with it.\n"}, []string{"> **Rejected.**", "**Revised:**"}, 1},
		{"approved, declined", Approval{Status: Approved}, ErrDeclined, true, false,
			[]string{"**Status:** Approved\n"}, nil, 1},
		{"rejected, and its revision too", Approval{Status: Rejected, Note: "It ignores our on-call load."}, nil, false, false,
			[]string{"# Decision: Caching store\n\n> **Rejected.** The people who asked rejected this synthesis: it is not the decision.\n",
				"**Status:** Rejected — It ignores our on-call load.\n",
				"**Revised:** after the people who asked rejected the first synthesis — It ignores our on-call load.\n"}, nil, 2},
		// Issue 24: a synthesis nobody reviewed is not the decision
		// either: it is not handed over.
		{"no answer", Approval{}, nil, false, false, nil, []string{"**Status:**"}, 1},
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
			if approvals != tt.reviews || res.Synthesis.Approval == nil || *res.Synthesis.Approval != want {
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
			if diff := cmp.Diff(slices.Repeat([]ApprovalOutcome{{Approval: want}}, tt.reviews), got); diff != "" {
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
		engine.WithStore(storetest.FailAfter(st, k, errDisk))); !errors.Is(err, errDisk) || n != 2 {
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

// synthesisRevised is the moderator's revision of synthesisOK.
const synthesisRevised = `{"title":"Caching store","perspectives":[],"agreement":["Measure first"],"tensions":["On-call load"],` +
	`"recommendation":"Keep sessions in PostgreSQL; add Redis only once on-call has runbooks for it.","confidence":"Medium","caveats":["Revised for the on-call load"],"dissent":""}`

// TestRejectedSynthesisIsRevised (issue 24): a rejected synthesis goes
// back to the moderator with the people's reason; the moderator revises it
// once, and the revision is put to the people: approved, it is the
// decision (and the workflow question follows); rejected too, it is
// recorded as rejected; unreviewed, it stays so. The first synthesis, with
// its rejection, is kept in the outcome. The revision is stored: a debate
// stopped after it resumes without asking the moderator again.
func TestRejectedSynthesisIsRevised(t *testing.T) {
	const reason = "It ignores our on-call load."
	tests := []struct {
		name     string
		second   engine.Answer // the answer to the revision
		want     Approval
		workflow bool
	}{
		{"the revision approved", engine.Answer{Choice: ChoiceApprove, Text: "Better."}, Approval{Status: Approved, Note: "Better."}, true},
		{"the revision rejected too", engine.Answer{Choice: ChoiceReject, Text: "Still not."}, Approval{Status: Rejected, Note: "Still not."}, false},
		{"the revision unreviewed", engine.Answer{Choice: ChoiceSkip}, Approval{Status: Unreviewed}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			f := llmtest.New()
			f.OnPurpose(PurposeSynthesis).Reply(synthesisOK, synthesisRevised)
			addRules(f, []string{analysisTwo}, texts("argument", 50), judgeAgree)
			p := answers(map[string][]engine.Answer{engine.QuestionApproval: {{Choice: ChoiceReject, Text: reason}, tt.second}})
			st := store.NewMemory()
			var handed []Synthesis
			follow := []Option{WithFollowUp(func(_ context.Context, s Synthesis) error { handed = append(handed, s); return nil })}
			res := mustRun(t, f, testConfig(), cachingQuestion, follow, engine.WithHuman(p), engine.WithStore(st))

			// The moderator was asked again, told the reason and shown
			// what was rejected.
			reqs := requests(f, PurposeSynthesis)
			if len(reqs) != 2 {
				t.Fatalf("%d synthesis requests; want the synthesis and its revision", len(reqs))
			}
			revision := lastUser(reqs[1])
			for _, s := range []string{fence("rejection", reason), "Start with PostgreSQL.", "Revise the synthesis"} {
				if !strings.Contains(revision, s) {
					t.Errorf("the revision request lacks %q:\n%s", s, revision)
				}
			}
			if len(res.Rejected) != 1 || res.Rejected[0].Recommendation != "Start with PostgreSQL." ||
				res.Rejected[0].Approval == nil || *res.Rejected[0].Approval != (Approval{Status: Rejected, Note: reason}) {
				t.Fatalf("rejected syntheses %+v", res.Rejected)
			}
			syn := res.Synthesis
			if !strings.HasPrefix(syn.Recommendation, "Keep sessions in PostgreSQL") || syn.Revision == nil || syn.Revision.Reason != reason ||
				syn.Approval == nil || *syn.Approval != tt.want {
				t.Errorf("the synthesis: recommendation %q, revision %+v, approval %+v; want the revision, %+v", syn.Recommendation, syn.Revision, syn.Approval, tt.want)
			}
			wantKinds := []string{engine.QuestionApproval, engine.QuestionApproval}
			if tt.workflow {
				wantKinds = append(wantKinds, engine.QuestionWorkflow)
			}
			if diff := cmp.Diff(wantKinds, p.kinds()); diff != "" {
				t.Errorf("questions (-want +got):\n%s", diff)
			}
			if tt.workflow != (len(handed) == 1) || res.FollowedUp != tt.workflow {
				t.Errorf("handed over %d times, followed up %v", len(handed), res.FollowedUp)
			}
			// Both documents were said; the revision's says what it
			// revises, and its review.
			var docs []string
			for _, u := range res.Transcript {
				if u.Kind == KindSynthesis {
					docs = append(docs, u.Content)
				}
			}
			if len(docs) != 2 || !strings.Contains(docs[1], "**Revised:** after the people who asked rejected the first synthesis — "+reason) {
				t.Errorf("synthesis documents said: %q", docs)
			}
			if md := syn.Markdown(); (tt.want.Status == Rejected) != strings.Contains(md, "> **Rejected.**") {
				t.Errorf("the revision's document:\n%s", md)
			}

			// Stopped after the revision was stored, the debate resumes
			// at its review, without asking the moderator again.
			recs, _ := st.Records(ctx, cachingQuestion.ID)
			k := slices.IndexFunc(recs, func(r store.Record) bool { return strings.Contains(string(r.Data), `"key":"revision"`) }) + 1
			if k == 0 {
				t.Fatal("no revision stored")
			}
			stopped := store.NewMemory()
			f.Reset()
			f.OnPurpose(PurposeSynthesis).Reply(synthesisOK, synthesisRevised)
			addRules(f, []string{analysisTwo}, texts("argument", 50), judgeAgree)
			p = answers(map[string][]engine.Answer{engine.QuestionApproval: {{Choice: ChoiceReject, Text: reason}, tt.second}})
			if _, err := run(ctx, f, testConfig(), cachingQuestion, follow, engine.WithHuman(p), engine.WithStore(storetest.FailAfter(stopped, k, errDisk))); !errors.Is(err, errDisk) {
				t.Fatalf("err = %v; want the store's", err)
			}
			later := llmtest.New()
			p = answers(map[string][]engine.Answer{engine.QuestionApproval: {tt.second}})
			again, err := resume(ctx, later, cachingQuestion.ID, follow, engine.WithHuman(p), engine.WithStore(stopped))
			if err != nil {
				t.Fatal(err)
			}
			if len(later.Requests()) != 0 || again.Synthesis.Approval == nil || *again.Synthesis.Approval != tt.want || len(again.Rejected) != 1 {
				t.Errorf("resumed: %d requests, approval %+v, %d rejected", len(later.Requests()), again.Synthesis.Approval, len(again.Rejected))
			}
		})
	}
}
