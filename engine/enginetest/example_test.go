package enginetest_test

import (
	"testing"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/engine/enginetest"
	"github.com/duelogic/duelogic/scored"
)

// A format's test runs the suite on fresh formats, plain and with argument
// mapping on. (An example without output is compiled, not run: the suite
// needs the *testing.T of a real test.)
func ExampleRun() {
	_ = func(t *testing.T) {
		newFormat := func() engine.Format[*scored.Outcome] {
			f, err := scored.New(scored.DefaultConfig())
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
		enginetest.Run(t, newFormat, enginetest.Config{})
		enginetest.Run(t, newFormat, enginetest.Config{
			Options: []engine.Option{engine.WithArgumentMap(argumentation.Additive)},
		})
	}
}
