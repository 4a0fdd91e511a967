package sqlitestore

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/storetest"
)

// openTest opens a store in a new file of the test's, closed after it.
func openTest(t testing.TB, pragmas ...string) *Store {
	t.Helper()
	return openAt(t, filepath.Join(t.TempDir(), "duelogic.db"), pragmas...)
}

// openAt opens the store at path, closed after the test.
func openAt(t testing.TB, path string, pragmas ...string) *Store {
	t.Helper()
	s, err := open(context.Background(), path, config{pragmas: pragmas, proj: projection})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestStoreContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return openTest(t) })
}
