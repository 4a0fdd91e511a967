package scored

import (
	"encoding/json"

	"github.com/duelogic/duelogic/engine"
)

func init() { engine.Register(FormatName, open) }

// open is the scored format's [engine.Opener]: config decoded onto the
// defaults (strictly: an unknown field is an error), then [New].
func open(config json.RawMessage) (engine.Format[engine.Outcome], error) {
	cfg := decodeBase()
	if err := engine.DecodeConfig(FormatName, config, &cfg); err != nil {
		return nil, err
	}
	f, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return engine.Erase[*Outcome](f), nil
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
