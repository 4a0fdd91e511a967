package openaisdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/duelogic/duelogic/internal/httperr"
	"github.com/duelogic/duelogic/llm"
)

// apiError is an error the server reported, classified by duelogic's
// rules; see the package documentation. It wraps the SDK's error.
type apiError struct {
	status                    int
	typ, code, msg, requestID string
	retryAfter                time.Duration
	shouldRetry               int8 // x-should-retry: +1 true, -1 false, 0 absent
	err                       error
}

var _ llm.RetryInfo = (*apiError)(nil)

func (e *apiError) Error() string {
	var b strings.Builder
	b.WriteString("openaisdk: ")
	if e.status != 0 {
		fmt.Fprintf(&b, "HTTP %d %s", e.status, http.StatusText(e.status))
	} else {
		b.WriteString("error event in the stream")
	}
	if e.msg != "" {
		b.WriteString(": " + e.msg)
	}
	var details []string
	for _, d := range [][2]string{{"type", e.typ}, {"code", e.code}, {"request", e.requestID}} {
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

// Retryable reports whether the request may be sent again: as
// x-should-retry says when the server sent it, else for 408, 409, 429 and
// 5xx; an error event inside a stream when its type or code says
// server_error or rate limit. Never for a prompt over the context.
func (e *apiError) Retryable() bool {
	return !e.contextOverflow() && httperr.Retryable(e.status, int(e.shouldRetry), httperr.Transient(httperr.OpenAITransient, e.typ, e.code))
}

// RetryDelay is the wait the server asked for, or 0.
func (e *apiError) RetryDelay() time.Duration { return e.retryAfter }

// Is matches [llm.ErrContextOverflow] when the server said the prompt
// exceeds the model's context.
func (e *apiError) Is(target error) bool {
	return target == llm.ErrContextOverflow && e.contextOverflow()
}

func (e *apiError) contextOverflow() bool {
	return httperr.ContextOverflow(e.status, e.msg, e.typ, e.code)
}

// wrapError classifies an error of the SDK: a context error as itself
// (wrapped), a server's error as an [*apiError], anything else (a
// transport failure) wrapped as it is, not retryable.
func wrapError(ctx context.Context, err error) error {
	if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		err = fmt.Errorf("%w (%w)", ctx.Err(), err)
	}
	var oe *openai.Error
	if errors.As(err, &oe) {
		e := &apiError{status: oe.StatusCode, typ: oe.Type, code: oe.Code, msg: oe.Message, err: err}
		if oe.Response != nil {
			h := oe.Response.Header
			e.requestID = h.Get("X-Request-Id")
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
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		var ev struct {
			Error struct {
				Message string          `json:"message"`
				Type    string          `json:"type"`
				Code    json.RawMessage `json:"code"`
			} `json:"error"`
		}
		_ = json.Unmarshal(se.Event.Data, &ev) // best effort: the SDK checked there is an "error"
		code := strings.Trim(string(ev.Error.Code), `"`)
		if code == "null" {
			code = ""
		}
		if ev.Error.Message == "" {
			ev.Error.Message = se.Message
		}
		return &apiError{typ: ev.Error.Type, code: code, msg: ev.Error.Message, err: err}
	}
	return fmt.Errorf("openaisdk: %w", err)
}
