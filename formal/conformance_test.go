package formal_test

import (
	"testing"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/engine/enginetest"
	"github.com/duelogic/duelogic/formal"
)

// TestFormatKeepsTheEngineContract runs engine/enginetest on the default
// debate (its rounds trimmed to two, so that failing the store after every
// record stays quick), plain and with its arguments mapped.
func TestFormatKeepsTheEngineContract(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []engine.Option
	}{
		{"plain", nil},
		{"mapped", []engine.Option{engine.WithArgumentMap(argumentation.Additive)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			enginetest.Run(t, func() engine.Format[*formal.Outcome] {
				cfg := formal.DefaultConfig()
				cfg.MinRounds, cfg.MaxRounds = 1, 2
				f, err := formal.New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				return f
			}, enginetest.Config{Options: tc.opts})
		})
	}
}
