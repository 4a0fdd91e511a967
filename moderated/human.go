package moderated

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
)

// Clarifier is the person asked when the prompt is too vague to assign
// perspectives (the seed: "Prompt too vague — Moderator asks clarifying
// question before assigning perspectives").
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
type Clarifier interface {
	Clarify(ctx context.Context, c Clarification) (answer string, err error)
}

// ClarifyFunc adapts a function to [Clarifier].
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
	// Assumed: no answer was given — no Clarifier, or it answered "" — so
	// the debate goes on the Assumption.
	Assumed bool `json:"assumed,omitempty"`
	// Paused: nobody answered in time; the debate stopped with
	// [ErrPaused] and Resume asks again.
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
	q := Clarification{Question: c.Question, Assumption: c.Assumption}
	for attempt := 1; ; attempt++ {
		var out Clarification
		replayed, err := s.Step(ctx, fmt.Sprintf("clarification:%d", attempt), RecordClarification, SpeakerHuman, &out,
			func(ctx context.Context) (any, llm.Usage, error) {
				out, err := g.askClarifier(ctx, q)
				return out, llm.Usage{}, err
			}, announce(EventClarification, SegmentAnalysis, SpeakerHuman, func() any { return out }))
		if err != nil {
			return err
		}
		if !out.Paused {
			g.clarification = &out
			break
		}
		if !replayed {
			return fmt.Errorf("moderated: debate %s, clarifying question: %w", s.DebateID(), ErrPaused)
		}
	}
	_, err := s.Record(ctx, "clarification:say", engine.Utterance{
		Speaker: SpeakerModerator, Segment: SegmentAnalysis, Kind: KindClarification, Content: g.clarification.text(),
	})
	return err
}

// askClarifier asks the Clarifier q, within the checkpoint timeout.
func (g *game) askClarifier(ctx context.Context, q Clarification) (Clarification, error) {
	if g.clarifier == nil {
		q.Assumed = true
		return q, nil
	}
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

// Approver is the person who approves or rejects the synthesis (the seed's
// Human "approves final synthesis").
//
// Approve is called once per debate, on the debate's goroutine, once the
// synthesis is stored and recorded; ctx carries Config.CheckpointTimeout.
// It returns the person's [Approval]; one with Status [Unreviewed] (or "")
// leaves the synthesis unreviewed. When ctx's deadline passes first, or when
// Approve returns an error wrapping [ErrPaused], the debate pauses: the
// pause is stored, and [engine.Resume] with a Format carrying an Approver
// asks again. Any other error stops the debate. The approval is stored, so
// a resumed debate never asks again once answered.
type Approver interface {
	Approve(ctx context.Context, s Synthesis) (Approval, error)
}

// ApproveFunc adapts a function to [Approver].
type ApproveFunc func(ctx context.Context, s Synthesis) (Approval, error)

// Approve calls f(ctx, s).
func (f ApproveFunc) Approve(ctx context.Context, s Synthesis) (Approval, error) { return f(ctx, s) }

// ApprovalStatus is what the people who asked made of the synthesis.
type ApprovalStatus string

// The approval statuses.
const (
	// Unreviewed: nobody approved or rejected the synthesis (no
	// Approver, or it gave no answer).
	Unreviewed ApprovalStatus = "unreviewed"
	// Approved: the synthesis is the decision.
	Approved ApprovalStatus = "approved"
	// Rejected: the people who asked rejected the synthesis; the
	// document says so, and it is not handed to the follow-up.
	Rejected ApprovalStatus = "rejected"
)

// Approval is an [Approver]'s answer.
type Approval struct {
	Status ApprovalStatus `json:"status"`
	// Note is the person's reason or comment, if any.
	Note string `json:"note,omitempty"`
}

// ApprovalOutcome is what the approval of the synthesis came to: an
// Approval, or a pause. It is stored, and is the Data of [EventApproval].
type ApprovalOutcome struct {
	Approval
	// Paused: no answer was given; the debate stopped with [ErrPaused].
	Paused bool `json:"paused,omitempty"`
}

// approve stores the Approver's review of the synthesis, or Unreviewed
// without one, and marks the synthesis with it.
func (g *game) approve(ctx context.Context, s *engine.Session) error {
	if legacy(s, "approval:1") {
		return nil
	}
	for attempt := 1; ; attempt++ {
		var out ApprovalOutcome
		replayed, err := s.Step(ctx, fmt.Sprintf("approval:%d", attempt), RecordApproval, SpeakerHuman, &out,
			func(ctx context.Context) (any, llm.Usage, error) {
				out, err := g.askApprover(ctx)
				return out, llm.Usage{}, err
			}, announce(EventApproval, SegmentSynthesis, SpeakerHuman, func() any { return out }))
		if err != nil {
			return err
		}
		if !out.Paused {
			g.synthesis.Approval = &out.Approval
			return nil
		}
		if !replayed {
			return fmt.Errorf("moderated: debate %s, approval of the synthesis: %w", s.DebateID(), ErrPaused)
		}
	}
}

// askApprover asks the Approver, within the checkpoint timeout.
func (g *game) askApprover(ctx context.Context) (ApprovalOutcome, error) {
	if g.approver == nil {
		return ApprovalOutcome{Approval: Approval{Status: Unreviewed}}, nil
	}
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
