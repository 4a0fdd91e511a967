package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"

	"github.com/duelogic/duelogic/internal/llmtext"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/jsonschema"
)

// A judgment is a model call whose reply is one JSON object a format reads
// (an evaluation, a verdict, speech-act moves, an analysis...). [Judge]
// makes one: the request carries the JSON Schema of the reply
// (llm.Request.Schema, written for OpenAI's strict mode), a reply that does
// not parse is asked again once with the problem stated and the reply
// quoted (clipped to [MaxQuotedReply] runes), and after that the caller's
// documented default applies and the debate goes on.
//
// A reply whose finish reason is "length" was cut at the request's
// MaxTokens: it is counted as truncated, and if it does not parse the model
// is told it was cut off (not that it gave the wrong fields) and asked for a
// shorter reply.

// MaxQuotedReply bounds, in runes, the unusable reply quoted back to the
// model when a judgment is asked again, so a rambling reply does not grow
// the prompt of the second attempt.
const MaxQuotedReply = 600

// ReaskPrefix opens the message with which [Judge] asks again after an
// unusable reply; an offline stub model reads it to tell a re-ask.
const ReaskPrefix = "Your reply cannot be used: "

// JudgmentOutcome says how the reply to one judgment was read.
type JudgmentOutcome struct {
	// Reasked: the first reply could not be used and the model was asked
	// again.
	Reasked bool `json:"reasked,omitempty"`
	// Defaulted: no reply could be used; the caller applied its
	// documented default.
	Defaulted bool `json:"defaulted,omitempty"`
	// Truncated counts the replies cut at the request's MaxTokens (finish
	// reason "length"), used or not.
	Truncated int `json:"truncated,omitempty"`
	// Problem is why the last unusable reply was rejected ("" when the
	// first reply was used); a reply cut at its cap says so.
	Problem string `json:"problem,omitempty"`
	// Model is the model that gave the last reply (the request's when the
	// client names none).
	Model string `json:"-"`
	// Reply is the last reply as received, for a default built from it.
	Reply string `json:"-"`
}

// JudgmentCounts counts how the judgments of one purpose were read.
type JudgmentCounts struct {
	// First counts judgments whose first reply was used.
	First int `json:"first"`
	// Reasked counts judgments whose reply was used after the one re-ask.
	Reasked int `json:"reasked"`
	// Defaulted counts judgments that got no usable reply: the format's
	// documented default applied.
	Defaulted int `json:"defaulted"`
	// Truncated counts replies cut at their token cap (finish reason
	// "length"), whether or not they could be used.
	Truncated int `json:"truncated"`
}

func (c JudgmentCounts) add(d JudgmentCounts) JudgmentCounts {
	return JudgmentCounts{First: c.First + d.First, Reasked: c.Reasked + d.Reasked, Defaulted: c.Defaulted + d.Defaulted, Truncated: c.Truncated + d.Truncated}
}

// counts is the outcome as counts.
func (o JudgmentOutcome) counts() JudgmentCounts {
	c := JudgmentCounts{Truncated: o.Truncated}
	switch {
	case o.Defaulted:
		c.Defaulted = 1
	case o.Reasked:
		c.Reasked = 1
	default:
		c.First = 1
	}
	return c
}

// Judge asks for a judgment through s (unstored, like [Session.Call]):
// it sends req, reads the reply with parse and, when parse fails, asks once
// more with the problem stated and the reply quoted (clipped). It returns
// the parsed value and an outcome with Defaulted false, or the zero T and
// an outcome with Defaulted true when neither reply could be used: the
// caller then applies its documented default and the debate goes on. The
// error is a model failure, a store failure or ctx's cancellation only.
//
// req should carry the reply's JSON Schema (req.Schema) and a MaxTokens cap;
// Judge sets req.JSON, so a client that cannot send a schema still asks
// for JSON, and raises MaxTokens to [SchemaTokens] when the schema bounds
// its replies and the cap is lower, so that a reply a server keeps in the
// schema's shape can always close ([WithMaxTokens] still decides last).
// The outcome is counted under req.Purpose in [Result.Judgments] and the
// debate_ended event: with the step whose produce function made the call
// (a [Session.Step] or [Session.SideStep] given ctx), so a resumed debate
// counts the judgments of its replayed steps as it charges their usage;
// outside any step, in this process only. A defaulted judgment is logged.
// Judge may be called from several goroutines at once.
func Judge[T any](ctx context.Context, s *Session, req llm.Request, seg Segment, speaker string, parse func(reply string) (T, error)) (T, JudgmentOutcome, llm.Usage, error) {
	if n, err := SchemaTokens(req.Schema); err == nil && n > req.MaxTokens {
		req.MaxTokens = n
	}
	v, out, usage, err := judge(ctx, func(ctx context.Context, req llm.Request) (llm.Response, error) {
		return s.Call(ctx, req, seg, speaker)
	}, req, parse, func(req llm.Request, resp llm.Response) string { return s.cutBy(req, resp, seg, speaker) })
	if err != nil {
		return v, out, usage, err
	}
	if !tally(ctx, req.Purpose, out) {
		s.countJudgments(map[string]JudgmentCounts{req.Purpose: out.counts()})
	}
	switch {
	case out.Defaulted:
		s.o.logger.Warn("engine: judgment unusable; default applied", "debate", s.d.ID, "purpose", req.Purpose,
			"segment", seg, "speaker", speaker, "problem", out.Problem)
	case out.Reasked:
		s.o.logger.Info("engine: judgment asked again", "debate", s.d.ID, "purpose", req.Purpose,
			"segment", seg, "speaker", speaker, "problem", out.Problem)
	}
	return v, out, usage, nil
}

// CharsPerToken is the characters of JSON text [SchemaTokens] counts a
// token for: fewer than the four of English prose, so that a cap it gives
// leaves room for short words, digits and punctuation.
const CharsPerToken = 3

// SchemaTokens is a completion cap that fits the longest reply valid
// against schema: its [jsonschema.MaxSize] at [CharsPerToken] characters a
// token, and 16 tokens more. It is an error when the schema bounds no
// reply (a string without maxLength, an array without maxItems...): the
// error names where.
func SchemaTokens(schema json.RawMessage) (int, error) {
	n, err := jsonschema.MaxSize(schema)
	if err != nil {
		return 0, err
	}
	return (n+CharsPerToken-1)/CharsPerToken + 16, nil
}

// JudgeWith is [Judge] for code that holds a client rather than a session
// (a source verifier a host may also use on its own). Its outcome is
// counted only when ctx is the context of a step's produce function; it
// logs nothing.
func JudgeWith[T any](ctx context.Context, c llm.Client, req llm.Request, parse func(reply string) (T, error)) (T, JudgmentOutcome, llm.Usage, error) {
	if n, err := SchemaTokens(req.Schema); err == nil && n > req.MaxTokens {
		req.MaxTokens = n
	}
	v, out, usage, err := judge(ctx, c.Complete, req, parse, cutText)
	if err == nil {
		tally(ctx, req.Purpose, out)
	}
	return v, out, usage, err
}

// judge is Judge and JudgeWith: call makes the calls, cut says what cut a
// reply whose finish reason is "length".
func judge[T any](ctx context.Context, call func(context.Context, llm.Request) (llm.Response, error), req llm.Request, parse func(reply string) (T, error),
	cut func(llm.Request, llm.Response) string) (T, JudgmentOutcome, llm.Usage, error) {
	var (
		zero  T
		out   JudgmentOutcome
		usage llm.Usage
	)
	req.JSON = true // a client that cannot send the schema still asks for JSON
	for attempt := 0; ; attempt++ {
		resp, err := call(ctx, req)
		usage = usage.Add(resp.Usage)
		if err != nil {
			return zero, out, usage, err
		}
		out.Reply, out.Model = resp.Content, resp.Model
		if out.Model == "" {
			out.Model = req.Model
		}
		short := resp.FinishReason == llm.FinishLength
		if short {
			out.Truncated++
		}
		v, perr := readReply(req.Schema, resp.Content, parse)
		if perr == nil {
			return v, out, usage, nil
		}
		out.Problem = llmtext.Truncate(llmtext.OneLine(perr.Error()), 300)
		if short {
			out.Problem = fmt.Sprintf("%s (%s)", cut(req, resp), out.Problem)
		}
		if attempt == 1 {
			out.Defaulted = true
			return zero, out, usage, nil
		}
		out.Reasked = true
		req.Messages = reaskMessages(req.Messages, resp.Content, out.Problem, short)
	}
}

// readReply parses reply with the format's parser, which is tolerant of
// what models do to JSON (fences, prose around it, numbers as strings) and
// checks the fields it reads; what it accepts is accepted. When it refuses
// a reply that is JSON, the violations of schema are added to the problem,
// so the re-ask says precisely what is wrong.
func readReply[T any](schema json.RawMessage, reply string, parse func(string) (T, error)) (T, error) {
	v, err := parse(reply)
	if err == nil || len(schema) == 0 {
		return v, err
	}
	if doc := []byte(strings.TrimSpace(reply)); json.Valid(doc) {
		var verr *jsonschema.ValidationError
		if cerr := jsonschema.Check(schema, doc); errors.As(cerr, &verr) {
			return v, fmt.Errorf("%w (against the schema: %s)", err, strings.TrimPrefix(verr.Error(), "jsonschema: "))
		}
	}
	return v, err
}

// reaskMessages extends a conversation with the unusable reply (clipped)
// and why it cannot be used.
func reaskMessages(msgs []llm.Message, reply, problem string, cut bool) []llm.Message {
	msgs = msgs[:len(msgs):len(msgs)]
	if quoted := strings.TrimSpace(reply); quoted != "" {
		msgs = append(msgs, llm.Message{Role: llm.Assistant, Content: llmtext.Truncate(quoted, MaxQuotedReply)})
	}
	ask := ReaskPrefix + problem + ". Reply again with only the JSON object asked for, complete and valid."
	if cut {
		ask = ReaskPrefix + "it was cut off at its length limit before the JSON object was complete. " +
			"Reply again with only the JSON object asked for, shorter: keep every text in it brief."
	}
	return append(msgs, llm.Message{Role: llm.User, Content: ask})
}

// tallyKey marks the context of a step's produce function, which carries the
// tally of the judgments made for it.
type tallyKey struct{}

// judgmentTally gathers the judgments made for one step, from any
// goroutine.
type judgmentTally struct {
	mu sync.Mutex
	m  map[string]JudgmentCounts
}

// withTally returns ctx carrying a fresh tally.
func withTally(ctx context.Context) (context.Context, *judgmentTally) {
	t := &judgmentTally{}
	return context.WithValue(ctx, tallyKey{}, t), t
}

// tally counts out in ctx's tally and reports whether ctx had one.
func tally(ctx context.Context, purpose string, out JudgmentOutcome) bool {
	t, _ := ctx.Value(tallyKey{}).(*judgmentTally)
	if t == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = map[string]JudgmentCounts{}
	}
	t.m[purpose] = t.m[purpose].add(out.counts())
	return true
}

// counts returns what the tally holds (nil when nothing).
func (t *judgmentTally) counts() map[string]JudgmentCounts {
	t.mu.Lock()
	defer t.mu.Unlock()
	return maps.Clone(t.m)
}

// countJudgments adds counts to the debate's.
func (s *Session) countJudgments(counts map[string]JudgmentCounts) {
	if len(counts) == 0 {
		return
	}
	s.usageMu.Lock()
	defer s.usageMu.Unlock()
	if s.judgments == nil {
		s.judgments = map[string]JudgmentCounts{}
	}
	for p, c := range counts {
		s.judgments[p] = s.judgments[p].add(c)
	}
}

// Judgments returns the counts of the judgments made so far, by purpose.
func (s *Session) Judgments() map[string]JudgmentCounts {
	s.usageMu.Lock()
	defer s.usageMu.Unlock()
	return maps.Clone(s.judgments)
}

// Truncated reports whether resp, the reply to req, was cut short (finish
// reason "length": at req's MaxTokens, or by the end of the model's
// context), and logs which when it was: a format that keeps such a
// free-text reply marks it ([Utterance].Truncated).
func (s *Session) Truncated(req llm.Request, resp llm.Response, seg Segment, speaker string) bool {
	if resp.FinishReason != llm.FinishLength {
		return false
	}
	s.cutBy(req, resp, seg, speaker)
	return true
}

// cutBy says what cut resp, the reply to req whose finish reason is
// "length", and logs it: the end of the model's context when the reply
// stopped before req's MaxTokens (the server counted fewer completion
// tokens than the cap: its context was full), else the cap.
func (s *Session) cutBy(req llm.Request, resp llm.Response, seg Segment, speaker string) string {
	if contextFull(req, resp) {
		s.o.logger.Warn("engine: the model's context is full: a reply stopped before its token cap; give the server a larger context (llama-server -c)",
			"debate", s.d.ID, "purpose", req.Purpose, "segment", seg, "speaker", speaker,
			"promptTokens", resp.Usage.PromptTokens, "completionTokens", resp.Usage.CompletionTokens, "maxTokens", req.MaxTokens)
	} else {
		s.o.logger.Warn("engine: reply cut at its token cap", "debate", s.d.ID, "purpose", req.Purpose,
			"segment", seg, "speaker", speaker, "maxTokens", req.MaxTokens)
	}
	return cutText(req, resp)
}

// contextFull reports whether resp, cut short (finish reason "length"),
// stopped before req's MaxTokens: the server counted fewer completion
// tokens than the cap, so the model's context was full.
func contextFull(req llm.Request, resp llm.Response) bool {
	n := resp.Usage.CompletionTokens
	return req.MaxTokens > 0 && n > 0 && n < req.MaxTokens
}

// cutText says what cut resp short: the end of the model's context, or
// req's MaxTokens.
func cutText(req llm.Request, resp llm.Response) string {
	if contextFull(req, resp) {
		return fmt.Sprintf("cut off by the end of the model's context after %d tokens, before its limit of %d", resp.Usage.CompletionTokens, req.MaxTokens)
	}
	return fmt.Sprintf("cut off at its limit of %d tokens", req.MaxTokens)
}
