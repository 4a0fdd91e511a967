package storetest_test

import (
	"testing"

	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/storetest"
)

// A host's store runs the suite from one of its tests. (An example without
// output is compiled, not run: the suite needs the *testing.T of a real
// test.)
func ExampleRun() {
	_ = func(t *testing.T) {
		storetest.Run(t, func(t *testing.T) store.Store { return store.NewMemory() })
	}
}
