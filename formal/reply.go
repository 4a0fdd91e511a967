package formal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/internal/llmtext"
	"github.com/duelogic/duelogic/llm"
)

// ErrInvalidReply is matched (errors.Is) by the error that stops a debate
// when a free-text reply stays unusable after it is asked for again once (a
// document left empty). A JSON judgment never stops the debate: its
// documented default applies (see the package documentation).
var ErrInvalidReply = errors.New("formal: invalid model reply")

// rejectedPrefix starts the message that asks for a free-text reply again.
const rejectedPrefix = "Your reply was rejected"

// askText sends req, a request for free text, as who and passes the reply
// to accept; when accept rejects it, the model is shown its reply (clipped)
// and the problem and asked again, once. A reply stopped at its token cap
// is logged. It returns the usage of every call.
func (p *play) askText(ctx context.Context, who Speaker, req llm.Request, accept func(reply string) error) (llm.Usage, error) {
	var usage llm.Usage
	for attempt := 0; ; attempt++ {
		resp, err := p.s.Call(ctx, req, p.seg, who.voice())
		usage = usage.Add(resp.Usage)
		if err != nil {
			return usage, err
		}
		p.s.Truncated(req, resp, p.seg, who.voice())
		perr := accept(resp.Content)
		if perr == nil {
			return usage, nil
		}
		if attempt == 1 {
			return usage, fmt.Errorf("%w: %s reply rejected twice, last: %v", ErrInvalidReply, req.Purpose, perr)
		}
		req.Messages = append(req.Messages[:len(req.Messages):len(req.Messages)],
			llm.Message{Role: llm.Assistant, Content: clip(resp.Content, engine.MaxQuotedReply)},
			llm.Message{Role: llm.User, Content: rejectedPrefix + ": " + perr.Error() + ". Reply again, following the instructions above."})
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
