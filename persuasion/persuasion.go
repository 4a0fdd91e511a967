package persuasion

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/llm"
)

// FormatName names the persuasion format in a debate's first record.
const FormatName = "persuasion"

// Purpose values of the requests this format makes.
const (
	// PurposeTurn asks a debater for one turn: JSON moves and the text
	// that makes them.
	PurposeTurn = "persuasion_turn"
	// PurposeVerdict asks the moderator for the rationale, the consensus
	// solution and the conditions for revisiting a computed verdict.
	PurposeVerdict = "persuasion_verdict"
)

// The participants: their side labels in moves, and the Speaker of their
// utterances.
const (
	SidePro = "PRO"
	SideOpp = "OPP"
	SideMod = "MOD"
)

// The segments of a persuasion debate, in order.
const (
	SegmentOpening       duelogic.Segment = "opening"
	SegmentArgumentation duelogic.Segment = "argumentation"
	SegmentClosing       duelogic.Segment = "closing"
	SegmentJudgment      duelogic.Segment = "judgment"
)

// The kinds of a persuasion debate's utterances.
const (
	KindOpening  duelogic.UtteranceKind = "opening"
	KindArgument duelogic.UtteranceKind = "argument"
	KindClosing  duelogic.UtteranceKind = "closing"
	KindVerdict  duelogic.UtteranceKind = "verdict"
)

// Phase is the part of the debate a turn belongs to.
type Phase string

// The phases: round 0 is the opening, rounds 1..Rounds the argumentation,
// round Rounds+1 the closing.
const (
	PhaseOpening       Phase = "opening"
	PhaseArgumentation Phase = "argumentation"
	PhaseClosing       Phase = "closing"
)

// Record types this format writes, and the event types announcing them.
const (
	RecordTurn       = "persuasion_turn"
	RecordModeration = "persuasion_moderation"

	// EventTurn announces a debater's stored turn; Data is a [Turn].
	EventTurn duelogic.EventType = "persuasion_turn"
	// EventVerdict announces the stored judgment; Data is a [Judgment].
	EventVerdict duelogic.EventType = "persuasion_verdict"
)

// Sentinel errors callers branch on.
var (
	// ErrInvalidConfig is matched by every configuration error of [Run].
	ErrInvalidConfig = errors.New("persuasion: invalid config")
	// ErrInvalidTurn: a debater gave no usable turn (parseable moves, all
	// legal, with text) within 1 + Config.MaxReasks attempts. The error
	// also wraps the last problem: [argumentation.ErrIllegalMove] for a
	// move against the protocol, [argumentation.ErrParse] for a reply
	// without JSON moves.
	ErrInvalidTurn = errors.New("persuasion: invalid turn")
	// ErrInvalidModeration: the moderator gave no usable rationale,
	// consensus and conditions within 1 + Config.MaxReasks attempts.
	ErrInvalidModeration = errors.New("persuasion: invalid moderation")
)

// Persona is a participant as the seed sets it up: who it is, its bias,
// stated to everyone, and the model that plays it.
type Persona struct {
	// Description is the persona, e.g. "Pragmatic engineer focused on
	// delivery and simplicity".
	Description string `json:"description"`
	// Bias is the stated bias; "" for none.
	Bias string `json:"bias,omitempty"`
	// Model is the model ID that plays the participant.
	Model string `json:"model"`
}

// String is the persona as the report lists it: the description and the
// stated bias.
func (p Persona) String() string {
	s := oneLine(p.Description)
	if b := oneLine(p.Bias); b != "" {
		s = strings.TrimRight(s, ".") + ". Bias: " + b
	}
	return s
}

// DefaultPro returns the seed's proponent with its default model.
func DefaultPro() Persona {
	return Persona{
		Description: "Pragmatic engineer focused on delivery and simplicity",
		Bias:        "Prefers solutions that ship fast and are easy to maintain",
		Model:       "anthropic/claude-sonnet-4",
	}
}

// DefaultOpp returns the seed's opponent with its default model.
func DefaultOpp() Persona {
	return Persona{
		Description: "Cautious architect focused on quality and long-term health",
		Bias:        "Prefers solutions that minimize risk and technical debt",
		Model:       "openai/gpt-4o",
	}
}

// DefaultMod returns the seed's moderator with its default model.
func DefaultMod() Persona {
	return Persona{
		Description: "Senior staff engineer balancing trade-offs",
		Bias:        "None — evaluates argument strength, not rhetoric",
		Model:       "google/gemini-2.5-pro",
	}
}

// Limits of Config's fields.
const (
	// MaxRounds bounds Config.Rounds.
	MaxRounds = 10
	// MaxExchanges bounds Config.Exchanges.
	MaxExchanges = 5
	// MaxReasksLimit bounds Config.MaxReasks.
	MaxReasksLimit = 10
	// MaxMovesLimit bounds Config.MaxMoves.
	MaxMovesLimit = 20
	// MaxPerspectiveLen bounds Config.Perspective, in runes.
	MaxPerspectiveLen = 200
	// MaxPersonaLen bounds a Persona's Description and Bias, in runes.
	MaxPersonaLen = 500
	// MaxFacts bounds the number of Config.Facts.
	MaxFacts = 100
)

// Config configures a persuasion debate. The topic is the
// [duelogic.Debate]'s Proposition, and its Context, when given, is the first
// item of the shared context K.
//
// Zero fields take the defaults of [DefaultConfig]; Run stores the completed
// configuration, so a resumed debate runs with the values it started with.
type Config struct {
	// Pro argues for the proposition, Opp against it, Mod judges. A
	// persona left entirely empty is the seed's; an empty Model alone
	// takes the default model.
	Pro Persona `json:"pro"`
	Opp Persona `json:"opp"`
	Mod Persona `json:"mod"`

	// Rounds is the number of argumentation rounds between the opening
	// (round 0) and the closing (round Rounds+1); default 2, at most
	// MaxRounds.
	Rounds int `json:"rounds"`
	// Exchanges is the number of PRO-then-OPP turn pairs in each
	// argumentation round; default 2 (the seed's PRO, OPP, PRO, OPP), at
	// most MaxExchanges.
	Exchanges int `json:"exchanges"`

	// Perspective, when set, is a viewpoint every participant is asked to
	// focus on (the seed's --perspective ROLE, e.g. "site reliability").
	Perspective string `json:"perspective,omitempty"`
	// Facts are the shared context K: facts both sides may use, one per
	// item. They are fenced as data in every prompt and listed in the
	// report.
	Facts []string `json:"facts,omitempty"`

	// Semantics names the gradual semantics of the verdict (see
	// [argumentation.ParseSemantics]); default "additive", the seed's.
	Semantics string `json:"semantics"`
	// DrawMargin is [argumentation.VerdictOptions].DrawMargin: 0 for the
	// default margin, negative for exact ties only.
	DrawMargin float64 `json:"drawMargin,omitempty"`

	// MaxReasks bounds how often an unusable reply (an illegal move, no
	// JSON, no text; an incomplete moderation) is asked for again, with
	// the problem shown to the model, before the debate stops with
	// [ErrInvalidTurn] or [ErrInvalidModeration]. 0 takes the default 2;
	// -1 means no re-asks.
	MaxReasks int `json:"maxReasks"`
	// MaxMoves bounds the moves of one turn; default 5.
	MaxMoves int `json:"maxMoves"`

	// MarkdownPath, when set, is a file Run and Resume write the seed's
	// output document to when the debate is finished.
	MarkdownPath string `json:"markdownPath,omitempty"`
}

// DefaultConfig returns the defaults: the seed's personas (Claude Sonnet 4
// for PRO, GPT-4o for OPP, Gemini 2.5 Pro moderating), 2 argumentation
// rounds of 2 exchanges, the additive semantics, 2 re-asks and at most 5
// moves per turn.
func DefaultConfig() Config {
	return Config{
		Pro:       DefaultPro(),
		Opp:       DefaultOpp(),
		Mod:       DefaultMod(),
		Rounds:    2,
		Exchanges: 2,
		Semantics: argumentation.Additive.String(),
		MaxReasks: 2,
		MaxMoves:  5,
	}
}

// withDefaults fills the zero fields from DefaultConfig.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	persona := func(p, def Persona) Persona {
		if strings.TrimSpace(p.Description) == "" && strings.TrimSpace(p.Bias) == "" {
			p.Description, p.Bias = def.Description, def.Bias
		}
		if p.Model == "" {
			p.Model = def.Model
		}
		return p
	}
	c.Pro, c.Opp, c.Mod = persona(c.Pro, d.Pro), persona(c.Opp, d.Opp), persona(c.Mod, d.Mod)
	if c.Rounds == 0 {
		c.Rounds = d.Rounds
	}
	if c.Exchanges == 0 {
		c.Exchanges = d.Exchanges
	}
	if c.Semantics == "" {
		c.Semantics = d.Semantics
	}
	if c.MaxReasks == 0 {
		c.MaxReasks = d.MaxReasks
	}
	if c.MaxMoves == 0 {
		c.MaxMoves = d.MaxMoves
	}
	c.Facts = slices.Clone(c.Facts)
	return c
}

// Validate returns nil or an error wrapping [ErrInvalidConfig] that names
// every problem: a persona without description or model or with a
// description or bias that is too long, rounds,
// exchanges, re-asks or moves out of range, an unknown semantics, a draw
// margin that is not finite, a perspective that is too long or not one line,
// blank or too many facts, or facts longer together than
// [duelogic.MaxContextRunes]. Validate checks c as given; [Run] validates it
// after filling in the defaults.
func (c Config) Validate() error {
	var probs []string
	bad := func(format string, args ...any) { probs = append(probs, fmt.Sprintf(format, args...)) }
	for _, p := range []struct {
		name string
		p    Persona
	}{{"pro", c.Pro}, {"opp", c.Opp}, {"mod", c.Mod}} {
		if strings.TrimSpace(p.p.Description) == "" {
			bad("%s.description is empty", p.name)
		}
		if strings.TrimSpace(p.p.Model) == "" {
			bad("%s.model is empty", p.name)
		}
		switch {
		case !utf8.ValidString(p.p.Description) || !utf8.ValidString(p.p.Bias):
			bad("%s: persona is not valid UTF-8", p.name)
		case utf8.RuneCountInString(p.p.Description) > MaxPersonaLen || utf8.RuneCountInString(p.p.Bias) > MaxPersonaLen:
			bad("%s: description and bias may have at most %d characters each", p.name, MaxPersonaLen)
		}
	}
	if c.Rounds < 1 || c.Rounds > MaxRounds {
		bad("rounds %d: want 1..%d", c.Rounds, MaxRounds)
	}
	if c.Exchanges < 1 || c.Exchanges > MaxExchanges {
		bad("exchanges %d: want 1..%d", c.Exchanges, MaxExchanges)
	}
	if c.MaxReasks < -1 || c.MaxReasks > MaxReasksLimit {
		bad("maxReasks %d: want -1..%d", c.MaxReasks, MaxReasksLimit)
	}
	if c.MaxMoves < 1 || c.MaxMoves > MaxMovesLimit {
		bad("maxMoves %d: want 1..%d", c.MaxMoves, MaxMovesLimit)
	}
	if _, err := argumentation.ParseSemantics(c.Semantics); err != nil {
		bad("semantics %q: want additive, dfquad, quadratic-energy, euler, euler-top or h-categorizer", c.Semantics)
	}
	if math.IsNaN(c.DrawMargin) || math.IsInf(c.DrawMargin, 0) {
		bad("drawMargin %v is not finite", c.DrawMargin)
	}
	switch p := c.Perspective; {
	case !utf8.ValidString(p):
		bad("perspective is not valid UTF-8")
	case utf8.RuneCountInString(p) > MaxPerspectiveLen:
		bad("perspective has %d characters; at most %d", utf8.RuneCountInString(p), MaxPerspectiveLen)
	case strings.ContainsAny(p, "\r\n"):
		bad("perspective must be one line")
	}
	if len(c.Facts) > MaxFacts {
		bad("%d facts; at most %d", len(c.Facts), MaxFacts)
	}
	total := 0
	for i, f := range c.Facts {
		switch {
		case !utf8.ValidString(f):
			bad("facts[%d] is not valid UTF-8", i)
		case strings.TrimSpace(f) == "":
			bad("facts[%d] is empty", i)
		}
		total += utf8.RuneCountInString(f)
	}
	if total > duelogic.MaxContextRunes {
		bad("facts have %d characters together; at most %d", total, duelogic.MaxContextRunes)
	}
	if len(probs) > 0 {
		return fmt.Errorf("%w: %s", ErrInvalidConfig, strings.Join(probs, "; "))
	}
	return nil
}

// semantics returns the configured semantics; c must be valid.
func (c Config) semantics() argumentation.Semantics {
	s, _ := argumentation.ParseSemantics(c.Semantics)
	return s
}

func (c Config) persona(side string) Persona {
	switch side {
	case SidePro:
		return c.Pro
	case SideOpp:
		return c.Opp
	}
	return c.Mod
}

// Turn is one debater's turn: the moves it made, as applied to the dialogue
// (IDs P1, P2, … for PRO and O1, O2, … for OPP; targets by ID;
// propositions normalised), and the text that makes them.
type Turn struct {
	Round int    `json:"round"`
	Phase Phase  `json:"phase"`
	Side  string `json:"side"`
	// Moves are the turn's moves; each carries its part of the text, if
	// the model gave one.
	Moves []argumentation.Move `json:"moves"`
	// Text is the turn as said.
	Text  string `json:"text"`
	Model string `json:"model,omitempty"`
	// Rejected are the replies asked for again before this one was
	// accepted, with the problem each had (an illegal move, …).
	Rejected []Rejection `json:"rejected,omitempty"`
	// Seq is the Seq of the utterance that holds Text in the transcript.
	Seq int64 `json:"seq,omitempty"`
}

// Rejection is an unusable reply and why it was asked for again.
type Rejection struct {
	Reply   string `json:"reply"`
	Problem string `json:"problem"`
}

// Moderation is what the moderator model writes about the computed
// verdict. The winner and scores are never the model's: they come from
// the argumentation framework.
type Moderation struct {
	Rationale  string   `json:"rationale"`
	Consensus  string   `json:"consensus"`
	Conditions []string `json:"conditions"`
	Model      string   `json:"model,omitempty"`
}

// Judgment is the Data of an [EventVerdict]: the computed winner and side
// scores with the moderator's text.
type Judgment struct {
	Winner     string                    `json:"winner"` // "" on a draw
	Draw       bool                      `json:"draw"`
	Sides      []argumentation.SideScore `json:"sides"`
	Moderation Moderation                `json:"moderation"`
}

// Result is a finished persuasion debate: the engine's result (debate ID,
// transcript, usage) with the turns, the computed verdict, the moderator's
// text and the seed's output document.
type Result struct {
	*duelogic.Result
	Config Config `json:"config"`
	// Turns are the debaters' turns in order.
	Turns []Turn `json:"turns"`
	// Verdict is the computed verdict (winner, side scores, surviving
	// arguments, commitments, metrics).
	Verdict argumentation.Verdict `json:"verdict"`
	// Arguments are every argument of the final graph with its score, by
	// ID.
	Arguments  []argumentation.ScoredArgument `json:"arguments"`
	Moderation Moderation                     `json:"moderation"`
	// Report holds the dialogue, graph and scores behind the verdict, with
	// the topic, personas, context and moderator's text filled in; its
	// WriteMarkdown wrote Markdown and its WriteDOT draws the graph.
	Report argumentation.Report `json:"-"`
	// Markdown is the seed's output document.
	Markdown string `json:"markdown"`
}

// Run plays a persuasion debate of d with cfg (its zero fields defaulted)
// and returns the turns, the computed verdict and the seed's document. It
// fails before any model call when cfg or d is invalid. opts set the
// engine's store, sink, clock, logger and prompt hook. A debate stopped by
// a model error, an unusable turn, a store error or cancellation stays
// stored and [Resume] finishes it. When Config.MarkdownPath is set and
// writing it fails, the result is returned with the error.
func Run(ctx context.Context, client llm.Client, cfg Config, d duelogic.Debate, opts ...duelogic.Option) (*Result, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	f := &format{Config: cfg}
	res, err := duelogic.RunFormat(ctx, client, f, d, opts...)
	if err != nil {
		return nil, err
	}
	return f.finish(res)
}

// Resume finishes the persuasion debate debateID from its records, with the
// configuration it started with; a finished debate's result is returned
// without calling a model.
func Resume(ctx context.Context, client llm.Client, debateID string, opts ...duelogic.Option) (*Result, error) {
	f := &format{}
	res, err := duelogic.ResumeFormat(ctx, client, f, debateID, opts...)
	if err != nil {
		return nil, err
	}
	return f.finish(res)
}

// finish builds the Result and writes the Markdown file, if configured.
func (f *format) finish(res *duelogic.Result) (*Result, error) {
	r := &Result{
		Result:     res,
		Config:     f.Config,
		Turns:      f.turns,
		Verdict:    f.report.Verdict,
		Moderation: f.moderation,
		Report:     f.report,
		Markdown:   f.markdown,
	}
	if g := f.report.Graph; g != nil {
		for _, a := range g.Arguments() {
			r.Arguments = append(r.Arguments, argumentation.ScoredArgument{Argument: a, Score: f.report.Scores.Strength[a.ID]})
		}
	}
	if p := f.Config.MarkdownPath; p != "" {
		if err := os.WriteFile(p, []byte(r.Markdown), 0o644); err != nil {
			return r, fmt.Errorf("persuasion: write the report: %w", err)
		}
	}
	return r, nil
}
