package otelduelogic_test

import (
	"context"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/log"
	"go.opentelemetry.io/otel/log/embedded"
	"go.opentelemetry.io/otel/trace"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/otel/otelduelogic"
)

// logged is a log record as the recorder keeps it.
type logged struct {
	event string
	span  trace.SpanContext
	attrs map[string]any
}

// logRecorder is a LoggerProvider that keeps every record emitted, with
// the span context it was emitted in.
type logRecorder struct {
	embedded.LoggerProvider
	mu   sync.Mutex
	recs []logged
}

func (r *logRecorder) Logger(string, ...log.LoggerOption) log.Logger { return &recLogger{r: r} }

type recLogger struct {
	embedded.Logger
	r *logRecorder
}

func (l *recLogger) Emit(ctx context.Context, rec log.Record) {
	got := logged{event: rec.EventName(), span: trace.SpanContextFromContext(ctx), attrs: map[string]any{}}
	rec.WalkAttributes(func(kv attribute.KeyValue) bool {
		got.attrs[string(kv.Key)] = kv.Value.AsInterface()
		return true
	})
	l.r.mu.Lock()
	l.r.recs = append(l.r.recs, got)
	l.r.mu.Unlock()
}

func (l *recLogger) Enabled(context.Context, log.EnabledParameters) bool { return true }

// TestEvaluationsOnTheSpeechesJudged: in a podcast, each evaluation of a
// response and each interrupt check is a gen_ai.evaluation.result event
// parented to the span of the speech it judged (a log record in that
// span's context), the judgment's span links to it, and the judgments of
// no one speech keep the event on their own span.
func TestEvaluationsOnTheSpeechesJudged(t *testing.T) {
	tel := newTelemetry(t)
	logs := &logRecorder{}
	inner := &counter{Client: llm.NewStub(7)}
	client := otelduelogic.WrapClient(inner, append(tel.opts, otelduelogic.WithLoggerProvider(logs))...)
	cfg := duelogic.DefaultConfig()
	cfg.Flow.MaxExchanges = 3
	cfg.Interruptions.CooldownSeconds = 0
	p, err := duelogic.NewPodcast(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := engine.Run(t.Context(), client, p, engine.Debate{ID: "d-3", Proposition: "Should cities ban cars?"}); err != nil {
		t.Fatal(err)
	}
	spans := map[trace.SpanID]map[string]any{}
	judgmentsOfSpeeches, linked, ownEvents := 0, 0, 0
	for _, s := range tel.spans.GetSpans() {
		a := attrs(s.Attributes)
		spans[s.SpanContext.SpanID()] = a
		purpose := a["duelogic.purpose"]
		if purpose == duelogic.PurposeEvaluation || purpose == duelogic.PurposeInterruptCheck {
			judgmentsOfSpeeches++
			if len(s.Links) == 1 {
				linked++
			}
		}
		for _, e := range s.Events {
			if e.Name == "gen_ai.evaluation.result" {
				ownEvents++
			}
		}
	}
	if judgmentsOfSpeeches == 0 {
		t.Fatal("no evaluation or interrupt check was made")
	}
	if linked != judgmentsOfSpeeches {
		t.Errorf("%d of %d judgments of speeches link to the speech's span", linked, judgmentsOfSpeeches)
	}
	logs.mu.Lock()
	defer logs.mu.Unlock()
	if len(logs.recs) != judgmentsOfSpeeches {
		t.Errorf("%d evaluation events in logs, want one per judgment of a speech: %d", len(logs.recs), judgmentsOfSpeeches)
	}
	for _, r := range logs.recs {
		speech, ok := spans[r.span.SpanID()]
		if r.event != "gen_ai.evaluation.result" || !ok || speech["duelogic.purpose"] != duelogic.PurposeResponse {
			t.Errorf("event %q in the context of span %v (%v); want gen_ai.evaluation.result on a response's span", r.event, r.span.SpanID(), speech)
		}
		if n := r.attrs["gen_ai.evaluation.name"]; n != duelogic.PurposeEvaluation && n != duelogic.PurposeInterruptCheck {
			t.Errorf("gen_ai.evaluation.name = %v", n)
		}
		if r.attrs["gen_ai.conversation.id"] != "d-3" {
			t.Errorf("gen_ai.conversation.id = %v, want d-3", r.attrs["gen_ai.conversation.id"])
		}
	}
	if want := inner.judgments - judgmentsOfSpeeches; ownEvents != want {
		t.Errorf("%d evaluation events on the judgments' own spans, want %d (the judgments of no one speech)", ownEvents, want)
	}
}
