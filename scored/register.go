package scored

import (
	"github.com/duelogic/duelogic/engine"
)

// The format registers itself: [engine.Open] decodes a JSON [Config] onto
// the defaults (strictly: an unknown field is an error; see decodeBase),
// then makes the format with [New].
func init() {
	engine.Register(FormatName, engine.ConfigOpener(FormatName, decodeBase, nil,
		func(c Config) (engine.Format[*Outcome], error) { return New(c) }))
}

// decodeBase is what a configuration's JSON is decoded onto: DefaultConfig
// without its Evaluations, so that evaluations given replace the default
// ones rather than add to them, and none given become neutral evaluations
// of the categories given (see [Config]).
func decodeBase() Config {
	cfg := DefaultConfig()
	cfg.Evaluations = nil
	return cfg
}
