package moderated

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/llm"
)

// FormatName names the moderated format in a debate's first record.
const FormatName = "moderated"

// Purpose values of the requests this format makes.
const (
	PurposeAnalysis  = "moderator_analysis"
	PurposeArgument  = "debater_argument"
	PurposeRebuttal  = "debater_rebuttal"
	PurposeJudgment  = "moderator_judgment"
	PurposeSynthesis = "moderator_synthesis"
)

// Speakers other than the debaters, whose Speaker is their perspective's ID.
const (
	SpeakerModerator = "moderator"
	// SpeakerHuman speaks the guidance given at a checkpoint.
	SpeakerHuman = "human"
)

// The segments of a moderated debate, in order.
const (
	SegmentAnalysis  duelogic.Segment = "analysis"
	SegmentRounds    duelogic.Segment = "rounds"
	SegmentSynthesis duelogic.Segment = "synthesis"
)

// The kinds of a moderated debate's utterances.
const (
	// KindAssignment: the moderator announces the perspectives.
	KindAssignment duelogic.UtteranceKind = "assignment"
	// KindOpening: the moderator opens a round (the question, or a summary
	// of the last round with guidance and redirections).
	KindOpening  duelogic.UtteranceKind = "opening"
	KindArgument duelogic.UtteranceKind = "argument"
	KindRebuttal duelogic.UtteranceKind = "rebuttal"
	// KindJudgment: the moderator's assessment of a round.
	KindJudgment duelogic.UtteranceKind = "judgment"
	// KindGuidance: the human's guidance at a checkpoint.
	KindGuidance  duelogic.UtteranceKind = "guidance"
	KindSynthesis duelogic.UtteranceKind = "synthesis"
)

// Record types this format writes; each is announced by an event of the same
// name whose Data is the record's value.
const (
	RecordAnalysis   = "moderated_analysis"   // Data: Analysis
	RecordAssignment = "moderated_assignment" // Data: []Perspective
	RecordTurn       = "moderated_turn"       // a debater's reply; not announced (its utterance is)
	RecordJudgment   = "moderated_judgment"   // Data: Judgment
	RecordCheckpoint = "moderated_checkpoint" // Data: Decision
	RecordSynthesis  = "moderated_synthesis"  // Data: Synthesis
	RecordFollowUp   = "moderated_followup"   // Data: bool, whether the host's FollowUp ran
)

// Sentinel errors callers branch on.
var (
	// ErrInvalidConfig is matched by every configuration error.
	ErrInvalidConfig = errors.New("moderated: invalid config")
	// ErrPaused: the debate paused at a checkpoint (no decision within
	// Config.CheckpointTimeout, or the Checkpointer returned ErrPaused).
	// [Resume] asks the checkpoint again.
	ErrPaused = errors.New("moderated: debate paused")
	// ErrRoundTimeout: a round did not finish within Config.RoundTimeout.
	ErrRoundTimeout = errors.New("moderated: round timed out")
	// ErrTotalTimeout: the debate used up Config.TotalTimeout.
	ErrTotalTimeout = errors.New("moderated: debate timed out")
	// ErrInvalidSynthesis: the moderator gave no usable synthesis within
	// Config.MaxAttempts attempts.
	ErrInvalidSynthesis = errors.New("moderated: invalid synthesis")
)

// Config configures a moderated debate. The question is the
// [duelogic.Debate]'s Proposition; its Context is optional background.
//
// Start from [DefaultConfig]. Zero durations and counts take its defaults,
// except TokenBudget, where 0 means unlimited. Run stores the completed
// configuration, so a resumed debate runs with the values it started with.
//
// In JSON the durations are seconds: {"roundTimeout": 120} is two minutes,
// and a string of [time.ParseDuration] ("2m") is read too; tokenBudget may
// be "unlimited". See [Config.UnmarshalJSON] and [Config.MarshalJSON].
type Config struct {
	ModeratorModel string `json:"moderatorModel"`
	// DebaterModels are the debaters' models: debater i argues with
	// DebaterModels[i % len(DebaterModels)].
	DebaterModels []string `json:"debaterModels"`
	// Debaters is how many perspectives argue (2..4); 0 lets the
	// moderator's analysis decide: 2 for a binary choice, 3-4 for a
	// multi-faceted question.
	Debaters int `json:"debaters,omitempty"`
	// Perspectives, when set, are the perspectives that argue (2..4 IDs
	// of the catalog, balanced), instead of the moderator's choice.
	Perspectives []duelogic.Framework `json:"perspectives,omitempty"`
	// CustomPerspectives extend the built-in engineering perspectives
	// (duelogic.Perspectives) as by duelogic.DefaultCatalog().With; give
	// each Priorities and TradeOffs.
	CustomPerspectives []duelogic.FrameworkInfo `json:"customPerspectives,omitempty"`
	// Opposites are pairs of perspectives whose trade-offs pull against
	// each other, in addition to the built-in pairs (Performance Advocate
	// vs Simplicity Advocate and vs Operational Simplicity, Security
	// Advocate vs User Experience, Future Flexibility vs Simplicity
	// Advocate). Every debate seats at least one pair.
	Opposites [][2]duelogic.Framework `json:"opposites,omitempty"`
	// MaxRounds caps the rounds (1..20); default 5.
	MaxRounds int `json:"maxRounds"`
	// TokenBudget is each debater's budget of completion tokens per round
	// (argument and rebuttal together); 0 (in JSON also "unlimited")
	// means unlimited. See the package documentation for how it is
	// enforced.
	TokenBudget int `json:"tokenBudget"`
	// RoundTimeout bounds each round's model calls; default 2 minutes.
	// In JSON this and the other durations are seconds.
	RoundTimeout time.Duration `json:"roundTimeout"`
	// CheckpointTimeout is how long a checkpoint waits for a decision
	// before the debate pauses; default 30 minutes.
	CheckpointTimeout time.Duration `json:"checkpointTimeout"`
	// TotalTimeout bounds the time one Run or Resume call spends on the
	// debate, not counting checkpoint waits; default 30 minutes.
	TotalTimeout time.Duration `json:"totalTimeout"`
	// MaxAttempts bounds the calls made for one JSON reply of the
	// moderator (analysis, judgment, synthesis) when a reply is unusable;
	// default 3.
	MaxAttempts int `json:"maxAttempts"`
}

// DefaultConfig returns the seed's defaults: GPT-4o moderating, Claude
// Sonnet 4, Grok 3, Gemini 2.5 Pro and DeepSeek V3 debating, debaters
// chosen by the moderator, at most 5 rounds, 2000 tokens per debater per
// round, 2-minute rounds, 30-minute checkpoints and a 30-minute total.
func DefaultConfig() Config {
	return Config{
		ModeratorModel:    "openai/gpt-4o",
		DebaterModels:     []string{"anthropic/claude-sonnet-4", "x-ai/grok-3", "google/gemini-2.5-pro", "deepseek/deepseek-chat"},
		MaxRounds:         5,
		TokenBudget:       2000,
		RoundTimeout:      2 * time.Minute,
		CheckpointTimeout: 30 * time.Minute,
		TotalTimeout:      30 * time.Minute,
		MaxAttempts:       3,
	}
}

func (c Config) withDefaults() Config {
	d := DefaultConfig()
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
	if c.MaxAttempts == 0 {
		c.MaxAttempts = d.MaxAttempts
	}
	return c
}

// Validate returns nil or an error wrapping [ErrInvalidConfig] naming every
// problem: an empty model ID, debaters outside 2..4, perspectives that are
// not 2..4 distinct perspectives of the catalog or are all on one side of
// the trade-offs, an invalid custom perspective or opposite pair, rounds
// outside 1..20, a negative budget, non-positive timeouts or attempts.
// Validate checks c as given; [Run] validates it after filling in the
// defaults.
func (c Config) Validate() error {
	var probs []string
	bad := func(format string, args ...any) { probs = append(probs, fmt.Sprintf(format, args...)) }
	if strings.TrimSpace(c.ModeratorModel) == "" {
		bad("moderatorModel is empty")
	}
	if len(c.DebaterModels) == 0 {
		bad("debaterModels is empty")
	}
	for i, m := range c.DebaterModels {
		if strings.TrimSpace(m) == "" {
			bad("debaterModels[%d] is empty", i)
		}
	}
	if c.Debaters != 0 && (c.Debaters < 2 || c.Debaters > 4) {
		bad("debaters %d: want 2..4 (or 0 for the moderator's choice)", c.Debaters)
	}
	if ps, err := newPerspectives(c); err != nil {
		bad("%s", strings.TrimPrefix(err.Error(), ErrInvalidConfig.Error()+": "))
	} else if len(c.Perspectives) > 0 {
		switch n := len(c.Perspectives); {
		case n < 2 || n > 4:
			bad("perspectives: %d given; want 2..4", n)
		case c.Debaters != 0 && c.Debaters != n:
			bad("perspectives: %d given but debaters is %d", n, c.Debaters)
		}
		for i, id := range c.Perspectives {
			if _, ok := ps.byID[id]; !ok {
				bad("perspectives[%d]: %q is not a perspective of the catalog", i, id)
			} else if slices.Index(c.Perspectives, id) != i {
				bad("perspectives[%d]: %q repeats", i, id)
			}
		}
		if !ps.balanced(c.Perspectives) {
			bad("perspectives: %v are all on one side of the trade-offs; seat an opposite pair", c.Perspectives)
		}
	}
	if c.MaxRounds < 1 || c.MaxRounds > 20 {
		bad("maxRounds %d: want 1..20", c.MaxRounds)
	}
	if c.TokenBudget < 0 {
		bad("tokenBudget %d is negative (0 means unlimited)", c.TokenBudget)
	}
	for _, d := range []struct {
		name string
		d    time.Duration
	}{{"roundTimeout", c.RoundTimeout}, {"checkpointTimeout", c.CheckpointTimeout}, {"totalTimeout", c.TotalTimeout}} {
		if d.d <= 0 {
			bad("%s %v: want more than 0", d.name, d.d)
		}
	}
	if c.MaxAttempts < 1 {
		bad("maxAttempts %d: want at least 1", c.MaxAttempts)
	}
	if len(probs) > 0 {
		return fmt.Errorf("%w: %s", ErrInvalidConfig, strings.Join(probs, "; "))
	}
	return nil
}

// Hooks connect a debate to its host while it runs. They are not stored:
// give the same hooks to [Run] and to [Resume].
type Hooks struct {
	// Checkpointer is consulted after each round that does not end the
	// debate; nil continues every round.
	Checkpointer Checkpointer
	// FollowUp, when set, is called after the synthesis is stored, to hand
	// the decision to the host (the seed's "create a workflow from this
	// decision"). If it fails, the debate returns its error and Resume
	// calls it again; once its success is stored, it is never called again
	// for this debate. A crash or store failure between its success and
	// that record makes Resume call it once more: it is at-least-once, so
	// make it idempotent (the synthesis carries the debate ID as a key).
	FollowUp func(ctx context.Context, s Synthesis) error
}

// Checkpointer is the human in the loop: after each round it decides
// whether the debate continues, continues with guidance, or ends.
//
// Checkpoint is called on the debate's goroutine, with st describing the
// debate so far, and ctx carrying the checkpoint timeout
// (Config.CheckpointTimeout). It must return promptly once ctx is done;
// when ctx's deadline passes before a decision, or when Checkpoint returns
// an error wrapping [ErrPaused], the debate pauses: Run returns an error
// wrapping ErrPaused, and [Resume] consults the checkpoint again. Any other
// error stops the debate with that error. The decision is stored, so a
// resumed debate does not ask again for a decision already made. st is
// shared with the debate: Checkpoint may keep it but must not modify it.
type Checkpointer interface {
	Checkpoint(ctx context.Context, st State) (Decision, error)
}

// CheckpointFunc adapts a function to [Checkpointer].
type CheckpointFunc func(ctx context.Context, st State) (Decision, error)

// Checkpoint calls f(ctx, st).
func (f CheckpointFunc) Checkpoint(ctx context.Context, st State) (Decision, error) {
	return f(ctx, st)
}

// Action is a checkpoint's choice.
type Action string

// The checkpoint choices of the seed.
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
	// Auto marks a decision made without a Checkpointer.
	Auto bool `json:"auto,omitempty"`
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

// State is the seed's DebateState as a checkpoint sees it: the debate so
// far, after round Round.
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
)

// Argument is a debater's argument or rebuttal in a round.
type Argument struct {
	Perspective duelogic.Framework     `json:"perspective"`
	Kind        duelogic.UtteranceKind `json:"kind"` // KindArgument or KindRebuttal
	Content     string                 `json:"content"`
	// RespondingTo are the perspectives a rebuttal answers.
	RespondingTo []duelogic.Framework `json:"respondingTo,omitempty"`
	Model        string               `json:"model"`
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
	Muted []duelogic.Framework `json:"muted,omitempty"`
}

// Result is a finished moderated debate: the engine's result (debate ID,
// transcript, usage) with the analysis, perspectives, rounds and synthesis.
type Result struct {
	*duelogic.Result
	Config       Config        `json:"config"`
	Analysis     Analysis      `json:"analysis"`
	Perspectives []Perspective `json:"perspectives"`
	Rounds       []Round       `json:"rounds"`
	EndReason    EndReason     `json:"endReason"`
	Synthesis    Synthesis     `json:"synthesis"`
	// FollowedUp reports whether Hooks.FollowUp ran.
	FollowedUp bool `json:"followedUp"`
}

// Guidance returns the guidance given at the checkpoints, in order.
func (r *Result) Guidance() []string {
	var out []string
	for _, rd := range r.Rounds {
		if rd.Checkpoint != nil && rd.Checkpoint.Action == Guide {
			out = append(out, rd.Checkpoint.Guidance)
		}
	}
	return out
}

// Run plays a moderated debate of the question d with cfg (its zero fields
// defaulted) and h, and returns the rounds and the synthesis. It fails
// before any model call when cfg or d is invalid. opts set the engine's
// store, sink, clock, logger and prompt hook. A debate that stops — paused
// at a checkpoint ([ErrPaused]), timed out, failed, cancelled — stays
// stored, and [Resume] continues it.
func Run(ctx context.Context, client llm.Client, cfg Config, d duelogic.Debate, h Hooks, opts ...duelogic.Option) (*Result, error) {
	if client == nil {
		return nil, errors.New("moderated: nil llm.Client")
	}
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	f := &format{Config: cfg, hooks: h}
	res, err := duelogic.RunFormat(ctx, client, f, d, opts...)
	if err != nil {
		return nil, err
	}
	return f.result(res), nil
}

// Resume continues the moderated debate debateID from its records, with the
// configuration it started with and the hooks h: a paused debate consults
// its checkpoint again; a finished one returns its result without calling a
// model or a hook.
func Resume(ctx context.Context, client llm.Client, debateID string, h Hooks, opts ...duelogic.Option) (*Result, error) {
	if client == nil {
		return nil, errors.New("moderated: nil llm.Client")
	}
	f := &format{hooks: h}
	res, err := duelogic.ResumeFormat(ctx, client, f, debateID, opts...)
	if err != nil {
		return nil, err
	}
	return f.result(res), nil
}
