package persuasion

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
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

// The debaters' speaker IDs: the Speaker of their utterances and events,
// the keys of their usage ([engine.Result].UsageBySpeaker), the
// participants of argument mapping ([Format.Participants]) and the winner
// of [Outcome.Verdict] ([engine.Verdict].Winner). The moderator speaks as
// [engine.SpeakerArbiter], the host of every format, so that argument
// mapping ([engine.WithArgumentMap]) maps the debaters' turns and not the
// verdict. Debates stored before these IDs spoke as [SidePro] and
// [SideOpp]; see [SpeakerID].
const (
	// SpeakerPro is the proponent's speaker ID.
	SpeakerPro = "pro"
	// SpeakerOpp is the opponent's speaker ID.
	SpeakerOpp = "opp"
)

// The participants' side labels, as the seed shows them to the models and
// the reader: the Speaker of the dialogue's moves ([argumentation.Move],
// listed in prompts as "P2 PRO since …"), the participants, winner and side
// scores of the computed verdict ([Outcome].Computed, [Judgment]), the
// [Turn]'s Side, the keys of the turns' records, the prompts and the
// report. They are not speaker IDs (see [SpeakerPro]); [SideOf] and
// [SpeakerID] turn one into the other.
const (
	SidePro = "PRO"
	SideOpp = "OPP"
	SideMod = "MOD"
)

// SideOf returns the side label of a speaker: [SidePro] for [SpeakerPro],
// [SideOpp] for [SpeakerOpp], [SideMod] for [engine.SpeakerArbiter], and
// any other speaker (a side label among them) as it is.
func SideOf(speaker string) string {
	switch speaker {
	case SpeakerPro:
		return SidePro
	case SpeakerOpp:
		return SideOpp
	case engine.SpeakerArbiter:
		return SideMod
	}
	return speaker
}

// SpeakerID returns the speaker ID of a side label: [SpeakerPro] for
// [SidePro], [SpeakerOpp] for [SideOpp], [engine.SpeakerArbiter] for
// [SideMod], and any other speaker (a speaker ID among them) as it is.
// Debates stored before the speaker IDs were lowercase have the side labels
// as the Speaker of their records; this is how the format reads them (see
// the package documentation, "Debates stored by earlier versions").
func SpeakerID(side string) string {
	switch side {
	case SidePro:
		return SpeakerPro
	case SideOpp:
		return SpeakerOpp
	case SideMod:
		return engine.SpeakerArbiter
	}
	return side
}

// The segments of a persuasion debate, in order.
const (
	SegmentOpening       engine.Segment = "opening"
	SegmentArgumentation engine.Segment = "argumentation"
	SegmentClosing       engine.Segment = "closing"
	SegmentJudgment      engine.Segment = "judgment"
)

// The kinds of a persuasion debate's utterances.
const (
	KindOpening  engine.UtteranceKind = "opening"
	KindArgument engine.UtteranceKind = "argument"
	KindClosing  engine.UtteranceKind = "closing"
	KindVerdict  engine.UtteranceKind = "verdict"
)

// Phase is the part of the debate a turn belongs to.
type Phase string

// The phases: round 0 is the opening, rounds 1..MaxRounds the
// argumentation, round MaxRounds+1 the closing.
const (
	PhaseOpening       Phase = "opening"
	PhaseArgumentation Phase = "argumentation"
	PhaseClosing       Phase = "closing"
)

// Record types this format writes for its own steps (beside the engine's
// segment and utterance records).
const (
	// RecordTurn holds a debater's accepted [Turn].
	RecordTurn = "persuasion_turn"
	// RecordModeration holds the moderator's [Moderation] of the computed
	// verdict.
	RecordModeration = "persuasion_moderation"
)

// The event types of this format's own events, each announcing one of its
// records; [engine.Replay] gives each back as itself. Besides them a
// debate emits the engine's: debate, segment and utterance events (an
// utterance per turn and one for the verdict), tokens never (turns are
// JSON, not streamed), and, with [engine.WithArgumentMap],
// [engine.EventArgumentMap].
const (
	// EventTurn announces a debater's stored turn (a [RecordTurn]); Data is
	// a [Turn] (decode it with engine.DataAs[persuasion.Turn]), whose Seq
	// is 0: the utterance holding its text is stored right after it.
	EventTurn engine.EventType = "persuasion_turn"
	// EventVerdict announces the stored moderation (a [RecordModeration]);
	// Data is a [Judgment]: the computed winner and side scores with the
	// moderator's text.
	EventVerdict engine.EventType = "persuasion_verdict"
)

// Sentinel errors callers branch on. A configuration error is an
// [*engine.ValidationError] (errors.Is(err, engine.ErrInvalidConfig)).
var (
	// ErrInvalidTurn is wrapped by the problem of a turn with no moves, too
	// many moves or no text (an illegal move is
	// [argumentation.ErrIllegalMove], a reply without JSON moves
	// [argumentation.ErrParse]). A debate does not stop on it: a turn
	// still unusable when asked again is a pass ([Turn].Defaulted).
	ErrInvalidTurn = errors.New("persuasion: invalid turn")
	// ErrInvalidModeration is wrapped by [ParseModeration]'s errors. A
	// debate does not stop on it: a moderation still unusable when asked
	// again is the default one ([Moderation].Defaulted).
	ErrInvalidModeration = errors.New("persuasion: invalid moderation")
)

// Persona is a participant as the seed sets it up: who it is, its bias,
// stated to everyone, and the model that plays it.
//
// Its JSON is {"description", "bias", "modelId"}; a persona stored before
// ModelID had its name holds the model as "model", which
// [Persona.UnmarshalJSON] reads too.
type Persona struct {
	// Description is the persona, e.g. "Pragmatic engineer focused on
	// delivery and simplicity".
	Description string `json:"description"`
	// Bias is the stated bias; "" for none. It is always encoded, "" too,
	// so that a stored persona without bias reopens (engine.Open) without
	// one rather than with the default's.
	Bias string `json:"bias"`
	// ModelID is the model ID that plays the participant (as the
	// podcast's duelogic.Chair.ModelID).
	ModelID string `json:"modelId"`
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
		ModelID:     "anthropic/claude-sonnet-4",
	}
}

// DefaultOpp returns the seed's opponent with its default model.
func DefaultOpp() Persona {
	return Persona{
		Description: "Cautious architect focused on quality and long-term health",
		Bias:        "Prefers solutions that minimize risk and technical debt",
		ModelID:     "openai/gpt-4o",
	}
}

// DefaultMod returns the seed's moderator with its default model.
func DefaultMod() Persona {
	return Persona{
		Description: "Senior staff engineer balancing trade-offs",
		Bias:        "None — evaluates argument strength, not rhetoric",
		ModelID:     "google/gemini-2.5-pro",
	}
}

// Limits of Config's fields.
const (
	// MaxRoundsLimit bounds Config.MaxRounds.
	MaxRoundsLimit = 10
	// MaxExchanges bounds Config.Exchanges.
	MaxExchanges = 5
	// MaxMovesLimit bounds Config.MaxMoves.
	MaxMovesLimit = 20
	// MaxPerspectiveLen bounds Config.Perspective, in runes.
	MaxPerspectiveLen = 200
	// MaxPersonaLen bounds a Persona's Description and Bias, in runes.
	MaxPersonaLen = 500
	// MaxFacts bounds the number of Config.Facts.
	MaxFacts = 100
)

// MaxRounds is the name [MaxRoundsLimit] had before Config.Rounds became
// Config.MaxRounds.
//
// Deprecated: use [MaxRoundsLimit].
const MaxRounds = MaxRoundsLimit

// Config configures a persuasion debate. The topic is the
// [engine.Debate]'s Proposition, and its Context, when given, is the first
// item of the shared context K.
//
// Zero fields take [DefaultConfig]'s values in [New], so New(Config{}) is
// New(DefaultConfig()):
//
//   - a persona (Pro, Opp, Mod) whose Description and Bias are both empty is
//     the seed's persona; an empty ModelID alone takes the seed's model, and
//     a persona with a Description but no Bias has no bias;
//   - MaxRounds, Exchanges and MaxMoves 0 take 2, 2 and 5; Semantics ""
//     takes "additive";
//   - Perspective "", no Facts and DrawMargin 0 are the defaults
//     themselves (DrawMargin 0 is [argumentation.DefaultDrawMargin]).
//
// Config has no booleans. Its JSON (the field names below) is what
// engine.Open takes and what engine.Run stores with a debate (see
// [Format.MarshalJSON]): there a field left out, also inside a persona,
// keeps DefaultConfig's value (so a persona without bias is given with
// "bias": ""), a 0 or "" given takes it as in New, an unknown field or a
// value of the wrong type is an [*engine.ValidationError]. The engine stores
// the completed configuration, so a resumed debate runs with the values it
// started with. Configurations stored before MaxRounds and a persona's
// ModelID had their names hold them as "rounds" and "model": they are read
// too (see [Config.UnmarshalJSON]), and written under the new names only.
type Config struct {
	// Pro argues for the proposition, Opp against it, Mod judges. A
	// persona left entirely empty is the seed's; an empty ModelID alone
	// takes the default model.
	Pro Persona `json:"pro"`
	Opp Persona `json:"opp"`
	Mod Persona `json:"mod"`

	// MaxRounds is the number of argumentation rounds between the opening
	// (round 0) and the closing (round MaxRounds+1), all of which are
	// played; default 2, at most [MaxRoundsLimit]. (The name is the one
	// the other formats and the CLI's --max-rounds use.)
	MaxRounds int `json:"maxRounds"`
	// Exchanges is the number of PRO-then-OPP turn pairs within each
	// argumentation round (not a number of rounds); default 2 (the seed's
	// PRO, OPP, PRO, OPP), at most MaxExchanges.
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

	// MaxMoves bounds the moves of one turn; default 5.
	MaxMoves int `json:"maxMoves"`

	// Protocol is the version of the protocol's rules the debate is played
	// by; default [ProtocolCurrent]. Version 2 adds to the seed's
	// legal-reply table that no commitment store holds φ and ¬φ together
	// (conceding φ retracts the speaker's ¬φ; a claim or since against the
	// speaker's own commitments is illegal) and the seed's rule 2: a claim
	// without grounds is challenged at once, a why in the other side's
	// name ([Turn].Challenges). 0 and 1 are the table alone: a debate
	// stored before version 2, whose configuration has no protocol, is
	// resumed by the rules it was played by.
	Protocol int `json:"protocol,omitempty"`
}

// ProtocolCurrent is the version of the protocol's rules of a new debate
// (see [Config].Protocol).
const ProtocolCurrent = 2

// DefaultConfig returns the defaults: the seed's personas (Claude Sonnet 4
// for PRO, GPT-4o for OPP, Gemini 2.5 Pro moderating), 2 argumentation
// rounds of 2 exchanges, the additive semantics and at most 5
// moves per turn.
func DefaultConfig() Config {
	return Config{
		Pro:       DefaultPro(),
		Opp:       DefaultOpp(),
		Mod:       DefaultMod(),
		MaxRounds: 2,
		Exchanges: 2,
		Semantics: argumentation.Additive.String(),
		MaxMoves:  5,
		Protocol:  ProtocolCurrent,
	}
}

// withDefaults fills the zero fields from DefaultConfig.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	persona := func(p, def Persona) Persona {
		if strings.TrimSpace(p.Description) == "" && strings.TrimSpace(p.Bias) == "" {
			p.Description, p.Bias = def.Description, def.Bias
		}
		if p.ModelID == "" {
			p.ModelID = def.ModelID
		}
		return p
	}
	c.Pro, c.Opp, c.Mod = persona(c.Pro, d.Pro), persona(c.Opp, d.Opp), persona(c.Mod, d.Mod)
	if c.MaxRounds == 0 {
		c.MaxRounds = d.MaxRounds
	}
	if c.Exchanges == 0 {
		c.Exchanges = d.Exchanges
	}
	if c.Semantics == "" {
		c.Semantics = d.Semantics
	}
	if c.MaxMoves == 0 {
		c.MaxMoves = d.MaxMoves
	}
	if c.Protocol == 0 {
		c.Protocol = d.Protocol
	}
	c.Facts = slices.Clone(c.Facts)
	return c
}

// Validate returns nil or a [*engine.ValidationError] (Format
// [FormatName]; errors.Is(err, engine.ErrInvalidConfig) holds) that names,
// by its JSON field path, every problem: a persona without description or
// model ("pro.description", "opp.modelId") or with a description or bias
// that is too long or not UTF-8, rounds, exchanges or moves out of
// range, an unknown semantics, a draw margin that is not finite, a
// perspective that is too long or not one line, blank or too many facts
// ("facts[2]"), or facts longer together than [engine.MaxContextRunes].
// Validate checks c as given; [New] validates it after filling in the
// defaults.
func (c Config) Validate() error {
	v := &engine.ValidationError{Format: FormatName}
	for _, p := range []struct {
		name string
		p    Persona
	}{{"pro", c.Pro}, {"opp", c.Opp}, {"mod", c.Mod}} {
		if strings.TrimSpace(p.p.Description) == "" {
			v.Add(p.name+".description", "is empty")
		}
		if strings.TrimSpace(p.p.ModelID) == "" {
			v.Add(p.name+".modelId", "is empty")
		}
		for _, f := range []struct{ name, text string }{{"description", p.p.Description}, {"bias", p.p.Bias}} {
			switch n := utf8.RuneCountInString(f.text); {
			case !utf8.ValidString(f.text):
				v.Add(p.name+"."+f.name, "is not valid UTF-8")
			case n > MaxPersonaLen:
				v.Add(p.name+"."+f.name, "has %d characters; at most %d", n, MaxPersonaLen)
			}
		}
	}
	if c.MaxRounds < 1 || c.MaxRounds > MaxRoundsLimit {
		v.Add("maxRounds", "%d is outside 1..%d", c.MaxRounds, MaxRoundsLimit)
	}
	if c.Exchanges < 1 || c.Exchanges > MaxExchanges {
		v.Add("exchanges", "%d is outside 1..%d", c.Exchanges, MaxExchanges)
	}
	if c.Protocol < 0 || c.Protocol > ProtocolCurrent {
		v.Add("protocol", "%d is outside 0..%d", c.Protocol, ProtocolCurrent)
	}
	if c.MaxMoves < 1 || c.MaxMoves > MaxMovesLimit {
		v.Add("maxMoves", "%d is outside 1..%d", c.MaxMoves, MaxMovesLimit)
	}
	if _, err := argumentation.ParseSemantics(c.Semantics); err != nil {
		v.Add("semantics", "%q is unknown; want additive, dfquad, quadratic-energy, euler, euler-top or h-categorizer", c.Semantics)
	}
	if math.IsNaN(c.DrawMargin) || math.IsInf(c.DrawMargin, 0) {
		v.Add("drawMargin", "%v is not finite", c.DrawMargin)
	}
	switch p := c.Perspective; {
	case !utf8.ValidString(p):
		v.Add("perspective", "is not valid UTF-8")
	case utf8.RuneCountInString(p) > MaxPerspectiveLen:
		v.Add("perspective", "has %d characters; at most %d", utf8.RuneCountInString(p), MaxPerspectiveLen)
	case strings.ContainsAny(p, "\r\n"):
		v.Add("perspective", "must be one line")
	}
	if len(c.Facts) > MaxFacts {
		v.Add("facts", "%d facts; at most %d", len(c.Facts), MaxFacts)
	}
	total := 0
	for i, f := range c.Facts {
		switch {
		case !utf8.ValidString(f):
			v.Add(fmt.Sprintf("facts[%d]", i), "is not valid UTF-8")
		case strings.TrimSpace(f) == "":
			v.Add(fmt.Sprintf("facts[%d]", i), "is empty")
		}
		total += utf8.RuneCountInString(f)
	}
	if total > engine.MaxContextRunes {
		v.Add("facts", "have %d characters together; at most %d", total, engine.MaxContextRunes)
	}
	return v.Err()
}

// semantics returns the configured semantics; c must be valid.
func (c Config) semantics() argumentation.Semantics {
	s, _ := argumentation.ParseSemantics(c.Semantics)
	return s
}

// persona returns the persona of a speaker ID.
func (c Config) persona(speaker string) Persona {
	switch speaker {
	case SpeakerPro:
		return c.Pro
	case SpeakerOpp:
		return c.Opp
	}
	return c.Mod
}

// Turn is one debater's turn: the moves it made, as applied to the dialogue
// (IDs P1, P2, … for PRO and O1, O2, … for OPP; targets by ID;
// propositions normalised), and the text that makes them.
type Turn struct {
	// Round is the turn's round: 0 the opening, 1..MaxRounds the
	// argumentation, MaxRounds+1 the closing; Phase names it.
	Round int   `json:"round"`
	Phase Phase `json:"phase"`
	// Side is the debater's side label, SidePro or SideOpp, as the
	// Speaker of its Moves (not its speaker ID: [SpeakerID] gives that;
	// the [EventTurn] announcing the turn has it as its Speaker).
	Side string `json:"side"`
	// Moves are the turn's moves; each carries its part of the text, if
	// the model gave one.
	Moves []argumentation.Move `json:"moves"`
	// Challenges are the why moves the protocol made in the other side's
	// name at this turn's claims without grounds (see [Config].Protocol),
	// stored with the turn and applied right after Moves.
	Challenges []argumentation.Move `json:"challenges,omitempty"`
	// Text is the turn as said; Model the model that said it.
	Text  string `json:"text"`
	Model string `json:"model,omitempty"`
	// Rejected are the replies that could not be used, with the problem
	// each had (an illegal move, …): the one asked for again, and for a
	// pass both.
	Rejected []Rejection `json:"rejected,omitempty"`
	// Defaulted marks a pass: the debater's replies could not be used,
	// even when asked again, so the turn makes no move (open challenges
	// to the debater stay open, which counts against it) and Text is
	// what the last reply said, when it could be read, or a note.
	Defaulted bool `json:"defaulted,omitempty"`
	// Seq is the Seq of the utterance that holds Text in the transcript.
	Seq int64 `json:"seq,omitempty"`
}

// Rejection is an unusable reply and why it was asked for again.
type Rejection struct {
	// Reply is the reply as given, cut to engine.MaxQuotedReply runes.
	Reply string `json:"reply"`
	// Problem is why it could not be used.
	Problem string `json:"problem"`
}

// Moderation is what the moderator model writes about the computed
// verdict. The winner and scores are never the model's: they come from
// the argumentation framework.
type Moderation struct {
	// Rationale explains why the computed winner's arguments were
	// stronger.
	Rationale string `json:"rationale"`
	// Consensus is the consensus solution: a recommendation that keeps the
	// losing side's valid points.
	Consensus string `json:"consensus"`
	// Conditions are the conditions for revisiting the decision.
	Conditions []string `json:"conditions"`
	// Model is the model that wrote it.
	Model string `json:"model,omitempty"`
	// Defaulted marks the default moderation of a moderator whose replies
	// could not be used, even when asked again: a rationale saying so, no
	// consensus and no conditions.
	Defaulted bool `json:"defaulted,omitempty"`
}

// Judgment is the Data of an [EventVerdict]: the computed winner and side
// scores with the moderator's text.
type Judgment struct {
	// Winner is the computed winner's side label ([SidePro] or [SideOpp],
	// as in Sides and [Outcome].Computed), "" on a draw (Draw). The same
	// winner as a speaker ID is [Outcome.Verdict]'s.
	Winner string `json:"winner"`
	Draw   bool   `json:"draw"`
	// Sides are the side scores, best first, by side label.
	Sides []argumentation.SideScore `json:"sides"`
	// Moderation is the moderator's text about them.
	Moderation Moderation `json:"moderation"`
}
