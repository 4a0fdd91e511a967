package otelduelogic_test

import (
	"context"
	"testing"

	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/otel/otelduelogic"
)

// BenchmarkWrapClient measures a call through the wrapper against the
// same call of the bare client (which does nothing), so the difference of
// their ns/call is the wrapper's overhead: with no-op providers, and with
// the SDK's recording every span (exported synchronously to a no-op
// exporter) and aggregating both metrics.
func BenchmarkWrapClient(b *testing.B) {
	bare := fake{resp: llm.Response{Content: "hello", Model: "m-1", FinishReason: llm.FinishStop,
		Usage: llm.Usage{PromptTokens: 1000, CompletionTokens: 200, CachedPromptTokens: 600}}}
	req := llm.Request{Model: "m", Purpose: "opening", MaxTokens: 400}
	ctx := otelduelogic.WithDebate(context.Background(), "d-1")

	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewNoopExporter()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	clients := []struct {
		name string
		c    llm.Client
	}{
		{"bare", bare},
		{"noop", otelduelogic.WrapClient(bare,
			otelduelogic.WithTracerProvider(tracenoop.NewTracerProvider()),
			otelduelogic.WithMeterProvider(metricnoop.NewMeterProvider()))},
		{"sdk", otelduelogic.WrapClient(bare, otelduelogic.WithTracerProvider(tp), otelduelogic.WithMeterProvider(mp))},
	}
	for _, c := range clients {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.c.Complete(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/call")
		})
	}
}
