package moderated

import (
	"github.com/duelogic/duelogic/engine"
)

// The format registers itself with the engine, so that linking the package
// is enough for [engine.Open] and [engine.ResumeStored].
// The format registers itself: [engine.Open] decodes a JSON [Config] over
// [DefaultConfig]; an unknown field, a value of the wrong kind or an
// invalid configuration is an [*engine.ValidationError].
func init() {
	engine.Register(FormatName, engine.ConfigOpener(FormatName, DefaultConfig, nil,
		func(c Config) (engine.Format[*Outcome], error) { return New(c) }))
}
