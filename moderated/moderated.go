package moderated

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/duelogic/duelogic/catalog"
	"github.com/duelogic/duelogic/engine"
)

// FormatName names the moderated format in a debate's first record.
const FormatName = "moderated"

// Purpose values of the requests this format makes.
const (
	PurposeClarity   = "moderator_clarity"
	PurposeAnalysis  = "moderator_analysis"
	PurposeArgument  = "debater_argument"
	PurposeRebuttal  = "debater_rebuttal"
	PurposeJudgment  = "moderator_judgment"
	PurposeSynthesis = "moderator_synthesis"
)

// Speakers other than the debaters, whose Speaker is their perspective's ID.
const (
	// SpeakerModerator is the moderator: the engine's host speaker, whose
	// turns argument mapping leaves out.
	SpeakerModerator = engine.SpeakerArbiter
	// SpeakerHuman speaks the guidance given at a checkpoint.
	SpeakerHuman = engine.SpeakerHuman
)

// The segments of a moderated debate, in order.
const (
	SegmentAnalysis  engine.Segment = "analysis"
	SegmentRounds    engine.Segment = "rounds"
	SegmentSynthesis engine.Segment = "synthesis"
)

// The kinds of a moderated debate's utterances.
const (
	// KindClarification: the moderator reports its clarifying question
	// about a vague prompt and the answer, or the assumption it made.
	KindClarification engine.UtteranceKind = "clarification"
	// KindAssignment: the moderator announces the perspectives.
	KindAssignment engine.UtteranceKind = "assignment"
	// KindOpening: the moderator opens a round (the question, or a summary
	// of the last round with guidance and redirections).
	KindOpening engine.UtteranceKind = engine.KindOpening
	// KindArgument: a debater's argument of a round.
	KindArgument engine.UtteranceKind = "argument"
	// KindRebuttal: a debater's response to the round's arguments.
	KindRebuttal engine.UtteranceKind = "rebuttal"
	// KindJudgment: the moderator's assessment of a round.
	KindJudgment engine.UtteranceKind = "judgment"
	// KindGuidance: the human's guidance at a checkpoint.
	KindGuidance engine.UtteranceKind = "guidance"
	// KindSynthesis: the synthesis document ([Synthesis.Markdown]).
	KindSynthesis engine.UtteranceKind = "synthesis"
)

// The events of a moderated debate besides the engine's own (debate and
// segment start and end, utterances, argument moves). Each announces the
// stored record of the same type; decode its Data with [engine.DataAs].
const (
	// EventClarification announces what came of the moderator's
	// clarifying question about a vague prompt: an answer, the
	// moderator's assumption, or a pause; Data is a [Clarification].
	EventClarification engine.EventType = "moderated_clarification"
	// EventAnalysis announces the moderator's analysis of the question;
	// Data is an [Analysis].
	EventAnalysis engine.EventType = "moderated_analysis"
	// EventAssignment announces the perspectives seated; Data is a
	// []Perspective, in seat order.
	EventAssignment engine.EventType = "moderated_assignment"
	// EventJudgment announces the moderator's judgment of a round; Data is
	// a [Judgment].
	EventJudgment engine.EventType = "moderated_judgment"
	// EventCheckpoint announces what a checkpoint came to, a decision or a
	// pause; Data is a [CheckpointOutcome].
	EventCheckpoint engine.EventType = "moderated_checkpoint"
	// EventSynthesis announces the synthesis; Data is a [Synthesis].
	EventSynthesis engine.EventType = "moderated_synthesis"
	// EventApproval announces what the people who asked made of the
	// synthesis, or a pause; Data is an [ApprovalOutcome].
	EventApproval engine.EventType = "moderated_approval"
	// EventFollowUp announces that the follow-up step is done; Data is a
	// bool, whether the host's follow-up ([WithFollowUp]) ran and did not
	// decline.
	EventFollowUp engine.EventType = "moderated_followup"
)

// Record types this format writes, beside the engine's. Each but
// RecordClarity, RecordTurn and RecordElapsed is announced by the event of
// the same name, whose Data is the record's value.
const (
	RecordClarity       = "moderated_clarity"        // the moderator's check of the prompt; not announced
	RecordClarification = string(EventClarification) // value: Clarification
	RecordElapsed       = "moderated_elapsed"        // value: {"spent": seconds}, the debate's time so far; not announced
	RecordApproval      = string(EventApproval)      // value: ApprovalOutcome
	RecordAnalysis      = string(EventAnalysis)      // value: Analysis
	RecordAssignment    = string(EventAssignment)    // value: []Perspective
	RecordTurn          = "moderated_turn"           // a debater's reply; not announced (its utterance is)
	RecordJudgment      = string(EventJudgment)      // value: Judgment
	RecordCheckpoint    = string(EventCheckpoint)    // value: CheckpointOutcome
	RecordSynthesis     = string(EventSynthesis)     // value: Synthesis
	RecordFollowUp      = string(EventFollowUp)      // value: bool
	// RecordCut marks where the debate's total time cut a round short:
	// value {"round", "stage" (arguments, rebuttals or judgment),
	// "argued" (the perspectives whose argument was written by then)};
	// not announced (the round's judgment says it).
	RecordCut = "moderated_cut"
)

// ErrPaused is [engine.ErrPaused]: the debate paused at a question to its
// people (no answer within Config.CheckpointTimeout, or the person's
// [engine.Human] — or a deprecated hook — returned ErrPaused); resuming it
// asks the question again. errors.Is(err, ErrPaused) and
// errors.Is(err, engine.ErrPaused) are the same test.
//
// Deprecated: use [engine.ErrPaused].
var ErrPaused = engine.ErrPaused

// Sentinel errors callers branch on. A configuration error matches
// [engine.ErrInvalidConfig].
var (
	// ErrRoundTimeout: a round did not finish within Config.RoundTimeout.
	ErrRoundTimeout = errors.New("moderated: round timed out")
	// ErrTotalTimeout: the moderator's check and analysis of the question
	// overran Config.TotalTimeout. (Once the rounds have begun, a spent
	// total ends them instead — cutting short the round under way — with
	// [EndTimeout], and the synthesis is written.)
	ErrTotalTimeout = errors.New("moderated: debate timed out")
	// ErrDeclined is returned by a follow-up ([WithFollowUp]) whose person
	// declined to create a workflow from the decision. It does not stop
	// the debate: the follow-up is stored as not done, and never asked
	// again.
	ErrDeclined = errors.New("moderated: follow-up declined")
)

// Config configures a moderated debate. The question is the
// [engine.Debate]'s Proposition; its Context is optional background.
//
// Start from [DefaultConfig], or from Config{}: [New] gives every zero
// field [DefaultConfig]'s value — the models, counts and durations — except
// the two whose zero means something: Debaters (0: the moderator's choice)
// and TokenBudget (0: unlimited). A whole zero Config{} is DefaultConfig(),
// those two included. [engine.Run] stores the completed configuration, so
// a resumed debate runs with the values it started with.
//
// In JSON the durations are seconds: {"roundTimeout": 120} is two minutes,
// and a string of [time.ParseDuration] ("2m") is read too; tokenBudget may
// be "unlimited". See [Config.UnmarshalJSON] and [Config.MarshalJSON]. This
// JSON is what [engine.Open] takes for "moderated" (fields left out keep
// their defaults) and what a debate stores.
type Config struct {
	ModeratorModel string `json:"moderatorModel"`
	// DebaterModels are the debaters' models: debater i argues with
	// DebaterModels[i % len(DebaterModels)].
	DebaterModels []string `json:"debaterModels"`
	// Debaters is how many perspectives argue (2..4): the seed's
	// default_perspectives, 2 in [DefaultConfig]. 0 lets the moderator's
	// analysis decide: 2 for a binary choice, 3-4 for a multi-faceted
	// question. Like TokenBudget, New leaves 0 as it is (unless the whole
	// Config is zero).
	Debaters int `json:"debaters"`
	// Perspectives, when set, are the perspectives that argue (2..4 IDs
	// of the catalog, balanced), instead of the moderator's choice; how
	// many they are overrides Debaters.
	Perspectives []catalog.Framework `json:"perspectives,omitempty"`
	// CustomPerspectives extend the built-in engineering perspectives
	// (catalog.Perspectives) as by catalog.DefaultCatalog().With; give
	// each Priorities and TradeOffs.
	CustomPerspectives []catalog.FrameworkInfo `json:"customPerspectives,omitempty"`
	// Opposites are pairs of perspectives whose trade-offs pull against
	// each other, in addition to the built-in pairs (Performance Advocate
	// vs Simplicity Advocate and vs Operational Simplicity, Security
	// Advocate vs User Experience, Future Flexibility vs Simplicity
	// Advocate). Every debate seats at least one pair.
	Opposites [][2]catalog.Framework `json:"opposites,omitempty"`
	// MaxRounds caps the rounds (1..20); default 5.
	MaxRounds int `json:"maxRounds"`
	// TokenBudget is each debater's budget of completion tokens per round
	// (argument and rebuttal together); 0 (in JSON also "unlimited")
	// means unlimited, which New leaves as it is (unless the whole Config
	// is zero). See the package documentation for how it is enforced.
	TokenBudget int `json:"tokenBudget"`
	// RoundTimeout bounds each round's model calls, and the synthesis's;
	// default 2 minutes. In JSON this and the other durations are
	// seconds.
	RoundTimeout time.Duration `json:"roundTimeout"`
	// CheckpointTimeout is how long a question to the people who asked —
	// a checkpoint, a clarifying question, the approval of the synthesis —
	// waits for an answer before the debate pauses; default 30 minutes.
	CheckpointTimeout time.Duration `json:"checkpointTimeout"`
	// TotalTimeout bounds the time the debate spends, counted across
	// engine.Run and every engine.Resume (it is stored), not counting the
	// waits for people nor the time a stopped debate waits to be resumed;
	// default 30 minutes. See the package documentation.
	TotalTimeout time.Duration `json:"totalTimeout"`
}

// DefaultPerspectives is the seed's default_perspectives: how many debaters
// argue unless the configuration says otherwise.
const DefaultPerspectives = 2

// DefaultConfig returns the seed's defaults: GPT-4o moderating, Claude
// Sonnet 4, Grok 3, Gemini 2.5 Pro and DeepSeek V3 debating, two debaters
// (default_perspectives: 2), at most 5 rounds, 2000 tokens per debater per
// round, 2-minute rounds, 30-minute checkpoints and a 30-minute total.
func DefaultConfig() Config {
	return Config{
		ModeratorModel:    "openai/gpt-4o",
		DebaterModels:     []string{"anthropic/claude-sonnet-4", "x-ai/grok-3", "google/gemini-2.5-pro", "deepseek/deepseek-chat"},
		Debaters:          DefaultPerspectives,
		MaxRounds:         5,
		TokenBudget:       2000,
		RoundTimeout:      2 * time.Minute,
		CheckpointTimeout: 30 * time.Minute,
		TotalTimeout:      30 * time.Minute,
	}
}

// withDefaults is c with its zero fields given DefaultConfig's values (see
// [Config]).
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if reflect.ValueOf(c).IsZero() {
		return d
	}
	if c.ModeratorModel == "" {
		c.ModeratorModel = d.ModeratorModel
	}
	if len(c.DebaterModels) == 0 {
		c.DebaterModels = d.DebaterModels
	}
	c.DebaterModels = slices.Clone(c.DebaterModels)
	c.Perspectives = slices.Clone(c.Perspectives)
	c.CustomPerspectives = slices.Clone(c.CustomPerspectives)
	c.Opposites = slices.Clone(c.Opposites)
	if c.MaxRounds == 0 {
		c.MaxRounds = d.MaxRounds
	}
	if c.RoundTimeout == 0 {
		c.RoundTimeout = d.RoundTimeout
	}
	if c.CheckpointTimeout == 0 {
		c.CheckpointTimeout = d.CheckpointTimeout
	}
	if c.TotalTimeout == 0 {
		c.TotalTimeout = d.TotalTimeout
	}
	return c
}

// Validate returns nil or an [*engine.ValidationError] (matching
// [engine.ErrInvalidConfig]) naming every problem by its JSON field path:
// an empty model ID, debaters outside 2..4, perspectives that are not 2..4
// distinct perspectives of the catalog or are all on one side of the
// trade-offs, an invalid custom perspective or opposite pair, rounds outside
// 1..20, a negative budget, non-positive timeouts. Validate
// checks c as given; [New] validates it after filling in the defaults.
func (c Config) Validate() error {
	v := &engine.ValidationError{Format: FormatName}
	if strings.TrimSpace(c.ModeratorModel) == "" {
		v.Add("moderatorModel", "is empty")
	}
	if len(c.DebaterModels) == 0 {
		v.Add("debaterModels", "is empty")
	}
	for i, m := range c.DebaterModels {
		if strings.TrimSpace(m) == "" {
			v.Add(fmt.Sprintf("debaterModels[%d]", i), "is empty")
		}
	}
	if c.Debaters != 0 && (c.Debaters < 2 || c.Debaters > 4) {
		v.Add("debaters", "%d: want 2..4 (or 0 for the moderator's choice)", c.Debaters)
	}
	ps := buildPerspectives(c, v)
	if len(c.Perspectives) > 0 {
		if n := len(c.Perspectives); n < 2 || n > 4 {
			v.Add("perspectives", "%d given; want 2..4", n)
		}
		for i, id := range c.Perspectives {
			field := fmt.Sprintf("perspectives[%d]", i)
			if _, ok := ps.byID[id]; !ok {
				v.Add(field, "%q is not a perspective of the catalog", id)
			} else if slices.Index(c.Perspectives, id) != i {
				v.Add(field, "%q repeats", id)
			}
		}
		if !ps.balanced(c.Perspectives) {
			v.Add("perspectives", "%v are all on one side of the trade-offs; seat an opposite pair", c.Perspectives)
		}
	}
	if c.MaxRounds < 1 || c.MaxRounds > 20 {
		v.Add("maxRounds", "%d: want 1..20", c.MaxRounds)
	}
	if c.TokenBudget < 0 {
		v.Add("tokenBudget", "%d is negative (0 means unlimited)", c.TokenBudget)
	}
	for _, d := range []struct {
		name string
		d    time.Duration
	}{{"roundTimeout", c.RoundTimeout}, {"checkpointTimeout", c.CheckpointTimeout}, {"totalTimeout", c.TotalTimeout}} {
		if d.d <= 0 {
			v.Add(d.name, "%v: want more than 0", d.d)
		}
	}
	return v.Err()
}

// Format is the moderated debate as an [engine.Format]: give it to
// [engine.Run] to start a debate and to [engine.Resume] to continue one.
// Make it with [New] (or [engine.Open] by name); &Format{} is the Format to
// resume with, since Resume replaces its configuration with the stored
// one. Its one exported field is its configuration, which the engine
// stores with the debate as the Config's JSON ([Format.MarshalJSON]) and,
// on Resume, decodes back over whatever Config the Format held. Its
// follow-up ([WithFollowUp]) is not stored: give the Format of a Resume the
// same options. A Format holds no state of a debate, so one may play
// several debates, one after another or at once.
//
// The people who asked the question are asked through the engine: give
// [engine.Run] and [engine.Resume] an [engine.WithHuman]; see the package
// documentation for the questions.
type Format struct {
	Config Config `json:"config"`

	checkpointer Checkpointer
	clarifier    Clarifier
	approver     Approver
	followUp     func(context.Context, Synthesis) error
}

// Option adds host behaviour to a [Format].
type Option func(*Format)

// WithCheckpointer makes c the human in the loop, consulted after each
// round that does not end the debate (see [Checkpointer]), instead of the
// [engine.Human] of the debate. A Format with a Checkpointer asks it as
// earlier versions did, and stores its decisions and pauses as they did
// ([RecordCheckpoint], [CheckpointOutcome]), so a front end reading those
// records keeps working; in an unattended debate
// ([engine.Debate].Unattended) it is not asked.
//
// Deprecated: give engine.Run an [engine.WithHuman], asked an
// [engine.QuestionCheckpoint] after each round.
func WithCheckpointer(c Checkpointer) Option { return func(f *Format) { f.checkpointer = c } }

// WithClarifier makes c the person asked the moderator's clarifying
// question when the prompt is too vague (see [Clarifier]), instead of the
// [engine.Human] of the debate. A Format with a Clarifier asks it as
// earlier versions did and stores its answer or pause as they did
// ([RecordClarification], [Clarification]); in an unattended debate it is
// not asked.
//
// Deprecated: give engine.Run an [engine.WithHuman], asked an
// [engine.QuestionClarification].
func WithClarifier(c Clarifier) Option { return func(f *Format) { f.clarifier = c } }

// WithApprover makes a the person who approves or rejects the synthesis
// (see [Approver]), instead of the [engine.Human] of the debate. A Format
// with an Approver asks it as earlier versions did and stores its answer
// or pause as they did ([RecordApproval], [ApprovalOutcome]); in an
// unattended debate it is not asked.
//
// Deprecated: give engine.Run an [engine.WithHuman], asked an
// [engine.QuestionApproval].
func WithApprover(a Approver) Option { return func(f *Format) { f.approver = a } }

// WithFollowUp sets fn to receive the synthesis once it is stored and
// reviewed, to hand the decision to the host (the seed's "Would you like me
// to create a workflow from this decision?"). Before fn is called the
// debate's person is asked that question ([engine.QuestionWorkflow],
// choices [ChoiceYes], the default, and [ChoiceNo]); no is stored as
// declined and fn is not called. Only a synthesis the people approved is
// handed over, or asked about: not one they rejected (nor its revision,
// unless they approve it), nor one nobody reviewed — also when nobody is
// asked. fn returns [ErrDeclined] when it declines
// itself: that is stored, and the debate ends. If fn fails otherwise, the
// debate stops with its error and Resume calls it again; once its outcome
// is stored, it is never called again for this debate. A crash or store
// failure between its success and that record makes Resume call it once
// more: it is at-least-once, so make it idempotent (the synthesis carries
// the debate ID as a key).
func WithFollowUp(fn func(ctx context.Context, s Synthesis) error) Option {
	return func(f *Format) { f.followUp = fn }
}

// New returns the moderated format with cfg, its zero fields given
// [DefaultConfig]'s values (see [Config]: Debaters and TokenBudget keep
// their 0 unless the whole cfg is zero), and the options' hooks; so
// New(Config{}) is the default debate. It fails with an
// [*engine.ValidationError] when the completed configuration is invalid.
func New(cfg Config, opts ...Option) (*Format, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	f := &Format{Config: cfg}
	for _, opt := range opts {
		opt(f)
	}
	return f, nil
}

// Name is [FormatName].
func (f *Format) Name() string { return FormatName }

// Purposes are the purposes of a moderated debate's model calls, for
// [engine.Purposer].
func (f *Format) Purposes() []string {
	return []string{PurposeClarity, PurposeAnalysis, PurposeArgument, PurposeRebuttal, PurposeJudgment, PurposeSynthesis}
}

// Validate validates f's configuration ([Config.Validate]); the engine calls
// it before a debate starts or resumes.
func (f *Format) Validate() error { return f.Config.Validate() }

// Participants is nil: the moderator's analysis seats the debaters during
// the debate, so an argument map ([engine.WithArgumentMap]) names them in
// the order they first argue. The debaters' turns are mapped; the
// moderator's and the human's guidance are not.
func (f *Format) Participants() []string { return nil }

// Label names a speaker for argument mapping: a perspective of the
// configuration's catalog by its name, the human and the moderator as such.
func (f *Format) Label(speaker string) string {
	switch speaker {
	case SpeakerHuman:
		return "Human guidance (from the people who asked the question)"
	case SpeakerModerator:
		return "Moderator"
	}
	cat, err := catalog.DefaultCatalog().With(f.Config.CustomPerspectives...)
	if err != nil {
		cat = catalog.DefaultCatalog()
	}
	if info, ok := cat.Lookup(catalog.Framework(speaker)); ok {
		return info.Name + " perspective"
	}
	return speaker
}

// JudgeModel is the moderator's model, which extracts the arguments when
// the debate is mapped.
func (f *Format) JudgeModel() string { return f.Config.ModeratorModel }

// Checkpointer is the human in the loop of earlier versions: after each
// round it decides whether the debate continues, continues with guidance,
// or ends.
//
// Checkpoint is called on the debate's goroutine, with st describing the
// debate so far, and ctx carrying the checkpoint timeout
// (Config.CheckpointTimeout). It must return promptly once ctx is done;
// when ctx's deadline passes before a decision, or when Checkpoint returns
// an error wrapping [ErrPaused], the debate pauses: the pause is stored,
// [engine.Run] (or Resume) returns an error wrapping ErrPaused, and
// [engine.Resume] with a Format carrying a Checkpointer consults the
// checkpoint again. Any other error stops the debate with that error. The
// decision is stored, so a resumed debate does not ask again for a decision
// already made. st is shared with the debate: Checkpoint may keep it but
// must not modify it.
//
// Deprecated: use an [engine.Human], asked an [engine.QuestionCheckpoint].
type Checkpointer interface {
	Checkpoint(ctx context.Context, st State) (Decision, error)
}

// CheckpointFunc adapts a function to [Checkpointer].
//
// Deprecated: use [engine.HumanFunc].
type CheckpointFunc func(ctx context.Context, st State) (Decision, error)

// Checkpoint calls f(ctx, st).
func (f CheckpointFunc) Checkpoint(ctx context.Context, st State) (Decision, error) {
	return f(ctx, st)
}

// Action is a checkpoint's choice: the Choice of the answer to an
// [engine.QuestionCheckpoint].
type Action string

// The checkpoint choices of the seed, in the order of the checkpoint
// question's Choices: Continue is what happens when nobody answers.
const (
	// Continue: run the next round.
	Continue Action = "continue"
	// Guide: run the next round with the Decision's Guidance given to the
	// debaters and the moderator (fenced as data). Guide without guidance
	// is Continue.
	Guide Action = "guide"
	// End: stop and write the synthesis.
	End Action = "end"
)

// Decision is a checkpoint's outcome.
type Decision struct {
	Action   Action `json:"action"`
	Guidance string `json:"guidance,omitempty"`
	// Auto marks a decision nobody made: the debate asked nobody (no
	// [engine.Human] and no Checkpointer, or an unattended debate) and
	// continued. Answered through an engine.Human, a plain continue
	// without guidance cannot be told from no answer, and is marked Auto
	// too (the engine's stored [engine.Asked] says which it was).
	Auto bool `json:"auto,omitempty"`
}

// CheckpointOutcome is what the checkpoint after round Round came to: a
// Decision, or (asked through a deprecated [Checkpointer]) a pause. It is
// stored, and is the Data of [EventCheckpoint]. A resumed debate replays a
// stored decision, and asks again at a stored pause. A pause of a question
// asked through the engine is the engine's ([engine.Pending]).
type CheckpointOutcome struct {
	Round int `json:"round"`
	Decision
	// Paused: no decision was made; the debate stopped with [ErrPaused].
	// Only a deprecated Checkpointer's pause is stored so.
	Paused bool `json:"paused,omitempty"`
}

// MaxGuidanceRunes bounds a checkpoint's guidance; longer guidance is cut.
const MaxGuidanceRunes = 4000

// Status is where a debate stands, as [State] and [List] report it.
type Status string

// The statuses of the seed's DebateState, and paused.
const (
	StatusAnalyzing    Status = "analyzing"
	StatusInRound      Status = "in_round"
	StatusCheckpoint   Status = "checkpoint"
	StatusSynthesizing Status = "synthesizing"
	StatusComplete     Status = "complete"
	StatusPaused       Status = "paused"
)

// State is the seed's DebateState as a [Checkpointer] sees it: the debate
// so far, after round Round. (An [engine.Human] reads the round in the
// checkpoint question's Text.)
type State struct {
	DebateID     string        `json:"debateId"`
	Question     string        `json:"question"`
	Status       Status        `json:"status"`
	Round        int           `json:"round"`
	MaxRounds    int           `json:"maxRounds"`
	Perspectives []Perspective `json:"perspectives"`
	Rounds       []Round       `json:"rounds"`
	// Guidance is the guidance given so far, in order.
	Guidance []string `json:"guidance,omitempty"`
}

// EndReason says why the rounds stopped.
type EndReason string

// The reasons a debate ends.
const (
	// EndAgreement: the moderator judged the perspectives to converge.
	EndAgreement EndReason = "agreement"
	// EndClearWinner: one perspective dominated; the others conceded.
	EndClearWinner EndReason = "clear_winner"
	// EndStagnation: the moderator saw the debate going in circles, or
	// every debater repeated more than RepetitionThreshold of its last
	// argument.
	EndStagnation EndReason = "stagnation"
	// EndMaxRounds: Config.MaxRounds were played without convergence.
	EndMaxRounds EndReason = "max_rounds"
	// EndHuman: a checkpoint decided to end.
	EndHuman EndReason = "human"
	// EndTimeout: Config.TotalTimeout was spent, before the next round or
	// during one, which it cut short ([Judgment].Cut).
	EndTimeout EndReason = "timeout"
)

// Argument is a debater's argument or rebuttal in a round.
type Argument struct {
	Perspective catalog.Framework    `json:"perspective"`
	Kind        engine.UtteranceKind `json:"kind"` // KindArgument or KindRebuttal
	Content     string               `json:"content"`
	// RespondingTo are the perspectives a rebuttal answers.
	RespondingTo []catalog.Framework `json:"respondingTo,omitempty"`
	Model        string              `json:"model"`
	// Tokens are the completion tokens counted against the budget;
	// OverBudget marks a reply cut to its budget.
	Tokens     int  `json:"tokens"`
	OverBudget bool `json:"overBudget,omitempty"`
	// Repetition is the share of an argument repeating what was said in
	// the previous round, its arguments and rebuttals ([Repetition]).
	Repetition float64 `json:"repetition,omitempty"`
	// Seq is the Seq of the utterance holding it.
	Seq int64 `json:"seq"`
}

// Round is one round of the debate: the seed's DebateRound.
type Round struct {
	Number int `json:"number"`
	// Opening is the moderator's opening of the round.
	Opening string `json:"opening"`
	// Guidance is the human guidance given to this round, if any.
	Guidance  string     `json:"guidance,omitempty"`
	Arguments []Argument `json:"arguments"`
	Rebuttals []Argument `json:"rebuttals"`
	Judgment  Judgment   `json:"judgment"`
	// Checkpoint is the decision taken after the round; nil when the
	// round ended the debate.
	Checkpoint *Decision `json:"checkpoint,omitempty"`
	// Muted are the perspectives muted after this round for going off
	// topic twice in a row.
	Muted []catalog.Framework `json:"muted,omitempty"`
}

// Outcome is what a moderated debate came to: the Detail of its
// [engine.Result], beside the debate ID, transcript and usage the engine
// reports. It is stored, as JSON, with the debate's end.
type Outcome struct {
	// Config is the configuration the debate ran with.
	Config       Config        `json:"config"`
	Analysis     Analysis      `json:"analysis"`
	Perspectives []Perspective `json:"perspectives"`
	Rounds       []Round       `json:"rounds"`
	EndReason    EndReason     `json:"endReason"`
	// Synthesis is the synthesis as reviewed: the moderator's first, or,
	// when the people rejected that one, its revision ([Synthesis].Revision),
	// which is then the decision if they approved it, and recorded as
	// rejected if they rejected it too.
	Synthesis Synthesis `json:"synthesis"`
	// Rejected are the syntheses the people rejected before Synthesis (the
	// moderator's first, when it revised it), each with its Approval.
	Rejected []Synthesis `json:"rejected,omitempty"`
	// Clarification is the moderator's clarifying question about a vague
	// prompt and what came of it; nil when the prompt was clear.
	Clarification *Clarification `json:"clarification,omitempty"`
	// FollowedUp reports whether the host's follow-up ([WithFollowUp])
	// ran and did not decline.
	FollowedUp bool `json:"followedUp"`
	// Elapsed is the time the debate spent, across every Run and Resume,
	// checkpoint waits excluded, as the session's clock measured it. JSON
	// holds it as "elapsed", in seconds, as every duration.
	Elapsed time.Duration `json:"-"`
}

// Guidance returns the guidance given at the checkpoints, in order.
func (o *Outcome) Guidance() []string {
	var out []string
	for _, rd := range o.Rounds {
		if rd.Checkpoint != nil && rd.Checkpoint.Action == Guide {
			out = append(out, rd.Checkpoint.Guidance)
		}
	}
	return out
}
