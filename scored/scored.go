package scored

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/llm"
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
// [duelogic.SpeakerArbiter].
const (
	SpeakerAdvocate   = "advocate"
	SpeakerChallenger = "challenger"
)

// SegmentRounds is the one segment of a scored debate.
const SegmentRounds duelogic.Segment = "rounds"

// The kinds of a scored debate's utterances.
const (
	KindArgument duelogic.UtteranceKind = "argument"
	KindRebuttal duelogic.UtteranceKind = "rebuttal"
	KindVerdict  duelogic.UtteranceKind = "verdict"
)

// Record types this format writes, and the event types announcing them.
const (
	RecordTurn    = "scored_turn"
	RecordVerdict = "scored_verdict"
	RecordScores  = "scored_scores"

	// EventVerdict announces a round's verdict; Data is a [RoundVerdict].
	EventVerdict duelogic.EventType = "scored_verdict"
	// EventScores announces the score card; Data is a [ScoreCard].
	EventScores duelogic.EventType = "scored_scores"
)

// Sentinel errors callers branch on.
var (
	// ErrInvalidConfig is matched by every configuration error of [Run].
	ErrInvalidConfig = errors.New("scored: invalid config")
	// ErrInvalidVerdict: the arbiter gave no valid verdict within
	// Config.MaxAttempts attempts.
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
// [duelogic.Debate]: its Proposition states the idea and its Context is the
// idea's background (the seed's IdeaContext).
//
// Zero fields take the defaults of [DefaultConfig], except Evaluations and
// Challenges; Run stores the completed configuration, so a resumed debate
// runs with the values it started with.
type Config struct {
	// Categories are the rounds, in order; default [DefaultCategories].
	Categories []Category `json:"categories"`
	// Evaluations holds, by category ID, the score and evidence of every
	// category. Required for each category.
	Evaluations map[string]Evaluation `json:"evaluations"`
	// Challenges are the red team's challenges.
	Challenges []Challenge `json:"challenges,omitempty"`

	AdvocateModel   string `json:"advocateModel"`
	ChallengerModel string `json:"challengerModel"`
	ArbiterModel    string `json:"arbiterModel"`

	// Scale is the score range; default 1..10.
	Scale Scale `json:"scale"`
	// MaxAdjustment is the most one verdict moves a score; default 1. It
	// must not exceed Scale.Max - Scale.Min.
	MaxAdjustment float64 `json:"maxAdjustment"`
	// MaxAttempts bounds the calls made for one argument or one verdict
	// when the reply is unusable (too short; invalid JSON or values);
	// default 3.
	MaxAttempts int `json:"maxAttempts"`
	// MinArgumentWords is the least an argument or rebuttal must have to be
	// accepted; default 40.
	MinArgumentWords int `json:"minArgumentWords"`
	// Parallel is how many rounds run at once; 0 or 1 plays them one after
	// another, as the seed does. More rounds at once finish sooner but put
	// more calls in flight, which a store failure can waste.
	Parallel int `json:"parallel,omitempty"`
}

// DefaultConfig returns the defaults: the seed's three categories, each with
// a neutral evaluation (the middle of the scale, no evidence: see
// [NeutralEvaluations]), Claude Sonnet 4 advocating, Grok 3 challenging,
// GPT-4o as arbiter, scores on a 1..10 scale moved by at most 1 per verdict,
// 3 attempts per reply, and arguments of at least 40 words. It is valid and
// runs offline as it is; a host with real evidence replaces Evaluations.
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
// of scale with no evidence: the starting point when nothing is known about
// the idea. A debate scored from it measures the arguments alone, so say so
// when you report its scores.
func NeutralEvaluations(cats []Category, scale Scale) map[string]Evaluation {
	evs := make(map[string]Evaluation, len(cats))
	for _, c := range cats {
		evs[c.ID] = Evaluation{Score: (scale.Min + scale.Max) / 2}
	}
	return evs
}

// withDefaults fills the zero fields from DefaultConfig.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if len(c.Categories) == 0 {
		c.Categories = d.Categories
	}
	c.Categories = slices.Clone(c.Categories)
	c.Evaluations = maps.Clone(c.Evaluations)
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
	return c
}

var categoryID = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)

// Validate returns nil or an error wrapping [ErrInvalidConfig] that names
// every problem: a malformed or repeated category ID, an empty name or
// position, a category without an evaluation or with a score outside the
// scale, a challenge naming an unknown category, an empty scale, a
// MaxAdjustment outside (0, Max-Min], fewer than 1 attempt, a negative word
// minimum or Parallel. Validate checks c as given; [Run] validates it after
// filling in the defaults.
func (c Config) Validate() error {
	var probs []string
	bad := func(format string, args ...any) { probs = append(probs, fmt.Sprintf(format, args...)) }
	finite := func(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
	if !finite(c.Scale.Min) || !finite(c.Scale.Max) || c.Scale.Min >= c.Scale.Max {
		bad("scale %v..%v is empty", c.Scale.Min, c.Scale.Max)
	}
	if len(c.Categories) == 0 {
		bad("no categories")
	}
	seen := map[string]bool{}
	for i, cat := range c.Categories {
		switch {
		case !categoryID.MatchString(cat.ID):
			bad("categories[%d].id %q: use 1-32 of a-z, 0-9, '_' and '-'", i, cat.ID)
		case seen[cat.ID]:
			bad("categories[%d].id %q repeats", i, cat.ID)
		}
		seen[cat.ID] = true
		if strings.TrimSpace(cat.Name) == "" {
			bad("categories[%d].name is empty", i)
		}
		if strings.TrimSpace(cat.AdvocatePosition) == "" || strings.TrimSpace(cat.ChallengerPosition) == "" {
			bad("categories[%d] (%s): both positions are required", i, cat.ID)
		}
		ev, ok := c.Evaluations[cat.ID]
		switch {
		case !ok:
			bad("evaluations[%q] is missing", cat.ID)
		case !finite(ev.Score) || ev.Score < c.Scale.Min || ev.Score > c.Scale.Max:
			bad("evaluations[%q].score %v is outside the scale %v..%v", cat.ID, ev.Score, c.Scale.Min, c.Scale.Max)
		}
	}
	for id := range c.Evaluations {
		if !seen[id] {
			bad("evaluations[%q] names no category", id)
		}
	}
	for i, ch := range c.Challenges {
		if ch.Category != "" && !seen[ch.Category] {
			bad("challenges[%d].category %q names no category", i, ch.Category)
		}
		if strings.TrimSpace(ch.Text) == "" {
			bad("challenges[%d].text is empty", i)
		}
	}
	if !finite(c.MaxAdjustment) || c.MaxAdjustment <= 0 || c.MaxAdjustment > c.Scale.Max-c.Scale.Min {
		bad("maxAdjustment %v: want more than 0 and at most the scale's width", c.MaxAdjustment)
	}
	if c.MaxAttempts < 1 {
		bad("maxAttempts %d: want at least 1", c.MaxAttempts)
	}
	if c.MinArgumentWords < 0 {
		bad("minArgumentWords %d is negative", c.MinArgumentWords)
	}
	if c.Parallel < 0 {
		bad("parallel %d is negative", c.Parallel)
	}
	for _, m := range []struct{ name, id string }{
		{"advocateModel", c.AdvocateModel}, {"challengerModel", c.ChallengerModel}, {"arbiterModel", c.ArbiterModel},
	} {
		if strings.TrimSpace(m.id) == "" {
			bad("%s is empty", m.name)
		}
	}
	if len(probs) > 0 {
		return fmt.Errorf("%w: %s", ErrInvalidConfig, strings.Join(probs, "; "))
	}
	return nil
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
	Side Side                   `json:"side"`
	Kind duelogic.UtteranceKind `json:"kind"` // KindArgument or KindRebuttal
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

// RoundVerdict is the Data of an [EventVerdict].
type RoundVerdict struct {
	Category string  `json:"category"`
	Verdict  Verdict `json:"verdict"`
}

// ScoreCard is the score integration of a debate: the scores per category
// before and after, the adjustment each verdict made, and their sum.
type ScoreCard struct {
	Pre         map[string]float64 `json:"pre"`
	Post        map[string]float64 `json:"post"`
	Adjustments map[string]float64 `json:"adjustments"`
	// Total is the sum of the adjustments.
	Total float64 `json:"total"`
}

// Result is a finished scored debate: the engine's result (debate ID,
// transcript, usage) with the rounds and the score card.
type Result struct {
	*duelogic.Result
	Config Config    `json:"config"`
	Rounds []Round   `json:"rounds"`
	Scores ScoreCard `json:"scores"`
}

// Run plays a scored debate of idea d with cfg (its zero fields defaulted)
// and returns the rounds, verdicts and score card. It fails before any model
// call when cfg or d is invalid. opts set the engine's store, sink, clock,
// logger and prompt hook. The rounds run concurrently; wrap client with
// [llm.Retry] to ride out rate limits. A failed debate stays stored and
// [Resume] finishes it.
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
	return f.result(res), nil
}

// Resume finishes the scored debate debateID from its records, with the
// configuration it started with; a finished debate's result is returned
// without calling a model.
func Resume(ctx context.Context, client llm.Client, debateID string, opts ...duelogic.Option) (*Result, error) {
	f := &format{}
	res, err := duelogic.ResumeFormat(ctx, client, f, debateID, opts...)
	if err != nil {
		return nil, err
	}
	return f.result(res), nil
}
