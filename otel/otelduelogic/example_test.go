package otelduelogic_test

import (
	"context"
	"fmt"
	"log"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/otel/otelduelogic"
	_ "github.com/duelogic/duelogic/scored"
)

// A scored debate on the offline stub model, traced: a span for the
// debate and one per model call under it, each carrying the debate's ID.
// A host would give its own TracerProvider (an OTLP exporter's), or none
// to use otel's global one.
func Example() {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer tp.Shutdown(context.Background())

	client := otelduelogic.WrapClient(llm.NewStub(1), otelduelogic.WithTracerProvider(tp))
	format, err := engine.Open("scored", nil)
	if err != nil {
		log.Fatal(err)
	}
	d := engine.Debate{ID: "example-1", Proposition: "Cats are better than dogs"}
	ctx, debate := otelduelogic.StartDebate(context.Background(), d.ID, otelduelogic.WithTracerProvider(tp))
	_, err = engine.Run(ctx, client, format, d, engine.WithSink(debate.Sink(nil)))
	debate.End(err)
	if err != nil {
		log.Fatal(err)
	}

	calls, judgments, underDebate := 0, 0, 0
	for _, s := range spans.GetSpans() {
		attrs := attribute.NewSet(s.Attributes...)
		if s.Name == "debate" {
			for _, k := range []attribute.Key{"gen_ai.conversation.id", "duelogic.format", "duelogic.winner"} {
				v, _ := attrs.Value(k)
				fmt.Printf("debate %s=%s\n", k, v.AsString())
			}
			continue
		}
		calls++
		judgments += len(s.Events)
		if id, _ := attrs.Value("gen_ai.conversation.id"); id.AsString() == d.ID && s.Parent.IsValid() {
			underDebate++
		}
	}
	fmt.Printf("%d model calls (%d under the debate's span), %d judgments\n", calls, underDebate, judgments)
	// Output:
	// debate gen_ai.conversation.id=example-1
	// debate duelogic.format=scored
	// debate duelogic.winner=advocate
	// 17 model calls (17 under the debate's span), 5 judgments
}
