package llm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/duelogic/duelogic/internal/sleep"
)

// RetryPolicy says which failed calls [Retry] sends again, how often, and how
// long it waits in between. The zero value is a sensible policy.
//
// Before retry n (n = 1, 2, ...) Retry waits a random duration in [d/2, d)
// ("equal jitter"), where d = min(Max, Base·2^(n-1)); so the waits grow
// exponentially, never exceed Max, and never fall below half of their
// ceiling. When the error asks for a wait of its own ([RetryDelay], typically
// a server's Retry-After), Retry waits exactly that long instead, but at most
// MaxDelay.
type RetryPolicy struct {
	// MaxRetries is how many times a failed call is sent again, so a call is
	// attempted at most MaxRetries+1 times. 0 means 2; a negative value means
	// no retries. (openai.Config.MaxRetries has the same meaning.)
	MaxRetries int
	// Base is the backoff ceiling before the first retry; it doubles for each
	// further retry. 0 or negative means 1s.
	Base time.Duration
	// Max caps the backoff ceiling. 0 or negative means 30s.
	Max time.Duration
	// MaxDelay caps the wait an error asks for through [RetryDelay]. 0 or
	// negative means 1 minute.
	MaxDelay time.Duration
	// ShouldRetry reports whether a failure may be retried; nil means
	// [IsRetryable]. Whatever it says, Retry stops once ctx is done, and
	// does not retry [ErrContextOverflow].
	ShouldRetry func(err error) bool
	// Rand returns a uniformly distributed number in [0, 1) for the jitter;
	// nil means math/rand/v2's Float64. It must be safe for concurrent use.
	// Tests inject a fixed sequence.
	Rand func() float64
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	switch {
	case p.MaxRetries == 0:
		p.MaxRetries = 2
	case p.MaxRetries < 0:
		p.MaxRetries = 0
	}
	if p.Base <= 0 {
		p.Base = time.Second
	}
	if p.Max <= 0 {
		p.Max = 30 * time.Second
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = time.Minute
	}
	if p.ShouldRetry == nil {
		p.ShouldRetry = IsRetryable
	}
	if p.Rand == nil {
		p.Rand = rand.Float64
	}
	return p
}

// wait is how long to wait before retry n after the failure err.
func (p RetryPolicy) wait(n int, err error) time.Duration {
	if hint := RetryDelay(err); hint > 0 {
		return min(hint, p.MaxDelay)
	}
	d := min(p.Base, p.Max)
	for i := 1; i < n && d < p.Max; i++ {
		if d > p.Max/2 {
			d = p.Max
			break
		}
		d *= 2
	}
	r := min(max(p.Rand(), 0), 1)
	half := d / 2
	return half + time.Duration(r*float64(d-half))
}

// Retry returns a client that sends a request to c and, when it fails with an
// error the policy deems retryable, waits and sends it again, up to the
// policy's bound. The returned client also implements [Streamer], streaming
// through c when c can (see [Stream]); a stream is retried only if it failed
// before its first delta: once onDelta has been called, the error is
// returned as it is, since the caller has already seen part of the answer.
//
// An error that may not be retried is returned at once. If the call failed
// more than once, the error returned wraps the last failure and says how many
// attempts were made; it reports itself as not retryable ([IsRetryable] is
// false for it), so that retry layers do not multiply, while [errors.As] still
// reaches the cause. When ctx is done, Retry stops waiting at once and returns
// an error that wraps both ctx.Err() and the last failure.
//
// The returned client is safe for concurrent use if c is.
func Retry(c Client, p RetryPolicy) Client {
	if c == nil {
		panic("llm: Retry: nil client")
	}
	return &retryClient{c: c, p: p.withDefaults()}
}

type retryClient struct {
	c Client
	p RetryPolicy
}

var _ Streamer = (*retryClient)(nil)

func (r *retryClient) Complete(ctx context.Context, req Request) (Response, error) {
	return r.do(ctx, func() (Response, bool, error) {
		resp, err := r.c.Complete(ctx, req)
		return resp, false, err
	})
}

func (r *retryClient) Stream(ctx context.Context, req Request, onDelta func(delta string) error) (Response, error) {
	return r.do(ctx, func() (Response, bool, error) {
		started := false
		resp, err := Stream(ctx, r.c, req, func(delta string) error {
			started = true
			if onDelta == nil {
				return nil
			}
			return onDelta(delta)
		})
		return resp, started, err
	})
}

// do runs call until it succeeds, has started delivering, or may not be
// retried. call reports whether it has started delivering the answer.
func (r *retryClient) do(ctx context.Context, call func() (resp Response, started bool, err error)) (Response, error) {
	for attempt := 1; ; attempt++ {
		resp, started, err := call()
		if err == nil || started {
			return resp, err
		}
		if attempt > r.p.MaxRetries || errors.Is(err, ErrContextOverflow) || !r.p.ShouldRetry(err) {
			if attempt == 1 {
				return resp, err
			}
			return resp, &retryError{attempts: attempt, err: err}
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return resp, &retryError{attempts: attempt, err: err, ctxErr: ctxErr}
		}
		if ctxErr := sleep.For(ctx, r.p.wait(attempt, err)); ctxErr != nil {
			return resp, &retryError{attempts: attempt, err: err, ctxErr: ctxErr}
		}
	}
}

// retryError is the failure of a call attempted more than once, or of one
// whose retries were cut short by its context.
type retryError struct {
	attempts int
	err      error // the last failure
	ctxErr   error // why the retries stopped early, if they did
}

func (e *retryError) Error() string {
	if e.ctxErr != nil {
		return fmt.Sprintf("llm: retry stopped after %s: %v; last error: %v", attemptsText(e.attempts), e.ctxErr, e.err)
	}
	return fmt.Sprintf("llm: failed after %s: %v", attemptsText(e.attempts), e.err)
}

func attemptsText(n int) string {
	if n == 1 {
		return "1 attempt"
	}
	return fmt.Sprintf("%d attempts", n)
}

func (e *retryError) Unwrap() []error {
	if e.ctxErr != nil {
		return []error{e.ctxErr, e.err}
	}
	return []error{e.err}
}

// Retryable reports false: the retries are spent.
func (e *retryError) Retryable() bool { return false }

// RetryDelay reports 0.
func (e *retryError) RetryDelay() time.Duration { return 0 }
