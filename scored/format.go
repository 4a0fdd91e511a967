package scored

import (
	"encoding/json"
	"fmt"

	"github.com/duelogic/duelogic/engine"
)

// Format is the scored debate as an [engine.Format]: make it with [New] (or
// by name with engine.Open("scored", config)), play it with [engine.Run]
// and finish a stopped one with [engine.ResumeStored], or with
// [engine.Resume] given &scored.Format{}: the configuration is stored with
// the debate and decoded into the Format on resume, so a resumed debate
// plays on with the configuration it started with, whatever Config the
// Format it is given holds. The result's Detail is its [*Outcome].
//
// A Format's JSON, which is what the engine stores, is its Config's JSON:
// the same object engine.Open takes (see [Format.MarshalJSON]).
//
// *Format implements [engine.Cast], so argument mapping
// ([engine.WithArgumentMap]) maps the advocate's and the challenger's turns,
// named by their roles, with the arbiter's model.
type Format struct {
	// Config is the debate's configuration, complete (see [New]); it is
	// the Format's JSON.
	Config Config
}

// Option configures a [Format] beyond its stored Config, for [New]. The
// scored format has no behaviour of its own for a host to plug in yet; the
// type keeps New's signature the one every format of this module has.
type Option func(*Format)

// New returns the scored format with cfg, its zero fields filled from
// [DefaultConfig] (see [Config]), and opts applied: New(Config{}) is
// New(DefaultConfig()). The error is cfg's [*engine.ValidationError] when
// it is invalid.
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

// MarshalJSON encodes f as its Config's JSON: the configuration the engine
// stores with a debate, the object engine.Open("scored", config) takes.
// (A value receiver, so that a Format stored by value encodes the same.)
func (f Format) MarshalJSON() ([]byte, error) { return json.Marshal(f.Config) }

// UnmarshalJSON decodes a Config's JSON into f as engine.Open reads it
// (fields left out, and zero fields, take [DefaultConfig]'s values) but
// leniently: unknown fields are ignored. It also reads the shape earlier
// versions stored, {"config": {...}}, so that their debates still resume.
// It does not validate: the engine calls [Format.Validate].
func (f *Format) UnmarshalJSON(data []byte) error {
	var old struct {
		Config json.RawMessage `json:"config"`
	}
	if err := json.Unmarshal(data, &old); err != nil {
		return fmt.Errorf("scored: decode configuration: %w", err)
	}
	if old.Config != nil { // Config has no field "config": the old shape
		data = old.Config
	}
	cfg := decodeBase()
	if err := json.Unmarshal(data, &cfg); err != nil {
		return fmt.Errorf("scored: decode configuration: %w", err)
	}
	f.Config = cfg.withDefaults()
	return nil
}

// Name is [FormatName].
func (f *Format) Name() string { return FormatName }

// Purposes are the purposes of a scored debate's model calls, for
// [engine.Purposer].
func (f *Format) Purposes() []string {
	return []string{PurposeArgument, PurposeRebuttal, PurposeVerdict}
}

// Validate validates f.Config ([Config.Validate]); the engine calls it
// before a debate starts or resumes.
func (f *Format) Validate() error { return f.Config.Validate() }

// Participants returns the debaters: [SpeakerAdvocate] and
// [SpeakerChallenger].
func (f *Format) Participants() []string { return []string{SpeakerAdvocate, SpeakerChallenger} }

// Label names a speaker by its role in the debate.
func (f *Format) Label(speaker string) string {
	switch speaker {
	case SpeakerAdvocate:
		return "the Advocate, who defends the idea"
	case SpeakerChallenger:
		return "the Challenger, the red team attacking the idea"
	case engine.SpeakerArbiter:
		return "the Arbiter"
	}
	return speaker
}

// JudgeModel is the arbiter's model, which extracts arguments when argument
// mapping is on.
func (f *Format) JudgeModel() string { return f.Config.ArbiterModel }

// The interfaces *Format implements.
var (
	_ engine.Format[*Outcome] = (*Format)(nil)
	_ engine.Cast             = (*Format)(nil)
	_ json.Marshaler          = Format{}
	_ json.Unmarshaler        = (*Format)(nil)
)
