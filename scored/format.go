package scored

import (
	"github.com/duelogic/duelogic/engine"
)

// Format is the scored debate as an [engine.Format]: play it with
// [engine.Run] and finish a stopped one with [engine.Resume]; the result's
// Detail is its [*Outcome]. Its Config is stored with the debate, so
// [engine.Resume] plays on with the configuration the debate started with,
// whatever Config the Format it is given holds.
//
// *Format implements [engine.Cast], so argument mapping
// ([engine.WithArgumentMap]) maps the advocate's and the challenger's turns,
// named by their roles, with the arbiter's model.
type Format struct {
	// Config is the debate's configuration, complete (see [New]).
	Config Config `json:"config"`
}

// Option configures a [Format] beyond its stored Config, for [New]. The
// scored format has no behaviour of its own for a host to plug in yet; the
// type keeps New's signature the one every format of this module has.
type Option func(*Format)

// New returns the scored format with cfg, its zero fields filled from
// [DefaultConfig] (except Evaluations and Challenges), and opts applied.
// The error is cfg's [*engine.ValidationError] when it is invalid.
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
)
