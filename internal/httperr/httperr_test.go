package httperr

import "testing"

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
