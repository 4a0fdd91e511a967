package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// ErrPaused is returned by a [Human] whose person will answer later: the
// debate stops ([Run], [Resume] and [ResumeStored] return an error wrapping
// it, with the result so far) and the pause is stored, so the debate
// resumes at the same question, which is asked again.
var ErrPaused = errors.New("engine: debate paused for a person")

// Human gives a person's answers to a debate's questions (see
// [Session.Ask]): a moderated debate's clarifying question, checkpoints
// and approval of its synthesis; a formal debate's topic. Ask may block
// until the person answers; it must return promptly once ctx is done. An
// error wrapping [ErrPaused] pauses the debate; any other error stops it.
// Ask is called from the goroutine that plays the debate, one question at
// a time.
type Human interface {
	Ask(ctx context.Context, q Question) (Answer, error)
}

// HumanFunc adapts a function to [Human].
type HumanFunc func(ctx context.Context, q Question) (Answer, error)

// Ask calls f(ctx, q).
func (f HumanFunc) Ask(ctx context.Context, q Question) (Answer, error) { return f(ctx, q) }

// Kinds of [Question].
const (
	QuestionClarification = "clarification" // a vague question made precise
	QuestionCheckpoint    = "checkpoint"    // continue, guide or end, between rounds
	QuestionApproval      = "approval"      // approve or reject a result
	QuestionTopic         = "topic"         // what should be debated
	QuestionWorkflow      = "workflow"      // hand the result on to a workflow
)

// Question is what a debate asks its person.
type Question struct {
	// Kind is one of the Question constants (a format may add its own).
	Kind string `json:"kind"`
	// Text is what the person is asked.
	Text string `json:"text"`
	// Choices are the answers allowed, Choices[0] being what happens when
	// nobody answers; nil: free text, and "" when nobody answers.
	Choices []string `json:"choices,omitempty"`
}

// Answer is a person's answer to a [Question].
type Answer struct {
	// Choice is one of the question's Choices ("" for a free-text
	// question).
	Choice string `json:"choice,omitempty"`
	// Text is guidance, feedback or a free-text answer.
	Text string `json:"text,omitempty"`
}

// Asked is what a question came to, as stored (record type [RecordAsked])
// and announced ([EventAsked]).
type Asked struct {
	Question Question `json:"question"`
	Answer   Answer   `json:"answer"`
	// Default: nobody was asked (no [Human], or an unattended debate) and
	// the question took its default answer.
	Default bool `json:"default,omitempty"`
	// Paused: the person will answer later; the debate stopped here and
	// asks again when it resumes.
	Paused bool `json:"paused,omitempty"`
}

// RecordAsked is the record type of a question and its answer.
const RecordAsked = "asked"

// EventAsked announces a question's answer, or its pause; its Data is the
// [Asked].
const EventAsked EventType = "asked"

// WithHuman sets who answers the debate's questions ([Session.Ask]); without
// it nobody is asked, every question takes its default answer (its first
// choice) and no debate pauses. A debate whose Debate.Unattended is set
// asks nobody either, whatever Human is given. A nil Human is an error of
// Run and Resume.
func WithHuman(h Human) Option {
	return func(o *settings) {
		if isNil(h) {
			o.nils = append(o.nils, fmt.Sprintf("WithHuman(%T(nil))", h))
		}
		o.human = h
	}
}

// Ask asks the debate's person q and stores the answer under key: a
// Human is asked only once every event stored before the question has
// reached the sink. A
// replayed debate reads it back without asking. Without a [Human] (or in
// an unattended debate) nobody is asked and q takes its default answer.
// A Human's answer must be one of q.Choices (when it has any); one that is
// not stops the debate with an error. When the Human pauses the debate
// ([ErrPaused], or ctx ends with ErrPaused as its cause — a format's time
// limit for an answer), the pause is stored and Ask returns an error
// wrapping ErrPaused; on resume the question is asked again.
func (s *Session) Ask(ctx context.Context, key string, q Question) (Answer, error) {
	if len(q.Choices) > 0 && slices.Contains(q.Choices, "") {
		return Answer{}, fmt.Errorf("engine: question %s: an empty choice", key)
	}
	// A pause because ctx ran out with ErrPaused as its cause (a format's
	// time limit for an answer) is stored all the same.
	keep := context.WithoutCancel(ctx)
	for attempt := 1; ; attempt++ {
		var a Asked
		replayed, err := s.mainStep(keep, fmt.Sprintf("%s:asked:%d", key, attempt), RecordAsked, SpeakerHuman, &a,
			func(context.Context) (any, llm.Usage, error) {
				a, err := s.ask(ctx, q)
				if err == nil && !a.Paused && ctx.Err() != nil {
					err = context.Cause(ctx)
				}
				if err == nil && a.Paused {
					// The pause ends the log (see Pending): the turns
					// queued for mapping and the side steps under way
					// store their records first.
					s.drainMapping()
					err = s.rec.settle(keep)
				}
				return a, llm.Usage{}, err
			}, func(int64) *Announcement {
				return &Announcement{Type: EventAsked, Speaker: SpeakerHuman, Data: a}
			})
		if err != nil {
			return Answer{}, err
		}
		if !a.Paused {
			return a.Answer, nil
		}
		if !replayed {
			return Answer{}, fmt.Errorf("engine: debate %s, %s question: %w", s.d.ID, q.Kind, ErrPaused)
		}
	}
}

// ask puts q to the person, or takes its default answer.
func (s *Session) ask(ctx context.Context, q Question) (Asked, error) {
	a := Asked{Question: q}
	if s.o.human == nil || s.d.Unattended {
		a.Default = true
		if len(q.Choices) > 0 {
			a.Answer.Choice = q.Choices[0]
		}
		return a, nil
	}
	// Every event stored before the question reaches the sink before the
	// person is asked, so a front end shows the question after them.
	if err := s.rec.flush(ctx); err != nil {
		if errors.Is(context.Cause(ctx), ErrPaused) {
			a.Paused = true
			return a, nil
		}
		return Asked{}, err
	}
	ans, err := s.o.human.Ask(ctx, q)
	switch {
	case errors.Is(err, ErrPaused), err != nil && errors.Is(context.Cause(ctx), ErrPaused):
		a.Paused = true
		return a, nil
	case err != nil:
		return Asked{}, fmt.Errorf("engine: %s question: %w", q.Kind, err)
	}
	ans.Text = strings.TrimSpace(ans.Text)
	if len(q.Choices) > 0 && !slices.Contains(q.Choices, ans.Choice) {
		return Asked{}, fmt.Errorf("engine: %s question: the answer %q is not one of %q", q.Kind, ans.Choice, q.Choices)
	}
	a.Answer = ans
	return a, nil
}

// Pending returns the question a paused debate waits for: the last record
// of a debate stopped by [ErrPaused]. ok is false when the debate's last
// record is not a pause.
func Pending(recs []store.Record) (q Question, ok bool) {
	if len(recs) == 0 || recs[len(recs)-1].Type != RecordAsked {
		return Question{}, false
	}
	en, err := decode[entry](recs[len(recs)-1])
	if err != nil {
		return Question{}, false
	}
	var a Asked
	if err := decodeValue(recs[len(recs)-1], en, &a); err != nil || !a.Paused {
		return Question{}, false
	}
	return a.Question, true
}
