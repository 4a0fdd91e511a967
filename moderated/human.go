package moderated

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
)

// Clarifier is the person of earlier versions asked when the prompt is too
// vague to assign perspectives (the seed: "Prompt too vague — Moderator
// asks clarifying question before assigning perspectives").
//
// Clarify is called once per debate, on the debate's goroutine, before the
// analysis, with the moderator's question and the assumption it makes
// without an answer; ctx carries Config.CheckpointTimeout. It returns the
// person's answer, or "" to let the assumption stand. When ctx's deadline
// passes first, or when Clarify returns an error wrapping [ErrPaused], the
// debate pauses like a checkpoint: the pause is stored, and
// [engine.Resume] with a Format carrying a Clarifier asks again. Any other
// error stops the debate. The answer is stored, so a resumed debate never
// asks again once answered.
//
// Deprecated: use an [engine.Human], asked an [engine.QuestionClarification].
type Clarifier interface {
	Clarify(ctx context.Context, c Clarification) (answer string, err error)
}

// ClarifyFunc adapts a function to [Clarifier].
//
// Deprecated: use [engine.HumanFunc].
type ClarifyFunc func(ctx context.Context, c Clarification) (string, error)

// Clarify calls f(ctx, c).
func (f ClarifyFunc) Clarify(ctx context.Context, c Clarification) (string, error) { return f(ctx, c) }

// Clarification is the moderator's clarifying question about a vague
// prompt and what came of it. It is stored, is the Data of
// [EventClarification], and is what every later prompt is told about the
// question besides the question itself.
type Clarification struct {
	// Question is the moderator's clarifying question.
	Question string `json:"question"`
	// Assumption is what the moderator assumes without an answer.
	Assumption string `json:"assumption"`
	// Answer is the person's answer, "" when none was given.
	Answer string `json:"answer,omitempty"`
	// Assumed: no answer was given — nobody was asked, or the answer was
	// "" — so the debate goes on the Assumption.
	Assumed bool `json:"assumed,omitempty"`
	// Paused: nobody answered in time; the debate stopped with
	// [ErrPaused] and Resume asks again. Only a deprecated Clarifier's
	// pause is stored so; a pause of the engine's question is the
	// engine's ([engine.Pending]).
	Paused bool `json:"paused,omitempty"`
}

// text is the clarification as the moderator reports it.
func (c Clarification) text() string {
	s := "Before assigning perspectives I asked: " + oneLine(c.Question)
	if c.Assumed {
		return s + "\nNo answer was given, so I assume: " + oneLine(c.Assumption)
	}
	return s + "\nThe answer: " + oneLine(c.Answer)
}

// clarity is the moderator's check of the prompt, stored before anyone is
// asked anything.
type clarity struct {
	Vague      bool   `json:"vague"`
	Question   string `json:"question,omitempty"`
	Assumption string `json:"assumption,omitempty"`
	// Fallback: the moderator's replies could not be read; the prompt is
	// taken as clear.
	Fallback bool `json:"fallback,omitempty"`
}

// parseClarity reads the moderator's check of the prompt. A reply without a
// JSON object, or vague without a question, is an error; a vague prompt
// without an assumption gets one.
func parseClarity(reply string) (clarity, error) {
	m, err := jsonObject(reply)
	if err != nil {
		return clarity{}, err
	}
	v, _ := lookup(m, "vague")
	c := clarity{Vague: boolOf(v)}
	if !c.Vague {
		return c, nil
	}
	q, _ := lookup(m, "question")
	if c.Question = cut(oneLine(stringOf(q)), 500); c.Question == "" {
		return clarity{}, errors.New("vague, but question is empty")
	}
	a, _ := lookup(m, "assumption")
	if c.Assumption = cut(oneLine(stringOf(a)), 500); c.Assumption == "" {
		c.Assumption = "the most common reading of the question, judged on cost, risk and effort"
	}
	return c, nil
}

// legacy reports whether a resumed debate's log was written before the step
// key existed: it still replays, and its next record is another. Such a
// step is skipped, so a debate stored by an earlier version still resumes.
func legacy(s *engine.Session, key string) bool { return s.Resuming() && !s.Next(key) }

// clarify asks the moderator whether the prompt is too vague and, when it
// is, asks the Clarifier (not timed: a wait for a person), stores what came
// of it and reports it in the transcript.
func (g *game) clarify(ctx context.Context, s *engine.Session) error {
	if legacy(s, "clarity") {
		return nil
	}
	d := s.Debate()
	var c clarity
	if err := g.timed(ctx, 0, nil, true, func(ctx context.Context) error {
		_, err := s.Step(ctx, "clarity", RecordClarity, SpeakerModerator, &c,
			func(ctx context.Context) (any, llm.Usage, error) {
				c, usage, ok, err := ask(ctx, s, SegmentAnalysis, clarityRequest(g.cfg, d), parseClarity)
				if err != nil {
					return nil, usage, err
				}
				if !ok {
					c = clarity{Fallback: true}
				}
				return c, usage, nil
			}, nil)
		return err
	}); err != nil {
		return err
	}
	if !c.Vague {
		return nil
	}
	out, err := g.askClarification(ctx, s, Clarification{Question: c.Question, Assumption: c.Assumption})
	if err != nil {
		return err
	}
	g.clarification = &out
	_, err = s.Record(ctx, "clarification:say", engine.Utterance{
		Speaker: SpeakerModerator, Segment: SegmentAnalysis, Kind: KindClarification, Content: g.clarification.text(),
	})
	return err
}

// askClarification asks the people the moderator's clarifying question
// c — through the engine, or a deprecated Clarifier — and stores what came
// of it.
func (g *game) askClarification(ctx context.Context, s *engine.Session, c Clarification) (Clarification, error) {
	var out Clarification
	done, err := askedTheOldWay(ctx, s, g.clarifier != nil, "clarifying question",
		func(attempt int) string { return fmt.Sprintf("clarification:%d", attempt) }, RecordClarification, &out,
		func() bool { return out.Paused },
		func(ctx context.Context) (Clarification, error) { return g.askClarifier(ctx, c) },
		announce(EventClarification, SegmentAnalysis, SpeakerHuman, func() any { return out }))
	if err != nil || done {
		return out, err
	}
	a, err := g.ask(ctx, s, "clarification", engine.Question{Kind: engine.QuestionClarification, Text: c.questionText()})
	if err != nil {
		return Clarification{}, err
	}
	c.Answer = cut(strings.TrimSpace(a.Text), MaxGuidanceRunes)
	c.Assumed = c.Answer == ""
	_, err = s.Step(ctx, "clarification:answer", RecordClarification, SpeakerHuman, &out,
		func(context.Context) (any, llm.Usage, error) { return c, llm.Usage{}, nil },
		announce(EventClarification, SegmentAnalysis, SpeakerHuman, func() any { return out }))
	return out, err
}

// questionText is the clarifying question as the engine's question puts
// it to the person.
func (c Clarification) questionText() string {
	return "The question is too vague to assign perspectives. Before assigning them, the moderator asks:\n" +
		oneLine(c.Question) + "\n\nWithout an answer it will assume: " + oneLine(c.Assumption) +
		"\n\nAnswer in text; an empty answer keeps the assumption."
}

// askClarifier asks the Clarifier q, within the checkpoint timeout.
func (g *game) askClarifier(ctx context.Context, q Clarification) (Clarification, error) {
	answer, err := waitFor(ctx, g.cfg, func(ctx context.Context) (string, error) { return g.clarifier.Clarify(ctx, q) })
	switch {
	case errors.Is(err, ErrPaused):
		return Clarification{Question: q.Question, Assumption: q.Assumption, Paused: true}, nil
	case err != nil:
		return Clarification{}, fmt.Errorf("moderated: clarifying question: %w", err)
	}
	q.Answer = cut(strings.TrimSpace(answer), MaxGuidanceRunes)
	q.Assumed = q.Answer == ""
	return q, nil
}

// waitFor runs ask, a question to a person, within Config.CheckpointTimeout:
// an error wrapping ErrPaused when ask paused or its time ran out (while
// ctx itself is live).
func waitFor[T any](ctx context.Context, cfg Config, ask func(context.Context) (T, error)) (T, error) {
	cctx, cancel := context.WithTimeoutCause(ctx, cfg.CheckpointTimeout, ErrPaused)
	defer cancel()
	v, err := ask(cctx)
	if err != nil && !errors.Is(err, ErrPaused) && ctx.Err() == nil && errors.Is(context.Cause(cctx), ErrPaused) {
		err = fmt.Errorf("%w: no answer within %v", ErrPaused, cfg.CheckpointTimeout)
	}
	return v, err
}

// Approver is the person of earlier versions who approves or rejects the
// synthesis (the seed's Human "approves final synthesis").
//
// Approve is called once per debate, on the debate's goroutine, once the
// synthesis is stored and recorded; ctx carries Config.CheckpointTimeout.
// It returns the person's [Approval]; one with Status [Unreviewed] (or "")
// leaves the synthesis unreviewed. When ctx's deadline passes first, or when
// Approve returns an error wrapping [ErrPaused], the debate pauses: the
// pause is stored, and [engine.Resume] with a Format carrying an Approver
// asks again. Any other error stops the debate. The approval is stored, so
// a resumed debate never asks again once answered.
//
// Deprecated: use an [engine.Human], asked an [engine.QuestionApproval].
type Approver interface {
	Approve(ctx context.Context, s Synthesis) (Approval, error)
}

// ApproveFunc adapts a function to [Approver].
//
// Deprecated: use [engine.HumanFunc].
type ApproveFunc func(ctx context.Context, s Synthesis) (Approval, error)

// Approve calls f(ctx, s).
func (f ApproveFunc) Approve(ctx context.Context, s Synthesis) (Approval, error) { return f(ctx, s) }

// ApprovalStatus is what the people who asked made of the synthesis.
type ApprovalStatus string

// The approval statuses.
const (
	// Unreviewed: nobody approved or rejected the synthesis (nobody was
	// asked, or the answer was to skip the review); it is not handed to
	// the follow-up.
	Unreviewed ApprovalStatus = "unreviewed"
	// Approved: the synthesis is the decision.
	Approved ApprovalStatus = "approved"
	// Rejected: the people who asked rejected the synthesis; the
	// document says so, and it is not handed to the follow-up. A first
	// synthesis rejected goes back to the moderator, who revises it once.
	Rejected ApprovalStatus = "rejected"
)

// Approval is what the people made of the synthesis: the answer to the
// [engine.QuestionApproval] (or a deprecated [Approver]'s).
type Approval struct {
	Status ApprovalStatus `json:"status"`
	// Note is the person's reason or comment, if any.
	Note string `json:"note,omitempty"`
}

// ApprovalOutcome is what the approval of the synthesis came to: an
// Approval, or (asked through a deprecated [Approver]) a pause. It is
// stored, and is the Data of [EventApproval].
type ApprovalOutcome struct {
	Approval
	// Paused: no answer was given; the debate stopped with [ErrPaused].
	Paused bool `json:"paused,omitempty"`
}

// approve asks the people to review the synthesis — through the engine,
// or a deprecated Approver —, stores their answer under keys starting with
// prefix ("" for the first synthesis, "revision:" for the moderator's
// revision of a rejected one), and marks the synthesis with it.
func (g *game) approve(ctx context.Context, s *engine.Session, prefix string) error {
	// A log written before the approval existed goes from the synthesis
	// to the follow-up.
	if prefix == "" && s.Next("followup") {
		return nil
	}
	what := "approval of the synthesis"
	if g.synthesis.Revision != nil {
		what = "approval of the revised synthesis"
	}
	var out ApprovalOutcome
	done, err := askedTheOldWay(ctx, s, g.approver != nil, what,
		func(attempt int) string { return fmt.Sprintf("%sapproval:%d", prefix, attempt) }, RecordApproval, &out,
		func() bool { return out.Paused }, g.askApprover,
		announce(EventApproval, SegmentSynthesis, SpeakerHuman, func() any { return out }))
	if err != nil {
		return err
	}
	if !done {
		q := engine.Question{Kind: engine.QuestionApproval, Text: approvalText(g.synthesis), Choices: approvalChoices}
		a, err := g.ask(ctx, s, prefix+"approval", q)
		if err != nil {
			return err
		}
		review := Approval{Status: approvalStatus[a.Choice], Note: cut(strings.TrimSpace(a.Text), MaxGuidanceRunes)}
		if _, err := s.Step(ctx, prefix+"approval:answer", RecordApproval, SpeakerHuman, &out,
			func(context.Context) (any, llm.Usage, error) {
				return ApprovalOutcome{Approval: review}, llm.Usage{}, nil
			},
			announce(EventApproval, SegmentSynthesis, SpeakerHuman, func() any { return out })); err != nil {
			return err
		}
	}
	g.synthesis.Approval = &out.Approval
	return nil
}

// approvalText is the approval question: the synthesis, and the choices.
func approvalText(syn Synthesis) string {
	if syn.Revision != nil {
		return "The moderator revised the synthesis you rejected; the revision is ready for your review:\n\n" + syn.Markdown() +
			"\nApprove it as the decision (" + ChoiceApprove + "), reject it too (" + ChoiceReject +
			"; it is then recorded as rejected, and there is no decision), or leave it unreviewed (" + ChoiceSkip + ")."
	}
	return "The moderator's synthesis is ready for your review:\n\n" + syn.Markdown() +
		"\nApprove it as the decision (" + ChoiceApprove + "), reject it (" + ChoiceReject +
		"; say why in your answer's text: the moderator revises it once), or leave it unreviewed (" + ChoiceSkip + ")."
}

// askApprover asks the Approver, within the checkpoint timeout.
func (g *game) askApprover(ctx context.Context) (ApprovalOutcome, error) {
	a, err := waitFor(ctx, g.cfg, func(ctx context.Context) (Approval, error) { return g.approver.Approve(ctx, g.synthesis) })
	switch {
	case errors.Is(err, ErrPaused):
		return ApprovalOutcome{Paused: true}, nil
	case err != nil:
		return ApprovalOutcome{}, fmt.Errorf("moderated: approval of the synthesis: %w", err)
	}
	a.Note = cut(strings.TrimSpace(a.Note), MaxGuidanceRunes)
	switch a.Status {
	case "", Unreviewed:
		a.Status = Unreviewed
	case Approved, Rejected:
	default:
		return ApprovalOutcome{}, fmt.Errorf("moderated: approval of the synthesis: unknown status %q", a.Status)
	}
	return ApprovalOutcome{Approval: a}, nil
}

// The choices of the questions a moderated debate asks through the engine,
// beside the checkpoint's ([Continue], [Guide], [End]). Each question's
// first choice is what happens when nobody answers.
const (
	// ChoiceSkip leaves the synthesis unreviewed ([Unreviewed]): the
	// approval question's default.
	ChoiceSkip = "skip"
	// ChoiceApprove approves the synthesis ([Approved]).
	ChoiceApprove = "approve"
	// ChoiceReject rejects the synthesis ([Rejected]); the answer's Text
	// is the reason.
	ChoiceReject = "reject"
	// ChoiceYes hands the decision to the follow-up ([WithFollowUp]): the
	// workflow question's default.
	ChoiceYes = "yes"
	// ChoiceNo declines the workflow.
	ChoiceNo = "no"
)

var (
	checkpointChoices = []string{string(Continue), string(Guide), string(End)}
	approvalChoices   = []string{ChoiceSkip, ChoiceApprove, ChoiceReject}
	workflowChoices   = []string{ChoiceYes, ChoiceNo}
	approvalStatus    = map[string]ApprovalStatus{ChoiceSkip: Unreviewed, ChoiceApprove: Approved, ChoiceReject: Rejected}
)

// ask asks the debate's person q through the engine ([engine.Session.Ask],
// stored under key), waiting at most Config.CheckpointTimeout for an
// answer: then the debate pauses. Without an [engine.Human], or in an
// unattended debate, nobody is asked and q takes its first choice.
func (g *game) ask(ctx context.Context, s *engine.Session, key string, q engine.Question) (engine.Answer, error) {
	cctx, cancel := context.WithTimeoutCause(ctx, g.cfg.CheckpointTimeout, engine.ErrPaused)
	defer cancel()
	a, err := s.Ask(cctx, key, q)
	if err != nil && !errors.Is(err, engine.ErrPaused) && ctx.Err() == nil && errors.Is(context.Cause(cctx), engine.ErrPaused) {
		// The time ran out, and the engine did not store a pause (its
		// error is not the Human's): nothing of the question is stored,
		// so Resume asks it again all the same.
		err = fmt.Errorf("moderated: debate %s, %s question: %w: no answer within %v", s.DebateID(), q.Kind, engine.ErrPaused, g.cfg.CheckpointTimeout)
	}
	return a, err
}

// askedTheOldWay plays a question the way earlier versions asked it — one
// step of record type typ per attempt, keyed key(attempt), whose value
// (decoded into out; paused reads it) is an answer or a pause — while the
// debate's log holds such steps, and, fresh, when the Format has the
// deprecated hook for it (hooked) and the debate is attended: produce then
// asks the hook. A fresh pause stops the debate with an error wrapping
// [ErrPaused], naming what was asked; a replayed one is asked again.
// done is false when the question is to be asked through the engine: the
// log holds none of these steps at this point, and no hook answers.
func askedTheOldWay[T any](ctx context.Context, s *engine.Session, hooked bool, what string, key func(attempt int) string, typ string,
	out *T, paused func() bool, produce func(context.Context) (T, error), ann func(int64) *engine.Announcement) (done bool, err error) {
	fresh := hooked && !s.Debate().Unattended
	for attempt := 1; ; attempt++ {
		k := key(attempt)
		if !s.Next(k) && (s.Resuming() || !fresh) {
			return false, nil
		}
		var zero T
		*out = zero // a value decodes over it
		replayed, err := s.Step(ctx, k, typ, SpeakerHuman, out, func(ctx context.Context) (any, llm.Usage, error) {
			v, err := produce(ctx)
			return v, llm.Usage{}, err
		}, ann)
		if err != nil {
			return true, err
		}
		if !paused() {
			return true, nil
		}
		if !replayed {
			return true, fmt.Errorf("moderated: debate %s, %s: %w", s.DebateID(), what, ErrPaused)
		}
	}
}
