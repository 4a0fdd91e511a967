package openaisdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/jsonschema"
)

// ErrTruncated reports a stream that ended before it carried a finish
// reason: the answer is incomplete. It is not retryable.
var ErrTruncated = errors.New("openaisdk: stream ended before the response was complete")

// Client is an [llm.Client] and [llm.Streamer] over an openai-go client's
// Chat Completions API. It is safe for concurrent use, as the SDK's client
// is. Make one with [New].
type Client struct {
	chat       openai.ChatCompletionService
	opts       []option.RequestOption
	perRequest func(llm.Request) []option.RequestOption
	model      string
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
// after all others: a header or metadata that depends on the request's
// Purpose or Model, say.
func WithPerRequest(f func(req llm.Request) []option.RequestOption) Option {
	return func(c *Client) { c.perRequest = f }
}

// WithModel sets the model of requests whose Model is empty.
func WithModel(model string) Option {
	return func(c *Client) { c.model = model }
}

// New returns a Client that sends its requests with client, a value made by
// openai.NewClient with whatever options the host uses (API key, base URL,
// HTTP client, middleware). The Client turns the SDK's retries off; see the
// package documentation.
func New(client openai.Client, opts ...Option) *Client {
	c := &Client{chat: client.Chat.Completions, opts: []option.RequestOption{option.WithMaxRetries(0)}}
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

// params are the Chat Completions parameters of req.
func (c *Client) params(req llm.Request) (openai.ChatCompletionNewParams, error) {
	model := req.Model
	if model == "" {
		model = c.model
	}
	p := openai.ChatCompletionNewParams{Model: shared.ChatModel(model)}
	for _, m := range req.Messages {
		switch m.Role {
		case llm.System:
			p.Messages = append(p.Messages, openai.SystemMessage(m.Content))
		case llm.User:
			p.Messages = append(p.Messages, openai.UserMessage(m.Content))
		case llm.Assistant:
			p.Messages = append(p.Messages, openai.AssistantMessage(m.Content))
		default:
			return p, fmt.Errorf("openaisdk: message role %q is not system, user or assistant", m.Role)
		}
	}
	if req.Temperature != nil {
		p.Temperature = param.NewOpt(*req.Temperature)
	}
	if req.MaxTokens > 0 {
		p.MaxCompletionTokens = param.NewOpt(int64(req.MaxTokens))
	}
	switch {
	case len(req.Schema) > 0:
		if !json.Valid(req.Schema) {
			return p, errors.New("openaisdk: the request's schema is not valid JSON")
		}
		p.ResponseFormat.OfJSONSchema = &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
				Name:   schemaName(req.Purpose),
				Schema: req.Schema,
				Strict: param.NewOpt(jsonschema.Strict(req.Schema) == nil),
			},
		}
	case req.JSON:
		p.ResponseFormat.OfJSONObject = &shared.ResponseFormatJSONObjectParam{}
	}
	return p, nil
}

// schemaName derives json_schema.name from a request's purpose, as
// duelogic's llm/openai client does: the letters, digits, '_' and '-'
// OpenAI allows (any other character becomes '_'), at most 64 of them;
// "reply" when the purpose has no letter or digit.
func schemaName(purpose string) string {
	var b strings.Builder
	letters := false
	for _, r := range purpose {
		if b.Len() == 64 {
			break
		}
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
			letters = true
			b.WriteRune(r)
		case r == '-' || r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if !letters {
		return "reply"
	}
	return b.String()
}

// Complete sends req and returns the model's whole answer.
func (c *Client) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, fmt.Errorf("openaisdk: %w", err)
	}
	p, err := c.params(req)
	if err != nil {
		return llm.Response{}, err
	}
	cc, err := c.chat.New(ctx, p, c.requestOptions(req)...)
	if err != nil {
		return llm.Response{}, wrapError(ctx, err)
	}
	if len(cc.Choices) == 0 {
		return llm.Response{}, errors.New("openaisdk: the response has no choice")
	}
	ch := cc.Choices[0]
	return llm.Response{
		Content:      ch.Message.Content,
		Model:        cc.Model,
		FinishReason: finishReason(ch.FinishReason),
		Usage:        usageOf(cc.Usage),
	}, nil
}

// Stream sends req with "stream": true and calls onDelta with each piece
// of the answer; see [llm.Streamer]. A stream that ends before its finish
// reason fails with [ErrTruncated]; the response returned next to an error
// holds what had arrived. When the server sent no usage, the response's
// Usage is an estimate and UsageEstimated is set.
func (c *Client) Stream(ctx context.Context, req llm.Request, onDelta func(delta string) error) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, fmt.Errorf("openaisdk: %w", err)
	}
	if onDelta == nil {
		onDelta = func(string) error { return nil }
	}
	p, err := c.params(req)
	if err != nil {
		return llm.Response{}, err
	}
	p.StreamOptions.IncludeUsage = param.NewOpt(true)
	s := c.chat.NewStreaming(ctx, p, c.requestOptions(req)...)
	defer s.Close()
	var (
		resp     llm.Response
		content  strings.Builder
		hasUsage bool
	)
	for s.Next() {
		chunk := s.Current()
		if chunk.Model != "" {
			resp.Model = chunk.Model
		}
		if chunk.JSON.Usage.Valid() {
			resp.Usage, hasUsage = usageOf(chunk.Usage), true
		}
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue
			}
			if d := ch.Delta.Content; d != "" {
				content.WriteString(d)
				if err := onDelta(d); err != nil {
					resp.Content = content.String()
					return resp, err
				}
			}
			if ch.FinishReason != "" {
				resp.FinishReason = finishReason(ch.FinishReason)
			}
		}
	}
	resp.Content = content.String()
	if err := s.Err(); err != nil {
		return resp, wrapError(ctx, err)
	}
	if resp.FinishReason == "" {
		return resp, ErrTruncated
	}
	if !hasUsage {
		resp.Usage, resp.UsageEstimated = estimateUsage(req.Messages, resp.Content), true
	}
	return resp, nil
}

// estimateUsage guesses the usage of a stream whose server sent no usage
// chunk (a server that ignores stream_options, or a stream cut after its
// finish reason): about four characters a token, as duelogic's llm/openai
// client and [llm.Stub] count.
func estimateUsage(messages []llm.Message, content string) llm.Usage {
	prompt := 0
	for _, m := range messages {
		prompt += utf8.RuneCountInString(m.Content)
	}
	return llm.Usage{PromptTokens: (prompt + 3) / 4, CompletionTokens: (utf8.RuneCountInString(content) + 3) / 4}
}

// usageOf converts the SDK's usage.
func usageOf(u openai.CompletionUsage) llm.Usage {
	return llm.Usage{
		PromptTokens:       int(u.PromptTokens),
		CompletionTokens:   int(u.CompletionTokens),
		CachedPromptTokens: int(u.PromptTokensDetails.CachedTokens),
		ReasoningTokens:    int(u.CompletionTokensDetails.ReasoningTokens),
	}
}

// finishReason normalizes a finish reason; see [llm.Response.FinishReason].
func finishReason(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "max_tokens", "max_output_tokens", "max_length", "model_length":
		return llm.FinishLength
	case "end_turn", "stop_sequence", "eos", "eos_token":
		return llm.FinishStop
	}
	return s
}
