package formal

import (
	"github.com/duelogic/duelogic/engine"
)

// The format registers itself: [engine.Open] decodes a JSON [Config] over
// [DefaultConfig] (an unknown field, a value of the wrong type or an
// invalid configuration is an [*engine.ValidationError]) and makes the
// format with [New], with the default verifier.
func init() {
	engine.Register(FormatName, engine.ConfigOpener(FormatName, DefaultConfig, decodeConfig,
		func(c Config) (engine.Format[*Outcome], error) { return New(c) }))
}
