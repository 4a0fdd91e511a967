package duelogic

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/engine/enginetest"
	"github.com/duelogic/duelogic/llm/llmtest"
)

func TestSchemasAreStrict(t *testing.T) {
	enginetest.StrictSchema(t, PurposeEvaluation, json.RawMessage(evaluationSchema))
	enginetest.StrictSchema(t, PurposeInterruptCheck, json.RawMessage(interruptCheckSchema))
}

// The interrupt check's schema names the seed's six reasons.
func TestInterruptCheckSchemaReasons(t *testing.T) {
	var s struct {
		Properties struct {
			Reason struct {
				AnyOf []struct {
					Enum []InterruptReason `json:"enum"`
				} `json:"anyOf"`
			} `json:"reason"`
		} `json:"properties"`
	}
	if err := json.Unmarshal([]byte(interruptCheckSchema), &s); err != nil {
		t.Fatal(err)
	}
	if got := s.Properties.Reason.AnyOf[0].Enum; !slices.Equal(got, InterruptReasons()) {
		t.Errorf("reasons %v, want %v", got, InterruptReasons())
	}
}

// An evaluation or interrupt check still unreadable when asked again leaves
// the response unscored and uninterrupted, and is counted as defaulted.
func TestUnreadableJudgmentsAreDefaulted(t *testing.T) {
	f := llmtest.New()
	// Responses long enough for one mid-stream interrupt check each
	// (CheckMinChars), with sentences after it.
	f.OnPurpose(PurposeResponse).Reply(strings.Repeat("My framework answers this with care and evidence. ", 14))
	f.OnPurpose(PurposeEvaluation).Reply("It was a fine response.")
	f.OnPurpose(PurposeInterruptCheck).Reply(`{"urgency": 0.9}`)
	cfg := DefaultConfig()
	cfg.Flow.MaxExchanges = 3
	p, err := NewPodcast(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(context.Background(), f, p, Debate{Proposition: "Is it ever right to lie?"})
	if err != nil {
		t.Fatal(err)
	}
	responses := 0
	for _, u := range res.Transcript {
		if u.Kind == KindResponse {
			responses++
			if u.Evaluation != nil {
				t.Errorf("utterance %d scored: %+v", u.Seq, u.Evaluation)
			}
		}
		if u.Kind == KindInterruption || u.Kind == KindInterjection {
			t.Errorf("a %s was made", u.Kind)
		}
	}
	for _, purpose := range []string{PurposeEvaluation, PurposeInterruptCheck} {
		if got, want := res.Judgments[purpose], (engine.JudgmentCounts{Defaulted: responses}); got != want {
			t.Errorf("%s judgments %+v, want %+v", purpose, got, want)
		}
		if got := f.Calls(purpose); got != 2*responses {
			t.Errorf("%s asked %d times for %d responses, want twice each", purpose, got, responses)
		}
	}
	for _, r := range f.Requests() {
		if r.MaxTokens != maxTokens(cfg, r.Purpose) || r.MaxTokens <= 0 {
			t.Errorf("%s request MaxTokens %d", r.Purpose, r.MaxTokens)
		}
		if r.WantsJSON() != (r.Purpose == PurposeEvaluation || r.Purpose == PurposeInterruptCheck) || r.WantsJSON() != (r.Schema != nil) {
			t.Errorf("%s request: JSON %v, schema %s", r.Purpose, r.WantsJSON(), r.Schema)
		}
	}
}
