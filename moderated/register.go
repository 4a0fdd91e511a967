package moderated

import (
	"encoding/json"

	"github.com/duelogic/duelogic/engine"
)

// The format registers itself with the engine, so that linking the package
// is enough for [engine.Open] and [engine.ResumeStored].
func init() { engine.Register(FormatName, open) }

// open makes the format from its configuration as JSON: [DefaultConfig]
// with the fields config gives; an unknown field, a value of the wrong kind
// or an invalid configuration is an [*engine.ValidationError].
func open(config json.RawMessage) (engine.Format[engine.Outcome], error) {
	cfg := DefaultConfig()
	if err := engine.DecodeConfig(FormatName, config, &cfg); err != nil {
		return nil, err
	}
	f, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return engine.Erase(f), nil
}
