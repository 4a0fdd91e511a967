package main

import (
	"context"
	"errors"
	"sync"

	"go.opentelemetry.io/otel/trace"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/jobs/riverjobs"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/otel/otelduelogic"
)

// debateSpans makes a span of each attempt at a debate
// (otelduelogic.StartDebate): riverjobs asks for an attempt's engine
// options (options) when it starts and reports it (report) when it ends.
// The model calls of an attempt are made with the job's context, which
// knows nothing of the span; client makes them children of it, by the
// debate the engine puts on their context.
type debateSpans struct {
	opts []otelduelogic.Option

	mu    sync.Mutex
	spans map[string]*attempt // by debate ID
}

// attempt is the span of an attempt in progress.
type attempt struct {
	debate *otelduelogic.Debate
	sc     trace.SpanContext
}

func newDebateSpans(opts []otelduelogic.Option) *debateSpans {
	return &debateSpans{opts: opts, spans: map[string]*attempt{}}
}

// options starts the span of an attempt at debate id and returns the
// engine option that tells it how the debate ends.
func (d *debateSpans) options(id string) []engine.Option {
	ctx, span := otelduelogic.StartDebate(context.Background(), id, d.opts...)
	d.mu.Lock()
	if old := d.spans[id]; old != nil {
		old.debate.End(errors.New("another attempt started")) // not reported: never left open
	}
	d.spans[id] = &attempt{debate: span, sc: trace.SpanContextFromContext(ctx)}
	d.mu.Unlock()
	return []engine.Option{engine.WithSink(span.Sink(nil))}
}

// report ends the span of the attempt r reports.
func (d *debateSpans) report(r riverjobs.Report) {
	d.mu.Lock()
	a := d.spans[r.DebateID]
	delete(d.spans, r.DebateID)
	d.mu.Unlock()
	if a == nil {
		return
	}
	switch r.Outcome {
	case riverjobs.OutcomeFinished, riverjobs.OutcomePaused, riverjobs.OutcomeSnoozed:
		a.debate.End(nil)
	default:
		err := r.Err
		if err == nil {
			err = errors.New(r.Outcome)
		}
		a.debate.End(err)
	}
}

// parent is the span context of debate id's attempt, if one is under way.
func (d *debateSpans) parent(id string) (trace.SpanContext, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	a := d.spans[id]
	if a == nil {
		return trace.SpanContext{}, false
	}
	return a.sc, true
}

// client returns c making its calls in the span of their debate's attempt;
// it streams when c does.
func (d *debateSpans) client(c llm.Client) llm.Client {
	p := parented{Client: c, d: d}
	if s, ok := c.(llm.Streamer); ok {
		return parentedStreamer{p, s}
	}
	return p
}

type parented struct {
	llm.Client
	d *debateSpans
}

func (p parented) in(ctx context.Context) context.Context {
	id, ok := engine.DebateOf(ctx)
	if !ok || trace.SpanContextFromContext(ctx).IsValid() {
		return ctx
	}
	if sc, ok := p.d.parent(id); ok {
		return trace.ContextWithSpanContext(ctx, sc)
	}
	return ctx
}

func (p parented) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	return p.Client.Complete(p.in(ctx), req)
}

type parentedStreamer struct {
	parented
	s llm.Streamer
}

func (p parentedStreamer) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	return p.s.Stream(p.in(ctx), req, onDelta)
}
