package openai

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/duelogic/duelogic/llm"
	"github.com/google/go-cmp/cmp"
)

// step is one scripted answer of a flaky server.
type step struct {
	status int
	header http.Header
	body   string
}

// script serves steps in order, then okCompletion (or a stream), counting
// requests.
func script(t *testing.T, hits *atomic.Int32, steps ...step) string {
	t.Helper()
	return serve(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		n := int(hits.Add(1)) - 1
		if n < len(steps) {
			for k, vs := range steps[n].header {
				w.Header()[k] = vs
			}
			w.WriteHeader(steps[n].status)
			io.WriteString(w, steps[n].body)
			return
		}
		if r.Header.Get("Accept") == "text/event-stream" {
			sse(chunk("ok")+stopChunk+doneEvent)(w, r)
			return
		}
		reply(200, "application/json", okCompletion)(w, r)
	}).URL
}

func TestRetries(t *testing.T) {
	rateLimited := `{"error":{"message":"Rate limit reached","type":"rate_limit_error","code":"rate_limit_exceeded"}}`
	tests := []struct {
		name       string
		maxRetries int
		steps      []step
		wantHits   int32
		wantWaits  []time.Duration
		wantStatus int // 0: success
	}{
		{
			name:      "429 with Retry-After seconds",
			steps:     []step{{429, http.Header{"Retry-After": {"3"}}, rateLimited}},
			wantHits:  2,
			wantWaits: []time.Duration{3 * time.Second},
		},
		{
			name:      "429 with retry-after-ms",
			steps:     []step{{429, http.Header{"Retry-After-Ms": {"250"}}, rateLimited}},
			wantHits:  2,
			wantWaits: []time.Duration{250 * time.Millisecond},
		},
		{
			name:      "Retry-After as an HTTP date",
			steps:     []step{{503, http.Header{"Retry-After": {fixedNow.Add(20 * time.Second).Format(http.TimeFormat)}}, ""}},
			wantHits:  2,
			wantWaits: []time.Duration{20 * time.Second},
		},
		{
			name:      "Retry-After is capped",
			steps:     []step{{429, http.Header{"Retry-After": {"3600"}}, rateLimited}},
			wantHits:  2,
			wantWaits: []time.Duration{time.Minute},
		},
		{
			name:      "5xx backoff doubles",
			steps:     []step{{500, nil, ""}, {502, nil, "<html>bad gateway</html>"}},
			wantHits:  3,
			wantWaits: []time.Duration{500 * time.Millisecond, time.Second},
		},
		{
			name:      "408 and 409 are retried",
			steps:     []step{{408, nil, ""}, {409, nil, ""}},
			wantHits:  3,
			wantWaits: []time.Duration{500 * time.Millisecond, time.Second},
		},
		{
			name:       "retries run out",
			steps:      []step{{503, nil, ""}, {503, nil, ""}, {503, nil, ""}, {503, nil, ""}},
			wantHits:   3,
			wantWaits:  []time.Duration{500 * time.Millisecond, time.Second},
			wantStatus: 503,
		},
		{
			name:       "MaxRetries 5",
			maxRetries: 5,
			steps:      []step{{500, nil, ""}, {500, nil, ""}, {500, nil, ""}, {500, nil, ""}, {500, nil, ""}},
			wantHits:   6,
			wantWaits:  []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second},
		},
		{
			name:       "negative MaxRetries: none",
			maxRetries: -1,
			steps:      []step{{429, http.Header{"Retry-After": {"1"}}, rateLimited}},
			wantHits:   1,
			wantStatus: 429,
		},
		{
			name:       "x-should-retry: false forbids",
			steps:      []step{{503, http.Header{"X-Should-Retry": {"false"}}, ""}},
			wantHits:   1,
			wantStatus: 503,
		},
		{
			name:      "x-should-retry: true allows",
			steps:     []step{{400, http.Header{"X-Should-Retry": {"true"}}, ""}},
			wantHits:  2,
			wantWaits: []time.Duration{500 * time.Millisecond},
		},
		{name: "400 is final", steps: []step{{400, nil, `{"error":{"message":"bad"}}`}}, wantHits: 1, wantStatus: 400},
		{name: "401 is final", steps: []step{{401, nil, ""}}, wantHits: 1, wantStatus: 401},
		{name: "402 is final", steps: []step{{402, nil, `{"error":{"code":402,"message":"Insufficient credits"}}`}}, wantHits: 1, wantStatus: 402},
		{name: "403 is final", steps: []step{{403, nil, ""}}, wantHits: 1, wantStatus: 403},
		{name: "404 is final", steps: []step{{404, nil, ""}}, wantHits: 1, wantStatus: 404},
		{name: "422 is final", steps: []step{{422, nil, `{"detail":"no"}`}}, wantHits: 1, wantStatus: 422},
	}
	for _, tt := range tests {
		for _, stream := range []bool{false, true} {
			name := tt.name + "/complete"
			if stream {
				name = tt.name + "/stream"
			}
			t.Run(name, func(t *testing.T) {
				var hits atomic.Int32
				c, sleeps := testClient(Config{BaseURL: script(t, &hits, tt.steps...), MaxRetries: tt.maxRetries})
				var err error
				var got llm.Response
				if stream {
					got, err = c.Stream(t.Context(), userReq("hi"), nil)
				} else {
					got, err = c.Complete(t.Context(), userReq("hi"))
				}
				if hits.Load() != tt.wantHits {
					t.Errorf("server saw %d requests, want %d", hits.Load(), tt.wantHits)
				}
				if diff := cmp.Diff(tt.wantWaits, sleeps.got()); diff != "" {
					t.Errorf("waits (-want +got):\n%s", diff)
				}
				if tt.wantStatus == 0 {
					if err != nil || got.Content != "ok" {
						t.Errorf("got %+v, %v; want success", got, err)
					}
					return
				}
				var apiErr *APIError
				if !errors.As(err, &apiErr) || apiErr.StatusCode != tt.wantStatus {
					t.Errorf("error = %v, want an APIError with status %d", err, tt.wantStatus)
				}
			})
		}
	}
}

func TestBackoffJitter(t *testing.T) {
	c := New(Config{})
	for attempt, base := range []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second, 8 * time.Second} {
		for _, j := range []float64{0, 0.5, 0.999} {
			c.jitter = func() float64 { return j }
			got := c.backoff(attempt)
			if got > base || got < base*3/4 {
				t.Errorf("backoff(%d) with jitter %v = %v, want within [%v, %v]", attempt, j, got, base*3/4, base)
			}
		}
	}
	c.jitter = func() float64 { return 0 }
	if got := c.backoff(1000); got != maxBackoff {
		t.Errorf("backoff(1000) = %v, want %v", got, maxBackoff)
	}
}

func TestRetryDialError(t *testing.T) {
	var dials atomic.Int32
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
	}}}
	c, sleeps := testClient(Config{BaseURL: "http://127.0.0.1:9/v1", HTTPClient: hc})
	_, err := c.Complete(t.Context(), userReq("hi"))
	if err == nil || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("error = %v, want connection refused", err)
	}
	if dials.Load() != 3 || len(sleeps.got()) != 2 {
		t.Errorf("%d dials, %d waits; want 3 and 2", dials.Load(), len(sleeps.got()))
	}
	if !llm.IsRetryable(err) {
		t.Error("a refused connection should stay retryable for the caller")
	}
	if strings.Contains(err.Error(), "Post \"") {
		t.Errorf("error %q repeats net/http's URL text", err)
	}
}

func TestNoRetryAfterRequestWasSent(t *testing.T) {
	var hits atomic.Int32
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		hits.Add(1)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		conn.Close() // the request was read, and may have been acted on
	})
	c, sleeps := testClient(Config{BaseURL: srv.URL})
	for _, stream := range []bool{false, true} {
		hits.Store(0)
		var err error
		if stream {
			_, err = c.Stream(t.Context(), userReq("hi"), nil)
		} else {
			_, err = c.Complete(t.Context(), userReq("hi"))
		}
		if err == nil {
			t.Fatal("no error")
		}
		if hits.Load() != 1 {
			t.Errorf("stream=%v: server saw %d requests, want 1: a sent request is not resent", stream, hits.Load())
		}
		if llm.IsRetryable(err) {
			t.Errorf("stream=%v: error %v reports retryable", stream, err)
		}
	}
	if len(sleeps.got()) != 0 {
		t.Errorf("waited %v", sleeps.got())
	}
}

func TestNoRetryOnceStreamStarted(t *testing.T) {
	var hits atomic.Int32
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		sse(chunk("half")+`data: {"error":{"message":"upstream overloaded","type":"server_error"}}`+"\n\n")(w, r)
	})
	c, sleeps := testClient(Config{BaseURL: srv.URL})
	got, err := c.Stream(t.Context(), userReq("hi"), nil)
	if hits.Load() != 1 || len(sleeps.got()) != 0 {
		t.Errorf("%d requests, waits %v; want 1 and none", hits.Load(), sleeps.got())
	}
	if got.Content != "half" {
		t.Errorf("partial = %q", got.Content)
	}
	if !llm.IsRetryable(err) {
		t.Errorf("a server_error event should let the caller retry: %v", err)
	}
}

func TestCancelDuringRetryWait(t *testing.T) {
	var hits atomic.Int32
	c, sleeps := testClient(Config{BaseURL: script(t, &hits, step{503, nil, ""}, step{503, nil, ""})})
	ctx, cancel := context.WithCancel(t.Context())
	sleeps.before = cancel
	_, err := c.Complete(ctx, userReq("hi"))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 503 {
		t.Errorf("error = %v, want the 503 that was being retried too", err)
	}
	if llm.IsRetryable(err) {
		t.Error("a cancelled call reports retryable")
	}
	if hits.Load() != 1 {
		t.Errorf("%d requests, want 1", hits.Load())
	}
}

func TestCancelBeforeResponse(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // so that the server notices the client leave
		<-r.Context().Done()
	})
	c, sleeps := testClient(Config{BaseURL: srv.URL})
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err := c.Complete(ctx, userReq("hi"))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error = %v, want context.DeadlineExceeded", err)
	}
	if len(sleeps.got()) != 0 {
		t.Errorf("retried a cancelled call: %v", sleeps.got())
	}
}
