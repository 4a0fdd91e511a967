package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"
	"unicode/utf8"

	"github.com/duelogic/duelogic/llm"
)

// Stream sends req with "stream": true (and stream_options.include_usage) and
// calls onDelta with each non-empty piece of content as it arrives. onDelta
// may be nil. The returned response's Content is the concatenation of the
// deltas; its Usage is the last usage object the server sent.
//
// A stream succeeds when it ends with the [DONE] marker, or ends after a
// finish_reason. Otherwise Stream returns a [*StreamError] carrying the
// partial response, which it also returns: for an error event from the
// server (OpenAI's {"error":{...}}, OpenRouter's error with finish_reason
// "error", vLLM's, llama.cpp's "error:" field), a stream cut short
// ([ErrTruncated]), [ErrIdleTimeout], or [ErrTooLarge]. When onDelta returns
// an error Stream stops and returns that error as it is, with the partial
// response; when ctx is done it returns ctx.Err() wrapped. Retries happen
// only before the stream starts; see the package documentation.
//
// When a stream is cut after its finish_reason but before the usage chunk
// that stream_options.include_usage asks for, so that the server reported
// no usage, Usage is estimated at about four characters a token of the
// request's messages and of the content, and marked as an estimate in the
// response's UsageEstimated field.
//
// A server that ignores "stream" and answers with one JSON completion is
// handled too: its content is delivered as one delta.
func (c *Client) Stream(ctx context.Context, req llm.Request, onDelta func(delta string) error) (llm.Response, error) {
	if onDelta == nil {
		onDelta = func(string) error { return nil }
	}
	a, err := c.post(ctx, req, true)
	if err != nil {
		return llm.Response{}, err
	}
	defer a.close()

	if mt, _, _ := mime.ParseMediaType(a.resp.Header.Get("Content-Type")); mt == "application/json" {
		data, err := readCapped(a.body, c.maxBody)
		if err != nil {
			return llm.Response{}, a.readError(ctx, err)
		}
		resp, err := c.decodeCompletion(data, req.Model)
		if err == nil && resp.Content != "" {
			err = onDelta(resp.Content)
		}
		return resp, err
	}

	st := &streamState{c: c, a: a, model: req.Model, messages: req.Messages}
	events := newSSEReader(a.body, c.maxLine)
	for {
		ev, err := events.next()
		if err != nil {
			err = st.end(ctx, err)
			return st.response(), err
		}
		done, err := st.handle(ev, onDelta)
		if err != nil || done {
			return st.response(), err
		}
	}
}

// streamChunk is one chat.completion.chunk, or an error event.
type streamChunk struct {
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content contentText `json:"content"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage   *wireUsage      `json:"usage"`
	Timings *wireTimings    `json:"timings"` // llama.cpp
	Error   json.RawMessage `json:"error"`
	Object  string          `json:"object"`
}

// streamState accumulates a stream's response.
type streamState struct {
	c         *Client
	a         *response
	messages  []llm.Message // the request's, for an estimate of its usage
	content   strings.Builder
	model     string
	finish    string
	usage     llm.Usage
	estimated bool // usage is an estimate
}

func (st *streamState) response() llm.Response {
	r := llm.Response{Content: st.content.String(), Model: st.model, FinishReason: st.finish, Usage: st.usage}
	if st.estimated {
		r.UsageEstimated = true
	}
	return r
}

func (st *streamState) fail(err error) *StreamError {
	var apiErr *APIError
	if errors.As(err, &apiErr) && apiErr.RequestID == "" {
		apiErr.RequestID = st.a.requestID
	}
	return &StreamError{Partial: st.response(), RequestID: st.a.requestID, Err: err}
}

// handle takes in one event. It reports done at [DONE].
func (st *streamState) handle(ev sseEvent, onDelta func(string) error) (done bool, err error) {
	data := bytes.TrimSpace(ev.data)
	if ev.name == "error" {
		return false, st.fail(st.c.eventError(data))
	}
	switch string(data) {
	case "[DONE]":
		return true, nil
	case "":
		return false, nil
	}
	var ch streamChunk
	if err := json.Unmarshal(data, &ch); err != nil {
		return false, st.fail(fmt.Errorf("openai: malformed stream event: %w", err))
	}
	if ch.Model != "" {
		st.model = ch.Model
	}
	if ch.Usage != nil {
		st.usage = usageOf(ch.Usage, ch.Timings)
	}
	for _, choice := range ch.Choices {
		if choice.Index != 0 {
			continue
		}
		if d := string(choice.Delta.Content); d != "" {
			if st.content.Len()+len(d) > st.c.maxBody {
				return false, st.fail(fmt.Errorf("%w: streamed content over %d bytes", ErrTooLarge, st.c.maxBody))
			}
			st.content.WriteString(d)
			if err := onDelta(d); err != nil {
				return false, err
			}
		}
		if choice.FinishReason != "" {
			st.finish = finishReason(choice.FinishReason)
		}
	}
	if len(ch.Error) > 0 && !isNull(ch.Error) || ch.Object == "error" {
		return false, st.fail(st.c.eventError(data))
	}
	if st.finish == "error" {
		return false, st.fail(&APIError{Message: `the stream ended with finish_reason "error"`})
	}
	return false, nil
}

// end describes the end of the event stream, reached with err: nil when the
// answer is complete, the context's error, or a *StreamError.
func (st *streamState) end(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("openai: reading stream: %w", ctx.Err())
	case st.finish != "":
		// The answer is complete; only [DONE] (and maybe usage) is missing.
		if st.usage == (llm.Usage{}) {
			st.usage, st.estimated = estimateUsage(st.messages, st.content.String()), true
		}
		return nil
	case st.a.idleTimedOut():
		return st.fail(fmt.Errorf("%w (%v)", ErrIdleTimeout, st.c.idle))
	case errors.Is(err, ErrTooLarge):
		return st.fail(err)
	case err == io.EOF:
		return st.fail(ErrTruncated)
	}
	return st.fail(fmt.Errorf("%w: %w", ErrTruncated, err))
}

// estimateUsage guesses the usage of a call whose server reported none:
// about four characters a token, as [llm.Stub] counts.
func estimateUsage(messages []llm.Message, content string) llm.Usage {
	prompt := 0
	for _, m := range messages {
		prompt += utf8.RuneCountInString(m.Content)
	}
	return llm.Usage{PromptTokens: (prompt + 3) / 4, CompletionTokens: (utf8.RuneCountInString(content) + 3) / 4}
}
