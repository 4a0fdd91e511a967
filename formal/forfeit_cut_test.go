package formal

import (
	"context"
	"strings"
	"testing"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
)

// cutTurns answers every debater turn with JSON cut at its cap, and
// everything else as the stub does.
type cutTurns struct{ llm.Client }

func (c cutTurns) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if req.Purpose == PurposeTurn {
		return llm.Response{Content: `{"type": "opening_statement", "content": "We aff`, FinishReason: llm.FinishLength,
			Usage: llm.Usage{PromptTokens: 10, CompletionTokens: req.MaxTokens}}, nil
	}
	return c.Client.Complete(ctx, req)
}

// TestForfeitSaysTheTurnWasCutOff: a turn whose replies stop at their token
// cap is forfeited with the chair saying they were cut off, not only that
// they held no JSON object.
func TestForfeitSaysTheTurnWasCutOff(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MinRounds, cfg.MaxRounds = 1, 1
	f, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(t.Context(), cutTurns{llm.NewStub(1)}, f, engine.Debate{Proposition: "Should we?"})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, u := range res.Transcript {
		if strings.Contains(u.Content, "forfeits this turn") {
			found = true
			if !strings.Contains(u.Content, "cut off at its limit of") {
				t.Errorf("the forfeit does not say the turn was cut off: %q", u.Content)
			}
		}
	}
	if !found {
		t.Fatal("no turn was forfeited")
	}
}
