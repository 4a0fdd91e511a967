package engine

import (
	"context"
	"encoding/json"
	"time"

	"github.com/duelogic/duelogic/llm"
)

// SpeakerArbiter is the Speaker of what a format's host says: the podcast's
// arbiter, the formal debate's chair, a moderator.
const SpeakerArbiter = "arbiter"

// SpeakerHuman is the Speaker of what a person says into a debate (guidance
// at a checkpoint): recorded like a turn, never mapped as an argument.
const SpeakerHuman = "human"

// PurposeArgumentExtraction is the llm.Request.Purpose of the calls that
// turn a turn into argument moves ([WithArgumentMap]).
const PurposeArgumentExtraction = "argument_extraction"

// Debate is what a debate is about.
type Debate struct {
	// ID names the debate in the store; "" lets [Run] make one.
	// It is limited to 1-128 of [A-Za-z0-9._-], not starting with '.'.
	ID string `json:"id"`
	// Proposition is the question or claim debated (at most
	// MaxPropositionRunes). Formats fence it as data in every prompt.
	Proposition string `json:"proposition"`
	// Context is optional background (at most MaxContextRunes), fenced as
	// data too.
	Context string `json:"context,omitempty"`
	// Unattended: no person takes part. Every question the debate has for
	// its person ([Session.Ask]) takes its default answer, whatever
	// [Human] a Run or Resume is given; it is stored with the debate.
	Unattended bool `json:"unattended,omitempty"`
	// ForkOf and ForkAt say which debate, up to which record, a debate
	// made by [Fork] was copied from; "" and 0 otherwise. Run ignores
	// them.
	ForkOf string `json:"forkOf,omitempty"`
	ForkAt int64  `json:"forkAt,omitempty"`
}

// Segment is a part of a debate; each format names its own.
type Segment string

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

// Utterance is one thing said in a debate.
type Utterance struct {
	// Seq is the store sequence number of the record that holds it.
	Seq int64 `json:"seq"`
	// Speaker is a participant of the format ("chair_1", "pro", a
	// perspective) or [SpeakerArbiter].
	Speaker string        `json:"speaker"`
	Segment Segment       `json:"segment"`
	Kind    UtteranceKind `json:"kind"`
	// Exchange is the round (1-based) it belongs to, 0 outside rounds.
	Exchange int    `json:"exchange"`
	Content  string `json:"content"`
	// Model is the model that produced it ("" for a recorded utterance).
	Model string `json:"model"`
	// Evaluation is the judge's evaluation of the turn, nil when none was
	// made or it could not be parsed.
	Evaluation *ResponseEvaluation `json:"evaluation,omitempty"`
	// Interrupted marks an utterance another speaker cut into;
	// InterruptedBy names that speaker.
	Interrupted   bool   `json:"interrupted,omitempty"`
	InterruptedBy string `json:"interruptedBy,omitempty"`
	// Cut reports that the speaker was stopped mid-turn
	// ([Session.SayWatched]): Content is what was said up to the cut,
	// ending with an em dash. An utterance Interrupted but not Cut was
	// said whole and then marked.
	Cut bool `json:"cut,omitempty"`
	// ReplyTo is the Seq of the utterance this one answers: the interrupted
	// utterance for an interruption, the offending one for an interjection.
	ReplyTo int64 `json:"replyTo,omitempty"`
	// Reason is why an interruption or interjection was made.
	Reason string `json:"reason,omitempty"`
	// Violation is the mandate an interjection enforces; Target is the
	// speaker it calls out.
	Violation ViolationType `json:"violation,omitempty"`
	Target    string        `json:"target,omitempty"`
	// Truncated marks a reply kept as it was when the model stopped at
	// its token cap (finish reason "length"): it may end mid-sentence.
	Truncated bool `json:"truncated,omitempty"`
	// Defaulted marks an utterance that stands for a reply the model
	// could not give usably (a judgment's default, a forfeited turn).
	Defaulted bool `json:"defaulted,omitempty"`
}

// ViolationType is a mandate violation a judge interjects on; the podcast
// names its kinds.
type ViolationType string

// Quality grades a mandate check.
type Quality string

// The qualities of seed 000.
const (
	QualityStrong   Quality = "strong"
	QualityAdequate Quality = "adequate"
	QualityWeak     Quality = "weak"
	QualityAbsent   Quality = "absent"
)

// MandateCheck is a steel-manning or self-critique check.
type MandateCheck struct {
	Attempted bool    `json:"attempted"`
	Quality   Quality `json:"quality"`
	Notes     string  `json:"notes,omitempty"`
}

// FrameworkConsistency says whether a turn stayed within its speaker's
// framework.
type FrameworkConsistency struct {
	Consistent bool     `json:"consistent"`
	Violations []string `json:"violations,omitempty"`
}

// Honesty grades intellectual honesty.
type Honesty string

// The honesty scores of seed 000.
const (
	HonestyHigh   Honesty = "high"
	HonestyMedium Honesty = "medium"
	HonestyLow    Honesty = "low"
)

// IntellectualHonesty is the honesty check.
type IntellectualHonesty struct {
	Score  Honesty  `json:"score"`
	Issues []string `json:"issues,omitempty"`
}

// ResponseEvaluation is a judge's evaluation of one turn, with seed 000's
// field names: steel-manning, self-critique, framework consistency and
// honesty.
type ResponseEvaluation struct {
	AdherenceScore       int                  `json:"adherenceScore"`
	SteelManning         MandateCheck         `json:"steelManning"`
	SelfCritique         MandateCheck         `json:"selfCritique"`
	FrameworkConsistency FrameworkConsistency `json:"frameworkConsistency"`
	IntellectualHonesty  IntellectualHonesty  `json:"intellectualHonesty"`
	RequiresInterjection bool                 `json:"requiresInterjection"`
	InterjectionReason   string               `json:"interjectionReason,omitempty"`
}

// EventType says what an [Event] announces. The engine's own are below;
// each format exports the types of its own events.
type EventType string

// The event types every format emits (EventArgumentMap when arguments are
// mapped).
const (
	EventDebateStarted  EventType = "debate_started"
	EventSegmentStarted EventType = "segment_started"
	EventToken          EventType = "token"
	EventUtterance      EventType = "utterance"
	EventSegmentEnded   EventType = "segment_ended"
	EventDebateEnded    EventType = "debate_ended"
	// EventArgumentMap announces the moves extracted from a turn when
	// argument mapping is on; Data is a [MovesUpdate].
	EventArgumentMap EventType = "argument_map"
)

// Event is what the engine tells an [EventSink]. Every event but EventToken
// announces a stored record, whose Seq and Time it carries, and is given
// back exactly by [Replay]; token events carry Seq 0 and a Delta of the
// utterance Speaker is saying.
type Event struct {
	Type      EventType  `json:"type"`
	DebateID  string     `json:"debateId"`
	Seq       int64      `json:"seq,omitempty"`
	Segment   Segment    `json:"segment,omitempty"`
	Speaker   string     `json:"speaker,omitempty"`
	Delta     string     `json:"delta,omitempty"`
	Utterance *Utterance `json:"utterance,omitempty"`
	// Data is the event's payload as JSON: on EventDebateEnded an [Ended],
	// on EventArgumentMap a [MovesUpdate], on a format's own event types
	// what that format documents. Decode it with [DataAs].
	Data json.RawMessage `json:"data,omitempty"`
	Time time.Time       `json:"time"`
}

// DataAs decodes an event's Data into a T.
func DataAs[T any](e Event) (T, error) {
	var v T
	err := json.Unmarshal(e.Data, &v)
	return v, err
}

// Ended is the Data of EventDebateEnded: what the debate cost and the
// format's outcome (its Result.Detail, as JSON).
type Ended struct {
	Format         string               `json:"format"`
	Usage          llm.Usage            `json:"usage"`
	UsageBySpeaker map[string]llm.Usage `json:"usageBySpeaker,omitempty"`
	// UsageByPurpose is [Result].UsageByPurpose.
	UsageByPurpose map[string]llm.Usage `json:"usageByPurpose,omitempty"`
	// Cost is [Result].Cost.
	Cost      float64         `json:"cost,omitempty"`
	Detail    json.RawMessage `json:"detail,omitempty"`
	Arguments *ArgumentMap    `json:"arguments,omitempty"`
	// Judgments is [Result.Judgments].
	Judgments map[string]JudgmentCounts `json:"judgments,omitempty"`
	// Verdict is the outcome's [Outcome.Verdict], when the format's
	// outcome implements Outcome (every built-in format's does).
	Verdict *Verdict `json:"verdict,omitempty"`
}

// EventSink receives a debate's events, in order, one at a time. Every event
// but a token is emitted from the debate's writer goroutine after the record
// it announces is stored; tokens come from the goroutine of the streaming
// call, never while another event is being emitted. Emit should return
// quickly: while it runs, later records wait to be stored, and once the
// writer's backlog is full the debate waits too. Emit must treat e's
// pointers as read-only. A panic in Emit is recovered and logged, and stops
// the debate with [ErrSinkPanicked] (the record it announced is stored:
// Resume continues).
type EventSink interface {
	Emit(ctx context.Context, e Event)
}

// SinkFunc adapts a function to [EventSink].
type SinkFunc func(ctx context.Context, e Event)

// Emit calls f(ctx, e).
func (f SinkFunc) Emit(ctx context.Context, e Event) { f(ctx, e) }

type discardSink struct{}

func (discardSink) Emit(context.Context, Event) {}

// Prompt is a system prompt and the user message that goes with it.
type Prompt struct {
	System string `json:"system"`
	User   string `json:"user"`
}

// Messages returns the prompt as chat messages (the system message first;
// an empty part is left out).
func (p Prompt) Messages() []llm.Message {
	msgs := make([]llm.Message, 0, 2)
	if p.System != "" {
		msgs = append(msgs, llm.Message{Role: llm.System, Content: p.System})
	}
	if p.User != "" {
		msgs = append(msgs, llm.Message{Role: llm.User, Content: p.User})
	}
	return msgs
}
