package otelduelogic

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/log"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/openai"
)

// WrapClient returns an llm.Client that traces and measures every call of c
// by the OpenTelemetry GenAI semantic conventions: a span of kind Client
// named "chat {model}" per call, and the metrics gen_ai.client.token.usage
// and gen_ai.client.operation.duration. The span carries:
//
//   - gen_ai.operation.name "chat", gen_ai.provider.name ([WithProvider]),
//     gen_ai.request.model, and gen_ai.request.max_tokens when the request
//     caps its reply;
//   - gen_ai.response.model, gen_ai.response.finish_reasons,
//     gen_ai.usage.input_tokens, gen_ai.usage.output_tokens and, when the
//     provider served some of the prompt from its cache,
//     gen_ai.usage.cache_read.input_tokens;
//   - gen_ai.conversation.id, the debate's ID, when ctx carries a debate
//     ([StartDebate] or [WithDebate]);
//   - duelogic.purpose, the request's Purpose;
//   - on failure, error.type and the status Error.
//
// A call whose request carries a Schema (a judgment), other than the
// engine's argument extraction, records the event gen_ai.evaluation.result
// when it succeeds, with gen_ai.evaluation.name set to the request's
// Purpose. A judgment of a speech (engine.JudgingOf: the podcast's
// evaluation of a turn and its interrupt checks) puts it on the span of
// that speech, as the conventions ask: a log record of the logger provider
// ([WithLoggerProvider]) with event name gen_ai.evaluation.result whose
// trace context is the speech's span (which has ended by then, so it takes
// no span event), and the judgment's own span links to the speech's. A
// judgment of no one speech (a verdict, a turn given as JSON) adds the
// event to its own span.
//
// The returned client implements llm.Streamer exactly when c does, so
// llm.Stream still streams through it.
func WrapClient(c llm.Client, opts ...Option) llm.Client {
	w := &client{next: c, cfg: newConfig(opts), speeches: newSpeeches(maxSpeeches)}
	if s, ok := c.(llm.Streamer); ok {
		return &streamingClient{client: w, stream: s}
	}
	return w
}

type client struct {
	next     llm.Client
	cfg      *config
	speeches *speeches
}

// Complete traces and measures one call of the wrapped client.
func (c *client) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	ctx, call := c.start(ctx, req)
	resp, err := c.next.Complete(ctx, req)
	call.end(req, resp, err)
	return resp, err
}

type streamingClient struct {
	*client
	stream llm.Streamer
}

// Stream traces and measures one streamed call of the wrapped client.
func (c *streamingClient) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	ctx, call := c.start(ctx, req)
	resp, err := c.stream.Stream(ctx, req, onDelta)
	call.end(req, resp, err)
	return resp, err
}

// call is one model call under way.
type call struct {
	cfg   *config
	span  trace.Span
	ctx   context.Context
	start time.Time
	// judged is the span of the speech the call judges, when known.
	judged trace.SpanContext
}

func (c *client) start(ctx context.Context, req llm.Request) (context.Context, call) {
	attrs := make([]attribute.KeyValue, 0, 6)
	attrs = append(attrs,
		attrOperation.String(operationChat),
		attrProvider.String(c.cfg.provider),
		attrRequestModel.String(req.Model),
	)
	if req.MaxTokens > 0 {
		attrs = append(attrs, attrRequestMaxTokens.Int(req.MaxTokens))
	}
	if id := debateID(ctx); id != "" {
		attrs = append(attrs, attrConversationID.String(id))
	}
	if req.Purpose != "" {
		attrs = append(attrs, AttrPurpose.String(req.Purpose))
	}
	start := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...)}
	var judged trace.SpanContext
	if sub, ok := engine.JudgingOf(ctx); ok {
		if judged, ok = c.speeches.get(sub); ok {
			start = append(start, trace.WithLinks(trace.Link{SpanContext: judged}))
		}
	}
	ctx, span := c.cfg.tracer.Start(ctx, operationChat+" "+req.Model, start...)
	if sub, ok := engine.SpeakingOf(ctx); ok {
		c.speeches.put(sub, span.SpanContext())
	}
	return ctx, call{cfg: c.cfg, span: span, ctx: ctx, start: c.cfg.now(), judged: judged}
}

func (k call) end(req llm.Request, resp llm.Response, err error) {
	defer k.span.End()
	elapsed := k.cfg.now().Sub(k.start).Seconds()
	// The metrics' attributes: the first n of kv, then the token type.
	var kv [5]attribute.KeyValue
	kv[0] = attrOperation.String(operationChat)
	kv[1] = attrProvider.String(k.cfg.provider)
	kv[2] = attrRequestModel.String(req.Model)
	n := 3
	if err != nil {
		typ := ErrorType(err)
		k.span.SetAttributes(attrErrorType.String(typ))
		k.span.SetStatus(codes.Error, err.Error())
		kv[n] = attrErrorType.String(typ)
		k.cfg.duration.Record(k.ctx, elapsed, metric.WithAttributeSet(attribute.NewSet(kv[:n+1]...)))
		return
	}
	u := resp.Usage
	spanAttrs := make([]attribute.KeyValue, 0, 5)
	spanAttrs = append(spanAttrs, attrInputTokens.Int(u.PromptTokens), attrOutputTokens.Int(u.CompletionTokens))
	if u.CachedPromptTokens > 0 {
		spanAttrs = append(spanAttrs, attrCacheReadTokens.Int(u.CachedPromptTokens))
	}
	if resp.Model != "" {
		spanAttrs = append(spanAttrs, attrResponseModel.String(resp.Model))
		kv[n] = attrResponseModel.String(resp.Model)
		n++
	}
	if resp.FinishReason != "" {
		spanAttrs = append(spanAttrs, attrFinishReasons.StringSlice([]string{resp.FinishReason}))
	}
	k.span.SetAttributes(spanAttrs...)
	if len(req.Schema) > 0 && req.Purpose != engine.PurposeArgumentExtraction {
		k.evaluated(req)
	}
	k.cfg.duration.Record(k.ctx, elapsed, metric.WithAttributeSet(attribute.NewSet(kv[:n]...)))
	kv[n] = attrTokenType.String("input")
	k.cfg.tokens.Record(k.ctx, int64(u.PromptTokens), metric.WithAttributeSet(attribute.NewSet(kv[:n+1]...)))
	kv[n] = attrTokenType.String("output")
	k.cfg.tokens.Record(k.ctx, int64(u.CompletionTokens), metric.WithAttributeSet(attribute.NewSet(kv[:n+1]...)))
}

// ErrorType is the error.type that WrapClient records for err: the HTTP
// status of an [openai.APIError] ("429"), "timeout" for a deadline,
// "canceled" for a canceled context, "context_overflow" for
// [llm.ErrContextOverflow], "schema_mismatch" for [llm.ErrSchemaMismatch],
// and "_OTHER" otherwise, as the conventions ask for an unknown class.
func ErrorType(err error) string {
	var api *openai.APIError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, llm.ErrContextOverflow):
		return "context_overflow"
	case errors.Is(err, llm.ErrSchemaMismatch):
		return "schema_mismatch"
	case errors.As(err, &api) && api.StatusCode != 0:
		return strconv.Itoa(api.StatusCode)
	}
	return "_OTHER"
}

// evaluated records the gen_ai.evaluation.result event of a judgment:
// parented to the span of the speech it judged when that is known, else on
// its own span.
func (k call) evaluated(req llm.Request) {
	name := attrEvaluationName.String(req.Purpose)
	if !k.judged.IsValid() {
		k.span.AddEvent(eventEvaluation, trace.WithAttributes(name))
		return
	}
	var rec log.Record
	rec.SetEventName(eventEvaluation)
	rec.SetTimestamp(k.cfg.now())
	rec.SetSeverity(log.SeverityInfo)
	rec.AddAttributes(name)
	if id := debateID(k.ctx); id != "" {
		rec.AddAttributes(attrConversationID.String(id))
	}
	k.cfg.logger.Emit(trace.ContextWithSpanContext(k.ctx, k.judged), rec)
}

// maxSpeeches bounds the speeches whose spans a client remembers for the
// judgments of them.
const maxSpeeches = 256

// speeches remembers the spans of the latest speeches, by the utterance
// they say (engine.SpeakingOf), for the judgments of them.
type speeches struct {
	mu    sync.Mutex
	max   int
	spans map[engine.Subject]trace.SpanContext
	order []engine.Subject // oldest first
}

func newSpeeches(n int) *speeches {
	return &speeches{max: n, spans: map[engine.Subject]trace.SpanContext{}}
}

func (s *speeches) put(sub engine.Subject, sc trace.SpanContext) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.spans[sub]; !ok {
		s.order = append(s.order, sub)
	}
	s.spans[sub] = sc // a speech asked again (empty reply): the latest
	for len(s.order) > s.max {
		delete(s.spans, s.order[0])
		s.order = s.order[1:]
	}
}

func (s *speeches) get(sub engine.Subject) (trace.SpanContext, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc, ok := s.spans[sub]
	return sc, ok
}
