package duelogic_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/storetest"
)

// A whole debate on the offline stub model, printing who speaks when.
func Example() {
	cfg, err := duelogic.ConfigForPreset("classic_clash")
	if err != nil {
		log.Fatal(err)
	}
	cfg.Flow.MaxExchanges = 3
	fixed := func() time.Time { return time.Date(2026, 1, 3, 20, 0, 0, 0, time.UTC) }
	sink := duelogic.SinkFunc(func(_ context.Context, e duelogic.Event) {
		switch e.Type {
		case duelogic.EventSegmentStarted:
			fmt.Println("==", e.Segment)
		case duelogic.EventUtterance:
			fmt.Printf("%s: %s\n", e.Utterance.Kind, e.Speaker)
		}
	})
	o, err := duelogic.New(cfg, llm.NewStub(1), duelogic.WithSink(sink), duelogic.WithClock(fixed))
	if err != nil {
		log.Fatal(err)
	}
	res, err := o.Run(context.Background(), duelogic.Debate{
		ID:          "example",
		Proposition: "Should cities ban private cars from their centres?",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d utterances, %d responses evaluated\n", len(res.Transcript), res.Metrics.Evaluated)
	// Output:
	// == introduction
	// introduction: arbiter
	// == opening
	// opening: chair_1
	// opening: chair_2
	// == exchange
	// response: chair_1
	// response: chair_2
	// interruption: chair_1
	// response: chair_1
	// interruption: chair_2
	// interjection: arbiter
	// response: chair_2
	// response: chair_1
	// response: chair_2
	// interjection: arbiter
	// == synthesis
	// closing: arbiter
	// 14 utterances, 6 responses evaluated
}

// The one way every format is played: open the format by name with a
// partial JSON config (the fields left out keep their defaults), run it on
// the engine, and finish a debate that stopped with engine.ResumeStored,
// which reads the format and its configuration from the store. The outcome
// is an engine.Outcome: a verdict and Markdown documents.
func Example_open() {
	f, err := engine.Open("duelogic", json.RawMessage(`{"flow": {"maxExchanges": 3}}`))
	if err != nil {
		log.Fatal(err)
	}
	mem := store.NewMemory()
	fixed := duelogic.WithClock(func() time.Time { return time.Date(2026, 1, 3, 20, 0, 0, 0, time.UTC) })
	full := errors.New("disk full")
	d := duelogic.Debate{ID: "open", Proposition: "Should cities ban private cars from their centres?"}
	// The store fails after 8 records: the debate stops, and its result so
	// far comes with the error.
	res, err := engine.Run(context.Background(), llm.NewStub(1), f, d, engine.WithStore(storetest.FailAfter(mem, 8, full)), fixed)
	fmt.Println(errors.Is(err, full), res.DebateID, res.Format, len(res.Transcript), "utterances so far")

	res, err = engine.ResumeStored(context.Background(), llm.NewStub(1), "open", engine.WithStore(mem), fixed)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(res.Transcript), "utterances")
	fmt.Println(res.Detail.Verdict().Summary)
	for _, doc := range res.Detail.Documents() {
		fmt.Println(doc.Name, strings.HasPrefix(doc.Markdown, "# Should cities ban private cars"))
	}
	// Output:
	// true open duelogic 3 utterances so far
	// 14 utterances
	// 2 chairs, 3 exchanges; steel-manning 67%, self-critique 75%, 2 interruptions, 2 interjections
	// transcript.md true
}

// Decoding a partial JSON config, as a web handler receives it, over the
// defaults; Validate names every violation.
func ExampleConfig_Validate() {
	cfg := duelogic.DefaultConfig()
	body := `{"flow": {"maxExchanges": 40}, "tone": "furious", "chairs": [{"position": "chair_1", "framework": "stoic", "modelId": "m"}]}`
	if err := json.Unmarshal([]byte(body), &cfg); err != nil {
		log.Fatal(err)
	}
	err := cfg.Validate()
	var ve *duelogic.ValidationError
	if errors.As(err, &ve) {
		for _, v := range ve.Violations {
			fmt.Printf("%s: %s\n", v.Field, v.Problem)
		}
	}
	fmt.Println(errors.Is(err, duelogic.ErrInvalidConfig))
	// Output:
	// chairs: 1 chairs; need 2..6
	// chairs[0].framework: unknown framework "stoic"
	// flow.maxExchanges: 40 is outside 3..30
	// tone: "furious": want respectful, spirited or heated
	// true
}

// A host extends the catalog with its own perspective and seats it.
func ExampleCatalog_With() {
	cat, err := duelogic.DefaultCatalog().With(duelogic.FrameworkInfo{
		ID:          "compliance_first",
		Name:        "Compliance First",
		Description: "Argues for audit trails, data residency and SOC2 requirements",
		Priorities:  []string{"audit trails", "data residency", "SOC2 requirements"},
		TradeOffs:   "Will accept development slowdown for compliance",
	})
	if err != nil {
		log.Fatal(err)
	}
	cfg := duelogic.DefaultConfig()
	cfg.Chairs[1].Framework = "compliance_first"
	_, err = duelogic.New(cfg, llm.NewStub(1), duelogic.WithCatalog(cat))
	fmt.Println(err)
	prompt, _ := duelogic.ChairSystemPrompt(cfg, cat, "chair_2")
	fmt.Println(prompt[:strings.Index(prompt, "\n")])
	// Output:
	// <nil>
	// You are holding the Compliance First perspective in this Duelogic debate.
}

// A debate stopped by a failing model resumes from its records; nothing said
// before the failure is generated again.
func ExampleOrchestrator_Resume() {
	cfg := duelogic.DefaultConfig()
	cfg.Flow.MaxExchanges = 3
	mem := store.NewMemory()
	stub := llm.NewStub(2)
	calls := 0
	flaky := llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		if req.Purpose == duelogic.PurposeResponse {
			if calls++; calls == 4 {
				return llm.Response{}, errors.New("503 from upstream")
			}
		}
		return stub.Complete(ctx, req)
	})
	o, _ := duelogic.New(cfg, flaky, duelogic.WithStore(mem), duelogic.WithClock(func() time.Time { return time.Date(2026, 1, 3, 20, 0, 0, 0, time.UTC) }))
	stopped, err := o.Run(context.Background(), duelogic.Debate{ID: "flaky", Proposition: "Is lying ever right?"})
	fmt.Println(err)
	fmt.Println(stopped.DebateID, len(stopped.Transcript), "utterances so far")

	res, err := o.Resume(context.Background(), "flaky")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Metrics.Responses, "responses")
	// Output:
	// engine: exchange segment, chair_2 (response): 503 from upstream
	// flaky 9 utterances so far
	// 6 responses
}
