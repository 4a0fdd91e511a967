package otelduelogic_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/otel/otelduelogic"
	_ "github.com/duelogic/duelogic/scored"
)

// counter counts the calls that reach the client it wraps.
type counter struct {
	llm.Client
	mu        sync.Mutex
	calls     int
	judgments int
}

func (c *counter) count(req llm.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	if len(req.Schema) > 0 && req.Purpose != engine.PurposeArgumentExtraction {
		c.judgments++
	}
}

func (c *counter) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	c.count(req)
	return c.Client.Complete(ctx, req)
}

func (c *counter) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	c.count(req)
	return llm.Stream(ctx, c.Client, req, onDelta)
}

// byName splits spans into the debate's and the calls'.
func byName(t *testing.T, spans tracetest.SpanStubs) (debate tracetest.SpanStub, calls []tracetest.SpanStub) {
	t.Helper()
	n := 0
	for _, s := range spans {
		if s.Name == "debate" {
			debate = s
			n++
		} else {
			calls = append(calls, s)
		}
	}
	if n != 1 {
		t.Fatalf("%d debate spans, want 1", n)
	}
	return debate, calls
}

func TestStubDebate(t *testing.T) {
	tel := newTelemetry(t)
	inner := &counter{Client: llm.NewStub(1)}
	client := otelduelogic.WrapClient(inner, tel.opts...)
	f, err := engine.Open("scored", nil)
	if err != nil {
		t.Fatal(err)
	}
	var events int
	sink := engine.SinkFunc(func(context.Context, engine.Event) { events++ })

	ctx, span := otelduelogic.StartDebate(context.Background(), "d-7", tel.opts...)
	res, err := engine.Run(ctx, client, f, engine.Debate{ID: "d-7", Proposition: "Cats are better than dogs"},
		engine.WithSink(span.Sink(sink)))
	span.End(err)
	if err != nil {
		t.Fatal(err)
	}
	if events == 0 {
		t.Error("the host's sink heard no event")
	}

	debate, calls := byName(t, tel.spans.GetSpans())
	if len(calls) != inner.calls || len(calls) == 0 {
		t.Errorf("%d call spans, want one per call: %d", len(calls), inner.calls)
	}
	evaluations := 0
	for _, c := range calls {
		a := attrs(c.Attributes)
		if a["gen_ai.conversation.id"] != "d-7" || c.Parent.SpanID() != debate.SpanContext.SpanID() {
			t.Errorf("call span %s: conversation %v, parent %v; want d-7 under the debate span", c.Name, a["gen_ai.conversation.id"], c.Parent.SpanID())
		}
		for _, e := range c.Events {
			if e.Name == "gen_ai.evaluation.result" {
				evaluations++
			}
		}
	}
	t.Logf("%d calls, %d judgments", inner.calls, inner.judgments)
	if evaluations != inner.judgments || evaluations == 0 {
		t.Errorf("%d evaluation events, want one per judgment: %d", evaluations, inner.judgments)
	}
	want := map[string]any{
		"gen_ai.conversation.id":     "d-7",
		"duelogic.format":            "scored",
		"gen_ai.usage.input_tokens":  int64(res.Usage.PromptTokens),
		"gen_ai.usage.output_tokens": int64(res.Usage.CompletionTokens),
	}
	if v := res.Detail.Verdict(); v.Summary != "" {
		want["duelogic.verdict"] = v.Summary
		if v.Winner != "" {
			want["duelogic.winner"] = v.Winner
		}
	}
	if diff := cmp.Diff(want, attrs(debate.Attributes)); diff != "" {
		t.Errorf("debate span (-want +got):\n%s", diff)
	}
}

func TestDebateLearnsItsID(t *testing.T) {
	tel := newTelemetry(t)
	client := otelduelogic.WrapClient(llm.NewStub(1), tel.opts...)
	f, err := engine.Open("scored", nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, span := otelduelogic.StartDebate(context.Background(), "", tel.opts...)
	res, err := engine.Run(ctx, client, f, engine.Debate{Proposition: "Cats are better than dogs"},
		engine.WithSink(span.Sink(nil)))
	span.End(err)
	if err != nil {
		t.Fatal(err)
	}
	debate, calls := byName(t, tel.spans.GetSpans())
	if got := attrs(debate.Attributes)["gen_ai.conversation.id"]; got != res.DebateID {
		t.Errorf("debate span's gen_ai.conversation.id = %v, want the ID Run made: %s", got, res.DebateID)
	}
	last := attrs(calls[len(calls)-1].Attributes)["gen_ai.conversation.id"]
	if last != res.DebateID {
		t.Errorf("the last call's gen_ai.conversation.id = %v, want %s", last, res.DebateID)
	}
}

func TestDebateEndsWithError(t *testing.T) {
	tel := newTelemetry(t)
	_, span := otelduelogic.StartDebate(context.Background(), "d-1", tel.opts...)
	span.End(errors.Join(errors.New("x"), context.Canceled))
	debate, _ := byName(t, tel.spans.GetSpans())
	if debate.Status.Code != codes.Error || attrs(debate.Attributes)["error.type"] != "canceled" {
		t.Errorf("debate span status %v, attributes %v; want Error, error.type canceled", debate.Status, debate.Attributes)
	}
}

// TestConversationIDFromTheEngine: without StartDebate or WithDebate, a
// call's span still carries its debate's ID, which the engine puts on the
// context of every model call (engine.DebateOf).
func TestConversationIDFromTheEngine(t *testing.T) {
	tel := newTelemetry(t)
	client := otelduelogic.WrapClient(llm.NewStub(1), tel.opts...)
	f, err := engine.Open("scored", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := engine.Run(context.Background(), client, f, engine.Debate{ID: "d-9", Proposition: "Cats are better than dogs"}); err != nil {
		t.Fatal(err)
	}
	spans := tel.spans.GetSpans()
	if len(spans) == 0 {
		t.Fatal("no span")
	}
	for _, s := range spans {
		if a := attrs(s.Attributes); a["gen_ai.conversation.id"] != "d-9" {
			t.Errorf("span %s: conversation %v, want d-9", s.Name, a["gen_ai.conversation.id"])
		}
	}
}
