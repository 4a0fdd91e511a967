package anthropicsdk

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/duelogic/duelogic/internal/httperr"
	"github.com/duelogic/duelogic/llm"
)

// apiError is an error the server reported, classified by duelogic's
// rules; see the package documentation. It wraps the SDK's error.
type apiError struct {
	status       int // 0 for an error event inside a stream
	typ, msg, id string
	retryAfter   time.Duration
	shouldRetry  int8 // x-should-retry: +1 true, -1 false, 0 absent
	err          error
}

var _ llm.RetryInfo = (*apiError)(nil)

func (e *apiError) Error() string {
	var b strings.Builder
	b.WriteString("anthropicsdk: ")
	if e.status != 0 {
		fmt.Fprintf(&b, "HTTP %d %s", e.status, http.StatusText(e.status))
	} else {
		b.WriteString("error event in the stream")
	}
	if e.msg != "" {
		b.WriteString(": " + e.msg)
	}
	var details []string
	for _, d := range [][2]string{{"type", e.typ}, {"request", e.id}} {
		if d[1] != "" {
			details = append(details, d[0]+" "+d[1])
		}
	}
	if e.retryAfter > 0 {
		details = append(details, "retry after "+e.retryAfter.String())
	}
	if len(details) > 0 {
		b.WriteString(" (" + strings.Join(details, ", ") + ")")
	}
	return b.String()
}

func (e *apiError) Unwrap() error { return e.err }

// anthropicTransient are Anthropic's error types that say the server was
// overloaded, failed, timed out or limited the rate.
var anthropicTransient = []string{"overloaded_error", "api_error", "rate_limit_error", "timeout_error"}

// Retryable reports whether the request may be sent again: as
// x-should-retry says when the server sent it, else for 408, 409, 429 and
// 5xx; an error event inside a stream when its type says the server was
// overloaded, failed, timed out or limited the rate. Never for a prompt
// over the context.
func (e *apiError) Retryable() bool {
	return !e.contextOverflow() && httperr.Retryable(e.status, int(e.shouldRetry), httperr.Transient(anthropicTransient, e.typ))
}

// RetryDelay is the wait the server asked for, or 0.
func (e *apiError) RetryDelay() time.Duration { return e.retryAfter }

// Is matches [llm.ErrContextOverflow] when the server said the prompt
// exceeds the model's context.
func (e *apiError) Is(target error) bool {
	return target == llm.ErrContextOverflow && e.contextOverflow()
}

func (e *apiError) contextOverflow() bool {
	return httperr.ContextOverflow(e.status, e.msg, e.typ)
}

// wrapError classifies an error of the SDK: a context error as itself
// (wrapped), a server's error as an [*apiError], anything else (a
// transport failure, a malformed stream) wrapped as it is, not retryable.
func wrapError(ctx context.Context, err error) error {
	if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		err = fmt.Errorf("%w (%w)", ctx.Err(), err)
	}
	var ae *anthropic.Error
	if !errors.As(err, &ae) {
		return fmt.Errorf("anthropicsdk: %w", err)
	}
	e := &apiError{status: ae.StatusCode, typ: string(ae.Type()), msg: ae.Message, id: ae.RequestID, err: err}
	if e.status >= 200 && e.status < 300 {
		e.status = 0 // an error event in a stream the server accepted
	} else if ae.Response != nil {
		h := ae.Response.Header
		e.retryAfter = httperr.RetryAfter(h, time.Time{})
		switch strings.ToLower(strings.TrimSpace(h.Get("X-Should-Retry"))) {
		case "true":
			e.shouldRetry = 1
		case "false":
			e.shouldRetry = -1
		}
	}
	return e
}
