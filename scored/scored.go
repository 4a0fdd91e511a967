package scored

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/duelogic/duelogic/engine"
)

// FormatName names the scored format in a debate's first record.
const FormatName = "scored"

// Purpose values of the requests this format makes.
const (
	PurposeArgument = "scored_argument"
	PurposeRebuttal = "scored_rebuttal"
	PurposeVerdict  = "scored_verdict"
)

// Speakers of a scored debate's utterances. The arbiter is
// [engine.SpeakerArbiter].
const (
	SpeakerAdvocate   = "advocate"
	SpeakerChallenger = "challenger"
)

// SegmentRounds is the one segment of a scored debate.
const SegmentRounds engine.Segment = "rounds"

// The kinds of a scored debate's utterances.
const (
	KindArgument engine.UtteranceKind = "argument"
	KindRebuttal engine.UtteranceKind = "rebuttal"
	KindVerdict  engine.UtteranceKind = "verdict"
)

// Record types this format writes beside the engine's ([engine.RecordDebate]
// and the others).
const (
	// RecordTurn holds a debater's argument or rebuttal as generated (a
	// side step, unannounced; the transcript's utterance follows it).
	RecordTurn = "scored_turn"
	// RecordVerdict holds the arbiter's verdict as generated (a side step,
	// unannounced).
	RecordVerdict = "scored_verdict"
	// RecordRound holds a round's verdict applied to its category's score,
	// announced by [EventVerdict].
	RecordRound = "scored_round"
	// RecordScores holds the score card, announced by [EventScores].
	RecordScores = "scored_scores"
)

// The event types of this format, beside the engine's (debate and segment
// started and ended, and an [engine.EventUtterance] for each utterance).
const (
	// EventVerdict announces a round's verdict and its effect on the
	// category's score, right after the round's utterances; Data is a
	// [RoundVerdict].
	EventVerdict engine.EventType = "scored_verdict"
	// EventScores announces the score card after the last round; Data is
	// a [ScoreCard].
	EventScores engine.EventType = "scored_scores"
)

// Sentinel errors callers branch on. A configuration error is an
// [*engine.ValidationError], matched by [engine.ErrInvalidConfig].
var (
	// ErrInvalidVerdict is wrapped by [ParseVerdict]'s errors. A debate does
	// not stop on it: a verdict still invalid when asked again gives the
	// round its default verdict (see [Verdict].Defaulted).
	ErrInvalidVerdict = errors.New("scored: invalid verdict")
	// ErrThinArgument: a debater gave no argument of at least
	// Config.MinArgumentWords words within Config.MaxAttempts attempts.
	ErrThinArgument = errors.New("scored: argument too short")
)

// Category is one round's topic: an evaluation category with the position
// each side defends.
type Category struct {
	// ID names the category in Config.Evaluations and Challenges, and in
	// the stored keys: 1-32 of a-z, 0-9, '_' and '-'.
	ID                 string `json:"id"`
	Name               string `json:"name"`
	AdvocatePosition   string `json:"advocatePosition"`
	ChallengerPosition string `json:"challengerPosition"`
}

// DefaultCategories returns the seed's three rounds: Problem Validity,
// Solution Fit and Market Opportunity.
func DefaultCategories() []Category {
	return []Category{
		{ID: "problem", Name: "Problem Validity",
			AdvocatePosition:   "The problem is real and significant",
			ChallengerPosition: "The problem is overstated or niche"},
		{ID: "solution", Name: "Solution Fit",
			AdvocatePosition:   "The solution effectively addresses the problem",
			ChallengerPosition: "The solution has critical flaws"},
		{ID: "market", Name: "Market Opportunity",
			AdvocatePosition:   "The market is large and accessible",
			ChallengerPosition: "The market is limited or saturated"},
	}
}

// Evaluation is the host's evaluation of the idea in one category: the
// score going into the debate and the evidence behind it, which both sides
// must argue from.
type Evaluation struct {
	Score    float64  `json:"score"`
	Evidence []string `json:"evidence,omitempty"`
	// Neutral marks an evaluation made by [NeutralEvaluations]: nothing was
	// known of the idea in this category, so its score is the middle of
	// the scale and not a finding. Prompts and reports say so.
	Neutral bool `json:"neutral,omitempty"`
}

// Challenge is a red-team challenge the challenger may press.
type Challenge struct {
	// Category is the category ID it bears on; "" for every round.
	Category string `json:"category,omitempty"`
	Text     string `json:"text"`
	// Severity is free text such as "high"; it is shown to the debaters.
	Severity string `json:"severity,omitempty"`
}

// Scale is the range of the scores.
type Scale struct {
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

// Config configures a scored debate. The idea itself is the
// [engine.Debate]: its Proposition states the idea and its Context is the
// idea's background (the seed's IdeaContext).
//
// Every zero field takes [DefaultConfig]'s value when the format is made —
// by [New], by engine.Open or when a stored configuration is decoded on
// resume — so Config{} is DefaultConfig(): Categories, the three models,
// Scale (when both of its bounds are zero), MaxAdjustment, MaxAttempts and
// MinArgumentWords take the default's; empty Evaluations become a neutral
// evaluation of every category ([NeutralEvaluations], which is the
// default's for the default categories); Challenges and Parallel are none
// and 0 in the default too. A zero cannot be asked for where the default
// is not zero: MinArgumentWords 0 is 40 (1 accepts any non-empty reply).
// The debate stores the completed configuration, so a resumed debate runs
// with the values it started with.
//
// Its JSON is the configuration engine.Open("scored", config) takes and the
// engine stores with a debate: fields left out take their defaults.
type Config struct {
	// Categories are the rounds, in order; default [DefaultCategories].
	Categories []Category `json:"categories"`
	// Evaluations holds, by category ID, the score and evidence of every
	// category: one is needed for each category. Empty: a neutral one for
	// every category ([NeutralEvaluations]).
	Evaluations map[string]Evaluation `json:"evaluations"`
	// Challenges are the red team's challenges; default none.
	Challenges []Challenge `json:"challenges,omitempty"`

	AdvocateModel   string `json:"advocateModel"`
	ChallengerModel string `json:"challengerModel"`
	ArbiterModel    string `json:"arbiterModel"`

	// Scale is the score range; default 1..10.
	Scale Scale `json:"scale"`
	// MaxAdjustment is the most one verdict moves a score; default 1. It
	// must not exceed Scale.Max - Scale.Min.
	MaxAdjustment float64 `json:"maxAdjustment"`
	// MaxAttempts bounds the calls made for one argument when the reply
	// is too short; default 3. (A verdict is asked again once at most.)
	MaxAttempts int `json:"maxAttempts"`
	// MinArgumentWords is the least an argument or rebuttal must have to be
	// accepted; default (and 0) 40.
	MinArgumentWords int `json:"minArgumentWords"`
	// JudgeSwapped shows the arbiter the sides in the other order, the
	// challenger's argument and rebuttal first: a judge audit's position
	// swap (package eval). Default false, the seed's order.
	JudgeSwapped bool `json:"judgeSwapped,omitempty"`
	// Parallel is how many rounds are generated at once; 0 or 1 plays them
	// one after another, as the seed does. More rounds at once finish
	// sooner but put more calls in flight, which a store failure can
	// waste. The transcript and the events are the same either way.
	Parallel int `json:"parallel,omitempty"`
}

// DefaultConfig returns the defaults: the seed's three categories, each with
// a neutral evaluation (the middle of the scale, no evidence: see
// [NeutralEvaluations]), Claude Sonnet 4 advocating, Grok 3 challenging,
// GPT-4o as arbiter, scores on a 1..10 scale moved by at most 1 per verdict,
// 3 attempts per argument, arguments of at least 40 words, and one round at a
// time. It is valid and runs offline (on
// [github.com/duelogic/duelogic/llm.NewStub]) as it is; a host with real
// evidence replaces Evaluations.
func DefaultConfig() Config {
	cats := DefaultCategories()
	scale := Scale{Min: 1, Max: 10}
	return Config{
		Categories:       cats,
		Evaluations:      NeutralEvaluations(cats, scale),
		AdvocateModel:    "anthropic/claude-sonnet-4",
		ChallengerModel:  "x-ai/grok-3",
		ArbiterModel:     "openai/gpt-4o",
		Scale:            scale,
		MaxAdjustment:    1,
		MaxAttempts:      3,
		MinArgumentWords: 40,
	}
}

// NeutralEvaluations returns an evaluation for each category at the middle
// of scale with no evidence, marked Neutral: the starting point when nothing
// is known about the idea. A debate scored from it measures the arguments
// alone; the prompts tell the debaters so, and [Outcome.Markdown] and
// [Outcome.NeutralCategories] tell the reader. [Evidence.Apply] replaces
// them with a host's findings.
func NeutralEvaluations(cats []Category, scale Scale) map[string]Evaluation {
	evs := make(map[string]Evaluation, len(cats))
	for _, c := range cats {
		evs[c.ID] = Evaluation{Score: (scale.Min + scale.Max) / 2, Neutral: true}
	}
	return evs
}

// withDefaults fills the zero fields from DefaultConfig (empty Evaluations
// with neutral ones of c's categories, on c's scale) and copies the slices
// and the map, so the caller's stay its own.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if len(c.Categories) == 0 {
		c.Categories = d.Categories
	}
	c.Categories = slices.Clone(c.Categories)
	c.Challenges = slices.Clone(c.Challenges)
	if c.AdvocateModel == "" {
		c.AdvocateModel = d.AdvocateModel
	}
	if c.ChallengerModel == "" {
		c.ChallengerModel = d.ChallengerModel
	}
	if c.ArbiterModel == "" {
		c.ArbiterModel = d.ArbiterModel
	}
	if c.Scale == (Scale{}) {
		c.Scale = d.Scale
	}
	if c.MaxAdjustment == 0 {
		c.MaxAdjustment = d.MaxAdjustment
	}
	if c.MaxAttempts == 0 {
		c.MaxAttempts = d.MaxAttempts
	}
	if c.MinArgumentWords == 0 {
		c.MinArgumentWords = d.MinArgumentWords
	}
	if len(c.Evaluations) == 0 {
		c.Evaluations = NeutralEvaluations(c.Categories, c.Scale)
	} else {
		c.Evaluations = maps.Clone(c.Evaluations)
	}
	return c
}

var categoryID = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)

// Validate returns nil or an [*engine.ValidationError] naming every
// violation by its JSON field path: a malformed or repeated category ID
// ("categories[1].id"), an empty name or position, a category without an
// evaluation or with a score outside the scale (`evaluations["market"]`), an
// evaluation or a challenge naming no category, an empty challenge, an empty
// scale, a maxAdjustment outside (0, max-min], fewer than 1 attempt, a
// negative word minimum or parallel, an empty model ID. Validate checks c as
// given; [New] validates it after filling in the defaults.
func (c Config) Validate() error {
	v := &engine.ValidationError{Format: FormatName}
	finite := func(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
	if !finite(c.Scale.Min) || !finite(c.Scale.Max) || c.Scale.Min >= c.Scale.Max {
		v.Add("scale", "%v..%v is empty", c.Scale.Min, c.Scale.Max)
	}
	if len(c.Categories) == 0 {
		v.Add("categories", "none; at least one is needed")
	}
	seen := map[string]bool{}
	for i, cat := range c.Categories {
		p := fmt.Sprintf("categories[%d]", i)
		switch {
		case !categoryID.MatchString(cat.ID):
			v.Add(p+".id", "%q: use 1-32 of a-z, 0-9, '_' and '-'", cat.ID)
		case seen[cat.ID]:
			v.Add(p+".id", "%q repeats", cat.ID)
		}
		seen[cat.ID] = true
		if strings.TrimSpace(cat.Name) == "" {
			v.Add(p+".name", "empty")
		}
		if strings.TrimSpace(cat.AdvocatePosition) == "" {
			v.Add(p+".advocatePosition", "empty")
		}
		if strings.TrimSpace(cat.ChallengerPosition) == "" {
			v.Add(p+".challengerPosition", "empty")
		}
		ev, ok := c.Evaluations[cat.ID]
		switch field := fmt.Sprintf("evaluations[%q]", cat.ID); {
		case !ok:
			v.Add(field, "missing: every category needs an evaluation")
		case !finite(ev.Score) || ev.Score < c.Scale.Min || ev.Score > c.Scale.Max:
			v.Add(field+".score", "%v is outside the scale %v..%v", ev.Score, c.Scale.Min, c.Scale.Max)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(c.Evaluations)) {
		if !seen[id] {
			v.Add(fmt.Sprintf("evaluations[%q]", id), "names no category")
		}
	}
	for i, ch := range c.Challenges {
		p := fmt.Sprintf("challenges[%d]", i)
		if ch.Category != "" && !seen[ch.Category] {
			v.Add(p+".category", "%q names no category", ch.Category)
		}
		if strings.TrimSpace(ch.Text) == "" {
			v.Add(p+".text", "empty")
		}
	}
	if m := c.MaxAdjustment; !finite(m) || m <= 0 || m > c.Scale.Max-c.Scale.Min {
		v.Add("maxAdjustment", "%v: want more than 0 and at most the scale's width", m)
	}
	if c.MaxAttempts < 1 {
		v.Add("maxAttempts", "%d: want at least 1", c.MaxAttempts)
	}
	if c.MinArgumentWords < 0 {
		v.Add("minArgumentWords", "%d is negative", c.MinArgumentWords)
	}
	if c.Parallel < 0 {
		v.Add("parallel", "%d is negative", c.Parallel)
	}
	for _, m := range []struct{ field, id string }{
		{"advocateModel", c.AdvocateModel}, {"challengerModel", c.ChallengerModel}, {"arbiterModel", c.ArbiterModel},
	} {
		if strings.TrimSpace(m.id) == "" {
			v.Add(m.field, "empty")
		}
	}
	return v.Err()
}

// Side is a debater's side of a round.
type Side string

// The two sides.
const (
	Advocate   Side = "advocate"
	Challenger Side = "challenger"
)

// Argument is one turn of a debater in a round.
type Argument struct {
	Side Side                 `json:"side"`
	Kind engine.UtteranceKind `json:"kind"` // KindArgument or KindRebuttal
	// Content is the text; Model the model that wrote it.
	Content string `json:"content"`
	Model   string `json:"model"`
	// Seq is the Seq of the utterance that holds it in the transcript.
	Seq int64 `json:"seq"`
}

// Round is one category's debate: the seed's DebateRound.
type Round struct {
	// Number is the round's place in Config.Categories, from 1.
	Number   int      `json:"number"`
	Category Category `json:"category"`
	// Advocate and Challenger hold each side's argument and rebuttal.
	Advocate   []Argument `json:"advocate"`
	Challenger []Argument `json:"challenger"`
	Verdict    Verdict    `json:"verdict"`
	// PreScore and PostScore are the category's score before and after the
	// verdict; Delta is PostScore - PreScore (see [Adjust]).
	PreScore  float64 `json:"preScore"`
	PostScore float64 `json:"postScore"`
	Delta     float64 `json:"delta"`
}

// RoundVerdict is the Data of an [EventVerdict]: a round's verdict and what
// it did to its category's score.
type RoundVerdict struct {
	// Round is the round's number, from 1; Category its category's ID.
	Round    int     `json:"round"`
	Category string  `json:"category"`
	Verdict  Verdict `json:"verdict"`
	// PreScore and PostScore are the category's score before and after
	// the verdict; Delta is the difference.
	PreScore  float64 `json:"preScore"`
	PostScore float64 `json:"postScore"`
	Delta     float64 `json:"delta"`
}

// ScoreCard is the score integration of a debate, and the Data of an
// [EventScores]: the scores per category before and after, the adjustment
// each verdict made, and their sum.
type ScoreCard struct {
	Pre         map[string]float64 `json:"pre"`
	Post        map[string]float64 `json:"post"`
	Adjustments map[string]float64 `json:"adjustments"`
	// Total is the sum of the adjustments.
	Total float64 `json:"total"`
}

// Outcome is a scored debate's own result, the Detail of its
// [engine.Result]: the configuration it ran with, its rounds and the score
// card. It is an [engine.Outcome]: [Outcome.Verdict] names the side the
// scores favour and [Outcome.Documents] gives the debate's debate.md, which
// [Outcome.Markdown] renders too.
type Outcome struct {
	// DebateID and Proposition are the debate's ([engine.Debate]), for the
	// documents.
	DebateID    string `json:"debateId,omitempty"`
	Proposition string `json:"proposition,omitempty"`

	Config Config    `json:"config"`
	Rounds []Round   `json:"rounds"`
	Scores ScoreCard `json:"scores"`
}
