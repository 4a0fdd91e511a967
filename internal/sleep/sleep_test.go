package sleep_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/duelogic/duelogic/internal/sleep"
)

func TestFor(t *testing.T) {
	for _, tt := range []struct {
		name     string
		d        time.Duration
		cancelAt time.Duration // 0: never
		want     error
		took     time.Duration
	}{
		{"waits", 3 * time.Second, 0, nil, 3 * time.Second},
		{"cancelled first", 3 * time.Second, time.Second, context.Canceled, time.Second},
		{"nothing to wait", 0, 0, nil, 0},
		{"negative", -time.Second, 0, nil, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				if tt.cancelAt > 0 {
					time.AfterFunc(tt.cancelAt, cancel)
				}
				start := time.Now()
				err := sleep.For(ctx, tt.d)
				if !errors.Is(err, tt.want) {
					t.Errorf("For = %v, want %v", err, tt.want)
				}
				if took := time.Since(start); took != tt.took {
					t.Errorf("For returned after %v, want %v", took, tt.took)
				}
			})
		})
	}
}

func TestForADoneContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := sleep.For(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("For(done, 0) = %v, want context.Canceled", err)
	}
}

func ExampleFor() {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := sleep.For(ctx, time.Hour)
	fmt.Println(err)
	// Output: context canceled
}
