package openaisdk_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/openaisdk"
)

// A server's error reaches the caller after one attempt (the SDK does not
// retry), classified by duelogic's rules: rate limits and 5xx retryable
// with the server's wait, other 4xx final, a prompt over the context
// ErrContextOverflow, x-should-retry obeyed; the SDK's error stays
// reachable.
func TestErrors(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		header    map[string]string
		body      string
		retryable bool
		delay     time.Duration
		overflow  bool
	}{
		{"rate limit", 429, map[string]string{"Retry-After": "7"}, `{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}`, true, 7 * time.Second, false},
		{"rate limit ms", 429, map[string]string{"Retry-After-Ms": "1500"}, `{"error":{"message":"slow down"}}`, true, 1500 * time.Millisecond, false},
		{"retry-after date", 503, map[string]string{"Date": "Mon, 02 Mar 2026 10:00:00 GMT", "Retry-After": "Mon, 02 Mar 2026 10:00:30 GMT"}, `{"error":{"message":"later"}}`, true, 30 * time.Second, false},
		{"server error", 500, nil, `{"error":{"message":"boom","type":"server_error"}}`, true, 0, false},
		{"timeout", 408, nil, `{"error":{"message":"timeout"}}`, true, 0, false},
		{"should-retry false", 503, map[string]string{"X-Should-Retry": "false"}, `{"error":{"message":"no"}}`, false, 0, false},
		{"should-retry true", 400, map[string]string{"X-Should-Retry": "true"}, `{"error":{"message":"again"}}`, true, 0, false},
		{"bad request", 400, nil, `{"error":{"message":"bad","type":"invalid_request_error"}}`, false, 0, false},
		{"unauthorized", 401, nil, `{"error":{"message":"who","type":"invalid_request_error","code":"invalid_api_key"}}`, false, 0, false},
		{"out of credits", 402, nil, `{"error":{"message":"pay"}}`, false, 0, false},
		{"context overflow", 400, nil, `{"error":{"message":"This model's maximum context length is 8192 tokens","type":"invalid_request_error","code":"context_length_exceeded"}}`, false, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				fmt.Fprint(w, tt.body)
			})
			c := openaisdk.New(serve(t, h))
			req := llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}
			for _, call := range []struct {
				name string
				do   func() error
			}{
				{"Complete", func() error { _, err := c.Complete(context.Background(), req); return err }},
				{"Stream", func() error { _, err := c.Stream(context.Background(), req, nil); return err }},
			} {
				calls.Store(0)
				err := call.do()
				if err == nil {
					t.Fatalf("%s: no error", call.name)
				}
				if n := calls.Load(); n != 1 {
					t.Errorf("%s: %d requests, want 1 (the SDK must not retry)", call.name, n)
				}
				if got := llm.IsRetryable(err); got != tt.retryable {
					t.Errorf("%s: IsRetryable = %v, want %v (%v)", call.name, got, tt.retryable, err)
				}
				if got := llm.RetryDelay(err); got != tt.delay {
					t.Errorf("%s: RetryDelay = %v, want %v", call.name, got, tt.delay)
				}
				if got := errors.Is(err, llm.ErrContextOverflow); got != tt.overflow {
					t.Errorf("%s: errors.Is(err, llm.ErrContextOverflow) = %v, want %v", call.name, got, tt.overflow)
				}
				var oe *openai.Error
				if !errors.As(err, &oe) || oe.StatusCode != tt.status {
					t.Errorf("%s: errors.As(*openai.Error) fails or has the wrong status: %v", call.name, err)
				}
			}
		})
	}
}

// An error event inside a stream is retryable when it says server_error,
// final otherwise; a stream that stops before its finish reason fails with
// ErrTruncated, not retryable, after delivering what arrived.
func TestStreamFailures(t *testing.T) {
	tests := []struct {
		name      string
		events    string
		want      error
		retryable bool
	}{
		{"server error event", "data: {\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\"}}\n\n", nil, true},
		{"invalid request event", "data: {\"error\":{\"message\":\"nope\",\"type\":\"invalid_request_error\"}}\n\n", nil, false},
		{"cut short", "", openaisdk.ErrTruncated, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Half\"}}]}\n\n")
				fmt.Fprint(w, tt.events)
			})
			c := openaisdk.New(serve(t, h))
			var got string
			resp, err := c.Stream(context.Background(), llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}, func(d string) error {
				got += d
				return nil
			})
			if err == nil {
				t.Fatal("no error")
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("error %v, want %v", err, tt.want)
			}
			if llm.IsRetryable(err) != tt.retryable {
				t.Errorf("IsRetryable(%v) = %v, want %v", err, !tt.retryable, tt.retryable)
			}
			if got != "Half" || resp.Content != "Half" {
				t.Errorf("delivered %q, Content %q; want the partial %q", got, resp.Content, "Half")
			}
		})
	}
}
