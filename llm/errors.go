package llm

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrContextOverflow reports a request whose prompt, with the room it asks
// for its answer, exceeds the model's context window. Clients return it
// wrapped, saying the sizes when the server told them. Sending the same
// request again fails again: [IsRetryable] is false for it, and [Retry]
// never retries it, whatever its policy says. A caller may shorten the
// prompt and try again.
var ErrContextOverflow = errors.New("llm: the prompt exceeds the model's context window")

// ErrSchemaMismatch reports a reply that does not satisfy its request's
// [Request.Schema]. The [Stub] returns it wrapped when a registered answer
// drifts from the schema of its purpose, and so does llmtest.Fake when it
// checks schemas; the error names the path of each problem.
var ErrSchemaMismatch = errors.New("llm: reply does not satisfy the request's schema")

// RetryInfo is implemented by errors that know whether the failed call may be
// sent again, and how long the server asked the caller to wait. [Retry] and the
// debate engine consult it through [IsRetryable] and [RetryDelay].
type RetryInfo interface {
	error
	// Retryable reports whether the request may be sent again unchanged.
	Retryable() bool
	// RetryDelay is the wait the server asked for (Retry-After), or 0.
	RetryDelay() time.Duration
}

// IsRetryable reports whether some error in err's tree implements [RetryInfo]
// and says it may be retried. Context errors and [ErrContextOverflow] are
// never retryable.
func IsRetryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrContextOverflow) {
		return false
	}
	var ri RetryInfo
	return errors.As(err, &ri) && ri.Retryable()
}

// RetryDelay returns the wait carried by the first [RetryInfo] in err's tree,
// or 0.
func RetryDelay(err error) time.Duration {
	var ri RetryInfo
	if errors.As(err, &ri) {
		return ri.RetryDelay()
	}
	return 0
}

// Temporary wraps err so that it is retryable, after the given wait (0: the
// retrier's own backoff). It lets a host's client, or a test, mark a transient
// failure. Temporary(nil, after) is nil.
func Temporary(err error, after time.Duration) error {
	if err == nil {
		return nil
	}
	return &temporaryError{err: err, after: after}
}

type temporaryError struct {
	err   error
	after time.Duration
}

func (e *temporaryError) Error() string {
	if e.after > 0 {
		return fmt.Sprintf("%v (retry after %v)", e.err, e.after)
	}
	return e.err.Error()
}
func (e *temporaryError) Unwrap() error             { return e.err }
func (e *temporaryError) Retryable() bool           { return true }
func (e *temporaryError) RetryDelay() time.Duration { return e.after }
