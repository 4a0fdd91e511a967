package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/duelogic/duelogic/store"
)

// The rules of store.Locker, which Run checks on a store that implements
// it. A check returns every violation it finds, joined.
var lockRules = []struct {
	name  string
	check func(ctx context.Context, l store.Locker) error
}{
	{"LockExcludes", checkLockExcludes},
	{"LockPerDebate", checkLockPerDebate},
	{"LockConcurrent", checkLockConcurrent},
	{"LockCanceled", checkLockCanceled},
}

// lock calls l.Lock and checks that a nil error comes with an unlock.
func lock(ctx context.Context, l store.Locker, id string) (func() error, error) {
	unlock, err := l.Lock(ctx, id)
	if err == nil && unlock == nil {
		return nil, fmt.Errorf("Lock(%q) returned a nil unlock and no error", id)
	}
	return unlock, err
}

// A held lock makes Lock of the same debate fail with ErrLocked until it is
// unlocked; unlocking twice does nothing; Append works while it is held.
func checkLockExcludes(ctx context.Context, l store.Locker) error {
	unlock, err := lock(ctx, l, "locked")
	if err != nil {
		return fmt.Errorf("first Lock: %w", err)
	}
	var errs []error
	if u, err := l.Lock(ctx, "locked"); !errors.Is(err, store.ErrLocked) {
		errs = append(errs, fmt.Errorf("Lock of a locked debate: got error %v, want ErrLocked", err))
		if err == nil && u != nil {
			u()
		}
	}
	if s, ok := l.(store.Store); ok {
		if err := appendAll(ctx, s, rec("locked", 1)); err != nil {
			errs = append(errs, fmt.Errorf("while the debate is locked: %w", err))
		}
	}
	if err := unlock(); err != nil {
		errs = append(errs, fmt.Errorf("unlock: %w", err))
	}
	if err := unlock(); err != nil {
		errs = append(errs, fmt.Errorf("second call of unlock: got error %v, want nil", err))
	}
	again, err := lock(ctx, l, "locked")
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("Lock after unlock: %w", err))...)
	}
	if err := again(); err != nil {
		errs = append(errs, fmt.Errorf("unlock after relocking: %w", err))
	}
	return errors.Join(errs...)
}

// Locks of different debates are independent.
func checkLockPerDebate(ctx context.Context, l store.Locker) error {
	a, err := lock(ctx, l, "lock-a")
	if err != nil {
		return fmt.Errorf("Lock(lock-a): %w", err)
	}
	defer a()
	b, err := lock(ctx, l, "lock-b")
	if err != nil {
		return fmt.Errorf("Lock(lock-b) while lock-a is held: %w", err)
	}
	var errs []error
	if err := b(); err != nil {
		errs = append(errs, fmt.Errorf("unlock lock-b: %w", err))
	}
	if u, err := l.Lock(ctx, "lock-a"); !errors.Is(err, store.ErrLocked) {
		errs = append(errs, fmt.Errorf("Lock(lock-a) after unlocking lock-b: got error %v, want ErrLocked", err))
		if err == nil && u != nil {
			u()
		}
	}
	return errors.Join(errs...)
}

// Of concurrent Locks of one debate, exactly one succeeds.
func checkLockConcurrent(ctx context.Context, l store.Locker) error {
	const lockers = 8
	unlocks := make([]func() error, lockers)
	errs := make([]error, lockers)
	var wg sync.WaitGroup
	for i := range lockers {
		wg.Go(func() { unlocks[i], errs[i] = lock(ctx, l, "contended") })
	}
	wg.Wait()
	won := 0
	var bad []error
	for i, err := range errs {
		switch {
		case err == nil:
			won++
			if uerr := unlocks[i](); uerr != nil {
				bad = append(bad, fmt.Errorf("unlock: %w", uerr))
			}
		case !errors.Is(err, store.ErrLocked):
			bad = append(bad, fmt.Errorf("concurrent Lock: got error %v, want nil or ErrLocked", err))
		}
	}
	if won != 1 {
		bad = append(bad, fmt.Errorf("%d of %d concurrent Locks of one debate succeeded, want 1", won, lockers))
	}
	return errors.Join(bad...)
}

// A canceled ctx makes Lock return ctx's error and take no lock.
func checkLockCanceled(ctx context.Context, l store.Locker) error {
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	var errs []error
	if u, err := l.Lock(canceled, "canceled"); !errors.Is(err, context.Canceled) {
		errs = append(errs, fmt.Errorf("Lock with a canceled context: got error %v, want context.Canceled", err))
		if err == nil && u != nil {
			u()
		}
	}
	unlock, err := lock(ctx, l, "canceled")
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("Lock after a canceled Lock: %w", err))...)
	}
	if err := unlock(); err != nil {
		errs = append(errs, fmt.Errorf("unlock: %w", err))
	}
	return errors.Join(errs...)
}
