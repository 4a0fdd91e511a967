package llm

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/fnv"
	"io"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/duelogic/duelogic/internal/sleep"
	"github.com/duelogic/duelogic/internal/stubtext"
	"github.com/duelogic/duelogic/llm/jsonschema"
)

// Stub is an offline language model for demos, examples and tests. It makes
// no network calls and answers at once. It knows no debate format: the
// package that owns a Purpose teaches the stub to answer it with
// [RegisterStub], from an init function, the way a database/sql driver
// registers itself. Package duelogic registers the podcast format's purposes
// (the chairs' texts, the arbiter's introduction, interjections and closing,
// the "evaluation" and "interrupt_check" judgements, "argument_extraction"),
// and packages formal, scored, moderated and persuasion register theirs, so
// a program that runs a format has its stub answers. A purpose nobody
// registered gets a generic paragraph about the <proposition> of the prompt;
// when the request wants JSON, the simplest document valid against its
// [Request.Schema] (see [jsonschema.Zero]: null where null is allowed, the
// first enum value, "", 0, false, objects with every required property),
// or "{}" when it has no Schema.
//
// A request with a Schema is held to it, so that a format's schemas and its
// stub answers cannot drift apart unnoticed: the schema must be valid for
// OpenAI's strict mode ([jsonschema.Strict]), and the answer must satisfy
// it ([jsonschema.Check]). Otherwise the call fails, with an error wrapping
// [ErrSchemaMismatch] for an answer that does not fit, naming the path of
// each problem.
//
// A Stub is deterministic: its answer depends on its seed and the request
// only (purpose, model and messages), whatever the order or concurrency of
// calls, because every choice a writer makes is drawn from a hash of the seed
// and the request ([StubCall]), never from state shared between calls or from
// the clock. A writer whose prompts carry values that must not sway the
// answer, such as dates, draws from [StubCall.Rekey]. Different seeds give
// different debates.
//
// Stub ignores Temperature and MaxTokens. Usage counts about four characters
// per token; Response.Model is Request.Model and FinishReason is
// [FinishStop].
// A Stub is safe for concurrent use.
type Stub struct {
	// TokenDelay, when positive, makes Stream pause before each word it
	// delivers, and Complete pause as long as streaming the whole answer
	// would, so that a demo feels live. The pauses end early when ctx is done.
	// Set it before the first call.
	TokenDelay time.Duration

	seed int64
}

var (
	_ Client   = (*Stub)(nil)
	_ Streamer = (*Stub)(nil)
)

// NewStub returns a stub whose answers are determined by seed.
func NewStub(seed int64) *Stub { return &Stub{seed: seed} }

// Complete answers req; see [Stub].
func (s *Stub) Complete(ctx context.Context, req Request) (Response, error) {
	if err := ctx.Err(); err != nil {
		return Response{}, stubContextError(req, err)
	}
	resp, err := s.answer(req)
	if err != nil {
		return Response{}, err
	}
	if s.TokenDelay > 0 {
		wait := s.TokenDelay * time.Duration(len(stubDeltas(resp.Content)))
		if err := sleep.For(ctx, wait); err != nil {
			return Response{}, stubContextError(req, err)
		}
	}
	return resp, nil
}

// Stream answers req one word at a time: each delta is a word with the
// whitespace before it, and the deltas concatenate to the response's Content.
func (s *Stub) Stream(ctx context.Context, req Request, onDelta func(delta string) error) (Response, error) {
	if err := ctx.Err(); err != nil {
		return Response{}, stubContextError(req, err)
	}
	resp, err := s.answer(req)
	if err != nil {
		return Response{}, err
	}
	for _, d := range stubDeltas(resp.Content) {
		if s.TokenDelay > 0 {
			if err := sleep.For(ctx, s.TokenDelay); err != nil {
				return Response{}, stubContextError(req, err)
			}
		} else if err := ctx.Err(); err != nil {
			return Response{}, stubContextError(req, err)
		}
		if onDelta != nil {
			if err := onDelta(d); err != nil {
				return Response{}, err
			}
		}
	}
	return resp, nil
}

func (s *Stub) answer(req Request) (Response, error) {
	c := newStubCall(s.seed, req)
	var content string
	switch w := stubWriter(req.Purpose); {
	case w != nil:
		content = w(c)
	case len(req.Schema) > 0:
		zero, err := jsonschema.Zero(req.Schema)
		if err != nil {
			return Response{}, fmt.Errorf("llm: stub %q: no answer fits the request's schema: %w", req.Purpose, err)
		}
		content = string(zero)
	case req.WantsJSON():
		content = "{}"
	default:
		content = writeGeneric(c)
	}
	if len(req.Schema) > 0 {
		if err := jsonschema.Strict(req.Schema); err != nil {
			return Response{}, fmt.Errorf("llm: stub %q: the request's schema: %w", req.Purpose, err)
		}
		if err := jsonschema.Check(req.Schema, []byte(content)); err != nil {
			return Response{}, fmt.Errorf("llm: stub %q: %w: %w", req.Purpose, ErrSchemaMismatch, err)
		}
	}
	prompt := 0
	for _, m := range req.Messages {
		prompt += utf8.RuneCountInString(m.Content)
	}
	return Response{
		Content:      content,
		Model:        req.Model,
		FinishReason: FinishStop,
		Usage:        Usage{PromptTokens: stubTokens(prompt), CompletionTokens: stubTokens(utf8.RuneCountInString(content))},
	}, nil
}

// stubTokens estimates the tokens of n characters: about four per token.
func stubTokens(chars int) int { return (chars + 3) / 4 }

func stubContextError(req Request, err error) error {
	return fmt.Errorf("llm: stub %q: %w", req.Purpose, err)
}

// stubDeltas splits s into word-sized pieces, each a word with the whitespace
// before it, whose concatenation is s.
func stubDeltas(s string) []string {
	var out []string
	start, inSpace := 0, false
	for i, r := range s {
		space := unicode.IsSpace(r)
		if space && !inSpace && i > start {
			out = append(out, s[start:i])
			start = i
		}
		inSpace = space
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

var (
	stubMu      sync.RWMutex
	stubWriters = map[string]func(*StubCall) string{}
)

// RegisterStub makes every [Stub] answer requests of the given purpose with
// write. It is meant to be called from an init function of the package that
// owns the purpose and writes its prompts, so that the prompts and the stub's
// reading of them change together. write must draw every choice from its
// [StubCall], never from shared state or the clock, and must return a valid
// answer (valid JSON for a JSON purpose) for any prompt, however malformed.
//
// RegisterStub panics if write is nil or if the purpose is already
// registered.
func RegisterStub(purpose string, write func(*StubCall) string) {
	stubMu.Lock()
	defer stubMu.Unlock()
	if write == nil {
		panic("llm: RegisterStub writer is nil")
	}
	if _, dup := stubWriters[purpose]; dup {
		panic("llm: RegisterStub called twice for purpose " + purpose)
	}
	stubWriters[purpose] = write
}

func stubWriter(purpose string) func(*StubCall) string {
	stubMu.RLock()
	defer stubMu.RUnlock()
	return stubWriters[purpose]
}

// StubCall is one request a [Stub] is answering, as its writer sees it: the
// request, helpers that read its prompt, and the random choices derived from
// the seed and the request. A writer gets a fresh StubCall per request and
// must not keep it; its draws are not safe for concurrent use.
type StubCall struct {
	seed   int64
	req    Request
	hash   uint64
	rnd    stubRand
	prompt string // every message, joined by newlines
}

func newStubCall(seed int64, req Request) *StubCall {
	h, field := stubHash(seed)
	field(req.Purpose)
	field(req.Model)
	for _, m := range req.Messages {
		field(string(m.Role))
		field(m.Content)
	}
	parts := make([]string, len(req.Messages))
	for i, m := range req.Messages {
		parts[i] = m.Content
	}
	return newStubCallHash(seed, req, h.Sum64(), strings.Join(parts, "\n"))
}

func newStubCallHash(seed int64, req Request, sum uint64, prompt string) *StubCall {
	return &StubCall{seed: seed, req: req, hash: sum, rnd: stubRand{state: sum}, prompt: prompt}
}

// stubHash starts a hash of the seed and returns it with a function that
// adds a length-prefixed string, so that strings cannot run together.
func stubHash(seed int64) (h hash.Hash64, field func(string)) {
	f := fnv.New64a()
	var num [binary.MaxVarintLen64]byte
	f.Write(binary.LittleEndian.AppendUint64(num[:0], uint64(seed)))
	return f, func(s string) {
		f.Write(binary.AppendUvarint(num[:0], uint64(len(s))))
		io.WriteString(f, s)
	}
}

// Rekey returns a call for the same request whose draws depend only on the
// stub's seed, the request's purpose and model, and text, instead of on the
// whole request. A writer whose prompt carries values that must not change
// its answer, such as today's date or timestamps, rekeys on the prompt with
// those values masked; its reading helpers still see the real prompt. The
// returned call starts its draws afresh.
func (c *StubCall) Rekey(text string) *StubCall {
	h, field := stubHash(c.seed)
	field(c.req.Purpose)
	field(c.req.Model)
	field(text)
	return newStubCallHash(c.seed, c.req, h.Sum64(), c.prompt)
}

// Request returns the request being answered. Its Messages must not be
// changed.
func (c *StubCall) Request() Request { return c.req }

// Roll returns a number in [0, 1) for the decision named label. It depends
// only on the seed, the request and the label, not on the draws made before
// it, so a decision stays put when a writer's templates change.
func (c *StubCall) Roll(label string) float64 {
	h := fnv.New64a()
	h.Write([]byte(label))
	r := stubRand{state: c.hash ^ h.Sum64()}
	return r.float()
}

// Intn returns the next draw in [0, n), or 0 when n <= 0.
func (c *StubCall) Intn(n int) int { return c.rnd.intn(n) }

// Pick returns the next draw among xs, or "" when xs is empty.
func (c *StubCall) Pick(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return xs[c.rnd.intn(len(xs))]
}

// PickN returns n distinct elements of xs (fewer if xs is shorter) in random
// order.
func (c *StubCall) PickN(xs []string, n int) []string {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	n = max(min(n, len(xs)), 0)
	out := make([]string, 0, n)
	for i := range n {
		j := i + c.rnd.intn(len(idx)-i)
		idx[i], idx[j] = idx[j], idx[i]
		out = append(out, xs[idx[i]])
	}
	return out
}

// Tag returns the trimmed text fenced as "<name>...</name>" in the prompt,
// and whether there is one. It looks at the last message first and takes
// its last occurrence, since the text a request is about comes last; an
// unclosed tag runs to the end of its message.
func (c *StubCall) Tag(name string) (string, bool) {
	openTag, closeTag := "<"+name+">", "</"+name+">"
	for i := len(c.req.Messages) - 1; i >= 0; i-- {
		s := c.req.Messages[i].Content
		j := strings.LastIndex(s, openTag)
		if j < 0 {
			continue
		}
		s = s[j+len(openTag):]
		if k := strings.Index(s, closeTag); k >= 0 {
			s = s[:k]
		}
		return strings.TrimSpace(s), true
	}
	return "", false
}

// System returns the first system message, or "".
func (c *StubCall) System() string {
	for _, m := range c.req.Messages {
		if m.Role == System {
			return m.Content
		}
	}
	return ""
}

// LastUser returns the last user message, or "".
func (c *StubCall) LastUser() string {
	for i := len(c.req.Messages) - 1; i >= 0; i-- {
		if c.req.Messages[i].Role == User {
			return c.req.Messages[i].Content
		}
	}
	return ""
}

// Prompt returns every message, joined by newlines.
func (c *StubCall) Prompt() string { return c.prompt }

// Field returns the value of a "Key: value" line of the prompt for the first
// of keys found, or "". Keys match case-insensitively; list markers, ** and
// quotes around the value are ignored, and a line with an empty value does
// not count.
func (c *StubCall) Field(keys ...string) string {
	lines := strings.Split(c.prompt, "\n")
	for _, key := range keys {
		for _, line := range lines {
			line = strings.TrimLeft(strings.TrimSpace(line), "-*• ")
			line = strings.ReplaceAll(line, "**", "")
			if len(line) <= len(key) || !strings.EqualFold(line[:len(key)], key) || line[len(key)] != ':' {
				continue
			}
			if v := strings.Trim(strings.TrimSpace(line[len(key)+1:]), `"'“”`); v != "" {
				return v
			}
		}
	}
	return ""
}

// writeGeneric answers a purpose nobody registered.
func writeGeneric(c *StubCall) string {
	p, _ := c.Tag("proposition")
	vars := map[string]string{"P": stubtext.Quote(p, 90, "this question")}
	return stubtext.Join([]string{
		stubtext.Expand(c.Pick([]string{
			"There is more than one reasonable way to look at {P}.",
			"{P} is harder than it first appears.",
			"Reasonable people disagree about {P}, and not because either side is careless.",
		}), vars),
		c.Pick([]string{
			"The disagreement usually turns on what we weigh most heavily, and on who bears the cost if we are wrong.",
			"Most of the disagreement comes from different starting points rather than different facts.",
		}),
		c.Pick([]string{
			"A careful answer names its assumptions, meets the best objection, and says what evidence would change its mind.",
			"The useful move is to say plainly what each position assumes and what it would take to change it.",
		}),
	})
}

// stubRand is a small deterministic generator (SplitMix64), so that the
// stub's output does not depend on the standard library's algorithms.
type stubRand struct{ state uint64 }

func (r *stubRand) next() uint64 {
	r.state += 0x9e3779b97f4a7c15
	z := r.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (r *stubRand) intn(n int) int {
	if n <= 0 {
		return 0
	}
	return int(r.next() % uint64(n))
}

func (r *stubRand) float() float64 { return float64(r.next()>>11) / (1 << 53) }
