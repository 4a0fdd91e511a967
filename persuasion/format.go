package persuasion

import "github.com/duelogic/duelogic/engine"

// Format is the persuasion debate as an [engine.Format]: build it with
// [New], play it with engine.Run and finish a stopped debate with
// engine.Resume. Its outcome, [engine.Result].Detail, is an [*Outcome].
//
// Config is stored with the debate: engine.Resume replaces the Config of the
// Format it is given with the stored one, whole. The [Option]s are not
// stored: give them again to the Format of a Resume.
//
// Play keeps no state in the Format, so one Format may play several
// debates, one after another.
type Format struct {
	// Config is the debate's configuration.
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
// [DefaultConfig], or the [*engine.ValidationError] of the completed
// configuration (see [Config.Validate]).
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

// Purposes are the purposes of a persuasion dialogue's model calls, for
// [engine.Purposer].
func (f *Format) Purposes() []string { return []string{PurposeTurn, PurposeVerdict} }

// Validate validates f.Config as it is (see [Config.Validate]); the engine
// calls it before a debate starts or resumes.
func (f *Format) Validate() error { return f.Config.Validate() }

// Participants are the debaters, PRO and OPP: the speakers whose turns
// argument mapping ([engine.WithArgumentMap]) maps. The moderator speaks as
// [engine.SpeakerArbiter] and is not mapped.
func (f *Format) Participants() []string { return []string{SidePro, SideOpp} }

// Label names a speaker for argument mapping's prompts and report: a
// debater's side and persona, the moderator's persona.
func (f *Format) Label(speaker string) string {
	switch speaker {
	case SidePro:
		return "PRO, the proponent: " + f.Config.Pro.String()
	case SideOpp:
		return "OPP, the opponent: " + f.Config.Opp.String()
	case engine.SpeakerArbiter, SideMod:
		return "MOD, the moderator: " + f.Config.Mod.String()
	}
	return speaker
}

// JudgeModel is the moderator's model, which extracts the arguments of
// argument mapping.
func (f *Format) JudgeModel() string { return f.Config.Mod.Model }

var (
	_ engine.Format[*Outcome] = (*Format)(nil)
	_ engine.Cast             = (*Format)(nil)
)
