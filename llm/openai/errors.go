package openai

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/duelogic/duelogic/internal/httperr"
	"github.com/duelogic/duelogic/llm"
)

// Sentinel errors, matched with [errors.Is]. They arrive wrapped, usually in a
// [*StreamError].
var (
	// ErrTruncated reports a stream that ended (cleanly or with a broken
	// connection) before it carried a finish_reason or the [DONE] marker: the
	// answer is incomplete.
	ErrTruncated = errors.New("openai: stream ended before the response was complete")
	// ErrIdleTimeout reports a server that sent nothing for longer than
	// [Config.IdleTimeout].
	ErrIdleTimeout = errors.New("openai: no data from the server within the idle timeout")
	// ErrTooLarge reports a response body, a stream line or event, or a
	// streamed answer over the client's size limits.
	ErrTooLarge = errors.New("openai: response exceeds the size limit")
)

// APIError is an error reported by the server: a non-2xx HTTP response, or an
// error object inside a 200 response (an error event in a stream, an error
// body on a completed request). It is parsed from every error shape the
// supported servers use: OpenAI's {"error":{"message","type","code","param"}},
// OpenRouter's {"error":{"code":429,"message",...,"metadata":{...}}}, vLLM's
// top-level {"object":"error","message",...}, FastAPI's {"detail":...},
// Ollama's and LM Studio's {"error":"text"}, llama.cpp's bare
// {"code","message","type"}, and plain-text or HTML bodies.
//
// Error() shows the status, the server's message, type, code, provider and
// request ID; never the API key (removed from anything the server echoes),
// the request's headers, or its body.
//
// APIError implements [llm.RetryInfo]: see [APIError.Retryable]. An error
// saying that the prompt does not fit the model's context — llama.cpp's
// "exceed_context_size_error", OpenAI's "context_length_exceeded", or a
// message such as vLLM's and OpenRouter's "maximum context length is ..." —
// matches [llm.ErrContextOverflow] with [errors.Is], and is never retried.
type APIError struct {
	// StatusCode is the HTTP status; for an error object inside a 200
	// response it is the numeric code the object carries when that is an
	// HTTP status (OpenRouter), else 0.
	StatusCode int
	// Type is the error type ("invalid_request_error", "rate_limit_error",
	// vLLM's "BadRequestError", ...), or "" when the body had none.
	Type string
	// Code is the error code as text, whether the server sent a string
	// ("rate_limit_exceeded") or a number ("429"); "" when absent or null.
	Code string
	// Message is the server's message; for a plain-text or HTML body, its
	// first part.
	Message string
	// RequestID is the server's ID for the request, from the x-request-id
	// header (or x-generation-id, request-id, x-amzn-requestid, cf-ray).
	RequestID string
	// RetryAfter is the wait the server asked for with retry-after-ms or
	// Retry-After (seconds or an HTTP date), or 0. It is the server's value;
	// the client's own retries cap their wait (see [Config.MaxRetries]).
	RetryAfter time.Duration

	// Param is the request parameter the error is about, if the server said.
	Param string
	// Provider is the upstream provider that failed, from OpenRouter's
	// error.metadata.provider_name.
	Provider string
	// Metadata is OpenRouter's error.metadata object verbatim (for example
	// the upstream provider's raw error, or moderation reasons), or nil.
	Metadata []byte
	// PromptTokens and ContextTokens are the size of the prompt and of the
	// model's context window, when the server said (llama.cpp's
	// n_prompt_tokens and n_ctx), else 0.
	PromptTokens, ContextTokens int

	// shouldRetry is the x-should-retry header: +1 true, -1 false, 0 absent.
	shouldRetry int8
}

var _ llm.RetryInfo = (*APIError)(nil)

// Error describes the failure without secrets; see [APIError].
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString("openai: ")
	if e.StatusCode != 0 {
		fmt.Fprintf(&b, "HTTP %d", e.StatusCode)
		if t := http.StatusText(e.StatusCode); t != "" {
			b.WriteString(" " + t)
		}
	} else {
		b.WriteString("server error")
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	var details []string
	add := func(name, v string) {
		if v != "" {
			details = append(details, name+" "+v)
		}
	}
	add("type", e.Type)
	if e.Code != fmt.Sprint(e.StatusCode) {
		add("code", e.Code)
	}
	if e.PromptTokens > 0 {
		add("prompt", fmt.Sprintf("%d tokens", e.PromptTokens))
	}
	if e.ContextTokens > 0 {
		add("context", fmt.Sprintf("%d tokens", e.ContextTokens))
	}
	add("provider", e.Provider)
	add("request", e.RequestID)
	if e.RetryAfter > 0 {
		add("retry after", e.RetryAfter.String())
	}
	if len(details) > 0 {
		b.WriteString(" (" + strings.Join(details, ", ") + ")")
	}
	return b.String()
}

// Retryable reports whether the request may be sent again: as the server's
// x-should-retry header says when it sent one, else for 408, 409, 429 and any
// 5xx status. An error inside a 200 response with no HTTP status is retryable
// when its type or code is "server_error", "rate_limit_error" or
// "rate_limit_exceeded". Everything else — 400, 401, 402 (out of credits), 403,
// 404, 422 — is final, and so is a prompt that exceeds the model's context,
// whatever the headers say.
func (e *APIError) Retryable() bool {
	return !e.contextOverflow() && httperr.Retryable(e.StatusCode, int(e.shouldRetry), httperr.Transient(httperr.OpenAITransient, e.Type, e.Code))
}

// Is reports whether e is the server saying that the prompt exceeds the
// model's context window, when target is [llm.ErrContextOverflow].
func (e *APIError) Is(target error) bool {
	return target == llm.ErrContextOverflow && e.contextOverflow()
}

// contextOverflow reports whether e says the prompt exceeds the context
// (see httperr.ContextOverflow).
func (e *APIError) contextOverflow() bool {
	return httperr.ContextOverflow(e.StatusCode, e.Message, e.Type, e.Code)
}

// RetryDelay returns RetryAfter, the wait the server asked for, or 0.
func (e *APIError) RetryDelay() time.Duration { return e.RetryAfter }

// StreamError reports a stream that failed after the server had accepted the
// request with a 200: an error event from the server (Err is then an
// [*APIError]), a stream cut short ([ErrTruncated]), silence beyond the idle
// timeout ([ErrIdleTimeout]), an oversized ([ErrTooLarge]) or malformed
// event. Partial is what had arrived before the failure — the text already
// passed to onDelta, the model, the usage if the server sent it, and the
// finish reason ("error" when the server said so). [Client.Stream] returns
// the same partial response next to the error.
//
// The client never retries a stream that has started; whether a caller may
// is up to the cause: [llm.IsRetryable] finds the [*APIError] inside, and is
// false for a truncated or stalled stream (the server may have finished the
// work and billed it).
type StreamError struct {
	// Partial is the response as far as it had arrived.
	Partial llm.Response
	// RequestID is the server's ID for the request, from the response
	// headers, or "".
	RequestID string
	// Err is the cause.
	Err error
}

// Error describes the failure and how much content had arrived.
func (e *StreamError) Error() string {
	return fmt.Sprintf("openai: stream failed after %d bytes of content: %s",
		len(e.Partial.Content), strings.TrimPrefix(e.Err.Error(), "openai: "))
}

// Unwrap returns the cause.
func (e *StreamError) Unwrap() error { return e.Err }

// transportError is a request that got no HTTP response at all.
type transportError struct {
	err error
	// resend reports that the request provably never reached the server
	// (it was not fully written) and the failure looks transient.
	resend bool
}

func (e *transportError) Error() string             { return e.err.Error() }
func (e *transportError) Unwrap() error             { return e.err }
func (e *transportError) Retryable() bool           { return e.resend }
func (e *transportError) RetryDelay() time.Duration { return 0 }
