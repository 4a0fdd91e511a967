package formal

import (
	"encoding/json"

	"github.com/duelogic/duelogic/engine"
)

func init() { engine.Register(FormatName, open) }

// open is the formal format's [engine.Opener]: config is a JSON [Config]
// decoded over [DefaultConfig] (an unknown field, a value of the wrong type
// or an invalid configuration is an [*engine.ValidationError]), and the
// format is New's, with the default verifier.
func open(config json.RawMessage) (engine.Format[engine.Outcome], error) {
	cfg := DefaultConfig()
	if err := decodeConfig(config, &cfg); err != nil {
		return nil, err
	}
	f, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return engine.Erase(f), nil
}
