package duelogic

import (
	"github.com/duelogic/duelogic/engine"
)

// The engine's types, under the names this package has always given them
// (the way os.FileMode is fs.FileMode).
type (
	// Debate is what a debate is about: [engine.Debate].
	Debate = engine.Debate
	// Segment is a part of the show: [engine.Segment].
	Segment = engine.Segment
	// UtteranceKind says what an utterance is: [engine.UtteranceKind].
	UtteranceKind = engine.UtteranceKind
	// Utterance is one thing said in the debate: [engine.Utterance].
	Utterance = engine.Utterance
	// Quality grades a mandate check: [engine.Quality].
	Quality = engine.Quality
	// MandateCheck is the seed's steel-manning or self-critique check.
	MandateCheck = engine.MandateCheck
	// FrameworkConsistency is the seed's framework check.
	FrameworkConsistency = engine.FrameworkConsistency
	// Honesty grades intellectual honesty.
	Honesty = engine.Honesty
	// IntellectualHonesty is the seed's honesty check.
	IntellectualHonesty = engine.IntellectualHonesty
	// ResponseEvaluation is the arbiter's evaluation of one chair response,
	// with the seed's field names.
	ResponseEvaluation = engine.ResponseEvaluation
	// ViolationType is a mandate violation the arbiter interjects on.
	ViolationType = engine.ViolationType
	// EventType says what an [Event] announces.
	EventType = engine.EventType
	// Event is what the engine tells an [EventSink]: [engine.Event].
	Event = engine.Event
	// EventSink receives a debate's events: [engine.EventSink].
	EventSink = engine.EventSink
	// SinkFunc adapts a function to [EventSink].
	SinkFunc = engine.SinkFunc
	// TurnError stops a debate when a model call fails: [engine.TurnError].
	TurnError = engine.TurnError
	// ValidationError lists every violation of a config:
	// [engine.ValidationError].
	ValidationError = engine.ValidationError
	// Violation is one problem of a config.
	Violation = engine.Violation
	// Option configures a debate's run: [engine.Option].
	Option = engine.Option
	// Prompt is a system prompt and the user message that goes with it.
	Prompt = engine.Prompt
	// ArgumentMap is a debate's argument map ([WithArgumentMap]).
	ArgumentMap = engine.ArgumentMap
	// IllegalMove is a move the protocol rejected.
	IllegalMove = engine.IllegalMove
	// MovesUpdate is the Data of an EventArgumentMap event.
	MovesUpdate = engine.MovesUpdate
	// Summary describes a stored debate without replaying it.
	Summary = engine.Summary
)

// SpeakerArbiter is the Speaker of the arbiter's utterances.
const SpeakerArbiter = engine.SpeakerArbiter

// Purpose values put on every llm.Request the podcast makes, so a fake, a
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
	PurposeArgumentExtraction = engine.PurposeArgumentExtraction
)

// The segments, in the order they run.
const (
	SegmentIntroduction Segment = "introduction"
	SegmentOpening      Segment = "opening"
	SegmentExchange     Segment = "exchange"
	SegmentSynthesis    Segment = "synthesis"
)

// The kinds of utterances.
const (
	KindIntroduction = engine.KindIntroduction
	KindOpening      = engine.KindOpening
	KindResponse     = engine.KindResponse
	KindInterruption = engine.KindInterruption
	KindInterjection = engine.KindInterjection
	KindClosing      = engine.KindClosing
)

// The qualities of the seed.
const (
	QualityStrong   = engine.QualityStrong
	QualityAdequate = engine.QualityAdequate
	QualityWeak     = engine.QualityWeak
	QualityAbsent   = engine.QualityAbsent
)

// The honesty scores of the seed.
const (
	HonestyHigh   = engine.HonestyHigh
	HonestyMedium = engine.HonestyMedium
	HonestyLow    = engine.HonestyLow
)

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

// The event types of a podcast debate: the engine's, and EventInterruption.
const (
	EventDebateStarted  = engine.EventDebateStarted
	EventSegmentStarted = engine.EventSegmentStarted
	EventToken          = engine.EventToken
	EventUtterance      = engine.EventUtterance
	EventSegmentEnded   = engine.EventSegmentEnded
	// EventDebateEnded's Data is an [engine.Ended] whose Detail is an
	// [Outcome].
	EventDebateEnded = engine.EventDebateEnded
	// EventArgumentMap's Data is a [MovesUpdate].
	EventArgumentMap = engine.EventArgumentMap
	// EventWaiting's Data is an [engine.Wait]: a model call waits (for a
	// provider's slot or rate), or has waited.
	EventWaiting = engine.EventWaiting
	// EventInterruption announces that a chair cut into another's turn:
	// Data is the [InterruptCandidate], Utterance the interrupted
	// utterance as marked.
	EventInterruption EventType = "interruption"
	// EventEvaluation announces the arbiter's evaluation of a response:
	// Data is the [ResponseEvaluation] (read it with [EvaluationOf]); no
	// Data when the response went unscored (its evaluation could not be
	// read).
	EventEvaluation EventType = "evaluation"
)

// EvaluationOf returns the evaluation an [EventEvaluation] event carries,
// and false for any other event or an unscored response.
func EvaluationOf(e Event) (*ResponseEvaluation, bool) {
	if e.Type != EventEvaluation || len(e.Data) == 0 {
		return nil, false
	}
	ev, err := engine.DataAs[*ResponseEvaluation](e)
	if err != nil || ev == nil {
		return nil, false
	}
	return ev, true
}

// Record types the podcast writes, besides the engine's.
const (
	RecordDebate         = engine.RecordDebate
	RecordSegmentStarted = engine.RecordSegmentStarted
	RecordSegmentEnded   = engine.RecordSegmentEnded
	RecordUtterance      = engine.RecordUtterance
	RecordMoves          = engine.RecordMoves
	RecordDebateEnded    = engine.RecordDebateEnded
	// RecordEvaluation holds the arbiter's review of one exchange
	// response: the evaluation and the interrupt check.
	RecordEvaluation = "evaluation"
	// RecordInterruption holds an interruption made.
	RecordInterruption = "interruption"
)

// Sentinel errors callers branch on: the engine's, and ErrNotRunning.
var (
	ErrInvalidDebate     = engine.ErrInvalidDebate
	ErrDebateExists      = engine.ErrDebateExists
	ErrAlreadyRunning    = engine.ErrAlreadyRunning
	ErrCorruptLog        = engine.ErrCorruptLog
	ErrUnsupportedOption = engine.ErrUnsupportedOption
	// ErrInvalidConfig is matched (errors.Is) by every error
	// [Config.Validate] returns.
	ErrInvalidConfig = engine.ErrInvalidConfig
)

// Limits of a [Debate].
const (
	MaxPropositionRunes = engine.MaxPropositionRunes
	MaxContextRunes     = engine.MaxContextRunes
)
