package otelduelogic

import (
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/log"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of the tracer and the meter this
// package takes from its providers.
const ScopeName = "github.com/duelogic/duelogic/otel/otelduelogic"

// AttrPurpose is the attribute that carries a model call's llm.Request
// Purpose ("opening", "evaluation", ...) on its span.
const AttrPurpose = attribute.Key("duelogic.purpose")

// Attributes of the debate span ([StartDebate]).
const (
	// AttrFormat is the debate's format, known when it ends.
	AttrFormat = attribute.Key("duelogic.format")
	// AttrCost is the money the debate cost (engine.Ended's Cost), when
	// prices were given.
	AttrCost = attribute.Key("duelogic.cost")
	// AttrVerdict is the one-line summary of the debate's verdict.
	AttrVerdict = attribute.Key("duelogic.verdict")
	// AttrWinner is the speaker that won, when one did.
	AttrWinner = attribute.Key("duelogic.winner")
)

// The GenAI semantic conventions' names this package records.
const (
	attrOperation        = attribute.Key("gen_ai.operation.name")
	attrProvider         = attribute.Key("gen_ai.provider.name")
	attrRequestModel     = attribute.Key("gen_ai.request.model")
	attrRequestMaxTokens = attribute.Key("gen_ai.request.max_tokens")
	attrResponseModel    = attribute.Key("gen_ai.response.model")
	attrFinishReasons    = attribute.Key("gen_ai.response.finish_reasons")
	attrInputTokens      = attribute.Key("gen_ai.usage.input_tokens")
	attrOutputTokens     = attribute.Key("gen_ai.usage.output_tokens")
	attrCacheReadTokens  = attribute.Key("gen_ai.usage.cache_read.input_tokens")
	attrConversationID   = attribute.Key("gen_ai.conversation.id")
	attrTokenType        = attribute.Key("gen_ai.token.type")
	attrEvaluationName   = attribute.Key("gen_ai.evaluation.name")
	attrErrorType        = attribute.Key("error.type")

	operationChat   = "chat"
	eventEvaluation = "gen_ai.evaluation.result"

	metricTokenUsage = "gen_ai.client.token.usage"
	metricDuration   = "gen_ai.client.operation.duration"
)

// The bucket boundaries the GenAI conventions advise for the two metrics.
var (
	tokenBuckets    = []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}
	durationBuckets = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
)

// Option configures [WrapClient] and [StartDebate].
type Option func(*options)

type options struct {
	tp       trace.TracerProvider
	mp       metric.MeterProvider
	lp       log.LoggerProvider
	provider string
	now      func() time.Time
}

// WithTracerProvider sets where spans go; the default is otel's global
// provider.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(o *options) { o.tp = tp }
}

// WithMeterProvider sets where metrics go; the default is otel's global
// provider.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(o *options) { o.mp = mp }
}

// WithLoggerProvider sets where the gen_ai.evaluation.result events of
// judgments that judge a speech go (see [WrapClient]); the default is
// otel's global logger provider.
func WithLoggerProvider(lp log.LoggerProvider) Option {
	return func(o *options) { o.lp = lp }
}

// WithProvider sets gen_ai.provider.name, the provider the wrapped client
// talks to ("openai", "anthropic", "gcp.gemini", ...); the default is
// "openai", which names any server of OpenAI's API too.
func WithProvider(name string) Option {
	return func(o *options) { o.provider = name }
}

// WithClock sets the clock that times calls for
// gen_ai.client.operation.duration; the default is time.Now. Spans keep
// the tracer's own clock.
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}

// config is options made ready for use.
type config struct {
	tracer   trace.Tracer
	logger   log.Logger
	provider string
	now      func() time.Time
	tokens   metric.Int64Histogram
	duration metric.Float64Histogram
}

func newConfig(opts []Option) *config {
	o := options{provider: "openai", now: time.Now}
	for _, opt := range opts {
		opt(&o)
	}
	if o.tp == nil {
		o.tp = otel.GetTracerProvider()
	}
	if o.mp == nil {
		o.mp = otel.GetMeterProvider()
	}
	if o.lp == nil {
		o.lp = otel.GetLoggerProvider()
	}
	meter := o.mp.Meter(ScopeName)
	c := &config{tracer: o.tp.Tracer(ScopeName), logger: o.lp.Logger(ScopeName), provider: o.provider, now: o.now}
	var err error
	c.tokens, err = meter.Int64Histogram(metricTokenUsage,
		metric.WithUnit("{token}"),
		metric.WithDescription("Number of input and output tokens used."),
		metric.WithExplicitBucketBoundaries(tokenBuckets...))
	if err != nil {
		otel.Handle(err) // the histogram returned is a no-op one
	}
	c.duration, err = meter.Float64Histogram(metricDuration,
		metric.WithUnit("s"),
		metric.WithDescription("GenAI operation duration."),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	if err != nil {
		otel.Handle(err)
	}
	return c
}
