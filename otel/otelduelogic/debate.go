package otelduelogic

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/duelogic/duelogic/engine"
)

// debateKey is the context key of a *debateState.
type debateKey struct{}

// debateState is the debate a context belongs to. Its ID may be learnt
// after the context was made (a Run that makes the ID), hence the lock.
type debateState struct {
	mu sync.Mutex
	id string
}

func (s *debateState) get() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id
}

// learn sets the ID if none was known.
func (s *debateState) learn(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.id != "" || id == "" {
		return false
	}
	s.id = id
	return true
}

// WithDebate returns a context that tells the model calls made with it
// (through a client from [WrapClient]) which debate they belong to: their
// spans carry gen_ai.conversation.id = id. Pass it to engine.Run or
// engine.Resume, whose model calls use contexts derived from it. Use
// [StartDebate] instead to get a span for the debate too.
func WithDebate(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, debateKey{}, &debateState{id: id})
}

// debateID returns the ID of the debate ctx belongs to, "" if none: the
// one WithDebate or StartDebate gave, else the one the engine puts on the
// context of every model call (engine.DebateOf).
func debateID(ctx context.Context) string {
	if s, ok := ctx.Value(debateKey{}).(*debateState); ok {
		if id := s.get(); id != "" {
			return id
		}
	}
	id, _ := engine.DebateOf(ctx)
	return id
}

// Debate is the span of one run of a debate, from [StartDebate] to
// [Debate.End]; the spans of its model calls are its children.
type Debate struct {
	span  trace.Span
	state *debateState
}

// StartDebate starts a span named "debate" for a debate whose ID is id
// and returns a context that carries it, for engine.Run or engine.Resume:
// the model calls of the debate, made through a client from [WrapClient],
// become its children and carry gen_ai.conversation.id = id. Give the
// engine the sink from [Debate.Sink] so that the span learns how the
// debate ended, and call [Debate.End] when Run returns.
//
// An empty id (the engine makes one) is learnt from the debate_started
// event; model calls that start before the sink hears it carry no
// conversation ID, so a host that wants every call marked sets
// engine.Debate's ID itself.
//
// Of the options, StartDebate uses [WithTracerProvider].
func StartDebate(ctx context.Context, id string, opts ...Option) (context.Context, *Debate) {
	cfg := newConfig(opts)
	d := &Debate{state: &debateState{id: id}}
	var attrs []attribute.KeyValue
	if id != "" {
		attrs = append(attrs, attrConversationID.String(id))
	}
	ctx, d.span = cfg.tracer.Start(ctx, "debate", trace.WithAttributes(attrs...))
	return context.WithValue(ctx, debateKey{}, d.state), d
}

// Sink returns an engine.EventSink that passes every event on to next
// (none when next is nil) and records on the debate's span: the debate's
// ID at debate_started when StartDebate was given none, and at
// debate_ended the format (duelogic.format), the tokens of the whole
// debate (gen_ai.usage.input_tokens, gen_ai.usage.output_tokens,
// gen_ai.usage.cache_read.input_tokens), its cost (duelogic.cost) and
// verdict (duelogic.verdict, duelogic.winner).
func (d *Debate) Sink(next engine.EventSink) engine.EventSink {
	return engine.SinkFunc(func(ctx context.Context, e engine.Event) {
		switch e.Type {
		case engine.EventDebateStarted:
			if d.state.learn(e.DebateID) {
				d.span.SetAttributes(attrConversationID.String(e.DebateID))
			}
		case engine.EventDebateEnded:
			d.ended(e)
		}
		if next != nil {
			next.Emit(ctx, e)
		}
	})
}

func (d *Debate) ended(e engine.Event) {
	end, err := engine.DataAs[engine.Ended](e)
	if err != nil {
		return // not an Ended: nothing to record
	}
	attrs := []attribute.KeyValue{
		AttrFormat.String(end.Format),
		attrInputTokens.Int(end.Usage.PromptTokens),
		attrOutputTokens.Int(end.Usage.CompletionTokens),
	}
	if end.Usage.CachedPromptTokens > 0 {
		attrs = append(attrs, attrCacheReadTokens.Int(end.Usage.CachedPromptTokens))
	}
	if end.Cost > 0 {
		attrs = append(attrs, AttrCost.Float64(end.Cost))
	}
	if v := end.Verdict; v != nil {
		attrs = append(attrs, AttrVerdict.String(v.Summary))
		if v.Winner != "" {
			attrs = append(attrs, AttrWinner.String(v.Winner))
		}
	}
	d.span.SetAttributes(attrs...)
}

// End ends the debate's span with the error Run or Resume returned: a
// non-nil err sets error.type ([ErrorType]) and the status Error.
func (d *Debate) End(err error) {
	if err != nil {
		d.span.SetAttributes(attrErrorType.String(ErrorType(err)))
		d.span.SetStatus(codes.Error, err.Error())
	}
	d.span.End()
}
