package duelogic

import (
	"context"
	"time"
)

// SpeakerArbiter is the Speaker of the arbiter's utterances.
const SpeakerArbiter = "arbiter"

// Purpose values put on every llm.Request the library makes, so a fake, a
// router or a log can tell the calls apart.
const (
	PurposeIntroduction       = "introduction"
	PurposeOpening            = "opening"
	PurposeResponse           = "response"
	PurposeInterruption       = "interruption"
	PurposeInterjection       = "interjection"
	PurposeClosing            = "closing"
	PurposeEvaluation         = "evaluation"
	PurposeInterruptCheck     = "interrupt_check"
	PurposeArgumentExtraction = "argument_extraction"
)

// Debate is what a debate is about.
type Debate struct {
	// ID names the debate in the store; "" lets the orchestrator make one.
	// It is limited to 1-128 of [A-Za-z0-9._-], not starting with '.'.
	ID string `json:"id"`
	// Proposition is the question or claim debated (at most
	// MaxPropositionRunes). It is fenced as data in every prompt.
	Proposition string `json:"proposition"`
	// Context is optional background (at most MaxContextRunes), fenced as
	// data too.
	Context string `json:"context,omitempty"`
}

// Segment is a part of the show.
type Segment string

// The segments, in the order they run.
const (
	SegmentIntroduction Segment = "introduction"
	SegmentOpening      Segment = "opening"
	SegmentExchange     Segment = "exchange"
	SegmentSynthesis    Segment = "synthesis"
)

// UtteranceKind says what an utterance is.
type UtteranceKind string

// The kinds of utterances.
const (
	KindIntroduction UtteranceKind = "introduction"
	KindOpening      UtteranceKind = "opening"
	KindResponse     UtteranceKind = "response"
	KindInterruption UtteranceKind = "interruption"
	KindInterjection UtteranceKind = "interjection"
	KindClosing      UtteranceKind = "closing"
)

// Utterance is one thing said in the debate.
type Utterance struct {
	// Seq is the store sequence number of the record that holds it.
	Seq int64 `json:"seq"`
	// Speaker is a chair position or "arbiter".
	Speaker string        `json:"speaker"`
	Segment Segment       `json:"segment"`
	Kind    UtteranceKind `json:"kind"`
	// Exchange is the exchange round (1-based), 0 outside the exchange.
	Exchange int    `json:"exchange"`
	Content  string `json:"content"`
	// Model is the model that produced it.
	Model string `json:"model"`
	// Evaluation is the arbiter's evaluation of a chair's response or
	// interruption, nil when none was made or it could not be parsed.
	Evaluation *ResponseEvaluation `json:"evaluation,omitempty"`
	// Interrupted marks an utterance another chair cut into; InterruptedBy
	// names that chair's position.
	Interrupted   bool   `json:"interrupted,omitempty"`
	InterruptedBy string `json:"interruptedBy,omitempty"`
	// ReplyTo is the Seq of the utterance this one answers: the interrupted
	// utterance for an interruption, the offending one for an interjection.
	ReplyTo int64 `json:"replyTo,omitempty"`
	// Reason is why an interruption or interjection was made.
	Reason string `json:"reason,omitempty"`
	// Violation is the mandate an interjection enforces; Target is the chair
	// it calls out.
	Violation ViolationType `json:"violation,omitempty"`
	Target    string        `json:"target,omitempty"`
}

// Quality grades a mandate check.
type Quality string

// The qualities of the seed.
const (
	QualityStrong   Quality = "strong"
	QualityAdequate Quality = "adequate"
	QualityWeak     Quality = "weak"
	QualityAbsent   Quality = "absent"
)

// MandateCheck is the seed's steel-manning or self-critique check.
type MandateCheck struct {
	Attempted bool    `json:"attempted"`
	Quality   Quality `json:"quality"`
	Notes     string  `json:"notes,omitempty"`
}

// FrameworkConsistency is the seed's framework check.
type FrameworkConsistency struct {
	Consistent bool     `json:"consistent"`
	Violations []string `json:"violations,omitempty"`
}

// Honesty grades intellectual honesty.
type Honesty string

// The honesty scores of the seed.
const (
	HonestyHigh   Honesty = "high"
	HonestyMedium Honesty = "medium"
	HonestyLow    Honesty = "low"
)

// IntellectualHonesty is the seed's honesty check.
type IntellectualHonesty struct {
	Score  Honesty  `json:"score"`
	Issues []string `json:"issues,omitempty"`
}

// ResponseEvaluation is the arbiter's evaluation of one chair response, with
// the seed's field names.
type ResponseEvaluation struct {
	AdherenceScore       int                  `json:"adherenceScore"`
	SteelManning         MandateCheck         `json:"steelManning"`
	SelfCritique         MandateCheck         `json:"selfCritique"`
	FrameworkConsistency FrameworkConsistency `json:"frameworkConsistency"`
	IntellectualHonesty  IntellectualHonesty  `json:"intellectualHonesty"`
	RequiresInterjection bool                 `json:"requiresInterjection"`
	InterjectionReason   string               `json:"interjectionReason,omitempty"`
}

// InterruptReason is why a chair interrupts.
type InterruptReason string

// The six interrupt reasons of the seed.
const (
	ReasonFactualCorrection   InterruptReason = "factual_correction"
	ReasonStrawManDetected    InterruptReason = "straw_man_detected"
	ReasonDirectChallenge     InterruptReason = "direct_challenge"
	ReasonClarificationNeeded InterruptReason = "clarification_needed"
	ReasonStrongAgreement     InterruptReason = "strong_agreement"
	ReasonPivotalPoint        InterruptReason = "pivotal_point"
)

// InterruptReasons returns the six reasons in the seed's order.
func InterruptReasons() []InterruptReason {
	return []InterruptReason{ReasonFactualCorrection, ReasonStrawManDetected, ReasonDirectChallenge,
		ReasonClarificationNeeded, ReasonStrongAgreement, ReasonPivotalPoint}
}

// InterruptCandidate is a chair that wants to cut into another's turn.
type InterruptCandidate struct {
	InterruptingChair Chair           `json:"interruptingChair"`
	InterruptedChair  Chair           `json:"interruptedChair"`
	TriggerReason     InterruptReason `json:"triggerReason"`
	TriggerContent    string          `json:"triggerContent"`
	Urgency           float64         `json:"urgency"`
	SuggestedOpener   string          `json:"suggestedOpener,omitempty"`
}

// EventType says what an [Event] announces.
type EventType string

// The event types.
const (
	EventDebateStarted  EventType = "debate_started"
	EventSegmentStarted EventType = "segment_started"
	EventToken          EventType = "token"
	EventUtterance      EventType = "utterance"
	EventEvaluation     EventType = "evaluation"
	EventInterruption   EventType = "interruption"
	EventSegmentEnded   EventType = "segment_ended"
	EventDebateEnded    EventType = "debate_ended"
	// EventArgumentMap announces the moves extracted from a turn when
	// argument mapping is on; Data is a [MovesUpdate].
	EventArgumentMap EventType = "argument_map"
)

// Event is what the orchestrator tells an [EventSink]. Every event but
// EventToken announces a stored record, whose Seq it carries; token events
// carry Seq 0 and a Delta of the utterance being generated by Speaker.
type Event struct {
	Type       EventType           `json:"type"`
	DebateID   string              `json:"debateId"`
	Seq        int64               `json:"seq,omitempty"`
	Segment    Segment             `json:"segment,omitempty"`
	Speaker    string              `json:"speaker,omitempty"`
	Delta      string              `json:"delta,omitempty"`
	Utterance  *Utterance          `json:"utterance,omitempty"`
	Evaluation *ResponseEvaluation `json:"evaluation,omitempty"`
	Interrupt  *InterruptCandidate `json:"interrupt,omitempty"`
	// Result is set on EventDebateEnded.
	Result *Result `json:"result,omitempty"`
	// Data carries a format's own payload for its own event types (a
	// verification, a verdict, a checkpoint).
	Data any       `json:"data,omitempty"`
	Time time.Time `json:"time"`
}

// EventSink receives a debate's events, in order, one at a time, from the
// debate's writer goroutine, which stores each record before emitting the
// event that announces it. Emit should return quickly: while it runs, later
// records wait to be stored, and once a few hundred events are queued the
// debate waits too. Emit must not retain e's pointers beyond the call unless
// it treats them as read-only. A panic in Emit is recovered and logged; it
// does not stop the debate or touch the store.
type EventSink interface {
	Emit(ctx context.Context, e Event)
}

// SinkFunc adapts a function to [EventSink].
type SinkFunc func(ctx context.Context, e Event)

// Emit calls f(ctx, e).
func (f SinkFunc) Emit(ctx context.Context, e Event) { f(ctx, e) }

type discardSink struct{}

func (discardSink) Emit(context.Context, Event) {}
