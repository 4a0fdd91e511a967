// Package httperr holds the one reading of a model server's HTTP error that
// every client of the library shares (llm/openai and the SDK adapters):
// whether it may be sent again, and whether it says the prompt exceeds the
// model's context.
package httperr

import (
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Retryable reports whether a request that failed with status may be sent
// again: as the x-should-retry header said when the server sent one
// (shouldRetry 1: yes, -1: no, 0: not sent), else for 408, 409, 429 and any
// 5xx status; an error with no HTTP status (inside a 200 response or a
// stream) when transient, which its provider's error kinds say (see
// Transient). A caller refuses a prompt over the context first.
func Retryable(status, shouldRetry int, transient bool) bool {
	switch shouldRetry {
	case 1:
		return true
	case -1:
		return false
	}
	switch {
	case status == http.StatusRequestTimeout, status == http.StatusConflict, status == http.StatusTooManyRequests, status >= 500:
		return true
	case status == 0:
		return transient
	}
	return false
}

// Transient reports whether one of kinds (an error's type, its code) is one
// of the provider's transient kinds.
func Transient(transient []string, kinds ...string) bool {
	for _, v := range kinds {
		if slices.Contains(transient, v) {
			return true
		}
	}
	return false
}

// OpenAITransient are the error kinds of OpenAI-compatible servers that
// say a server error or a rate limit.
var OpenAITransient = []string{"server_error", "rate_limit_error", "rate_limit_exceeded"}

// overflowCodes are the error types and codes that say a prompt does not
// fit the model's context.
var overflowCodes = []string{
	"exceed_context_size_error", // llama.cpp
	"context_length_exceeded",   // OpenAI, Groq, ...
	"context_window_exceeded",
}

// overflowPhrases are the same said in a message, by servers that give no
// code (vLLM, OpenRouter, Mistral, Anthropic, Google).
var overflowPhrases = []string{
	"maximum context length",
	"context length exceeded",
	"context_length_exceeded",
	"exceeds the available context size",
	"exceeds the context window",
	"exceeds the maximum context",
	"exceed context limit",
	"prompt is too long",
	"input token count",
}

// ContextOverflow reports whether an error says the prompt exceeds the
// model's context: a client error (or one with no HTTP status) whose kinds
// (type, code) hold a known code, or whose message a known phrase.
func ContextOverflow(status int, message string, kinds ...string) bool {
	if status != 0 && (status < 400 || status > 499 || status == http.StatusTooManyRequests) {
		return false
	}
	for _, v := range kinds {
		for _, c := range overflowCodes {
			if strings.EqualFold(v, c) {
				return true
			}
		}
	}
	msg := strings.ToLower(message)
	for _, p := range overflowPhrases {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// RetryAfter reads the wait a response's headers ask for: retry-after-ms
// (milliseconds, OpenAI), else Retry-After in seconds or as an HTTP date,
// measured from now — or, when now is zero, from the response's own Date
// header, so without reading a clock. It returns 0 when there is none, it
// cannot be read, or it is not positive; a wait over a week is a week.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	const maxSeconds = 7 * 24 * 3600 // keeps the conversion from overflowing
	seconds := func(f float64) time.Duration {
		if math.IsNaN(f) || f <= 0 {
			return 0
		}
		return time.Duration(min(f, maxSeconds) * float64(time.Second))
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return seconds(f / 1000)
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return seconds(f)
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0
	}
	if now.IsZero() {
		if now, err = http.ParseTime(h.Get("Date")); err != nil {
			return 0
		}
	}
	return seconds(t.Sub(now).Seconds())
}
