// Package llmtest helps test code that calls language models through
// [llm.Client]: [Fake] is a scriptable in-memory client that records every
// request and answers from rules, and [TestClient] checks a host's own Client
// implementation against the llm.Client contract.
//
// # Scripting a Fake
//
// Rules say which requests they answer — by purpose, by model, or by any
// predicate — and with what: replies, errors, delays.
//
//	f := llmtest.New()
//	f.OnPurpose("evaluation").Reply(`{"adherenceScore": 80}`)
//	f.OnModel("x-ai/grok-3").Reply("first answer", "second answer")
//	f.OnPurpose("opening").Fail(llm.Temporary(errors.New("rate limited"), 0)).Reply("Good evening.")
//	f.On(func(r llm.Request) bool { return r.JSON }).Delay(2 * time.Second).Reply("{}")
//
// A request is answered by the first rule, in the order the rules were added,
// that matches it and is not used up. A rule gives its replies (and errors) in
// order, one per call, and then repeats its last one; [Rule.Times] limits how
// many calls a rule answers, after which requests fall through to the next
// matching rule. A request that no rule answers gets the [Fake.Default] rule's
// reply, which unless scripted is "fake reply for <purpose>".
//
// Every call is recorded, including one that fails, with its Schema: see
// [Fake.Requests] and [Fake.Calls]. A Fake is safe for concurrent use, and its
// delays run on the time package's clock, so they take no real time inside a
// testing/synctest bubble.
//
// # Schemas
//
// [Fake.CheckSchemas] makes a Fake hold the requests that carry an
// [llm.Request.Schema] to it, as a server that constrains its output by the
// schema would: a scripted reply that does not fit fails the call and the
// test, so that replies and schemas cannot drift apart. To see which
// requests carried a schema, look at the Schema of [Fake.Requests]:
//
//	for _, r := range f.Requests() {
//		if r.Purpose == "evaluation" && len(r.Schema) == 0 {
//			t.Errorf("an evaluation request without a schema")
//		}
//	}
package llmtest

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/duelogic/duelogic/internal/sleep"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/jsonschema"
)

// Fake is a scriptable [llm.Client] and [llm.Streamer] for tests. Create one
// with [New] (the zero value is not ready to use); add rules with [Fake.On],
// [Fake.OnPurpose] and [Fake.OnModel].
//
// Stream delivers a reply word by word: each delta is a word with the white
// space after it (the first delta also takes any white space before it), so
// that the deltas concatenate to the Content; an empty reply has no delta.
// Complete returns the same Response in one piece. Both check ctx before
// answering, during a delay and between deltas, and return ctx.Err() once it
// is done.
//
// A reply's Response gets, where left empty, the request's Model, the
// FinishReason [llm.FinishStop], and a Usage of one token per four bytes (rounded up) of
// the messages' contents and of the reply.
type Fake struct {
	mu       sync.Mutex
	rules    []*Rule
	fallback *Rule
	requests []llm.Request
	schemas  bool       // CheckSchemas was called
	schemaT  testing.TB // where CheckSchemas reports, or nil
}

var (
	_ llm.Client   = (*Fake)(nil)
	_ llm.Streamer = (*Fake)(nil)
)

// New returns a Fake with no rules, which answers every request with its
// [Fake.Default] reply.
func New() *Fake {
	f := &Fake{}
	f.fallback = &Rule{f: f}
	return f
}

// Rule is one entry of a [Fake]'s script: which requests it answers and how.
// Its methods add to it and return it, so that calls chain; they may be called
// at any time, also while the Fake is in use.
type Rule struct {
	f     *Fake
	match func(llm.Request) bool // nil: every request
	// The fields below are guarded by f.mu.
	steps []step
	delay time.Duration
	limit int // calls the rule answers; 0: no limit
	used  int // calls it has answered since the last Reset
}

// step is one answer of a rule.
type step struct {
	resp llm.Response
	err  error
	// deltas is how many deltas Stream delivers before returning err; -1
	// for none, so that it fails at once.
	deltas int
	// builtin marks the built-in reply of a rule without replies.
	builtin bool
}

// On adds a rule answering the requests for which match returns true. match
// is called with a copy of the request, possibly from several goroutines at
// once, and must not call the Fake's methods.
func (f *Fake) On(match func(llm.Request) bool) *Rule {
	r := &Rule{f: f, match: match}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rules = append(f.rules, r)
	return r
}

// OnPurpose adds a rule answering the requests with the given Purpose.
func (f *Fake) OnPurpose(purpose string) *Rule {
	return f.On(func(r llm.Request) bool { return r.Purpose == purpose })
}

// OnModel adds a rule answering the requests with the given Model.
func (f *Fake) OnModel(model string) *Rule {
	return f.On(func(r llm.Request) bool { return r.Model == model })
}

// Default returns the rule that answers the requests no other rule answers.
// Until it is given replies, it answers "fake reply for <purpose>" ("fake
// reply" when the request has no Purpose), as does any rule without replies.
// If it is used up (see [Rule.Times]), that built-in reply answers.
func (f *Fake) Default() *Rule { return f.fallback }

// Reply adds replies with the given contents, one per call, in order.
func (r *Rule) Reply(contents ...string) *Rule {
	for _, c := range contents {
		r.add(step{resp: llm.Response{Content: c}})
	}
	return r
}

// Respond adds whole responses, one per call, in order. Empty Model,
// FinishReason and Usage are filled in as described at [Fake].
func (r *Rule) Respond(resps ...llm.Response) *Rule {
	for _, resp := range resps {
		r.add(step{resp: resp})
	}
	return r
}

// Fail adds a call that returns err (before any delta, when streaming).
// Wrap err with [llm.Temporary] to make it retryable.
func (r *Rule) Fail(err error) *Rule {
	return r.add(step{err: err, deltas: -1})
}

// FailMidStream adds a call that breaks off: Stream delivers the first n
// deltas of content and then returns err; Complete returns err.
func (r *Rule) FailMidStream(content string, n int, err error) *Rule {
	return r.add(step{resp: llm.Response{Content: content}, err: err, deltas: max(n, 0)})
}

// Delay makes every call the rule answers wait d first, or until the call's
// ctx is done, in which case the call returns ctx.Err().
func (r *Rule) Delay(d time.Duration) *Rule {
	r.f.mu.Lock()
	defer r.f.mu.Unlock()
	r.delay = d
	return r
}

// Times limits the rule to answering n calls (counted since New or the last
// Reset); later requests fall through to the rules after it. n <= 0 removes
// the limit.
func (r *Rule) Times(n int) *Rule {
	r.f.mu.Lock()
	defer r.f.mu.Unlock()
	r.limit = max(n, 0)
	return r
}

func (r *Rule) add(s step) *Rule {
	r.f.mu.Lock()
	defer r.f.mu.Unlock()
	r.steps = append(r.steps, s)
	return r
}

// take claims the rule's next answer, or reports that it is used up. The
// caller holds f.mu. A rule without steps answers with the built-in reply.
func (r *Rule) take(req llm.Request) (step, time.Duration, bool) {
	if r.limit > 0 && r.used >= r.limit {
		return step{}, 0, false
	}
	i := r.used
	r.used++
	if len(r.steps) == 0 {
		return echo(req), r.delay, true
	}
	return r.steps[min(i, len(r.steps)-1)], r.delay, true
}

// echo is the built-in reply to req.
func echo(req llm.Request) step {
	text := "fake reply"
	if req.Purpose != "" {
		text += " for " + req.Purpose
	}
	return step{resp: llm.Response{Content: text}, builtin: true}
}

// CheckSchemas makes f hold every request that carries an
// [llm.Request.Schema] to it, from now on:
//
//   - the schema must be valid for OpenAI's strict mode
//     ([jsonschema.Strict]), as every format's schemas are written;
//   - a reply the script gives (by [Rule.Reply] or [Rule.Respond]) must
//     satisfy it ([jsonschema.Check]); the call fails otherwise, before
//     any delta, with an error wrapping [llm.ErrSchemaMismatch] that names
//     the path of each problem;
//   - the built-in reply of a rule without replies is the simplest
//     document valid against the schema ([jsonschema.Zero]) instead of
//     "fake reply for <purpose>".
//
// A failed check is also reported to t with t.Errorf, so that a test fails
// even when the code under test handles the error (a judge that falls back
// to its default, say); t may be nil, and then only the call fails.
// Scripted errors ([Rule.Fail], [Rule.FailMidStream]) and requests without
// a Schema are left alone. To test how code copes with a reply that does
// not fit, leave CheckSchemas off. CheckSchemas returns f.
func (f *Fake) CheckSchemas(t testing.TB) *Fake {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.schemas, f.schemaT = true, t
	return f
}

// checkSchema holds s, the answer to req, to req's Schema when f checks
// schemas; see [Fake.CheckSchemas].
func (f *Fake) checkSchema(req llm.Request, s step) (step, error) {
	f.mu.Lock()
	on, t := f.schemas, f.schemaT
	f.mu.Unlock()
	if !on || len(req.Schema) == 0 || s.err != nil {
		return s, nil
	}
	err := jsonschema.Strict(req.Schema)
	switch {
	case err != nil:
		err = fmt.Errorf("llmtest: request %q: its schema: %w", req.Purpose, err)
	case s.builtin:
		var zero []byte
		if zero, err = jsonschema.Zero(req.Schema); err != nil {
			err = fmt.Errorf("llmtest: request %q: no reply fits its schema: %w", req.Purpose, err)
		}
		s.resp.Content = string(zero)
	default:
		if err = jsonschema.Check(req.Schema, []byte(s.resp.Content)); err != nil {
			err = fmt.Errorf("llmtest: reply to %q: %w: %w", req.Purpose, llm.ErrSchemaMismatch, err)
		}
	}
	if err != nil && t != nil {
		t.Helper()
		t.Errorf("%v", err)
	}
	return s, err
}

// Complete records req and answers it by the script. A call whose ctx is
// already done returns ctx.Err() without using up a reply.
func (f *Fake) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	s, err := f.begin(ctx, req)
	if err != nil {
		return llm.Response{}, err
	}
	if s.err != nil {
		return llm.Response{}, s.err
	}
	return s.response(req), nil
}

// Stream records req and answers it by the script, delivering the reply word
// by word to onDelta. If onDelta returns an error, Stream returns it.
func (f *Fake) Stream(ctx context.Context, req llm.Request, onDelta func(delta string) error) (llm.Response, error) {
	s, err := f.begin(ctx, req)
	if err != nil {
		return llm.Response{}, err
	}
	deltas := words(s.resp.Content)
	if s.err != nil {
		deltas = deltas[:min(max(s.deltas, 0), len(deltas))]
	}
	for _, d := range deltas {
		if err := ctx.Err(); err != nil {
			return llm.Response{}, err
		}
		if onDelta != nil {
			if err := onDelta(d); err != nil {
				return llm.Response{}, err
			}
		}
	}
	if s.err != nil {
		return llm.Response{}, s.err
	}
	return s.response(req), nil
}

// begin records req, picks its answer and waits out the answering rule's
// delay.
func (f *Fake) begin(ctx context.Context, req llm.Request) (step, error) {
	f.mu.Lock()
	f.requests = append(f.requests, clone(req))
	rules := append(slices.Clip(f.rules), f.fallback)
	f.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return step{}, err
	}

	s, delay := echo(req), time.Duration(0)
	for _, r := range rules {
		if r.match != nil && !r.match(clone(req)) {
			continue
		}
		f.mu.Lock()
		rs, rd, ok := r.take(req)
		f.mu.Unlock()
		if ok {
			s, delay = rs, rd
			break
		}
	}
	if err := sleep.For(ctx, delay); err != nil {
		return step{}, err
	}
	return f.checkSchema(req, s)
}

// response fills in what s's Response leaves empty.
func (s step) response(req llm.Request) llm.Response {
	resp := s.resp
	if resp.Model == "" {
		resp.Model = req.Model
	}
	if resp.FinishReason == "" {
		resp.FinishReason = llm.FinishStop
	}
	if resp.Usage == (llm.Usage{}) {
		prompt := 0
		for _, m := range req.Messages {
			prompt += len(m.Content)
		}
		resp.Usage = llm.Usage{PromptTokens: tokens(prompt), CompletionTokens: tokens(len(resp.Content))}
	}
	return resp
}

// tokens estimates the tokens of n bytes of text: one per four bytes.
func tokens(n int) int { return (n + 3) / 4 }

// words splits s before each word that follows white space, except the
// first word: "  Hello, big\nworld" gives "  Hello, ", "big\n", "world". The
// pieces concatenate to s.
func words(s string) []string {
	var out []string
	start, word, space := 0, false, false
	for i, r := range s {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && word {
			out = append(out, s[start:i])
			start = i
		}
		word, space = true, false
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// Requests returns copies of the requests received since New or the last
// Reset, in the order the calls began.
func (f *Fake) Requests() []llm.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	reqs := make([]llm.Request, len(f.requests))
	for i, r := range f.requests {
		reqs[i] = clone(r)
	}
	return reqs
}

// Calls returns how many requests with the given Purpose were received since
// New or the last Reset.
func (f *Fake) Calls(purpose string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.requests {
		if r.Purpose == purpose {
			n++
		}
	}
	return n
}

// Reset forgets the recorded requests and rewinds every rule, Default
// included, to its first reply and a fresh [Rule.Times] count. The rules
// stay; to drop them, make a new Fake.
func (f *Fake) Reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = nil
	for _, r := range f.rules {
		r.used = 0
	}
	f.fallback.used = 0
}

// clone returns a copy of r that shares no memory with it.
func clone(r llm.Request) llm.Request {
	r.Messages = slices.Clone(r.Messages)
	r.Schema = bytes.Clone(r.Schema)
	if r.Temperature != nil {
		t := *r.Temperature
		r.Temperature = &t
	}
	return r
}
