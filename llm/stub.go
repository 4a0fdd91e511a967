package llm

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Stub is an offline language model for demos, examples and tests. It answers
// every Purpose that package duelogic puts on its requests with plausible
// text: distinct voices for each philosophical chair and engineering
// perspective, the arbiter's podcast introduction, interjections and
// closing, and valid JSON for the JSON purposes ("evaluation",
// "interrupt_check"); an unknown purpose gets a generic paragraph, or "{}"
// when [Request.JSON] is set. It makes no network calls and answers at once.
//
// A Stub is deterministic: the same seed and the same request (purpose, model
// and messages) always give the same response, whatever the order or
// concurrency of calls, because every choice it makes is drawn from a hash of
// the seed and the request, never from state shared between calls. Different
// seeds give different debates.
//
// The stub reads the prompt conventions of package duelogic and falls back to
// neutral wording for anything it cannot find: user-supplied text fenced in
// tags on their own lines ("<proposition>", "<context>", "<response>",
// "<opener>"); a chair's system prompt beginning "You are holding the <Name>
// in this Duelogic debate." (or "the <Name> perspective"), listing opponents
// as "- <display name> (<framework name>)"; chair lists as
// "- <position>: <display name> from <provider>, <framework name>" or
// "- <position>: <display name> (<framework name>)".
//
// Chair texts steel-man an opponent and admit a blind spot, except that about
// 15% of them leave out the steel-man and, independently, about 15% the
// admission, so that the stub's own "evaluation" flags the lapse and the
// arbiter interjects; its "interrupt_check" asks for an interruption in about
// a quarter of the checks.
//
// Stub ignores Temperature and MaxTokens. Usage counts about four characters
// per token; Response.Model is Request.Model and FinishReason is "stop".
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
	resp := s.answer(req)
	if s.TokenDelay > 0 {
		wait := s.TokenDelay * time.Duration(len(stubDeltas(resp.Content)))
		if err := sleep(ctx, wait); err != nil {
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
	resp := s.answer(req)
	for _, d := range stubDeltas(resp.Content) {
		if s.TokenDelay > 0 {
			if err := sleep(ctx, s.TokenDelay); err != nil {
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

func (s *Stub) answer(req Request) Response {
	c := newStubCall(s.seed, req)
	var content string
	if w, ok := stubWriters[req.Purpose]; ok {
		content = w(c)
	} else if req.JSON {
		content = "{}"
	} else {
		content = writeGeneric(c)
	}
	prompt := 0
	for _, m := range req.Messages {
		prompt += utf8.RuneCountInString(m.Content)
	}
	return Response{
		Content:      content,
		Model:        req.Model,
		FinishReason: "stop",
		Usage:        Usage{PromptTokens: stubTokens(prompt), CompletionTokens: stubTokens(utf8.RuneCountInString(content))},
	}
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

// stubWriters holds the writer of each purpose the stub knows. It is filled
// by init functions of the stub_*.go files, one file per family of purposes,
// and never changed afterwards. To teach the stub a new purpose, add a file
// stub_<family>.go whose init calls registerStub; a writer reads the prompt
// through its *stubCall (tag, field, proposition, self, underReview) and
// draws every choice from it (pick, intn, roll), never from shared state.
var stubWriters = map[string]func(*stubCall) string{}

// registerStub adds the writer of a purpose; it is called from init.
func registerStub(purpose string, write func(*stubCall) string) {
	if _, dup := stubWriters[purpose]; dup {
		panic("llm: stub purpose registered twice: " + purpose)
	}
	stubWriters[purpose] = write
}

// stubCall is one request being answered: the request, the randomness derived
// from it, and helpers to read its prompt. A writer gets a fresh one per call,
// so it may draw choices freely.
type stubCall struct {
	req        Request
	hash       uint64
	rnd        stubRand
	promptText string // every message, joined by newlines
}

func newStubCall(seed int64, req Request) *stubCall {
	h := fnv.New64a()
	var num [binary.MaxVarintLen64]byte
	h.Write(binary.LittleEndian.AppendUint64(num[:0], uint64(seed)))
	field := func(s string) { // length-prefixed, so that fields cannot run together
		h.Write(binary.AppendUvarint(num[:0], uint64(len(s))))
		io.WriteString(h, s)
	}
	field(req.Purpose)
	field(req.Model)
	for _, m := range req.Messages {
		field(string(m.Role))
		field(m.Content)
	}
	sum := h.Sum64()
	parts := make([]string, len(req.Messages))
	for i, m := range req.Messages {
		parts[i] = m.Content
	}
	return &stubCall{req: req, hash: sum, rnd: stubRand{state: sum}, promptText: strings.Join(parts, "\n")}
}

// roll returns a number in [0, 1) for the decision named label. It depends
// only on the request and the label, not on the choices drawn before it, so a
// decision stays put when templates change.
func (c *stubCall) roll(label string) float64 {
	h := fnv.New64a()
	h.Write([]byte(label))
	r := stubRand{state: c.hash ^ h.Sum64()}
	return r.float()
}

func (c *stubCall) intn(n int) int { return c.rnd.intn(n) }

func (c *stubCall) pick(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return xs[c.rnd.intn(len(xs))]
}

// pickN returns n distinct elements of xs (fewer if xs is shorter) in random
// order.
func (c *stubCall) pickN(xs []string, n int) []string {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	n = min(n, len(xs))
	out := make([]string, 0, n)
	for i := range n {
		j := i + c.rnd.intn(len(idx)-i)
		idx[i], idx[j] = idx[j], idx[i]
		out = append(out, xs[idx[i]])
	}
	return out
}

// tag returns the trimmed text fenced as "<name>...</name>" in the prompt,
// looking at the last message first and taking its last occurrence, since the
// text a request is about comes last.
func (c *stubCall) tag(name string) (string, bool) {
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

// system returns the first system message, or "".
func (c *stubCall) system() string {
	for _, m := range c.req.Messages {
		if m.Role == System {
			return m.Content
		}
	}
	return ""
}

// lastUser returns the last user message, or "".
func (c *stubCall) lastUser() string {
	for i := len(c.req.Messages) - 1; i >= 0; i-- {
		if c.req.Messages[i].Role == User {
			return c.req.Messages[i].Content
		}
	}
	return ""
}

// prompt returns every message, joined by newlines.
func (c *stubCall) prompt() string { return c.promptText }

// proposition returns the debated proposition, shortened to about limit
// characters and quoted, or fallback when the prompt has none.
func (c *stubCall) proposition(limit int, fallback string) string {
	p, ok := c.tag("proposition")
	// A statement loses its full stop so that it can sit inside a sentence;
	// a question keeps its mark.
	p = strings.TrimRight(strings.Trim(stubShorten(p, limit), `"'“”`), ".")
	if !ok || p == "" {
		return fallback
	}
	return `"` + p + `"`
}

// field returns the value of a "Key: value" line of the prompt for the first
// key found (case-insensitive; list markers and ** are ignored), or "".
func (c *stubCall) field(keys ...string) string {
	lines := strings.Split(c.prompt(), "\n")
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

// stubShorten collapses whitespace in s and cuts it at a word boundary so it
// has at most about limit characters, marking a cut with "…".
func stubShorten(s string, limit int) string {
	s = strings.Join(strings.Fields(s), " ")
	n := 0
	for i := range s {
		if n < limit {
			n++
			continue
		}
		head := s[:i]
		if s[i] != ' ' {
			if sp := strings.LastIndexByte(head, ' '); sp > 0 {
				head = head[:sp]
			}
		}
		return strings.TrimRight(head, ",;:—- ") + "…"
	}
	return s
}

// stubExpand replaces each {key} in tmpl with vars[key]; a key written with a
// capital first letter ({Opp}) inserts the value capitalized. Unknown keys
// are left as they are.
func stubExpand(tmpl string, vars map[string]string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			break
		}
		key := tmpl[i+1 : i+j]
		b.WriteString(tmpl[:i])
		if v, ok := vars[key]; ok {
			b.WriteString(v)
		} else if v, ok := vars[stubLowerFirst(key)]; ok && key != stubLowerFirst(key) {
			b.WriteString(stubUpperFirst(v))
		} else {
			b.WriteString(tmpl[i : i+j+1])
		}
		tmpl = tmpl[i+j+1:]
	}
	b.WriteString(tmpl)
	return b.String()
}

func stubUpperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || !unicode.IsLower(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

func stubLowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || !unicode.IsUpper(r) {
		return s
	}
	return string(unicode.ToLower(r)) + s[n:]
}

// stubJoin makes paragraphs of sentences, capitalizing each sentence and
// tidying its punctuation.
func stubJoin(paragraphs ...[]string) string {
	var out []string
	for _, p := range paragraphs {
		var ss []string
		for _, s := range p {
			if s = strings.TrimSpace(s); s != "" {
				ss = append(ss, stubPunctuation.Replace(stubUpperFirst(s)))
			}
		}
		if len(ss) > 0 {
			out = append(out, strings.Join(ss, " "))
		}
	}
	return strings.Join(out, "\n\n")
}

// stubPunctuation drops the doubled punctuation a quoted question leaves at
// the end of a sentence: `asks "Why?".` becomes `asks "Why?"`.
var stubPunctuation = strings.NewReplacer(`?".`, `?"`, `?"?`, `?"`, `!".`, `!"`, `!"?`, `!"`, `."?`, `."`)

func stubWords(s string) int { return len(strings.Fields(s)) }

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
