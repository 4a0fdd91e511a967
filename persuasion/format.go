package persuasion

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/duelogic/duelogic/engine"
)

// Format is the persuasion debate as an [engine.Format]: build it with
// [New] (or get it by name from engine.Open), play it with engine.Run and
// finish a stopped debate with engine.ResumeStored, or engine.Resume given
// &persuasion.Format{}. Its outcome, [engine.Result].Detail, is an
// [*Outcome], an [engine.Outcome].
//
// Config is stored with the debate, as the JSON of the Config alone (see
// [Format.MarshalJSON]): the object engine.Open takes, so that a stored
// debate can be reopened, forked and patched. engine.Resume replaces the
// Config of the Format it is given with the stored one, whole, so
// &persuasion.Format{} is the Format to resume with. Its options
// ([Option]) are not stored: to have them on a resumed debate, give
// engine.Resume a Format from New with them.
//
// Play keeps no state in the Format, so one Format may play several
// debates, one after another.
type Format struct {
	// Config is the debate's configuration. (The tag is for a Format
	// value, not a pointer, encoded as JSON; see [Format.MarshalJSON].)
	Config Config `json:"config"`

	markdownFile string // WithMarkdownFile
}

// Option sets what a [Format] does in this process beyond its stored
// Config.
type Option func(*Format)

// WithMarkdownFile makes the debate write the seed's output document
// ([Outcome].Markdown) to path once it is judged, before it ends; "" writes
// none. When writing fails the debate stops with that error, stored up to
// its end: engine.Resume, with this option again, writes the file and ends
// it without calling a model.
func WithMarkdownFile(path string) Option {
	return func(f *Format) { f.markdownFile = path }
}

// New returns the persuasion format with cfg, its zero fields taken from
// [DefaultConfig] (so New(Config{}) is the default debate; see [Config]),
// or the [*engine.ValidationError] of the completed configuration (see
// [Config.Validate]).
func New(cfg Config, opts ...Option) (*Format, error) {
	f := &Format{Config: cfg.withDefaults()}
	for _, opt := range opts {
		opt(f)
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return f, nil
}

// The format registers itself: [engine.Open] decodes a JSON [Config] over
// [DefaultConfig] and makes the format with [New]. An unknown field, at any
// depth, is an [*engine.ValidationError]; the names earlier versions stored
// ("rounds", a persona's "model") are read as [Config.UnmarshalJSON] reads
// them.
func init() {
	engine.Register(FormatName, engine.ConfigOpener(FormatName, DefaultConfig, decodeConfig,
		func(c Config) (engine.Format[*Outcome], error) { return New(c) }))
}

// MarshalJSON encodes f as its Config: what engine.Run stores with a
// debate, the object engine.Open takes. (A Format value, not a pointer,
// encodes as {"config": {…}}, the shape earlier versions stored, which
// [Format.UnmarshalJSON] reads too.)
func (f *Format) MarshalJSON() ([]byte, error) { return json.Marshal(f.Config) }

// UnmarshalJSON decodes a stored configuration over f.Config: the Config's
// JSON, or the {"config": {…}} that earlier versions stored, under the
// current names or the earlier ones (see [Config.UnmarshalJSON]). Fields
// the document does not name keep their values (engine.Resume zeroes the
// Config first); fields it does not know are ignored, so that logs of
// other versions still resume. null changes nothing.
func (f *Format) UnmarshalJSON(data []byte) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return nil
	}
	var old struct {
		Config json.RawMessage `json:"config"`
	}
	if err := json.Unmarshal(data, &old); err != nil {
		return fmt.Errorf("persuasion: decode the configuration: %w", err)
	}
	if old.Config != nil {
		data = old.Config
	}
	if err := json.Unmarshal(data, &f.Config); err != nil {
		return fmt.Errorf("persuasion: decode the configuration: %w", err)
	}
	var version struct {
		Protocol *int `json:"protocol"`
	}
	if json.Unmarshal(data, &version) == nil && version.Protocol == nil {
		f.Config.Protocol = 1 // stored before the protocol had versions
	}
	return nil
}

// Name is [FormatName].
func (f *Format) Name() string { return FormatName }

// Purposes are the purposes of a persuasion dialogue's model calls, for
// [engine.Purposer].
func (f *Format) Purposes() []string { return []string{PurposeTurn, PurposeVerdict} }

// Validate validates f.Config as it is (see [Config.Validate]); the engine
// calls it before a debate starts or resumes.
func (f *Format) Validate() error { return f.Config.Validate() }

// Participants are the debaters' speaker IDs, [SpeakerPro] and
// [SpeakerOpp]: the speakers whose turns argument mapping
// ([engine.WithArgumentMap]) maps. The moderator speaks as
// [engine.SpeakerArbiter] and is not mapped.
func (f *Format) Participants() []string { return []string{SpeakerPro, SpeakerOpp} }

// Label names a speaker for argument mapping's prompts and report and for
// front ends: a debater's side label, role and persona ("PRO, the
// proponent: Pragmatic engineer…"), the moderator's. It names a speaker ID
// ([SpeakerPro], [SpeakerOpp], [engine.SpeakerArbiter]) and, the same way,
// the side label the debaters of earlier versions spoke as ([SidePro],
// [SideOpp], [SideMod]); any other speaker is named as it is.
func (f *Format) Label(speaker string) string {
	switch SpeakerID(speaker) {
	case SpeakerPro:
		return "PRO, the proponent: " + f.Config.Pro.String()
	case SpeakerOpp:
		return "OPP, the opponent: " + f.Config.Opp.String()
	case engine.SpeakerArbiter:
		return "MOD, the moderator: " + f.Config.Mod.String()
	}
	return speaker
}

// JudgeModel is the moderator's model, which extracts the arguments of
// argument mapping.
func (f *Format) JudgeModel() string { return f.Config.Mod.ModelID }

var (
	_ engine.Format[*Outcome] = (*Format)(nil)
	_ engine.Cast             = (*Format)(nil)
)
