package moderated

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
)

// person is an engine.Human answering from a script: answer returns the
// answer to the n-th question (from 0) of its kind. It keeps the questions.
type person struct {
	answer func(q engine.Question, n int) (engine.Answer, error)

	mu    sync.Mutex
	asked []engine.Question
}

func (p *person) Ask(_ context.Context, q engine.Question) (engine.Answer, error) {
	p.mu.Lock()
	n := 0
	for _, a := range p.asked {
		if a.Kind == q.Kind {
			n++
		}
	}
	p.asked = append(p.asked, q)
	p.mu.Unlock()
	return p.answer(q, n)
}

// kinds are the kinds of the questions asked, in order.
func (p *person) kinds() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, q := range p.asked {
		out = append(out, q.Kind)
	}
	return out
}

// answers is a person answering each kind of question from a list, one
// per question, then with the question's default.
func answers(by map[string][]engine.Answer) *person {
	return &person{answer: func(q engine.Question, n int) (engine.Answer, error) {
		if list := by[q.Kind]; n < len(list) {
			return list[n], nil
		}
		if len(q.Choices) > 0 {
			return engine.Answer{Choice: q.Choices[0]}, nil
		}
		return engine.Answer{}, nil
	}}
}

// vagueOnFake is a fake whose moderator finds the prompt vague and whose
// rounds never end the debate by themselves.
func vagueOnFake() *llmtest.Fake {
	f := llmtest.New()
	f.OnPurpose(PurposeClarity).Reply(vague)
	return addRules(f, []string{analysisTwo}, texts("argument", 50), judgeOn)
}

// TestAskedThroughAHuman: seed 004's people — the vague question clarified,
// the checkpoints, the approval of the synthesis, the workflow — are asked
// through the engine's Human: each question carries what the person needs
// in its Text, and its Choices, the first being the default.
func TestAskedThroughAHuman(t *testing.T) {
	const guidance = "Mind the budget."
	tests := []struct {
		name    string
		answers map[string][]engine.Answer
		// kinds are the questions asked, in order.
		kinds        []string
		rounds       int
		end          EndReason
		clarified    Clarification
		approval     Approval
		followedUp   bool
		handedOver   int // follow-up calls
		roundTwoTold string
	}{
		{"guided, ended, approved, workflow",
			map[string][]engine.Answer{
				engine.QuestionClarification: {{Text: "  Redis or PostgreSQL, for sessions.  "}},
				engine.QuestionCheckpoint:    {{Choice: string(Guide), Text: guidance}, {Choice: string(End), Text: "ignored"}},
				engine.QuestionApproval:      {{Choice: ChoiceApprove, Text: "Go with it."}},
				engine.QuestionWorkflow:      {{Choice: ChoiceYes}},
			},
			[]string{engine.QuestionClarification, engine.QuestionCheckpoint, engine.QuestionCheckpoint, engine.QuestionApproval, engine.QuestionWorkflow},
			2, EndHuman,
			Clarification{Answer: "Redis or PostgreSQL, for sessions."},
			Approval{Status: Approved, Note: "Go with it."}, true, 1, guidance},
		// Issue 24: a rejected synthesis goes back to the moderator, who
		// revises it once; the revision is reviewed in turn.
		{"the assumption kept, rejected twice",
			map[string][]engine.Answer{
				engine.QuestionCheckpoint: {{Choice: string(Guide), Text: " "}, {Choice: string(End)}},
				engine.QuestionApproval:   {{Choice: ChoiceReject, Text: "It ignores our on-call load."}, {Choice: ChoiceReject, Text: "Still too much."}},
			},
			// A rejected synthesis is not handed over, nor asked about.
			[]string{engine.QuestionClarification, engine.QuestionCheckpoint, engine.QuestionCheckpoint, engine.QuestionApproval, engine.QuestionApproval},
			2, EndHuman,
			Clarification{Assumed: true},
			Approval{Status: Rejected, Note: "Still too much."}, false, 0, ""},
		{"rejected, the revision approved, workflow",
			map[string][]engine.Answer{
				engine.QuestionApproval: {{Choice: ChoiceReject, Text: "It ignores our on-call load."}, {Choice: ChoiceApprove}},
			},
			[]string{engine.QuestionClarification, engine.QuestionCheckpoint, engine.QuestionCheckpoint, engine.QuestionApproval, engine.QuestionApproval, engine.QuestionWorkflow},
			3, EndMaxRounds,
			Clarification{Assumed: true},
			Approval{Status: Approved}, true, 1, ""},
		{"defaults, approved, workflow declined",
			map[string][]engine.Answer{engine.QuestionApproval: {{Choice: ChoiceApprove}}, engine.QuestionWorkflow: {{Choice: ChoiceNo}}},
			[]string{engine.QuestionClarification, engine.QuestionCheckpoint, engine.QuestionCheckpoint, engine.QuestionApproval, engine.QuestionWorkflow},
			3, EndMaxRounds,
			Clarification{Assumed: true},
			Approval{Status: Approved}, false, 0, ""},
		// Issue 24: a synthesis nobody reviewed is not asked about, nor
		// handed over.
		{"defaults, review skipped",
			map[string][]engine.Answer{},
			[]string{engine.QuestionClarification, engine.QuestionCheckpoint, engine.QuestionCheckpoint, engine.QuestionApproval},
			3, EndMaxRounds,
			Clarification{Assumed: true},
			Approval{Status: Unreviewed}, false, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := answers(tt.answers)
			var handed int
			f := vagueOnFake()
			res := mustRun(t, f, testConfig(), vagueQuestion,
				[]Option{WithFollowUp(func(context.Context, Synthesis) error { handed++; return nil })}, engine.WithHuman(p))
			if diff := cmp.Diff(tt.kinds, p.kinds()); diff != "" {
				t.Fatalf("questions asked (-want +got):\n%s", diff)
			}
			if len(res.Rounds) != tt.rounds || res.EndReason != tt.end {
				t.Errorf("%d rounds ending in %s; want %d ending in %s", len(res.Rounds), res.EndReason, tt.rounds, tt.end)
			}
			want := tt.clarified
			want.Question, want.Assumption = "Which options are on the table, and for what data?", "Redis against PostgreSQL for session caching"
			if diff := cmp.Diff(&want, res.Clarification); diff != "" {
				t.Errorf("clarification (-want +got):\n%s", diff)
			}
			if a := res.Synthesis.Approval; a == nil || *a != tt.approval {
				t.Errorf("approval %+v; want %+v", a, tt.approval)
			}
			if res.FollowedUp != tt.followedUp || handed != tt.handedOver {
				t.Errorf("followed up %v after %d calls; want %v after %d", res.FollowedUp, handed, tt.followedUp, tt.handedOver)
			}
			if got := res.Rounds[1].Guidance; got != tt.roundTwoTold {
				t.Errorf("round 2 guidance %q; want %q", got, tt.roundTwoTold)
			}
			for i, rd := range res.Rounds[:len(res.Rounds)-boolInt(tt.end != EndHuman)] {
				if rd.Checkpoint == nil || rd.Checkpoint.Auto != (rd.Checkpoint.Action == Continue) {
					t.Errorf("round %d checkpoint %+v", i+1, rd.Checkpoint)
				}
			}

			// The syntheses reviewed, in order: a rejected one, then its
			// revision.
			reviewed := append(slices.Clone(res.Rejected), res.Synthesis)
			if rejections := boolInt(tt.kinds[len(tt.kinds)-1] != engine.QuestionWorkflow && tt.approval.Status == Rejected ||
				len(tt.kinds) > 5); len(res.Rejected) != rejections {
				t.Errorf("%d syntheses rejected before the last; want %d", len(res.Rejected), rejections)
			}
			for _, r := range res.Rejected {
				if r.Approval == nil || r.Approval.Status != Rejected || r.Approval.Note != "It ignores our on-call load." || r.Revision != nil {
					t.Errorf("rejected synthesis: approval %+v, revision %+v", r.Approval, r.Revision)
				}
			}
			if len(res.Rejected) > 0 {
				if r := res.Synthesis.Revision; r == nil || r.Reason != "It ignores our on-call load." {
					t.Errorf("the revision revises %+v", r)
				}
			}
			approvals := 0

			// What each question tells the person.
			for i, q := range p.asked {
				var choices, texts []string
				switch q.Kind {
				case engine.QuestionClarification:
					texts = []string{want.Question, "assume: " + want.Assumption}
				case engine.QuestionCheckpoint:
					rd := res.Rounds[i-1] // the clarification came first
					choices = []string{"continue", "guide", "end"}
					texts = []string{fmt.Sprintf("Round %d of at most 3 is over", rd.Number), rd.Judgment.Summary}
				case engine.QuestionApproval:
					syn := reviewed[approvals]
					approvals++
					syn.Approval = nil
					choices = []string{"skip", "approve", "reject"}
					texts = []string{syn.Markdown()}
				case engine.QuestionWorkflow:
					choices = []string{"yes", "no"}
					texts = []string{"Would you like me to create a workflow from this decision?", res.Synthesis.Recommendation}
				}
				if diff := cmp.Diff(choices, q.Choices); diff != "" {
					t.Errorf("%s question's choices (-want +got):\n%s", q.Kind, diff)
				}
				for _, s := range texts {
					if !strings.Contains(q.Text, s) {
						t.Errorf("%s question lacks %q:\n%s", q.Kind, s, q.Text)
					}
				}
			}
		})
	}
}

// askedRecords are the engine's records of the questions of debate id.
func askedRecords(t *testing.T, st store.Store, id string) []engine.Asked {
	t.Helper()
	recs, err := st.Records(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []engine.Asked
	for _, r := range recs {
		if r.Type != engine.RecordAsked {
			continue
		}
		var en struct {
			Value engine.Asked `json:"value"`
		}
		if err := json.Unmarshal(r.Data, &en); err != nil {
			t.Fatal(err)
		}
		out = append(out, en.Value)
	}
	return out
}

// TestNobodyIsAsked: without a Human, or in an unattended debate (whatever
// Human or deprecated hook the Format has), the debate asks nobody and runs
// to its end without pausing: every question takes its first choice.
func TestNobodyIsAsked(t *testing.T) {
	pausing := &person{answer: func(engine.Question, int) (engine.Answer, error) { return engine.Answer{}, engine.ErrPaused }}
	hooks := []Option{
		WithClarifier(ClarifyFunc(func(context.Context, Clarification) (string, error) { return "", ErrPaused })),
		WithCheckpointer(CheckpointFunc(func(context.Context, State) (Decision, error) { return Decision{}, ErrPaused })),
		WithApprover(ApproveFunc(func(context.Context, Synthesis) (Approval, error) { return Approval{}, ErrPaused })),
	}
	tests := []struct {
		name       string
		unattended bool
		opts       []Option
		human      *person
	}{
		{"no Human", false, nil, nil},
		{"unattended, with a Human", true, nil, pausing},
		{"unattended, with the deprecated hooks", true, hooks, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := store.NewMemory()
			eopts := []engine.Option{engine.WithStore(st)}
			if tt.human != nil {
				eopts = append(eopts, engine.WithHuman(tt.human))
			}
			d := vagueQuestion
			d.Unattended = tt.unattended
			var handed int
			res := mustRun(t, vagueOnFake(), testConfig(), d,
				append(slices.Clone(tt.opts), WithFollowUp(func(context.Context, Synthesis) error { handed++; return nil })), eopts...)
			if tt.human != nil && len(tt.human.asked) > 0 {
				t.Errorf("the Human was asked %v", tt.human.kinds())
			}
			if len(res.Rounds) != 3 || res.EndReason != EndMaxRounds {
				t.Errorf("%d rounds ending in %s; want to the end", len(res.Rounds), res.EndReason)
			}
			if c := res.Clarification; c == nil || !c.Assumed {
				t.Errorf("clarification %+v; want the assumption", c)
			}
			for _, rd := range res.Rounds[:2] {
				if cp := rd.Checkpoint; cp == nil || *cp != (Decision{Action: Continue, Auto: true}) {
					t.Errorf("round %d checkpoint %+v; want continue, decided by nobody", rd.Number, cp)
				}
			}
			if a := res.Synthesis.Approval; a == nil || a.Status != Unreviewed {
				t.Errorf("approval %+v; want unreviewed", a)
			}
			// Nobody approved the synthesis: it is not handed over, and
			// the workflow question is not asked.
			if res.FollowedUp || handed != 0 {
				t.Errorf("followed up %v after %d calls", res.FollowedUp, handed)
			}
			asked := askedRecords(t, st, d.ID)
			if len(asked) != 4 {
				t.Errorf("%d questions stored; want 4", len(asked))
			}
			for _, a := range asked {
				if !a.Default || a.Paused {
					t.Errorf("%s question: %+v; want its default", a.Question.Kind, a)
				}
			}
		})
	}
}

// TestPausedThroughAHuman: a Human who will answer later pauses the debate
// at any of its questions: Run returns engine.ErrPaused (also
// moderated.ErrPaused) with the result so far, engine.Pending gives the
// question from the store, List says paused, and engine.ResumeStored with
// a Human who answers finishes the debate.
func TestPausedThroughAHuman(t *testing.T) {
	tests := []struct {
		kind   string
		answer engine.Answer // the answer on resume
		status Status
		said   engine.UtteranceKind // the last utterance when paused; "" for none
		text   string
		check  func(*testing.T, *Outcome)
	}{
		{engine.QuestionClarification, engine.Answer{Text: "Sessions."}, StatusPaused, "", "too vague",
			func(t *testing.T, o *Outcome) {
				if o.Clarification.Answer != "Sessions." {
					t.Errorf("clarification %+v", o.Clarification)
				}
			}},
		{engine.QuestionCheckpoint, engine.Answer{Choice: string(End)}, StatusPaused, KindJudgment, "Round 1 of at most 3",
			func(t *testing.T, o *Outcome) {
				if len(o.Rounds) != 1 || o.EndReason != EndHuman {
					t.Errorf("%d rounds ending in %s; want the end after round 1", len(o.Rounds), o.EndReason)
				}
			}},
		{engine.QuestionApproval, engine.Answer{Choice: ChoiceApprove}, StatusPaused, KindSynthesis, "# Decision:",
			func(t *testing.T, o *Outcome) {
				if o.Synthesis.Approval.Status != Approved || !o.FollowedUp {
					t.Errorf("approval %+v, followed up %v", o.Synthesis.Approval, o.FollowedUp)
				}
			}},
		{engine.QuestionWorkflow, engine.Answer{Choice: ChoiceNo}, StatusPaused, KindSynthesis, "create a workflow",
			func(t *testing.T, o *Outcome) {
				if o.FollowedUp {
					t.Error("followed up after no")
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			ctx := t.Context()
			st := store.NewMemory()
			later := &person{answer: func(q engine.Question, _ int) (engine.Answer, error) {
				if q.Kind == tt.kind {
					return engine.Answer{}, engine.ErrPaused
				}
				if q.Kind == engine.QuestionApproval { // so the workflow is asked
					return engine.Answer{Choice: ChoiceApprove}, nil
				}
				if len(q.Choices) > 0 {
					return engine.Answer{Choice: q.Choices[0]}, nil
				}
				return engine.Answer{}, nil
			}}
			follow := WithFollowUp(func(context.Context, Synthesis) error { return nil })
			f, err := New(testConfig(), follow)
			if err != nil {
				t.Fatal(err)
			}
			res, err := engine.Run(ctx, vagueOnFake(), f, vagueQuestion, engine.WithStore(st), engine.WithHuman(later))
			if !errors.Is(err, engine.ErrPaused) || !errors.Is(err, ErrPaused) {
				t.Fatalf("err = %v; want a pause", err)
			}
			if res == nil || res.DebateID != vagueQuestion.ID || res.Format != FormatName || res.Detail != nil || res.Usage.PromptTokens == 0 {
				t.Fatalf("result of the paused debate: %+v", res)
			}
			var said engine.UtteranceKind
			if n := len(res.Transcript); n > 0 {
				said = res.Transcript[n-1].Kind
			}
			if said != tt.said {
				t.Errorf("the transcript so far ends with a %q; want %q", said, tt.said)
			}
			recs, err := st.Records(ctx, vagueQuestion.ID)
			if err != nil {
				t.Fatal(err)
			}
			q, ok := engine.Pending(recs)
			if !ok || q.Kind != tt.kind || !strings.Contains(q.Text, tt.text) {
				t.Fatalf("pending %v: %+v; want the %s question", ok, q, tt.kind)
			}
			if list, err := List(ctx, st); err != nil || len(list) != 1 || list[0].Status != tt.status {
				t.Errorf("list %+v, %v; want %s", list, err, tt.status)
			}

			// Resumed with the same Human, it pauses again at once.
			if _, err := engine.ResumeStored(ctx, vagueOnFake(), vagueQuestion.ID, engine.WithStore(st), engine.WithHuman(later)); !errors.Is(err, engine.ErrPaused) {
				t.Fatalf("resumed with nobody there: %v; want a pause", err)
			}
			now := answers(map[string][]engine.Answer{tt.kind: {tt.answer}})
			done, err := engine.ResumeStored(ctx, vagueOnFake(), vagueQuestion.ID, engine.WithStore(st), engine.WithHuman(now), engine.ForFormat(func(f any) error {
				follow(f.(*Format)) // the follow-up is not stored: give it again
				return nil
			}))
			if err != nil {
				t.Fatal(err)
			}
			if k := now.kinds(); len(k) == 0 || k[0] != tt.kind {
				t.Errorf("resumed, the Human was asked %v; want the %s question first", k, tt.kind)
			}
			o, ok := done.Detail.(*Outcome)
			if !ok {
				t.Fatalf("detail %T", done.Detail)
			}
			tt.check(t, o)
			if list, _ := List(ctx, st); list[0].Status != StatusComplete {
				t.Errorf("list %+v after the end", list)
			}
		})
	}
}

// TestHumanTimeoutPauses: any question nobody answers within
// Config.CheckpointTimeout (on synctest's clock) — the clarifying question,
// a checkpoint, the approval, the workflow question — pauses the debate
// there (seed 004: "Auto-pause if human doesn't respond"): the pause is
// stored (engine.Pending names the question, List says paused), and Resume
// asks it again.
func TestHumanTimeoutPauses(t *testing.T) {
	for _, kind := range []string{engine.QuestionClarification, engine.QuestionCheckpoint, engine.QuestionApproval, engine.QuestionWorkflow} {
		t.Run(kind, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := t.Context()
				st := store.NewMemory()
				cfg := testConfig()
				cfg.CheckpointTimeout = 10 * time.Minute
				// The question of kind waits until its time runs out; the
				// others are answered, the synthesis approved.
				block := engine.HumanFunc(func(ctx context.Context, q engine.Question) (engine.Answer, error) {
					switch q.Kind {
					case kind:
						<-ctx.Done()
						return engine.Answer{}, ctx.Err()
					case engine.QuestionApproval:
						return engine.Answer{Choice: ChoiceApprove}, nil
					case engine.QuestionClarification:
						return engine.Answer{Text: "Sessions."}, nil
					}
					return engine.Answer{Choice: q.Choices[0]}, nil
				})
				follow := []Option{WithFollowUp(func(context.Context, Synthesis) error { return nil })}
				start := time.Now()
				_, err := run(ctx, vagueOnFake(), cfg, vagueQuestion, follow, engine.WithStore(st), engine.WithHuman(block))
				if !errors.Is(err, engine.ErrPaused) || time.Since(start) != cfg.CheckpointTimeout {
					t.Fatalf("err = %v after %v; want a pause after %v", err, time.Since(start), cfg.CheckpointTimeout)
				}
				recs, _ := st.Records(ctx, vagueQuestion.ID)
				if q, ok := engine.Pending(recs); !ok || q.Kind != kind {
					t.Errorf("pending %v %+v; want the %s question", ok, q, kind)
				}
				if list, _ := List(ctx, st); len(list) != 1 || list[0].Status != StatusPaused {
					t.Errorf("list %+v; want paused", list)
				}
				now := answers(map[string][]engine.Answer{
					engine.QuestionClarification: {{Text: "Sessions."}},
					engine.QuestionCheckpoint:    {{Choice: string(End)}},
					engine.QuestionApproval:      {{Choice: ChoiceApprove}},
					engine.QuestionWorkflow:      {{Choice: ChoiceNo}},
				})
				if _, err := resume(ctx, vagueOnFake(), vagueQuestion.ID, follow, engine.WithStore(st), engine.WithHuman(now)); err != nil {
					t.Fatal(err)
				}
				if k := now.kinds(); len(k) == 0 || k[0] != kind {
					t.Errorf("resumed: asked %v; want the %s question first", k, kind)
				}
			})
		})
	}
}

// TestHumanErrors: an answer that is not one of the question's choices,
// or a Human's error, stops the debate (not a pause); resumed with a
// Human who answers, it goes on.
func TestHumanErrors(t *testing.T) {
	boom := errors.New("dashboard down")
	tests := []struct {
		name string
		h    engine.HumanFunc
		want string
	}{
		{"not a choice", func(context.Context, engine.Question) (engine.Answer, error) {
			return engine.Answer{Choice: "skip"}, nil
		}, `not one of`},
		{"error", func(context.Context, engine.Question) (engine.Answer, error) { return engine.Answer{}, boom }, boom.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := store.NewMemory()
			_, err := run(t.Context(), newFake(), testConfig(), cachingQuestion, nil, engine.WithStore(st), engine.WithHuman(tt.h))
			if err == nil || errors.Is(err, engine.ErrPaused) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v; want one saying %q", err, tt.want)
			}
			if list, _ := List(t.Context(), st); len(list) != 1 || list[0].Status != StatusCheckpoint {
				t.Errorf("list %+v; want stopped at the checkpoint", list)
			}
			end := answers(map[string][]engine.Answer{engine.QuestionCheckpoint: {{Choice: string(End)}}})
			if res, err := resume(t.Context(), newFake(), cachingQuestion.ID, nil, engine.WithStore(st), engine.WithHuman(end)); err != nil || res.EndReason != EndHuman {
				t.Errorf("resumed: %v", err)
			}
		})
	}
}

// TestDeprecatedHooksAndAHuman: a Format with a deprecated hook asks it,
// not the Human, and stores what it stored before; a debate paused by the
// hook resumed without it asks the Human the same question.
func TestDeprecatedHooksAndAHuman(t *testing.T) {
	ctx := t.Context()
	st := store.NewMemory()
	h := answers(map[string][]engine.Answer{engine.QuestionCheckpoint: {{Choice: string(End)}}})
	away := CheckpointFunc(func(context.Context, State) (Decision, error) { return Decision{}, ErrPaused })
	_, err := run(ctx, newFake(), testConfig(), cachingQuestion, []Option{WithCheckpointer(away)}, engine.WithStore(st), engine.WithHuman(h))
	if !errors.Is(err, ErrPaused) || len(h.asked) != 0 {
		t.Fatalf("err = %v after %d questions to the Human; want the hook's pause", err, len(h.asked))
	}
	recs, _ := st.Records(ctx, cachingQuestion.ID)
	last := recs[len(recs)-1]
	if _, pending := engine.Pending(recs); last.Type != RecordCheckpoint || pending {
		t.Errorf("the hook's pause is a %s record (pending %v); want %s, as before", last.Type, pending, RecordCheckpoint)
	}
	res, err := wrap(engine.Resume(ctx, newFake(), &Format{}, cachingQuestion.ID, engine.WithStore(st), engine.WithHuman(h)))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{engine.QuestionCheckpoint, engine.QuestionApproval}, h.kinds()); diff != "" {
		t.Errorf("the Human was asked (-want +got):\n%s", diff)
	}
	if res.EndReason != EndHuman || len(res.Rounds) != 1 {
		t.Errorf("%d rounds ending in %s", len(res.Rounds), res.EndReason)
	}
}
