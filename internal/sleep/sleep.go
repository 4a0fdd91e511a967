// Package sleep holds the one way this module sleeps: for a duration, or
// until a context is done, whichever comes first.
package sleep

import (
	"context"
	"time"
)

// For waits d, or returns ctx.Err() as soon as ctx is done; d <= 0 returns
// ctx.Err() at once.
func For(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
