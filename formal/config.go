package formal

import (
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/duelogic/duelogic/engine"
)

// Limits of [Config].
const (
	// MaxRoundsLimit is the most rounds a debate may have.
	MaxRoundsLimit = 20
)

// Config is a formal debate's configuration. It is the exported part of a
// [Format], which [engine.Run] stores with the debate as this JSON object
// (the Format's JSON is its Config's), so that [engine.Resume] plays it as
// it started and [engine.Open] reopens it. JSON uses the names below; a
// partial JSON document decoded over [DefaultConfig] changes only the fields
// it names.
//
// [New] gives a zero field [DefaultConfig]'s value: an empty model ID, a
// zero MinRounds or MaxRounds. The time budget's zero means "no budget",
// so it is taken with the rounds: when MinRounds, MaxRounds and TimeBudget
// are all zero, the three are DefaultConfig's (3 to 6 rounds within 45
// minutes); otherwise a zero TimeBudget is no budget. So New(Config{}) is
// New(DefaultConfig()). TopicPrompt and OutputDir have no default: "" is
// none.
type Config struct {
	// The model ID of each participant (see [Speaker]).
	ChairModel     string `json:"chairModel"`
	PromoterModel  string `json:"promoterModel"`
	DetractorModel string `json:"detractorModel"`
	VerifierModel  string `json:"verifierModel"`
	AudienceModel  string `json:"audienceModel"`
	ReporterModel  string `json:"reporterModel"`
	AssessorModel  string `json:"assessorModel"`

	// MinRounds and MaxRounds bound the debate rounds: after MinRounds the
	// chair may end the rounds when the debate has reached a natural
	// conclusion or the time budget is spent; after MaxRounds they end.
	MinRounds int `json:"minRounds"`
	MaxRounds int `json:"maxRounds"`
	// TimeBudget is the time from the start of the debate after which the
	// chair ends the rounds (once MinRounds are played), read on the
	// session's clock ([engine.WithClock]); 0: no budget — unless
	// MinRounds and MaxRounds are zero too, when [New] gives the three
	// DefaultConfig's values. JSON: seconds, or a duration string such as
	// "45m" (see [Config.UnmarshalJSON]).
	TimeBudget time.Duration `json:"timeBudget"`

	// TopicPrompt is the topic debated when none is given: the seed's
	// topic_prompt ("If `topic` is empty: use `topic_prompt` from config as
	// the topic"). [engine.Run] debates it when the debate's proposition is
	// blank ([Format.Propose]); "": none, and the person is asked.
	TopicPrompt string `json:"topicPrompt,omitempty"`

	// JudgeSwapped shows the chair, for its verdict, the sides' records in
	// the other order, the Detractor's first: a judge audit's position
	// swap (package eval). Default false.
	JudgeSwapped bool `json:"judgeSwapped,omitempty"`

	// OutputDir is the directory in which the debate creates its output
	// directory "<UTC time YYYYMMDDTHHMMSSZ>-<slug>" when it starts,
	// appends its debate-log.jsonl as it goes and writes its documents at
	// its end (see the package documentation); "": none are written (they
	// are still in [Outcome.Docs]).
	OutputDir string `json:"outputDir"`
}

// ErrNoTopic is matched (errors.Is) by the error of [Config.Topic] when
// neither a topic nor Config.TopicPrompt is given, and by that of
// [engine.Run] for a debate given no proposition that has nobody to ask
// for one (see [Format.Propose]): nothing is stored.
var ErrNoTopic = errors.New("formal: no topic: give one, set topicPrompt, or let a person be asked (engine.WithHuman)")

// TopicQuestion is the seed's question for a debate given no topic (Step
// B: "ask the user: What should the debate topic be?").
const TopicQuestion = "What should the debate topic be?"

// Topic returns the topic to debate as the seed's Step B chooses it: topic
// when it is not blank, else c.TopicPrompt; [ErrNoTopic] when both are
// blank. Give the result to the debate's Proposition:
//
//	d.Proposition, err = cfg.Topic(d.Proposition)
//
// [engine.Run] does this itself for a debate given no proposition, and
// asks a person when neither is set ([Format.Propose]).
func (c Config) Topic(topic string) (string, error) {
	if strings.TrimSpace(topic) != "" {
		return topic, nil
	}
	if strings.TrimSpace(c.TopicPrompt) != "" {
		return c.TopicPrompt, nil
	}
	return "", ErrNoTopic
}

// DefaultConfig returns a debate of 3 to 6 rounds within 45 minutes, with a
// chair, two debaters and a verifier on four different models, and no output
// directory. It is valid, and with [New]'s default verifier
// ([JudgeOnly]) it runs offline on llm.NewStub without human input.
func DefaultConfig() Config {
	return Config{
		ChairModel:     "anthropic/claude-sonnet-4",
		PromoterModel:  "openai/gpt-4o",
		DetractorModel: "google/gemini-2.5-pro",
		VerifierModel:  "deepseek/deepseek-chat",
		AudienceModel:  "meta-llama/llama-4-maverick",
		ReporterModel:  "openai/gpt-4o",
		AssessorModel:  "x-ai/grok-3",
		MinRounds:      3,
		MaxRounds:      6,
		TimeBudget:     45 * time.Minute,
	}
}

// withDefaults returns c with its zero fields given DefaultConfig's values,
// as [New] documents.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	for _, m := range []struct {
		dst *string
		def string
	}{
		{&c.ChairModel, d.ChairModel}, {&c.PromoterModel, d.PromoterModel}, {&c.DetractorModel, d.DetractorModel},
		{&c.VerifierModel, d.VerifierModel}, {&c.AudienceModel, d.AudienceModel}, {&c.ReporterModel, d.ReporterModel},
		{&c.AssessorModel, d.AssessorModel},
	} {
		if *m.dst == "" {
			*m.dst = m.def
		}
	}
	if c.MinRounds == 0 && c.MaxRounds == 0 && c.TimeBudget == 0 {
		c.TimeBudget = d.TimeBudget
	}
	if c.MinRounds == 0 {
		c.MinRounds = d.MinRounds
	}
	if c.MaxRounds == 0 {
		c.MaxRounds = d.MaxRounds
	}
	return c
}

// Model returns the model ID of a participant ("" for an unknown one).
func (c Config) Model(s Speaker) string {
	switch s {
	case SpeakerChair:
		return c.ChairModel
	case SpeakerPromoter:
		return c.PromoterModel
	case SpeakerDetractor:
		return c.DetractorModel
	case SpeakerVerifier:
		return c.VerifierModel
	case SpeakerAudience:
		return c.AudienceModel
	case SpeakerReporter:
		return c.ReporterModel
	case SpeakerAssessor:
		return c.AssessorModel
	}
	return ""
}

// Validate returns nil, or an [*engine.ValidationError] (errors.Is
// [engine.ErrInvalidConfig], Format "formal") naming every violation by its
// JSON field: an empty model ID, rounds outside 1 <= minRounds <= maxRounds
// <= MaxRoundsLimit, a negative time budget, a topic prompt over
// engine.MaxPropositionRunes.
func (c Config) Validate() error {
	v := &engine.ValidationError{Format: FormatName}
	for _, m := range []struct{ field, id string }{
		{"chairModel", c.ChairModel}, {"promoterModel", c.PromoterModel}, {"detractorModel", c.DetractorModel},
		{"verifierModel", c.VerifierModel}, {"audienceModel", c.AudienceModel}, {"reporterModel", c.ReporterModel},
		{"assessorModel", c.AssessorModel},
	} {
		if strings.TrimSpace(m.id) == "" {
			v.Add(m.field, "empty")
		}
	}
	if c.MinRounds < 1 {
		v.Add("minRounds", "%d; must be at least 1", c.MinRounds)
	}
	if c.MaxRounds > MaxRoundsLimit {
		v.Add("maxRounds", "%d; must be at most %d", c.MaxRounds, MaxRoundsLimit)
	}
	if c.MaxRounds < c.MinRounds {
		v.Add("maxRounds", "%d; must be at least minRounds (%d)", c.MaxRounds, c.MinRounds)
	}
	if c.TimeBudget < 0 {
		v.Add("timeBudget", "%v; must not be negative", c.TimeBudget)
	}
	if n := utf8.RuneCountInString(c.TopicPrompt); n > engine.MaxPropositionRunes {
		v.Add("topicPrompt", "%d characters; at most %d", n, engine.MaxPropositionRunes)
	}
	return v.Err()
}
