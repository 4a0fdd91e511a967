package otelduelogic_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/openai"
	"github.com/duelogic/duelogic/otel/otelduelogic"
)

// fake answers every call with resp or err.
type fake struct {
	resp llm.Response
	err  error
}

func (f fake) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	return f.resp, f.err
}

// fakeStreamer streams resp's content word by word.
type fakeStreamer struct{ fake }

func (f fakeStreamer) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	if f.err != nil {
		return llm.Response{}, f.err
	}
	for _, w := range strings.SplitAfter(f.resp.Content, " ") {
		if err := onDelta(w); err != nil {
			return llm.Response{}, err
		}
	}
	return f.resp, nil
}

// telemetry is an SDK that keeps what it records for a test to read.
type telemetry struct {
	spans  *tracetest.InMemoryExporter
	reader *sdkmetric.ManualReader
	opts   []otelduelogic.Option
}

func newTelemetry(t *testing.T) *telemetry {
	t.Helper()
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	return &telemetry{spans: spans, reader: reader, opts: []otelduelogic.Option{
		otelduelogic.WithTracerProvider(tp), otelduelogic.WithMeterProvider(mp),
		otelduelogic.WithClock(stepClock(1500 * time.Millisecond)),
	}}
}

// stepClock returns a clock that advances by step each time it is read.
func stepClock(step time.Duration) func() time.Time {
	var mu sync.Mutex
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(step)
		return now
	}
}

// attrs returns a span's (or event's) attributes as a map.
func attrs(kvs []attribute.KeyValue) map[string]any {
	m := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.AsInterface()
	}
	return m
}

type eventOut struct {
	Name  string
	Attrs map[string]any
}

type spanOut struct {
	Name        string
	Kind        trace.SpanKind
	Attrs       map[string]any
	Status      codes.Code
	Events      []eventOut
	Instruments string
}

func summarize(s tracetest.SpanStub) spanOut {
	out := spanOut{Name: s.Name, Kind: s.SpanKind, Attrs: attrs(s.Attributes), Status: s.Status.Code,
		Instruments: s.InstrumentationScope.Name}
	for _, e := range s.Events {
		out.Events = append(out.Events, eventOut{Name: e.Name, Attrs: attrs(e.Attributes)})
	}
	return out
}

func TestWrapClientSpan(t *testing.T) {
	schema := json.RawMessage(`{"type":"object"}`)
	tests := []struct {
		name   string
		ctx    func(context.Context) context.Context
		opts   []otelduelogic.Option
		client llm.Client
		req    llm.Request
		want   spanOut
	}{{
		name: "a speech in a debate",
		ctx:  func(ctx context.Context) context.Context { return otelduelogic.WithDebate(ctx, "d-1") },
		client: fake{resp: llm.Response{Content: "hello", Model: "gpt-x-2026", FinishReason: llm.FinishStop,
			Usage: llm.Usage{PromptTokens: 100, CompletionTokens: 20, CachedPromptTokens: 60, ReasoningTokens: 5}}},
		req: llm.Request{Model: "gpt-x", Purpose: "opening", MaxTokens: 400},
		want: spanOut{Name: "chat gpt-x", Kind: trace.SpanKindClient, Attrs: map[string]any{
			"gen_ai.operation.name":                "chat",
			"gen_ai.provider.name":                 "openai",
			"gen_ai.request.model":                 "gpt-x",
			"gen_ai.request.max_tokens":            int64(400),
			"gen_ai.conversation.id":               "d-1",
			"duelogic.purpose":                     "opening",
			"gen_ai.response.model":                "gpt-x-2026",
			"gen_ai.response.finish_reasons":       []string{"stop"},
			"gen_ai.usage.input_tokens":            int64(100),
			"gen_ai.usage.output_tokens":           int64(20),
			"gen_ai.usage.cache_read.input_tokens": int64(60),
		}},
	}, {
		name:   "a judgment outside a debate, another provider",
		opts:   []otelduelogic.Option{otelduelogic.WithProvider("anthropic")},
		client: fake{resp: llm.Response{Content: "{}", Usage: llm.Usage{PromptTokens: 7, CompletionTokens: 2}}},
		req:    llm.Request{Model: "claude", Purpose: "evaluation", Schema: schema},
		want: spanOut{Name: "chat claude", Kind: trace.SpanKindClient, Attrs: map[string]any{
			"gen_ai.operation.name":      "chat",
			"gen_ai.provider.name":       "anthropic",
			"gen_ai.request.model":       "claude",
			"duelogic.purpose":           "evaluation",
			"gen_ai.usage.input_tokens":  int64(7),
			"gen_ai.usage.output_tokens": int64(2),
		}, Events: []eventOut{{Name: "gen_ai.evaluation.result", Attrs: map[string]any{
			"gen_ai.evaluation.name": "evaluation",
		}}}},
	}, {
		name:   "argument extraction is not a judgment",
		client: fake{resp: llm.Response{Content: "{}"}},
		req:    llm.Request{Model: "m", Purpose: engine.PurposeArgumentExtraction, Schema: schema},
		want: spanOut{Name: "chat m", Kind: trace.SpanKindClient, Attrs: map[string]any{
			"gen_ai.operation.name":      "chat",
			"gen_ai.provider.name":       "openai",
			"gen_ai.request.model":       "m",
			"duelogic.purpose":           engine.PurposeArgumentExtraction,
			"gen_ai.usage.input_tokens":  int64(0),
			"gen_ai.usage.output_tokens": int64(0),
		}},
	}, {
		name:   "a rate limit",
		client: fake{err: fmt.Errorf("calling: %w", &openai.APIError{StatusCode: 429, Message: "slow down"})},
		req:    llm.Request{Model: "m", Purpose: "opening", Schema: schema},
		want: spanOut{Name: "chat m", Kind: trace.SpanKindClient, Status: codes.Error, Attrs: map[string]any{
			"gen_ai.operation.name": "chat",
			"gen_ai.provider.name":  "openai",
			"gen_ai.request.model":  "m",
			"duelogic.purpose":      "opening",
			"error.type":            "429",
		}},
	}, {
		name:   "a deadline",
		client: fake{err: fmt.Errorf("calling: %w", context.DeadlineExceeded)},
		req:    llm.Request{Model: "m"},
		want: spanOut{Name: "chat m", Kind: trace.SpanKindClient, Status: codes.Error, Attrs: map[string]any{
			"gen_ai.operation.name": "chat",
			"gen_ai.provider.name":  "openai",
			"gen_ai.request.model":  "m",
			"error.type":            "timeout",
		}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tel := newTelemetry(t)
			c := otelduelogic.WrapClient(tt.client, append(tel.opts, tt.opts...)...)
			ctx := context.Background()
			if tt.ctx != nil {
				ctx = tt.ctx(ctx)
			}
			resp, err := c.Complete(ctx, tt.req)
			want, wantErr := tt.client.Complete(ctx, tt.req)
			if !errors.Is(err, wantErr) || !cmp.Equal(resp, want) {
				t.Errorf("Complete = %+v, %v; want the inner client's %+v, %v", resp, err, want, wantErr)
			}
			spans := tel.spans.GetSpans()
			if len(spans) != 1 {
				t.Fatalf("%d spans, want 1", len(spans))
			}
			tt.want.Instruments = otelduelogic.ScopeName
			if diff := cmp.Diff(tt.want, summarize(spans[0])); diff != "" {
				t.Errorf("span (-want +got):\n%s", diff)
			}
		})
	}
}

func TestErrorType(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{context.Canceled, "canceled"},
		{fmt.Errorf("x: %w", context.DeadlineExceeded), "timeout"},
		{fmt.Errorf("x: %w", llm.ErrContextOverflow), "context_overflow"},
		{&openai.APIError{StatusCode: 400, Type: "exceed_context_size_error"}, "context_overflow"},
		{fmt.Errorf("x: %w", llm.ErrSchemaMismatch), "schema_mismatch"},
		{&openai.APIError{StatusCode: 503}, "503"},
		{errors.New("boom"), "_OTHER"},
	}
	for _, tt := range tests {
		if got := otelduelogic.ErrorType(tt.err); got != tt.want {
			t.Errorf("ErrorType(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

func TestWrapClientStreams(t *testing.T) {
	resp := llm.Response{Content: "one two three", Model: "m", Usage: llm.Usage{PromptTokens: 3, CompletionTokens: 3}}
	tel := newTelemetry(t)
	if _, ok := otelduelogic.WrapClient(fake{resp: resp}, tel.opts...).(llm.Streamer); ok {
		t.Error("the wrapper of a client that cannot stream is an llm.Streamer")
	}
	c := otelduelogic.WrapClient(fakeStreamer{fake{resp: resp}}, tel.opts...)
	if _, ok := c.(llm.Streamer); !ok {
		t.Fatal("the wrapper of a streamer is not an llm.Streamer")
	}
	var deltas []string
	got, err := llm.Stream(context.Background(), c, llm.Request{Model: "m"}, func(d string) error {
		deltas = append(deltas, d)
		return nil
	})
	if err != nil || got.Content != resp.Content {
		t.Fatalf("Stream = %+v, %v", got, err)
	}
	if want := []string{"one ", "two ", "three"}; !cmp.Equal(deltas, want) {
		t.Errorf("deltas = %q, want %q", deltas, want)
	}
	spans := tel.spans.GetSpans()
	if len(spans) != 1 || spans[0].Name != "chat m" || attrs(spans[0].Attributes)["gen_ai.usage.output_tokens"] != int64(3) {
		t.Errorf("spans = %+v, want one chat m with 3 output tokens", spans)
	}
}

func TestWrapClientStreamFails(t *testing.T) {
	tel := newTelemetry(t)
	c := otelduelogic.WrapClient(fakeStreamer{fake{err: llm.ErrContextOverflow}}, tel.opts...)
	_, err := llm.Stream(context.Background(), c, llm.Request{Model: "m"}, nil)
	if !errors.Is(err, llm.ErrContextOverflow) {
		t.Fatalf("Stream error = %v, want the inner client's", err)
	}
	spans := tel.spans.GetSpans()
	if len(spans) != 1 || spans[0].Status.Code != codes.Error || attrs(spans[0].Attributes)["error.type"] != "context_overflow" {
		t.Errorf("spans = %+v, want one with status Error and error.type context_overflow", spans)
	}
}

// point is one data point of a histogram, by its attributes.
type point struct {
	Count uint64
	Sum   float64
}

// histograms reads the reader's histograms: by metric name, by the
// attributes' encoding, the count and sum.
func histograms(t *testing.T, r *sdkmetric.ManualReader) map[string]map[string]point {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]point{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			pts := map[string]point{}
			switch d := m.Data.(type) {
			case metricdata.Histogram[int64]:
				for _, p := range d.DataPoints {
					pts[p.Attributes.Encoded(attribute.DefaultEncoder())] = point{p.Count, float64(p.Sum)}
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					pts[p.Attributes.Encoded(attribute.DefaultEncoder())] = point{p.Count, p.Sum}
				}
			default:
				t.Errorf("metric %s is a %T, want a histogram", m.Name, m.Data)
			}
			out[m.Name+" ("+m.Unit+")"] = pts
		}
	}
	return out
}

func TestWrapClientMetrics(t *testing.T) {
	tel := newTelemetry(t)
	ok := otelduelogic.WrapClient(fake{resp: llm.Response{Model: "m-1", Usage: llm.Usage{PromptTokens: 100, CompletionTokens: 10}}}, tel.opts...)
	failing := otelduelogic.WrapClient(fake{err: &openai.APIError{StatusCode: 500}}, tel.opts...)
	ctx := context.Background()
	for range 2 {
		if _, err := ok.Complete(ctx, llm.Request{Model: "m"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := failing.Complete(ctx, llm.Request{Model: "m"}); err == nil {
		t.Fatal("the failing client did not fail")
	}
	enc := func(kvs ...attribute.KeyValue) string {
		s := attribute.NewSet(kvs...)
		return s.Encoded(attribute.DefaultEncoder())
	}
	base := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("gen_ai.provider.name", "openai"),
		attribute.String("gen_ai.request.model", "m"),
	}
	okAttrs := append(base[:3:3], attribute.String("gen_ai.response.model", "m-1"))
	want := map[string]map[string]point{
		"gen_ai.client.token.usage ({token})": {
			enc(append(okAttrs[:4:4], attribute.String("gen_ai.token.type", "input"))...):  {2, 200},
			enc(append(okAttrs[:4:4], attribute.String("gen_ai.token.type", "output"))...): {2, 20},
		},
		"gen_ai.client.operation.duration (s)": {
			enc(okAttrs...): {2, 3},
			enc(append(base[:3:3], attribute.String("error.type", "500"))...): {1, 1.5},
		},
	}
	if diff := cmp.Diff(want, histograms(t, tel.reader)); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}
}
