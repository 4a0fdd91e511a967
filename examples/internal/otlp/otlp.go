// Package otlp builds the OpenTelemetry providers the example servers
// (examples/web, examples/worker) export with over OTLP/HTTP when asked:
// one set-up for both, in a module of its own so that the core module does
// not require the exporters.
package otlp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/duelogic/duelogic/otel/otelduelogic"
)

// env are the environment variables the OTLP exporters read an
// endpoint from: one set turns the export on.
var env = []string{
	"OTEL_EXPORTER_OTLP_ENDPOINT",
	"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
	"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
	"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
}

// Wanted reports whether OpenTelemetry export is asked for: a base URL
// (the -otlp flag), or an OTLP endpoint in the environment.
func Wanted(flagURL string, getenv func(string) string) bool {
	if flagURL != "" {
		return true
	}
	for _, name := range env {
		if getenv(name) != "" {
			return true
		}
	}
	return false
}

// Telemetry is the OpenTelemetry providers a process's debates and model
// calls are traced, measured and logged with, each exporting over
// OTLP/HTTP (protobuf).
type Telemetry struct {
	tp *sdktrace.TracerProvider
	mp *sdkmetric.MeterProvider
	lp *sdklog.LoggerProvider
}

// New builds the providers. base, when not empty, is the OTLP
// endpoint's base URL (-otlp), to which each signal's path (/v1/traces,
// /v1/metrics, /v1/logs) is added, as to OTEL_EXPORTER_OTLP_ENDPOINT;
// empty, the exporters read their endpoints, headers and the like from the
// environment (OTEL_EXPORTER_OTLP_*). service names the service, unless
// OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES does.
func New(ctx context.Context, base, service string) (*Telemetry, error) {
	var traceOpts []otlptracehttp.Option
	var metricOpts []otlpmetrichttp.Option
	var logOpts []otlploghttp.Option
	if base != "" {
		u, err := url.Parse(base)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("-otlp %q: want an http:// or https:// URL", base)
		}
		at := func(path string) string { return strings.TrimSuffix(base, "/") + path }
		traceOpts = append(traceOpts, otlptracehttp.WithEndpointURL(at("/v1/traces")))
		metricOpts = append(metricOpts, otlpmetrichttp.WithEndpointURL(at("/v1/metrics")))
		logOpts = append(logOpts, otlploghttp.WithEndpointURL(at("/v1/logs")))
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", service)),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		return nil, fmt.Errorf("opentelemetry resource: %w", err)
	}
	spans, err := otlptracehttp.New(ctx, traceOpts...)
	if err != nil {
		return nil, fmt.Errorf("otlp trace exporter: %w", err)
	}
	metrics, err := otlpmetrichttp.New(ctx, metricOpts...)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("otlp metric exporter: %w", err), spans.Shutdown(ctx))
	}
	logs, err := otlploghttp.New(ctx, logOpts...)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("otlp log exporter: %w", err), spans.Shutdown(ctx), metrics.Shutdown(ctx))
	}
	return &Telemetry{
		tp: sdktrace.NewTracerProvider(sdktrace.WithBatcher(spans), sdktrace.WithResource(res)),
		mp: sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(metrics)), sdkmetric.WithResource(res)),
		lp: sdklog.NewLoggerProvider(sdklog.WithProcessor(sdklog.NewBatchProcessor(logs)), sdklog.WithResource(res)),
	}, nil
}

// Options are the otelduelogic options that send to t's providers.
func (t *Telemetry) Options() []otelduelogic.Option {
	return []otelduelogic.Option{
		otelduelogic.WithTracerProvider(t.tp),
		otelduelogic.WithMeterProvider(t.mp),
		otelduelogic.WithLoggerProvider(t.lp),
	}
}

// Shutdown flushes what the providers hold to the exporters and stops
// them.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	return errors.Join(t.tp.Shutdown(ctx), t.mp.Shutdown(ctx), t.lp.Shutdown(ctx))
}
