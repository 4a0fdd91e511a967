package storetest

import (
	"context"
	"sync"

	"github.com/duelogic/duelogic/store"
)

// FailAfter returns a store that passes the first n Appends to s and fails
// every later one with err, storing nothing; Records and Debates read s.
// Tests use it to stop a debate after any number of records — a full disk,
// a lost database — and check that it resumes from what was stored.
func FailAfter(s store.Store, n int, err error) store.Store {
	return &failing{Store: s, left: n, err: err}
}

type failing struct {
	store.Store
	mu   sync.Mutex
	left int
	err  error
}

func (f *failing) Append(ctx context.Context, rec store.Record) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.left <= 0 {
		return f.err
	}
	f.left--
	return f.Store.Append(ctx, rec)
}
