package duelogic_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/llm/llmtest"
)

// TestDebateOnScriptedFake drives a debate with llmtest's Fake the way a host
// application's unit test would: scripted evaluations (the second one a
// violation), a scripted interruption, streaming, and the recorded requests.
func TestDebateOnScriptedFake(t *testing.T) {
	f := llmtest.New()
	f.OnPurpose(duelogic.PurposeEvaluation).Reply(
		`{"adherenceScore": 90, "steelManning": {"attempted": true, "quality": "strong"}, "selfCritique": {"attempted": true, "quality": "strong"}, "frameworkConsistency": {"consistent": true}, "intellectualHonesty": {"score": "high"}, "requiresInterjection": false}`,
		"```json\n{\"adherenceScore\": 35, \"steelManning\": {\"attempted\": false, \"quality\": \"absent\"}, \"requiresInterjection\": true, \"interjectionReason\": \"straw man\"}\n```",
		`{"adherenceScore": 80, "steelManning": {"attempted": true, "quality": "adequate"}, "selfCritique": {"attempted": true, "quality": "adequate"}, "requiresInterjection": false}`,
	)
	f.OnPurpose(duelogic.PurposeInterruptCheck).Reply(
		`{"shouldInterrupt": false, "urgency": 0.2}`,
		`{"shouldInterrupt": true, "interruptingChairPosition": "chair_1", "reason": "straw_man_detected", "triggerContent": "virtue is vague", "urgency": 0.85}`,
		`{"shouldInterrupt": false, "urgency": 0.1}`,
	)
	f.OnPurpose(duelogic.PurposeInterruption).Reply("Hold on, you're attacking a position I never took—numbers serve people.")
	f.OnPurpose(duelogic.PurposeResponse).Reply("Virtue is vague, my opponent says. That is a caricature. Character is trained judgment. Let me show how it works in practice.")
	cfg := duelogic.DefaultConfig()
	cfg.Flow.MaxExchanges = 3
	// One check per response, once its first sentences are said.
	cfg.Interruptions.CheckMinChars, cfg.Interruptions.MaxChecksPerTurn = 40, 1
	var tokens strings.Builder
	sink := duelogic.SinkFunc(func(_ context.Context, e duelogic.Event) {
		if e.Type == duelogic.EventToken {
			tokens.WriteString(e.Delta)
		}
	})
	o, err := duelogic.New(cfg, f, duelogic.WithSink(sink))
	if err != nil {
		t.Fatal(err)
	}
	res, err := o.Run(context.Background(), duelogic.Debate{Proposition: "Is it ever right to lie?"})
	if err != nil {
		t.Fatal(err)
	}
	// Exchange 1: chair_1 responds (clean), chair_2 responds; the check
	// made as it streams lets chair_1 cut in at the end of the sentence
	// under way, and its evaluation is the violation. chair_1 still
	// gives its response of exchange 2: every chair speaks every exchange.
	var kinds []string
	for _, u := range res.Transcript {
		if u.Exchange == 1 {
			kinds = append(kinds, u.Speaker+":"+string(u.Kind))
		}
		if u.Speaker == "chair_2" && u.Exchange == 1 && u.Kind == duelogic.KindResponse {
			if want := "Virtue is vague, my opponent says. That is a caricature. Character is trained judgment—"; u.Content != want || !u.Cut || u.InterruptedBy != "chair_1" {
				t.Errorf("chair_2's response %q (cut %v by %q), want %q cut by chair_1", u.Content, u.Cut, u.InterruptedBy, want)
			}
		}
	}
	want := "chair_1:response chair_2:response chair_1:interruption arbiter:interjection"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("exchange 1 = %s, want %s", got, want)
	}
	if f.Calls(duelogic.PurposeEvaluation) != 6 || f.Calls(duelogic.PurposeInterruptCheck) != 6 {
		t.Errorf("calls: %d evaluations, %d interrupt checks, want 6 and 6", f.Calls(duelogic.PurposeEvaluation), f.Calls(duelogic.PurposeInterruptCheck))
	}
	for _, r := range f.Requests() {
		if r.Purpose == duelogic.PurposeEvaluation && (len(r.Schema) == 0 || r.Model != cfg.Arbiter.ModelID) {
			t.Errorf("evaluation request: schema %s model=%q", r.Schema, r.Model)
		}
		if r.MaxTokens <= 0 {
			t.Errorf("%s request without a token cap", r.Purpose)
		}
	}
	if !strings.Contains(tokens.String(), "fake reply for opening") {
		t.Errorf("streamed tokens lack the fake's replies: %.80q", tokens.String())
	}
	if m := res.Metrics; m.Interruptions != 1 || m.Interjections != 1 || m.Evaluated != 6 {
		t.Errorf("metrics %+v", m)
	}
}

// A host application's unit test: script the arbiter's evaluations on a fake
// and check how the debate reacts.
func Example_fakeLLM() {
	f := llmtest.New()
	f.OnPurpose(duelogic.PurposeEvaluation).Reply(`{"adherenceScore": 40, "steelManning": {"attempted": false, "quality": "absent"}, "requiresInterjection": true, "interjectionReason": "no steel-man"}`)
	f.OnPurpose(duelogic.PurposeInterruptCheck).Reply(`{"shouldInterrupt": false}`)
	cfg := duelogic.DefaultConfig()
	cfg.Flow.MaxExchanges = 3
	o, _ := duelogic.New(cfg, f)
	res, _ := o.Run(context.Background(), duelogic.Debate{Proposition: "Is it ever right to lie?"})
	fmt.Println(res.Metrics.Interjections, "interjections,", f.Calls(duelogic.PurposeInterjection), "interjection calls")
	// Output: 6 interjections, 6 interjection calls
}
