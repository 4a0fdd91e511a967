package cliapp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/events"
	"github.com/duelogic/duelogic/examples/internal/render"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
	"github.com/google/go-cmp/cmp"
)

// counting is the stub, counting the calls made to it.
type counting struct {
	*llm.Stub
	calls atomic.Int64
}

func (c *counting) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	c.calls.Add(1)
	return c.Stub.Complete(ctx, req)
}

func (c *counting) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	c.calls.Add(1)
	return c.Stub.Stream(ctx, req, onDelta)
}

// recorder keeps the events given to it.
type recorder struct {
	mu     sync.Mutex
	events []engine.Event
}

func (r *recorder) Emit(_ context.Context, e engine.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) last() engine.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.events) == 0 {
		return engine.Event{}
	}
	return r.events[len(r.events)-1]
}

// testEnv is an env on a memory store and the counting stub, rendering to
// out; args are the command line.
func testEnv(t *testing.T, st store.Store, out io.Writer, args ...string) (*env, *counting, *recorder) {
	t.Helper()
	opt, _, err := parse(args, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	r, rec := render.New(out, duelogic.Config{}, render.Options{}), &recorder{}
	client := &counting{Stub: llm.NewStub(1)}
	return &env{opt: opt, client: client, store: st, sink: events.FanOut(r, rec), render: r,
		stdin: newLines(strings.NewReader("")), stderr: out}, client, rec
}

// TestPlayEveryFormat plays a debate of every registered format as the
// command does (engine.Open with its flags' configuration, engine.Run),
// then resumes the finished debate (engine.ResumeStored): the resume asks
// no model and gives the same documents.
func TestPlayEveryFormat(t *testing.T) {
	tests := map[string]struct {
		args    []string
		summary string   // in the output at the end
		docs    []string // the format's own documents, by suffix
	}{
		"duelogic":   {[]string{"--max-rounds", "3"}, "══════ METRICS ══════\nresponses 6, evaluated 6", nil},
		"formal":     {[]string{"--max-rounds", "1"}, "══════ VERDICT ══════\n", []string{"summary.md", "assessor-report.md"}},
		"scored":     {nil, "══════ SCORES ══════\nProblem Validity", []string{"debate.md"}},
		"moderated":  {[]string{"--max-rounds", "1", "--no-checkpoints"}, "══════ VERDICT ══════\nrecommendation", []string{"decision.md", "synthesis.md"}},
		"persuasion": {[]string{"--rounds", "1"}, "══════ VERDICT ══════", []string{"dialogue.md", "dot"}},
	}
	for _, name := range engine.Formats() {
		tt, ok := tests[name]
		if !ok {
			t.Errorf("format %s is not tested", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			const question = "Should cities ban cars?"
			st := store.NewMemory()
			var out bytes.Buffer
			e, client, rec := testEnv(t, st, &out, append(tt.args, "--format", name, question)...)
			id := engine.NewDebateID()
			res, err := start(t.Context(), e, name, engine.Debate{ID: id, Proposition: question, Unattended: e.opt.noCheckpoints})
			if err != nil {
				t.Fatal(err)
			}
			if client.calls.Load() == 0 {
				t.Error("no model was asked")
			}
			showOutcome(e.render, res)
			if !strings.Contains(out.String(), tt.summary) {
				t.Errorf("output lacks %q:\n%s", tt.summary, out.String())
			}
			if v := res.Detail.Verdict(); !strings.Contains(out.String(), "══════ VERDICT ══════\n"+v.Summary+"\n") {
				t.Errorf("output lacks the verdict %q:\n%s", v.Summary, out.String())
			}
			ended := rec.last()
			end, err := engine.DataAs[engine.Ended](ended)
			if ended.Type != engine.EventDebateEnded || err != nil || end.Format != name || end.Usage.CompletionTokens == 0 || len(end.Detail) == 0 {
				t.Errorf("last event %s, Data %s (%v); want debate_ended of format %s with its usage and detail", ended.Type, ended.Data, err, name)
			}
			docs, err := documents(res)
			if err != nil {
				t.Fatal(err)
			}
			for _, suffix := range []string{"md", "json"} {
				if !strings.Contains(docs[suffix], question) {
					t.Errorf("document %s lacks the question:\n%s", suffix, docs[suffix])
				}
			}
			for _, suffix := range tt.docs {
				if strings.TrimSpace(docs[suffix]) == "" {
					t.Errorf("document %s is empty", suffix)
				}
			}

			// Resuming the finished debate replays it.
			out.Reset()
			e, client, _ = testEnv(t, st, &out, "--resume", id)
			_, again, err := resume(t.Context(), e, id)
			if err != nil {
				t.Fatal(err)
			}
			if n := client.calls.Load(); n != 0 {
				t.Errorf("resuming a finished debate made %d model calls", n)
			}
			// It says so: nothing is run again.
			if want := fmt.Sprintf("debate: debate %s had already finished; showing it\n", id); !strings.Contains(out.String(), want) || strings.Contains(out.String(), "── resumed") {
				t.Errorf("output lacks %q:\n%s", want, out.String())
			}
			againDocs, err := documents(again)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(docs, againDocs); diff != "" {
				t.Errorf("documents of the resumed debate (-played +resumed):\n%s", diff)
			}
		})
	}
}

func TestConfigError(t *testing.T) {
	other := errors.New("model down")
	ve := &engine.ValidationError{Format: "scored"}
	ve.Add("maxAdjustment", "must be positive")
	ve.Add("scale.max", "below scale.min")
	tests := []struct {
		name  string
		err   error
		want  string
		usage bool
	}{
		{"every violation", fmt.Errorf("new: %w", ve), "invalid configuration:\n  maxAdjustment: must be positive\n  scale.max: below scale.min", true},
		{"invalid debate", fmt.Errorf("%w: empty proposition", engine.ErrInvalidDebate), "engine: invalid debate: empty proposition", true},
		{"invalid config", fmt.Errorf("%w: no chairs", engine.ErrInvalidConfig), "engine: invalid config: no chairs", true},
		{"another error", other, "model down", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := configError(tt.err, &options{set: map[string]bool{}}, nil)
			if got := err.Error(); got != tt.want {
				t.Errorf("= %q; want %q", got, tt.want)
			}
			if got := errors.As(err, new(usageError)); got != tt.usage {
				t.Errorf("usage error %t; want %t", got, tt.usage)
			}
		})
	}
	if configError(nil, &options{}, nil) != nil {
		t.Error("configError(nil) != nil")
	}
}

// TestTimingLine: the command says where a real model's time went,
// judgments against speeches, and nothing for an offline stub's
// microseconds.
func TestTimingLine(t *testing.T) {
	res := &engine.Result[engine.Outcome]{
		Judgments: map[string]engine.JudgmentCounts{"evaluation": {First: 3}, "interrupt_check": {First: 3}},
		Timing: engine.Timing{Wall: 200 * time.Second, Calls: map[string]time.Duration{
			"evaluation": 80 * time.Second, "interrupt_check": 56 * time.Second, "response": 64 * time.Second}},
	}
	want := "model time 3m20s: judgments 68% (evaluation 40%, interrupt check 28%), speeches 32%; wall 3m20s"
	if got := timingLine(res); got != want {
		t.Errorf("timingLine = %q\nwant %q", got, want)
	}
	res.Timing = engine.Timing{Wall: time.Millisecond, Calls: map[string]time.Duration{"response": time.Millisecond}}
	if got := timingLine(res); got != "" {
		t.Errorf("a stub's timing gives %q, want nothing", got)
	}
}
