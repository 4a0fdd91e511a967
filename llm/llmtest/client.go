package llmtest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/duelogic/duelogic/llm"
)

// TestClient checks that c keeps the [llm.Client] contract, one subtest per
// rule, the way testing/fstest.TestFS checks an fs.FS. The requests it sends
// have Model "llmtest-model", Purpose "llmtest", a system and a user message
// and MaxTokens 32; c must answer them, so point it at an httptest server or
// wrap it to set the Model it needs. Run the test with -race.
//
// The rules: Complete answers; a canceled or expired ctx makes Complete (and
// Stream) fail with ctx's error, delivering nothing; concurrent calls succeed.
// If c implements [llm.Streamer]: the deltas, delivered one at a time,
// concatenate to the returned Content; an error from onDelta stops the stream
// and is returned.
func TestClient(t *testing.T, c llm.Client) {
	t.Helper()
	for _, ch := range clientChecks {
		t.Run(ch.name, func(t *testing.T) {
			err := ch.check(t.Context(), c)
			if errors.Is(err, errSkip) {
				t.Skip(err)
			}
			if err != nil {
				t.Error(err)
			}
		})
	}
}

// clientRequest is the request TestClient sends.
var clientRequest = llm.Request{
	Model:   "llmtest-model",
	Purpose: "llmtest",
	Messages: []llm.Message{
		{Role: llm.System, Content: "You are being tested. Answer briefly."},
		{Role: llm.User, Content: "Say hello in a few words."},
	},
	MaxTokens: 32,
}

var errSkip = errors.New("skipped")

var clientChecks = []struct {
	name  string
	check func(ctx context.Context, c llm.Client) error
}{
	{"Complete", checkComplete},
	{"CanceledContext", checkCanceled},
	{"ExpiredDeadline", checkExpired},
	{"Stream", checkStream},
	{"StreamStops", checkStreamStops},
	{"Concurrent", checkConcurrent},
}

func checkComplete(ctx context.Context, c llm.Client) error {
	if _, err := c.Complete(ctx, clone(clientRequest)); err != nil {
		return fmt.Errorf("Complete: %w", err)
	}
	return nil
}

func checkCanceled(ctx context.Context, c llm.Client) error {
	ctx, cancel := context.WithCancel(ctx)
	cancel()
	return wantCtxErr(ctx, c, context.Canceled)
}

func checkExpired(ctx context.Context, c llm.Client) error {
	ctx, cancel := context.WithDeadline(ctx, time.Unix(0, 0)) // long past, on any clock
	defer cancel()
	return wantCtxErr(ctx, c, context.DeadlineExceeded)
}

// wantCtxErr checks that calls with the done ctx fail with want.
func wantCtxErr(ctx context.Context, c llm.Client, want error) error {
	var errs []error
	if _, err := c.Complete(ctx, clone(clientRequest)); !errors.Is(err, want) {
		errs = append(errs, fmt.Errorf("Complete: got error %v, want %v", err, want))
	}
	if s, ok := c.(llm.Streamer); ok {
		deltas := 0
		_, err := s.Stream(ctx, clone(clientRequest), func(string) error { deltas++; return nil })
		if !errors.Is(err, want) {
			errs = append(errs, fmt.Errorf("Stream: got error %v, want %v", err, want))
		}
		if deltas > 0 {
			errs = append(errs, fmt.Errorf("Stream delivered %d delta(s), want none", deltas))
		}
	}
	return errors.Join(errs...)
}

func checkStream(ctx context.Context, c llm.Client) error {
	s, ok := c.(llm.Streamer)
	if !ok {
		return fmt.Errorf("%w: %T does not implement llm.Streamer", errSkip, c)
	}
	var (
		got      strings.Builder
		inFlight atomic.Int32
		overlap  atomic.Bool
	)
	resp, err := s.Stream(ctx, clone(clientRequest), func(d string) error {
		if inFlight.Add(1) > 1 {
			overlap.Store(true)
		}
		defer inFlight.Add(-1)
		got.WriteString(d)
		return nil
	})
	if err != nil {
		return fmt.Errorf("Stream: %w", err)
	}
	var errs []error
	if overlap.Load() {
		errs = append(errs, errors.New("Stream called onDelta concurrently"))
	}
	if got.String() != resp.Content {
		errs = append(errs, fmt.Errorf("Stream deltas concatenate to %q, Content is %q", got.String(), resp.Content))
	}
	return errors.Join(errs...)
}

func checkStreamStops(ctx context.Context, c llm.Client) error {
	s, ok := c.(llm.Streamer)
	if !ok {
		return fmt.Errorf("%w: %T does not implement llm.Streamer", errSkip, c)
	}
	errStop := errors.New("llmtest: stop")
	calls := 0
	_, err := s.Stream(ctx, clone(clientRequest), func(string) error {
		calls++
		return errStop
	})
	switch {
	case calls == 0 && err == nil:
		return fmt.Errorf("%w: the answer has no delta to stop at", errSkip)
	case calls == 0:
		return fmt.Errorf("Stream: %w", err)
	case !errors.Is(err, errStop):
		return fmt.Errorf("Stream: got error %v after onDelta failed, want onDelta's error", err)
	case calls > 1:
		return fmt.Errorf("Stream called onDelta %d times after it failed, want no more calls", calls-1)
	}
	return nil
}

func checkConcurrent(ctx context.Context, c llm.Client) error {
	const n = 8
	s, streams := c.(llm.Streamer)
	errs := make([]error, 2*n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if _, err := c.Complete(ctx, clone(clientRequest)); err != nil {
				errs[i] = fmt.Errorf("concurrent Complete %d: %w", i, err)
			}
		})
		if streams {
			wg.Go(func() {
				if _, err := s.Stream(ctx, clone(clientRequest), func(string) error { return nil }); err != nil {
					errs[n+i] = fmt.Errorf("concurrent Stream %d: %w", i, err)
				}
			})
		}
	}
	wg.Wait()
	return errors.Join(errs...)
}
