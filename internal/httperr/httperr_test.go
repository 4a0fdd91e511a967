package httperr

import (
	"net/http"
	"testing"
	"time"
)

func TestRetryable(t *testing.T) {
	tests := []struct {
		status, should int
		transient      bool
		want           bool
	}{
		{429, 0, false, true}, {503, 0, false, true}, {408, 0, false, true}, {409, 0, false, true},
		{400, 0, true, false}, {401, 0, false, false},
		{400, 1, false, true}, {503, -1, false, false},
		{0, 0, true, true}, {0, 0, false, false},
	}
	for _, tt := range tests {
		if got := Retryable(tt.status, tt.should, tt.transient); got != tt.want {
			t.Errorf("Retryable(%d, %d, %t) = %t, want %t", tt.status, tt.should, tt.transient, got, tt.want)
		}
	}
	if !Transient(OpenAITransient, "", "rate_limit_exceeded") || Transient(OpenAITransient, "invalid_request_error") {
		t.Error("Transient misreads OpenAI's kinds")
	}
}

func TestContextOverflow(t *testing.T) {
	tests := []struct {
		status int
		msg    string
		kinds  []string
		want   bool
	}{
		{400, "", []string{"context_length_exceeded"}, true},
		{400, "This model's maximum context length is 8192 tokens", nil, true},
		{400, "prompt is too long: 210000 tokens", nil, true},
		{0, "", []string{"EXCEED_CONTEXT_SIZE_ERROR"}, true},
		{429, "maximum context length", nil, false},
		{500, "maximum context length", nil, false},
		{400, "bad request", []string{"invalid_request_error"}, false},
	}
	for _, tt := range tests {
		if got := ContextOverflow(tt.status, tt.msg, tt.kinds...); got != tt.want {
			t.Errorf("ContextOverflow(%d, %q, %q) = %t, want %t", tt.status, tt.msg, tt.kinds, got, tt.want)
		}
	}
}

// RetryAfter measures an HTTP date from now, or from the response's Date
// header when now is zero; it reads milliseconds first, caps a week, and
// gives 0 for what it cannot read.
func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	date := func(d time.Duration) string { return now.Add(d).Format(http.TimeFormat) }
	for _, tt := range []struct {
		name   string
		header http.Header
		now    time.Time
		want   time.Duration
	}{
		{"none", http.Header{}, now, 0},
		{"milliseconds first", http.Header{"Retry-After-Ms": {"1500"}, "Retry-After": {"9"}}, now, 1500 * time.Millisecond},
		{"seconds", http.Header{"Retry-After": {"2"}}, now, 2 * time.Second},
		{"a date from now", http.Header{"Retry-After": {date(30 * time.Second)}}, now, 30 * time.Second},
		{"a date from the Date header", http.Header{"Retry-After": {date(30 * time.Second)}, "Date": {date(10 * time.Second)}}, time.Time{}, 20 * time.Second},
		{"a date without a Date header", http.Header{"Retry-After": {date(30 * time.Second)}}, time.Time{}, 0},
		{"in the past", http.Header{"Retry-After": {"-3"}}, now, 0},
		{"capped at a week", http.Header{"Retry-After": {"1e12"}}, now, 7 * 24 * time.Hour},
		{"unreadable", http.Header{"Retry-After": {"soon"}}, now, 0},
	} {
		if got := RetryAfter(tt.header, tt.now); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
