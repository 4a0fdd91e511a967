package duelogic

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Chair is one seat of a Duelogic debate: a framework held by a model.
type Chair struct {
	// Position identifies the chair in the debate ("chair_1", "chair_2", ...).
	Position  string    `json:"position"`
	Framework Framework `json:"framework"`
	// ModelID is sent as llm.Request.Model for this chair's calls.
	ModelID string `json:"modelId"`
	// ModelDisplayName is how the arbiter and opponents name the chair
	// ("Claude Sonnet 4"); empty means ModelID.
	ModelDisplayName string `json:"modelDisplayName,omitempty"`
	// ProviderName is the model's maker ("Anthropic"), used in the intro.
	ProviderName string `json:"providerName,omitempty"`
	// Persona is an optional overlay; it is fenced as data in prompts.
	Persona string `json:"persona,omitempty"`
}

// DisplayName is ModelDisplayName, or ModelID when that is empty, or the
// position.
func (c Chair) DisplayName() string {
	switch {
	case c.ModelDisplayName != "":
		return c.ModelDisplayName
	case c.ModelID != "":
		return c.ModelID
	}
	return c.Position
}

// AccountabilityLevel says how closely the arbiter polices the chairs.
type AccountabilityLevel string

// The accountability levels of the seed.
const (
	// Relaxed: no per-response evaluation and no interjections; the arbiter
	// only introduces and synthesizes.
	Relaxed AccountabilityLevel = "relaxed"
	// Moderate: every response is evaluated; the arbiter interjects when the
	// evaluation says requiresInterjection.
	Moderate AccountabilityLevel = "moderate"
	// Strict: every response is evaluated; the arbiter interjects on any
	// violation.
	Strict AccountabilityLevel = "strict"
)

// FlowStyle is the pacing of the exchange.
type FlowStyle string

// The flow styles of the seed.
const (
	// Structured asks each response for an explicit steel-man, critique and
	// self-critique, in that order.
	Structured FlowStyle = "structured"
	// Conversational asks each response to answer the previous speaker
	// directly, as in a conversation.
	Conversational FlowStyle = "conversational"
)

// Tone is the temperature of the discourse.
type Tone string

// The tones of the seed.
const (
	ToneRespectful Tone = "respectful"
	ToneSpirited   Tone = "spirited"
	ToneHeated     Tone = "heated"
)

// ArbiterConfig configures the arbiter (host and referee).
type ArbiterConfig struct {
	ModelID             string              `json:"modelId"`
	ModelDisplayName    string              `json:"modelDisplayName,omitempty"`
	AccountabilityLevel AccountabilityLevel `json:"accountabilityLevel"`
}

// FlowConfig configures the pacing.
type FlowConfig struct {
	Style FlowStyle `json:"style"`
	// MaxExchanges is the number of exchange rounds (3..30); each chair
	// speaks once per round. A target duration may play fewer (see
	// TargetDurationMinutes), never more.
	MaxExchanges int `json:"maxExchanges"`
	// TargetDurationMinutes paces the episode to about that many spoken
	// minutes (at [SpokenWordsPerMinute]), as the debate goes, from what
	// has been said: first the length of the chairs' turns, each asked
	// for the part of the seed's 150-300 words whose middle is its share
	// of the words left (150-170 at the least, 280-300 at the most); then,
	// when even the shortest turns of every exchange would run past the
	// target, the number of exchanges, decided before each one: fewer
	// than MaxExchanges, never fewer than 3. The introduction and the
	// closing are asked for a part of their own ranges (200-350 and
	// 350-500 words) in step. What pacing cannot set, the interjections
	// and interruptions, counts as it is said. [Metrics] says how long the
	// debate spoke, whether that is within 20% of the target, and, when it
	// is not, whether the bounds allowed it (a 10-minute target for two
	// chairs wants less than 3 exchanges of the shortest turns). 0: no
	// pacing: the seed's ranges and MaxExchanges exchanges.
	TargetDurationMinutes int `json:"targetDurationMinutes"`
}

// InterruptionConfig configures interruptions.
type InterruptionConfig struct {
	Enabled bool `json:"enabled"`
	// AllowChairInterruptions lets chairs cut into each other's turns.
	AllowChairInterruptions bool `json:"allowChairInterruptions"`
	// AllowArbiterInterruptions lets the arbiter cut a chair off the same
	// way, on a flagrant violation (the interrupt check may name the
	// arbiter): it then speaks an interjection. Interjections called for
	// by the evaluation come right after the response either way.
	AllowArbiterInterruptions bool `json:"allowArbiterInterruptions"`
	// Aggressiveness 1 (polite) .. 5 (aggressive) sets the urgency an
	// interruption needs: 1:0.9, 2:0.8, 3:0.7, 4:0.6, 5:0.5.
	Aggressiveness int `json:"aggressiveness"`
	// CooldownSeconds is the least time between two interruptions by the
	// same chair, on the orchestrator's clock.
	CooldownSeconds int `json:"cooldownSeconds"`
	// CheckMinChars and MaxChecksPerTurn bound the interrupt checks made
	// while a response streams: the first runs at the first sentence
	// boundary once CheckMinChars characters (runes) are said, each next one
	// at least CheckMinChars further on, and at most MaxChecksPerTurn run
	// per response. Zero means the defaults, DefaultCheckMinChars and
	// DefaultMaxChecksPerTurn. A client that cannot stream gets one check
	// after the whole response instead, and so does a response that ended
	// before any check was made beside it (one shorter than CheckMinChars,
	// or whose checkpoint fell in its last sentence): every exchange
	// response is checked, and one checked after it ended is marked as
	// interrupted, not cut.
	CheckMinChars    int `json:"checkMinChars,omitempty"`
	MaxChecksPerTurn int `json:"maxChecksPerTurn,omitempty"`
}

// The defaults of InterruptionConfig's mid-stream checks: one check of a
// 150-300 word response, after about 85 words (as many check calls as a
// check after the whole response, which it replaces); a cut then lands at
// the end of the next sentence. Each check is a model call beside the
// stream that a store failure while the response is stored wastes with
// it; one keeps the worst case within the engine's three calls.
const (
	DefaultCheckMinChars    = 500
	DefaultMaxChecksPerTurn = 1
)

// checks returns the mid-stream check bounds, defaults applied.
func (i InterruptionConfig) checks() (minChars, maxChecks int) {
	minChars, maxChecks = i.CheckMinChars, i.MaxChecksPerTurn
	if minChars == 0 {
		minChars = DefaultCheckMinChars
	}
	if maxChecks == 0 {
		maxChecks = DefaultMaxChecksPerTurn
	}
	return minChars, maxChecks
}

// PodcastConfig configures podcast production mode; JSON name "podcastMode".
type PodcastConfig struct {
	Enabled             bool   `json:"enabled"`
	ShowName            string `json:"showName"`
	EpisodeNumber       int    `json:"episodeNumber,omitempty"`
	IncludeCallToAction bool   `json:"includeCallToAction"`
}

// Mandates are the obligations the arbiter enforces.
type Mandates struct {
	RequireSteelManning bool `json:"requireSteelManning"`
	RequireSelfCritique bool `json:"requireSelfCritique"`
	ArbiterCanInterject bool `json:"arbiterCanInterject"`
}

// Config is the seed's DuelogicConfig. Its JSON is the configuration
// engine.Open("duelogic", config) takes and a podcast debate stores.
// Decoding a partial JSON document over [DefaultConfig] changes only the
// fields it names, except that a "chairs" array replaces the whole list of
// chairs.
type Config struct {
	Chairs        []Chair            `json:"chairs"`
	Arbiter       ArbiterConfig      `json:"arbiter"`
	Flow          FlowConfig         `json:"flow"`
	Interruptions InterruptionConfig `json:"interruptions"`
	Tone          Tone               `json:"tone"`
	Podcast       PodcastConfig      `json:"podcastMode"`
	Mandates      Mandates           `json:"mandates"`
}

// UnmarshalJSON decodes data over c; see [Config] for the rule on chairs.
func (c *Config) UnmarshalJSON(data []byte) error {
	if hasKey(data, "chairs") {
		c.Chairs = nil
	}
	if err := json.Unmarshal(data, (*configFields)(c)); err != nil {
		return fmt.Errorf("duelogic: decode config: %w", err)
	}
	return nil
}

// Limits of the seed's DUELOGIC_CONSTRAINTS and of user text.
const (
	MinChairs    = 2
	MaxChairs    = 6
	MinExchanges = 3
	MaxExchanges = 30

	// MaxPersonaRunes bounds Chair.Persona.
	MaxPersonaRunes = 2000
	// MaxNameRunes bounds display, provider and show names.
	MaxNameRunes = 100
)

// ModelInfo describes a model a chair or the arbiter may use.
type ModelInfo struct {
	ID          string `json:"id"`
	DisplayName string `json:"displayName"`
	Provider    string `json:"provider"`
}

var knownModels = []ModelInfo{
	{"anthropic/claude-sonnet-4", "Claude Sonnet 4", "Anthropic"},
	{"x-ai/grok-3", "Grok 3", "xAI"},
	{"openai/gpt-4o", "GPT-4o", "OpenAI"},
	{"google/gemini-2.5-pro", "Gemini 2.5 Pro", "Google"},
	{"meta-llama/llama-4-maverick", "Llama 4 Maverick", "Meta"},
	{"deepseek/deepseek-chat", "DeepSeek V3", "DeepSeek"},
}

// Models returns the models the defaults and presets seat, in the order
// chairs take them (chair_1 gets the first). The seed's /api/duelogic/models
// lists these; hosts serve their own list when they route elsewhere.
func Models() []ModelInfo { return slices.Clone(knownModels) }

func chairFor(i int, f Framework) Chair {
	m := knownModels[i%len(knownModels)]
	return Chair{
		Position:         fmt.Sprintf("chair_%d", i+1),
		Framework:        f,
		ModelID:          m.ID,
		ModelDisplayName: m.DisplayName,
		ProviderName:     m.Provider,
	}
}

// DefaultConfig returns the seed's DUELOGIC_DEFAULTS: Claude Sonnet 4 in the
// Utilitarian chair, Grok 3 in the Virtue Ethics chair, GPT-4o as a moderate
// arbiter, 8 conversational exchanges, interruptions on at aggressiveness 3
// with a 60 s cooldown, a spirited tone, podcast mode "Duelogic" with a call to
// action, and every mandate on.
func DefaultConfig() Config {
	return Config{
		Chairs: []Chair{chairFor(0, Utilitarian), chairFor(1, VirtueEthics)},
		Arbiter: ArbiterConfig{
			ModelID: "openai/gpt-4o", ModelDisplayName: "GPT-4o", AccountabilityLevel: Moderate,
		},
		Flow: FlowConfig{Style: Conversational, MaxExchanges: 8, TargetDurationMinutes: 45},
		Interruptions: InterruptionConfig{
			Enabled: true, AllowChairInterruptions: true, AllowArbiterInterruptions: true,
			Aggressiveness: 3, CooldownSeconds: 60,
		},
		Tone:     ToneSpirited,
		Podcast:  PodcastConfig{Enabled: true, ShowName: "Duelogic", IncludeCallToAction: true},
		Mandates: Mandates{RequireSteelManning: true, RequireSelfCritique: true, ArbiterCanInterject: true},
	}
}

// withDefaults returns c with its unset fields set, the rule [NewPodcast]
// and [New] apply: a whole zero Config is [DefaultConfig]; otherwise a field
// whose zero value is no setting takes DefaultConfig's value — the chairs
// (when there are none), a chair's position ("chair_<n>") and model (the
// n-th of [Models], with its names), the arbiter's model (with its display
// name), the accountability level, the flow style, the exchanges, the
// aggressiveness, the tone and the show name — and a field whose zero value
// is a setting keeps it: every boolean (interruptions, podcast mode and the
// mandates are off), TargetDurationMinutes (no pacing), CooldownSeconds (no
// cooldown), the episode number, the personas and the optional names. A
// chair's framework is never guessed.
func (c Config) withDefaults() Config {
	def := DefaultConfig()
	if reflect.ValueOf(c).IsZero() {
		return def
	}
	if len(c.Chairs) == 0 {
		c.Chairs = def.Chairs
	} else {
		c.Chairs = slices.Clone(c.Chairs)
	}
	for i := range c.Chairs {
		ch := &c.Chairs[i]
		if ch.Position == "" {
			ch.Position = fmt.Sprintf("chair_%d", i+1)
		}
		if ch.ModelID == "" {
			m := knownModels[i%len(knownModels)]
			ch.ModelID = m.ID
			if ch.ModelDisplayName == "" && ch.ProviderName == "" {
				ch.ModelDisplayName, ch.ProviderName = m.DisplayName, m.Provider
			}
		}
	}
	if c.Arbiter.ModelID == "" {
		c.Arbiter.ModelID = def.Arbiter.ModelID
		if c.Arbiter.ModelDisplayName == "" {
			c.Arbiter.ModelDisplayName = def.Arbiter.ModelDisplayName
		}
	}
	setIfZero(&c.Arbiter.AccountabilityLevel, def.Arbiter.AccountabilityLevel)
	setIfZero(&c.Flow.Style, def.Flow.Style)
	setIfZero(&c.Flow.MaxExchanges, def.Flow.MaxExchanges)
	setIfZero(&c.Interruptions.Aggressiveness, def.Interruptions.Aggressiveness)
	setIfZero(&c.Tone, def.Tone)
	setIfZero(&c.Podcast.ShowName, def.Podcast.ShowName)
	return c
}

func setIfZero[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}

// Preset is one of the seed's chair matchups.
type Preset struct {
	ID          string      `json:"id"`
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Frameworks  []Framework `json:"frameworks"`
}

var presets = []Preset{
	{"classic_clash", "Classic Clash", "Utilitarian vs Virtue Ethics — the foundational philosophical battle",
		[]Framework{Utilitarian, VirtueEthics}},
	{"liberty_vs_community", "Liberty vs Community", "Individual rights against collective obligations",
		[]Framework{Libertarian, Communitarian}},
	{"three_way_ethics", "Three-Way Ethics Showdown", "Consequences vs Character vs Duty",
		[]Framework{Utilitarian, VirtueEthics, Deontological}},
	{"global_vs_local", "Global vs Local", "Universal human rights vs bounded community obligations",
		[]Framework{Cosmopolitan, Communitarian}},
	{"caution_vs_progress", "Caution vs Progress", "Risk-averse precaution vs bold pragmatism",
		[]Framework{Precautionary, Pragmatic}},
	{"battle_royale", "Battle Royale (4-way)", "Four frameworks clash: Utilitarian, Virtue, Libertarian, Pragmatic",
		[]Framework{Utilitarian, VirtueEthics, Libertarian, Pragmatic}},
}

// Presets returns the seed's six matchups in its order (a fresh copy).
func Presets() []Preset {
	out := slices.Clone(presets)
	for i := range out {
		out[i].Frameworks = slices.Clone(out[i].Frameworks)
	}
	return out
}

// LookupPreset finds a preset by ID.
func LookupPreset(id string) (Preset, bool) {
	for _, p := range presets {
		if p.ID == id {
			p.Frameworks = slices.Clone(p.Frameworks)
			return p, true
		}
	}
	return Preset{}, false
}

// Apply returns c with its chairs replaced by the preset's frameworks. A chair
// keeps the model of c's chair at the same index; further chairs take the next
// models of [Models].
func (p Preset) Apply(c Config) Config {
	chairs := make([]Chair, len(p.Frameworks))
	for i, f := range p.Frameworks {
		if i < len(c.Chairs) {
			chairs[i] = c.Chairs[i]
			chairs[i].Framework = f
			if chairs[i].Position == "" {
				chairs[i].Position = fmt.Sprintf("chair_%d", i+1)
			}
		} else {
			chairs[i] = chairFor(i, f)
		}
	}
	c.Chairs = chairs
	return c
}

// ConfigForPreset returns [DefaultConfig] with the chairs of the preset id.
func ConfigForPreset(id string) (Config, error) {
	p, ok := LookupPreset(id)
	if !ok {
		return Config{}, fmt.Errorf("%w: unknown preset %q", ErrInvalidConfig, id)
	}
	return p.Apply(DefaultConfig()), nil
}

var positionRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)

// Validate checks c against the built-in catalog; see [Config.ValidateCatalog].
func (c Config) Validate() error { return c.ValidateCatalog(nil) }

// ValidateCatalog returns nil, or a *[ValidationError] naming every violation
// by its JSON field path: chairs outside 2..6, a position that is empty,
// malformed (lower-case letters, digits, '_' and '-', at most 32), reserved
// ("arbiter") or repeated, a framework cat does not hold (nil: the default
// catalog), an empty model ID, names or personas over their limits, an unknown
// accountability level, flow style or tone, exchanges outside 3..30, a negative
// duration, aggressiveness outside 1..5, a negative cooldown, an empty show
// name in podcast mode, a negative episode number.
func (c Config) ValidateCatalog(cat *Catalog) error {
	var vs []Violation
	bad := func(field, format string, args ...any) {
		vs = append(vs, Violation{Field: field, Problem: fmt.Sprintf(format, args...)})
	}
	if n := len(c.Chairs); n < MinChairs || n > MaxChairs {
		bad("chairs", "%d chairs; need %d..%d", n, MinChairs, MaxChairs)
	}
	seen := map[string]int{}
	for i, ch := range c.Chairs {
		p := fmt.Sprintf("chairs[%d]", i)
		switch {
		case ch.Position == "":
			bad(p+".position", "empty")
		case !positionRE.MatchString(ch.Position):
			bad(p+".position", "%q: use 1-32 of a-z, 0-9, '_' and '-'", ch.Position)
		case ch.Position == SpeakerArbiter:
			bad(p+".position", "%q is reserved for the arbiter", ch.Position)
		default:
			if j, dup := seen[ch.Position]; dup {
				bad(p+".position", "%q repeats chairs[%d]", ch.Position, j)
			} else {
				seen[ch.Position] = i
			}
		}
		if ch.Framework == "" {
			bad(p+".framework", "empty")
		} else if _, ok := cat.Lookup(ch.Framework); !ok {
			bad(p+".framework", "unknown framework %q", ch.Framework)
		}
		if strings.TrimSpace(ch.ModelID) == "" {
			bad(p+".modelId", "empty")
		}
		checkLen(bad, p+".modelDisplayName", ch.ModelDisplayName, MaxNameRunes)
		checkLen(bad, p+".providerName", ch.ProviderName, MaxNameRunes)
		checkLen(bad, p+".persona", ch.Persona, MaxPersonaRunes)
	}
	if strings.TrimSpace(c.Arbiter.ModelID) == "" {
		bad("arbiter.modelId", "empty")
	}
	checkLen(bad, "arbiter.modelDisplayName", c.Arbiter.ModelDisplayName, MaxNameRunes)
	switch c.Arbiter.AccountabilityLevel {
	case Relaxed, Moderate, Strict:
	default:
		bad("arbiter.accountabilityLevel", "%q: want relaxed, moderate or strict", c.Arbiter.AccountabilityLevel)
	}
	switch c.Flow.Style {
	case Structured, Conversational:
	default:
		bad("flow.style", "%q: want structured or conversational", c.Flow.Style)
	}
	if n := c.Flow.MaxExchanges; n < MinExchanges || n > MaxExchanges {
		bad("flow.maxExchanges", "%d is outside %d..%d", n, MinExchanges, MaxExchanges)
	}
	if c.Flow.TargetDurationMinutes < 0 {
		bad("flow.targetDurationMinutes", "%d is negative", c.Flow.TargetDurationMinutes)
	}
	if a := c.Interruptions.Aggressiveness; a < 1 || a > 5 {
		bad("interruptions.aggressiveness", "%d is outside 1..5", a)
	}
	if c.Interruptions.CooldownSeconds < 0 {
		bad("interruptions.cooldownSeconds", "%d is negative", c.Interruptions.CooldownSeconds)
	}
	if c.Interruptions.CheckMinChars < 0 {
		bad("interruptions.checkMinChars", "%d is negative", c.Interruptions.CheckMinChars)
	}
	if c.Interruptions.MaxChecksPerTurn < 0 {
		bad("interruptions.maxChecksPerTurn", "%d is negative", c.Interruptions.MaxChecksPerTurn)
	}
	switch c.Tone {
	case ToneRespectful, ToneSpirited, ToneHeated:
	default:
		bad("tone", "%q: want respectful, spirited or heated", c.Tone)
	}
	if c.Podcast.Enabled && strings.TrimSpace(c.Podcast.ShowName) == "" {
		bad("podcastMode.showName", "empty while podcast mode is enabled")
	}
	checkLen(bad, "podcastMode.showName", c.Podcast.ShowName, MaxNameRunes)
	if c.Podcast.EpisodeNumber < 0 {
		bad("podcastMode.episodeNumber", "%d is negative", c.Podcast.EpisodeNumber)
	}
	if len(vs) > 0 {
		return &ValidationError{Format: FormatName, Violations: vs}
	}
	return nil
}

func checkLen(bad func(string, string, ...any), field, s string, max int) {
	if n := utf8.RuneCountInString(s); n > max {
		bad(field, "%d characters; at most %d", n, max)
	}
}

// chair returns the chair at position, if any.
func (c Config) chair(position string) (Chair, bool) {
	for _, ch := range c.Chairs {
		if ch.Position == position {
			return ch, true
		}
	}
	return Chair{}, false
}

// urgencyThreshold is the urgency an interruption needs at an aggressiveness.
func urgencyThreshold(aggressiveness int) float64 {
	switch aggressiveness {
	case 1:
		return 0.9
	case 2:
		return 0.8
	case 4:
		return 0.6
	case 5:
		return 0.5
	}
	return 0.7
}
