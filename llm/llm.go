// Package llm defines how duelogic talks to language models: a small [Client]
// interface that host applications implement (or take from [openai]), the request
// and response types, and the pieces that compose clients — [Stream] for optional
// streaming, [Router] for a different provider per model, [Retry] for transient
// faults — plus [Stub], an offline deterministic model. The package knows no
// debate format: the Purpose of a request is an opaque label, and each format
// registers the stub's answers to its own purposes with [RegisterStub].
//
// # Implementing a Client
//
// A Client must be safe for concurrent use: the orchestrator evaluates a response
// and checks for interruptions at the same time. Complete must return promptly
// with ctx.Err() (possibly wrapped) once ctx is done. A Client that can stream
// also implements [Streamer]; callers find it with a type assertion, the way
// io/fs finds fs.ReadFileFS, and [Stream] falls back to Complete when it is absent.
//
// Errors that may be retried implement [RetryInfo] so that [Retry] (and the
// debate engine) can tell a rate limit from a bad request.
//
// [openai]: https://pkg.go.dev/github.com/duelogic/duelogic/llm/openai
package llm

import (
	"context"
	"encoding/json"
)

// Role is the author of a [Message].
type Role string

// The roles of a chat conversation.
const (
	System    Role = "system"
	User      Role = "user"
	Assistant Role = "assistant"
)

// Message is one turn of a chat conversation.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content"`
}

// Request is one call to a model.
type Request struct {
	// Model is the model ID, e.g. "anthropic/claude-sonnet-4". A [Router]
	// dispatches on it.
	Model string `json:"model"`
	// Purpose says what the call is for ("opening", "evaluation", ...): each
	// format exports its Purpose constants. Clients may ignore it; fakes and
	// the [Stub] script replies by it.
	Purpose  string    `json:"purpose,omitempty"`
	Messages []Message `json:"messages"`
	// Temperature is the sampling temperature; nil means the provider default.
	Temperature *float64 `json:"temperature,omitempty"`
	// MaxTokens caps the completion; 0 means the provider default.
	MaxTokens int `json:"maxTokens,omitempty"`
	// JSON reports that the caller expects exactly one JSON object back.
	JSON bool `json:"json,omitempty"`
	// Schema is the JSON Schema the reply must satisfy; it implies JSON.
	// Every call of a format that expects JSON sets it, written for
	// OpenAI's strict mode (every property required, additionalProperties
	// false, optional values nullable), so a server that constrains its
	// output by a schema (OpenAI, llama.cpp, vLLM, Ollama) answers in shape.
	// Clients that cannot send a schema ignore it; the caller validates the
	// reply in any case.
	Schema json.RawMessage `json:"schema,omitempty"`
	// CacheKey groups requests whose prompts share a long prefix (the
	// engine sets the debate's ID), for a provider's prompt cache: a client
	// passes it where the provider takes one (OpenAI's prompt_cache_key).
	CacheKey string `json:"cacheKey,omitempty"`
}

// WantsJSON reports whether the caller of r expects one JSON object back:
// r.JSON is set or r carries a Schema.
func (r Request) WantsJSON() bool { return r.JSON || len(r.Schema) > 0 }

// Usage counts the tokens of one or more calls.
type Usage struct {
	PromptTokens     int `json:"promptTokens"`
	CompletionTokens int `json:"completionTokens"`
	// CachedPromptTokens are the prompt tokens (of PromptTokens) the
	// provider served from its prompt cache, as it reports them; 0 when it
	// does not.
	CachedPromptTokens int `json:"cachedPromptTokens,omitempty"`
	// ReasoningTokens are the completion tokens (of CompletionTokens) the
	// model spent on reasoning it did not show, as the provider reports
	// them.
	ReasoningTokens int `json:"reasoningTokens,omitempty"`
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		PromptTokens:       u.PromptTokens + v.PromptTokens,
		CompletionTokens:   u.CompletionTokens + v.CompletionTokens,
		CachedPromptTokens: u.CachedPromptTokens + v.CachedPromptTokens,
		ReasoningTokens:    u.ReasoningTokens + v.ReasoningTokens,
	}
}

// Total is PromptTokens + CompletionTokens.
func (u Usage) Total() int { return u.PromptTokens + u.CompletionTokens }

// Finish reasons that clients normalize a provider's own words to, in
// [Response.FinishReason].
const (
	// FinishStop: the model ended its answer (or hit a stop sequence).
	FinishStop = "stop"
	// FinishLength: the answer was cut at MaxTokens or at the end of the
	// model's context; it is incomplete, and a JSON answer is probably not
	// valid.
	FinishLength = "length"
)

// Response is a model's answer to a [Request].
type Response struct {
	Content string `json:"content"`
	Model   string `json:"model,omitempty"`
	// FinishReason says why the model stopped. Clients normalize it:
	// [FinishStop] when the model ended its answer, [FinishLength] when it
	// ran out of tokens, whatever words the provider uses for these
	// ("end_turn", "max_tokens", "MAX_TOKENS", ...); any other reason
	// ("content_filter", "tool_calls", "error") is passed on in lower case.
	// "" means the provider gave none.
	FinishReason string `json:"finishReason,omitempty"`
	Usage        Usage  `json:"usage"`
	// UsageEstimated reports that Usage is an estimate (about four
	// characters a token) because the provider reported none, e.g. a
	// stream cut after its finish reason but before its usage chunk.
	UsageEstimated bool `json:"usageEstimated,omitempty"`
}

// Client sends a request to a model and returns its whole answer.
//
// Implementations must be safe for concurrent use and must stop promptly when
// ctx is done.
type Client interface {
	Complete(ctx context.Context, req Request) (Response, error)
}

// Streamer is the optional capability of a [Client] that can deliver its answer
// as it is generated. Stream calls onDelta with each piece of text in order, from
// the calling goroutine's point of view sequentially (never concurrently), and
// returns the whole response at the end, whose Content is the concatenation of
// the deltas. If onDelta returns an error, Stream stops and returns that error.
type Streamer interface {
	Stream(ctx context.Context, req Request, onDelta func(delta string) error) (Response, error)
}

// Stream sends req through c's streaming when c implements [Streamer], and
// otherwise calls Complete and delivers the whole content as one delta (none
// when it is empty). onDelta may be nil.
func Stream(ctx context.Context, c Client, req Request, onDelta func(delta string) error) (Response, error) {
	if onDelta == nil {
		onDelta = func(string) error { return nil }
	}
	if s, ok := c.(Streamer); ok {
		return s.Stream(ctx, req, onDelta)
	}
	resp, err := c.Complete(ctx, req)
	if err != nil {
		return resp, err
	}
	if resp.Content != "" {
		if err := onDelta(resp.Content); err != nil {
			return resp, err
		}
	}
	return resp, nil
}

// ClientFunc adapts an ordinary function to the [Client] interface.
type ClientFunc func(ctx context.Context, req Request) (Response, error)

// Complete calls f(ctx, req).
func (f ClientFunc) Complete(ctx context.Context, req Request) (Response, error) { return f(ctx, req) }
