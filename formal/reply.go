package formal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/duelogic/duelogic/internal/llmtext"
	"github.com/duelogic/duelogic/llm"
)

// ErrInvalidReply is matched (errors.Is) by the error that stops a debate
// when a model's reply stays unusable after the re-asks Config.MaxReasks
// allows (a debater turn, the chair's verdict, the verifier's finding).
var ErrInvalidReply = errors.New("formal: invalid model reply")

// rejectedPrefix starts the message that asks a model again.
const rejectedPrefix = "Your reply was rejected"

// ask sends req and passes the reply to accept; while accept rejects it, the
// model is shown its reply and the problem and asked again, at most
// maxReasks times. It returns the usage of every call.
func ask(ctx context.Context, c llm.Client, req llm.Request, maxReasks int, accept func(reply string) error) (llm.Usage, error) {
	var usage llm.Usage
	msgs := append([]llm.Message(nil), req.Messages...)
	for attempt := 0; ; attempt++ {
		req.Messages = msgs
		resp, err := c.Complete(ctx, req)
		usage = usage.Add(resp.Usage)
		if err != nil {
			return usage, err
		}
		perr := accept(resp.Content)
		if perr == nil {
			return usage, nil
		}
		if attempt >= maxReasks {
			return usage, fmt.Errorf("%w: %s reply rejected %d times, last: %v", ErrInvalidReply, req.Purpose, attempt+1, perr)
		}
		msgs = append(msgs[:len(msgs):len(msgs)],
			llm.Message{Role: llm.Assistant, Content: clip(resp.Content, 4000)},
			llm.Message{Role: llm.User, Content: rejectedPrefix + ": " + perr.Error() + ". Reply again with one JSON object that fixes this, and nothing else."})
	}
}

// Shorthands for package llmtext's reply helpers.
var (
	jsonObject = llmtext.Object
	lookup     = llmtext.Lookup
)

// stringField returns m's string value for key, trimmed, or "".
func stringField(m map[string]any, key string) string {
	v, _ := lookup(m, key)
	s, _ := v.(string)
	return strings.TrimSpace(s)
}

// intValue reads an integer given as a number or a numeric string.
func intValue(v any) (int, bool) {
	var f float64
	switch x := v.(type) {
	case json.Number:
		var err error
		if f, err = x.Float64(); err != nil {
			return 0, false
		}
	case float64:
		f = x
	case string:
		var err error
		if f, err = strconv.ParseFloat(strings.TrimPrefix(strings.TrimSpace(x), "#"), 64); err != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	if f != math.Trunc(f) || math.Abs(f) > 1e9 {
		return 0, false
	}
	return int(f), true
}

// boolValue reads a boolean given as a JSON boolean or "true"/"yes"/...
func boolValue(v any) (bool, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "yes":
			return true, true
		case "false", "no":
			return false, true
		}
	}
	return false, false
}

// describe shows a JSON value in an error message sent back to a model.
func describe(v any) string {
	if v == nil {
		return "missing"
	}
	b, _ := json.Marshal(v)
	return clip(string(b), 60)
}

// clip cuts s to at most n runes, marking a cut with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}

func ptr[T any](v T) *T { return &v }
