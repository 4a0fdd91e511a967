package engine_test

import (
	"errors"
	"math"
	"testing"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
)

func TestPriceCost(t *testing.T) {
	tests := []struct {
		name string
		p    engine.Price
		u    llm.Usage
		want float64
	}{
		{"plain", engine.Price{Input: 2, Output: 10}, llm.Usage{PromptTokens: 1_000_000, CompletionTokens: 500_000}, 2 + 5},
		{"cached at its price", engine.Price{Input: 2, CachedInput: 0.5, Output: 10}, llm.Usage{PromptTokens: 1_000_000, CachedPromptTokens: 400_000}, 0.6*2 + 0.4*0.5},
		{"cached without a price costs input", engine.Price{Input: 2}, llm.Usage{PromptTokens: 1_000_000, CachedPromptTokens: 400_000}, 2},
		{"more cached than prompt", engine.Price{Input: 2, CachedInput: 1}, llm.Usage{PromptTokens: 10, CachedPromptTokens: 99}, 10 * 1 / 1e6},
		{"free", engine.Price{}, llm.Usage{PromptTokens: 5, CompletionTokens: 5}, 0},
	}
	for _, tt := range tests {
		if got := tt.p.Cost(tt.u); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: Cost = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// priced answers every call with 100 prompt tokens (40 of them cached) and
// 10 completion tokens.
func priced() *llmtest.Fake {
	f := llmtest.New()
	f.Default().Respond(repeat(llm.Response{Content: "Said.", Usage: llm.Usage{PromptTokens: 100, CachedPromptTokens: 40, CompletionTokens: 10}}, 40)...)
	return f
}

func repeat(r llm.Response, n int) []llm.Response {
	out := make([]llm.Response, n)
	for i := range out {
		out[i] = r
	}
	return out
}

// TestCostAndBudget: a debate's cost is priced per model and kept through
// a resume; a budget stops it before the next step once spent, everything
// said kept, and a resume with a larger budget finishes it as an
// unbroken run would.
func TestCostAndBudget(t *testing.T) {
	prices := engine.WithPrices(map[string]engine.Price{"": {Input: 1e6 / 100, CachedInput: 1e6 / 1000, Output: 1e6 / 10}})
	// Per call: 60 uncached at 0.01, 40 cached at 0.001, 10 out at 0.1.
	const perCall = 60*0.01 + 40*0.001 + 10*0.1
	whole, err := engine.Run(t.Context(), priced(), &toy{Rounds: 2}, engine.Debate{ID: "w", Proposition: "p?"}, prices)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(whole.Cost-4*perCall) > 1e-9 || whole.Usage.CachedPromptTokens != 160 {
		t.Fatalf("cost %v, cached %d; want %v, 160", whole.Cost, whole.Usage.CachedPromptTokens, 4*perCall)
	}

	tests := []struct {
		name   string
		budget engine.Budget
		said   int // utterances before it stops
	}{
		{"tokens", engine.Budget{Tokens: 2 * 110}, 2},
		{"money", engine.Budget{Cost: 2.5 * perCall}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := store.NewMemory()
			d := engine.Debate{ID: "b", Proposition: "p?"}
			res, err := engine.Run(t.Context(), priced(), &toy{Rounds: 2}, d, prices, engine.WithStore(st), engine.WithBudget(tt.budget))
			if !errors.Is(err, engine.ErrBudget) {
				t.Fatalf("Run = %v, want ErrBudget", err)
			}
			if res == nil || len(res.Transcript) != tt.said || math.Abs(res.Cost-float64(tt.said)*perCall) > 1e-9 {
				t.Fatalf("stopped with %v; want %d utterances costing %v", res, tt.said, float64(tt.said)*perCall)
			}
			sum, err := engine.Inspect(t.Context(), st, "b")
			if err != nil || sum.Usage != res.Usage || math.Abs(sum.Cost-res.Cost) > 1e-9 {
				t.Errorf("Inspect = usage %+v, cost %v (%v); want what the stopped debate spent, %+v, %v", sum.Usage, sum.Cost, err, res.Usage, res.Cost)
			}
			again, err := engine.Resume(t.Context(), priced(), &toy{}, "b", prices, engine.WithStore(st), engine.WithBudget(engine.Budget{Tokens: 10_000}))
			if err != nil {
				t.Fatal(err)
			}
			if len(again.Transcript) != len(whole.Transcript) || math.Abs(again.Cost-whole.Cost) > 1e-9 || again.Usage != whole.Usage {
				t.Errorf("resumed: %d utterances, cost %v, usage %+v; want %d, %v, %+v",
					len(again.Transcript), again.Cost, again.Usage, len(whole.Transcript), whole.Cost, whole.Usage)
			}
		})
	}
	for _, bad := range []engine.Option{engine.WithBudget(engine.Budget{Tokens: -1}), engine.WithPrices(map[string]engine.Price{"m": {Output: -1}})} {
		if _, err := engine.Run(t.Context(), priced(), &toy{Rounds: 1}, engine.Debate{Proposition: "p?"}, bad); err == nil {
			t.Error("a negative budget or price was accepted")
		}
	}
}
