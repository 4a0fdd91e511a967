package openai

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/duelogic/duelogic/llm"
)

const userAgent = "duelogic-openai/1"

// response is a 2xx response being read, and what must be released after.
type response struct {
	c         *Client
	resp      *http.Response
	body      io.Reader // resp.Body, feeding the idle watchdog
	requestID string
	actx      context.Context // the attempt's context; its cause tells an idle timeout
	cancel    context.CancelCauseFunc
	wd        *watchdog
	stopClose func() bool   // deregisters the close on cancellation
	closed    chan struct{} // closed once that close is done
}

// close releases the response. The body is closed exactly once, here or by
// the cancellation hook, never by both at the same time.
func (r *response) close() {
	r.wd.stop()
	if r.stopClose() {
		r.resp.Body.Close()
	} else {
		<-r.closed
	}
	r.cancel(nil)
}

func (r *response) idleTimedOut() bool {
	return errors.Is(context.Cause(r.actx), ErrIdleTimeout)
}

// readError describes a failure to read a non-streamed body.
func (r *response) readError(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("openai: reading response: %w", ctx.Err())
	case r.idleTimedOut():
		return fmt.Errorf("%w (%v) reading the response", ErrIdleTimeout, r.c.idle)
	case errors.Is(err, ErrTooLarge):
		return err
	}
	return fmt.Errorf("openai: reading response from %s: %w", r.c.safeURL, err)
}

// send posts body with the given Idempotency-Key, retrying what is safe to
// retry, and returns the first 2xx response. The caller must close it.
//
// A request is sent again, at most c.maxRetries times, when the attempt's
// error says so (llm.IsRetryable): an APIError with a retryable status or
// x-should-retry: true, or a transport error from before the request was
// written. The wait is the server's Retry-After, capped at maxRetryWait, or
// else exponential backoff with jitter.
func (c *Client) send(ctx context.Context, body []byte, stream bool, key string) (*response, error) {
	for attempt := 0; ; attempt++ {
		r, err := c.attempt(ctx, body, stream, key)
		if err == nil {
			return r, nil
		}
		if attempt >= c.maxRetries || !llm.IsRetryable(err) {
			return nil, err
		}
		wait := c.backoff(attempt)
		var apiErr *APIError
		if errors.As(err, &apiErr) && apiErr.RetryAfter > 0 {
			wait = min(apiErr.RetryAfter, maxRetryWait)
		}
		if c.logger != nil {
			c.logger.LogAttrs(ctx, slog.LevelWarn, "openai: retrying request",
				slog.String("url", c.safeURL), slog.Int("retry", attempt+1),
				slog.Duration("wait", wait), slog.String("error", err.Error()))
		}
		if c.sleep(ctx, wait) != nil {
			return nil, fmt.Errorf("openai: %w while waiting to retry after: %w", ctx.Err(), err)
		}
	}
}

// backoff is the wait before retry number attempt+1 when the server named
// none: 0.5s doubling up to 8s, less up to a quarter at random.
func (c *Client) backoff(attempt int) time.Duration {
	d := maxBackoff
	if attempt < 5 {
		d = min(initialBackoff<<attempt, maxBackoff)
	}
	return d - time.Duration(c.jitter()*0.25*float64(d))
}

// attempt sends one request. It returns a 2xx response, an *APIError for any
// other status, or the transport's error.
//
// The request carries an Idempotency-Key and a body that can be read again
// (GetBody), which makes net/http's Transport send it again by itself when a
// reused keep-alive connection turns out to be dead: closed by the server
// just as the request went out, before any byte of a response came back.
// Local servers (llama-server, uvicorn) close idle connections after a few
// seconds, so that race is common between the turns of a debate.
func (c *Client) attempt(ctx context.Context, body []byte, stream bool, key string) (*response, error) {
	actx, cancel := context.WithCancelCause(ctx)
	wd := newWatchdog(c.idle, func() { cancel(ErrIdleTimeout) })
	if stream {
		wd.start() // a stream's wait for its headers is idle time too
	}
	var wrote atomic.Bool // the whole request reached the connection
	trace := &httptrace.ClientTrace{WroteRequest: func(info httptrace.WroteRequestInfo) {
		if info.Err == nil {
			wrote.Store(true)
		}
	}}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(actx, trace), http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		wd.stop()
		cancel(nil)
		return nil, fmt.Errorf("openai: building request: %w", err)
	}
	c.setHeaders(req.Header, stream, key)
	resp, err := c.hc.Do(req)
	if err != nil {
		wd.stop()
		idle := errors.Is(context.Cause(actx), ErrIdleTimeout)
		cancel(nil)
		return nil, c.transportError(ctx, err, wrote.Load(), idle)
	}
	r := &response{c: c, resp: resp, actx: actx, cancel: cancel, wd: wd, requestID: requestIDOf(resp.Header), closed: make(chan struct{})}
	// Closing the body on cancellation unblocks a read at once, whatever
	// the transport.
	r.stopClose = context.AfterFunc(actx, func() {
		resp.Body.Close()
		close(r.closed)
	})
	wd.start()
	r.body = &kickReader{r: resp.Body, wd: wd}
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		return r, nil
	}
	data, _ := io.ReadAll(io.LimitReader(r.body, maxErrorBody)) // a partial body still says something
	r.close()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("openai: reading error response: %w", ctx.Err())
	}
	return nil, newAPIError(resp.StatusCode, resp.Header, data, c.now(), c.secrets)
}

func requestIDOf(h http.Header) string {
	for _, name := range requestIDHeaders {
		if v := h.Get(name); v != "" {
			return clip(v, 200)
		}
	}
	return ""
}

func (c *Client) setHeaders(h http.Header, stream bool, key string) {
	h.Set("Content-Type", "application/json")
	if stream {
		h.Set("Accept", "text/event-stream")
	} else {
		h.Set("Accept", "application/json")
	}
	h.Set("User-Agent", userAgent)
	for k, vs := range c.headers {
		h.Del(k)
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	if c.apiKey != "" {
		h.Set("Authorization", "Bearer "+c.apiKey)
	}
	h.Set("Idempotency-Key", key) // per request: a fixed one in Config.Headers would be wrong
}

// transportError describes a request that got no response. It is retryable
// only when the request was not written in full (so the server cannot have
// acted on it) and the failure is a network one that may pass: a refused,
// reset or timed-out dial, a failed write, a temporary DNS failure — not a
// certificate problem.
func (c *Client) transportError(ctx context.Context, err error, wrote, idle bool) error {
	if ctx.Err() != nil {
		return fmt.Errorf("openai: POST %s: %w", c.safeURL, ctx.Err())
	}
	if idle {
		return fmt.Errorf("openai: POST %s: %w (%v) waiting for the response", c.safeURL, ErrIdleTimeout, c.idle)
	}
	var ue *url.Error
	if errors.As(err, &ue) { // its text repeats the URL; ours is redacted
		err = ue.Err
	}
	return &transportError{
		err:    fmt.Errorf("openai: POST %s: %w", c.safeURL, err),
		resend: !wrote && transient(err),
	}
}

func transient(err error) bool {
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return dnsErr.IsTimeout || dnsErr.IsTemporary
	}
	var certErr *tls.CertificateVerificationError
	if errors.As(err, &certErr) {
		return false
	}
	var opErr *net.OpError
	return errors.As(err, &opErr) && opErr.Op != "remote error" // a TLS alert
}

// watchdog calls fire when it is not kicked for d. A nil watchdog does
// nothing. Its methods are called from one goroutine.
type watchdog struct {
	d    time.Duration
	fire func()
	t    *time.Timer
}

func newWatchdog(d time.Duration, fire func()) *watchdog {
	if d <= 0 {
		return nil
	}
	return &watchdog{d: d, fire: fire}
}

// start arms the watchdog, or restarts its countdown if it is armed.
func (w *watchdog) start() {
	if w == nil {
		return
	}
	if w.t == nil {
		w.t = time.AfterFunc(w.d, w.fire)
		return
	}
	w.t.Reset(w.d)
}

func (w *watchdog) kick() {
	if w != nil && w.t != nil {
		w.t.Reset(w.d)
	}
}

func (w *watchdog) stop() {
	if w != nil && w.t != nil {
		w.t.Stop()
	}
}

// kickReader kicks a watchdog whenever data arrives.
type kickReader struct {
	r  io.Reader
	wd *watchdog
}

func (k *kickReader) Read(p []byte) (int, error) {
	n, err := k.r.Read(p)
	if n > 0 {
		k.wd.kick()
	}
	return n, err
}

func randFloat() float64 { return rand.Float64() }
