package openai

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/duelogic/duelogic/llm"
)

// fixedNow is the clock of test clients, for Retry-After dates.
var fixedNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// sleepLog records the waits a test client asked for instead of sleeping.
type sleepLog struct {
	mu     sync.Mutex
	waits  []time.Duration
	before func() // called on each wait, e.g. to cancel a context
}

func (s *sleepLog) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	before := s.before
	s.mu.Unlock()
	if before != nil {
		before()
	}
	return ctx.Err()
}

func (s *sleepLog) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

// testClient is New(cfg) that never sleeps, has no jitter and a fixed clock.
func testClient(cfg Config) (*Client, *sleepLog) {
	c := New(cfg)
	s := &sleepLog{}
	c.sleep = s.sleep
	c.jitter = func() float64 { return 0 }
	c.now = func() time.Time { return fixedNow }
	return c, s
}

// serve starts an httptest server for the test.
func serve(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

// reply answers every request with status, content type and body.
func reply(status int, contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// sse answers with a 200 event stream whose bytes are body.
func sse(body string) http.HandlerFunc { return reply(200, "text/event-stream", body) }

func userReq(text string) llm.Request {
	return llm.Request{Model: "test-model", Messages: []llm.Message{{Role: llm.User, Content: text}}}
}

// collect returns an onDelta that appends to *deltas.
func collect(deltas *[]string) func(string) error {
	return func(d string) error {
		*deltas = append(*deltas, d)
		return nil
	}
}

// roundTripFunc is an http.RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
