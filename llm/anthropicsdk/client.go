package anthropicsdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/duelogic/duelogic/llm"
)

// DefaultMaxTokens is the max_tokens of a request whose MaxTokens is 0:
// the API requires one.
const DefaultMaxTokens = 4096

// ErrTruncated reports a stream that ended before its message_stop event:
// the answer is incomplete. It is not retryable.
var ErrTruncated = errors.New("anthropicsdk: stream ended before the response was complete")

// Client is an [llm.Client] and [llm.Streamer] over an anthropic-sdk-go
// client's Messages API. It is safe for concurrent use, as the SDK's client
// is. Make one with [New].
type Client struct {
	messages   anthropic.MessageService
	opts       []option.RequestOption
	perRequest func(llm.Request) []option.RequestOption
	model      string
	maxTokens  int
}

var (
	_ llm.Client   = (*Client)(nil)
	_ llm.Streamer = (*Client)(nil)
)

// Option configures a [Client].
type Option func(*Client)

// WithRequestOptions adds SDK request options to every call, after the
// Client's own option.WithMaxRetries(0), so that option.WithMaxRetries here
// turns the SDK's retries back on.
func WithRequestOptions(opts ...option.RequestOption) Option {
	return func(c *Client) { c.opts = append(c.opts, opts...) }
}

// WithPerRequest adds the SDK request options f returns for each request,
// after all others: a header that depends on the request's Purpose, or a
// body field (option.WithJSONSet) the SDK has no parameter for.
func WithPerRequest(f func(req llm.Request) []option.RequestOption) Option {
	return func(c *Client) { c.perRequest = f }
}

// WithModel sets the model of requests whose Model is empty.
func WithModel(model string) Option {
	return func(c *Client) { c.model = model }
}

// WithMaxTokens sets the max_tokens of requests whose MaxTokens is 0
// (default [DefaultMaxTokens]).
func WithMaxTokens(n int) Option {
	return func(c *Client) { c.maxTokens = n }
}

// New returns a Client that sends its requests with client, a value made
// by anthropic.NewClient with whatever options the host uses. The Client
// turns the SDK's retries off; see the package documentation.
func New(client anthropic.Client, opts ...Option) *Client {
	c := &Client{messages: client.Messages, opts: []option.RequestOption{option.WithMaxRetries(0)}, maxTokens: DefaultMaxTokens}
	for _, o := range opts {
		o(c)
	}
	return c
}

// requestOptions are the SDK options of the call for req.
func (c *Client) requestOptions(req llm.Request) []option.RequestOption {
	opts := c.opts
	if c.perRequest != nil {
		opts = append(opts[:len(opts):len(opts)], c.perRequest(req)...)
	}
	return opts
}

// params are the Messages API parameters of req.
func (c *Client) params(req llm.Request) (anthropic.MessageNewParams, error) {
	model := req.Model
	if model == "" {
		model = c.model
	}
	p := anthropic.MessageNewParams{Model: anthropic.Model(model), MaxTokens: int64(c.maxTokens)}
	if req.MaxTokens > 0 {
		p.MaxTokens = int64(req.MaxTokens)
	}
	leading := true
	for _, m := range req.Messages {
		text := []anthropic.TextBlockParam{{Text: m.Content}}
		switch m.Role {
		case llm.System:
			if leading {
				p.System = append(p.System, text...)
			} else {
				p.Messages = append(p.Messages, anthropic.MessageParam{OfSystem: &anthropic.SystemMessageParam{Content: text}})
			}
			continue
		case llm.User:
			p.Messages = append(p.Messages, anthropic.NewUserMessage(anthropic.NewTextBlock(m.Content)))
		case llm.Assistant:
			p.Messages = append(p.Messages, anthropic.NewAssistantMessage(anthropic.NewTextBlock(m.Content)))
		default:
			return p, fmt.Errorf("anthropicsdk: message role %q is not system, user or assistant", m.Role)
		}
		leading = false
	}
	if len(req.Schema) > 0 {
		var schema map[string]any
		if err := json.Unmarshal(req.Schema, &schema); err != nil {
			return p, fmt.Errorf("anthropicsdk: the request's schema is not a JSON object: %w", err)
		}
		p.OutputConfig.Format = anthropic.JSONOutputFormatParam{Schema: schema}
	}
	return p, nil
}

// Complete sends req and returns the model's whole answer: the text of its
// text blocks.
func (c *Client) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, fmt.Errorf("anthropicsdk: %w", err)
	}
	p, err := c.params(req)
	if err != nil {
		return llm.Response{}, err
	}
	msg, err := c.messages.New(ctx, p, c.requestOptions(req)...)
	if err != nil {
		return llm.Response{}, wrapError(ctx, err)
	}
	var content strings.Builder
	for _, b := range msg.Content {
		if b.Type == "text" {
			content.WriteString(b.Text)
		}
	}
	return llm.Response{
		Content:      content.String(),
		Model:        string(msg.Model),
		FinishReason: finishReason(string(msg.StopReason)),
		Usage: usageOf(msg.Usage.InputTokens, msg.Usage.CacheReadInputTokens, msg.Usage.CacheCreationInputTokens,
			msg.Usage.OutputTokens, msg.Usage.OutputTokensDetails.ThinkingTokens),
	}, nil
}

// Stream sends req with "stream": true and calls onDelta with each piece
// of text of the answer; see [llm.Streamer]. A stream that ends before its
// message_stop event fails with [ErrTruncated]; the response returned next
// to an error holds what had arrived.
func (c *Client) Stream(ctx context.Context, req llm.Request, onDelta func(delta string) error) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, fmt.Errorf("anthropicsdk: %w", err)
	}
	if onDelta == nil {
		onDelta = func(string) error { return nil }
	}
	p, err := c.params(req)
	if err != nil {
		return llm.Response{}, err
	}
	s := c.messages.NewStreaming(ctx, p, c.requestOptions(req)...)
	defer s.Close()
	var (
		resp                                 llm.Response
		content                              strings.Builder
		input, cacheRead, cacheWrite, output int64
		thinking                             int64
		stopped                              bool
	)
	for s.Next() {
		ev := s.Current()
		switch ev.Type {
		case "message_start":
			m := ev.Message
			resp.Model = string(m.Model)
			input, cacheRead, cacheWrite = m.Usage.InputTokens, m.Usage.CacheReadInputTokens, m.Usage.CacheCreationInputTokens
			output, thinking = m.Usage.OutputTokens, m.Usage.OutputTokensDetails.ThinkingTokens
		case "content_block_delta":
			if ev.Delta.Type != "text_delta" || ev.Delta.Text == "" {
				continue
			}
			content.WriteString(ev.Delta.Text)
			if err := onDelta(ev.Delta.Text); err != nil {
				resp.Content = content.String()
				resp.Usage = usageOf(input, cacheRead, cacheWrite, output, thinking)
				return resp, err
			}
		case "message_delta":
			// The counts of message_delta are cumulative; a zero is one
			// the event left out.
			u := ev.Usage
			input, cacheRead, cacheWrite = max(input, u.InputTokens), max(cacheRead, u.CacheReadInputTokens), max(cacheWrite, u.CacheCreationInputTokens)
			output, thinking = max(output, u.OutputTokens), max(thinking, u.OutputTokensDetails.ThinkingTokens)
			if ev.Delta.StopReason != "" {
				resp.FinishReason = finishReason(string(ev.Delta.StopReason))
			}
		case "message_stop":
			stopped = true
		}
	}
	resp.Content = content.String()
	resp.Usage = usageOf(input, cacheRead, cacheWrite, output, thinking)
	if err := s.Err(); err != nil {
		return resp, wrapError(ctx, err)
	}
	if !stopped {
		return resp, ErrTruncated
	}
	return resp, nil
}

// usageOf converts the API's counts; see the package documentation.
func usageOf(input, cacheRead, cacheWrite, output, thinking int64) llm.Usage {
	return llm.Usage{
		PromptTokens:       int(input + cacheRead + cacheWrite),
		CompletionTokens:   int(output),
		CachedPromptTokens: int(cacheRead),
		ReasoningTokens:    int(thinking),
	}
}

// finishReason normalizes a stop reason; see [llm.Response.FinishReason].
func finishReason(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "max_tokens", "model_context_window_exceeded":
		return llm.FinishLength
	case "end_turn", "stop_sequence":
		return llm.FinishStop
	}
	return s
}
