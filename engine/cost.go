package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"sync"

	"github.com/duelogic/duelogic/llm"
)

// Price is what a model's tokens cost, in money per million tokens.
type Price struct {
	// Input prices the prompt tokens the provider did not serve from its
	// cache.
	Input float64 `json:"input"`
	// CachedInput prices the prompt tokens served from the provider's
	// prompt cache (llm.Usage.CachedPromptTokens); 0 prices them as Input.
	CachedInput float64 `json:"cachedInput"`
	// Output prices the completion tokens, reasoning included.
	Output float64 `json:"output"`
}

// Cost is what u costs at p.
func (p Price) Cost(u llm.Usage) float64 {
	cached := min(max(u.CachedPromptTokens, 0), u.PromptTokens)
	cachedPrice := p.CachedInput
	if cachedPrice == 0 {
		cachedPrice = p.Input
	}
	return (float64(u.PromptTokens-cached)*p.Input + float64(cached)*cachedPrice + float64(u.CompletionTokens)*p.Output) / 1e6
}

// WithPrices prices the debate's model calls, by the model ID a request
// names (llm.Request.Model, else the reply's model); the price of "" is
// that of any other model, and a model without a price costs nothing.
// [Result].Cost and the debate_ended event's say what the debate cost; a
// [WithBudget] of money is measured by it. Each call's cost is stored with
// the step that made it, so a resumed debate counts what it cost before.
func WithPrices(p map[string]Price) Option {
	return func(o *settings) {
		o.prices = make(map[string]Price, len(p))
		for m, pr := range p {
			o.prices[m] = pr
		}
	}
}

// Budget bounds what a debate may spend; a zero field sets no limit.
type Budget struct {
	// Tokens bounds the prompt and completion tokens of every call.
	Tokens int `json:"tokens,omitempty"`
	// Cost bounds the money, at the prices of [WithPrices].
	Cost float64 `json:"cost,omitempty"`
}

// ErrBudget: the debate has spent its budget ([WithBudget]). It stops at
// the next step, everything said kept; a Resume with a larger budget (or
// none) finishes it as if it had never stopped.
var ErrBudget = errors.New("engine: budget spent")

// WithBudget stops a debate that has spent b before its next step: Run or
// Resume returns the result so far with an error wrapping [ErrBudget].
// What counts is everything the debate spent, before a resume too. A step
// under way when the budget runs out finishes, so a debate may spend one
// step past it. A negative field is an error of Run and Resume.
func WithBudget(b Budget) Option { return func(o *settings) { o.budget = b } }

// checkBudget returns an error wrapping ErrBudget when the debate has spent
// its budget.
func (s *Session) checkBudget() error {
	b := s.o.budget
	if b.Tokens <= 0 && b.Cost <= 0 {
		return nil
	}
	s.usageMu.Lock()
	var used llm.Usage
	for _, u := range s.usage {
		used = used.Add(u)
	}
	cost := s.cost + s.rec.meter.loose()
	s.usageMu.Unlock()
	switch {
	case b.Tokens > 0 && used.Total() >= b.Tokens:
		return fmt.Errorf("%w: %d tokens of a budget of %d", ErrBudget, used.Total(), b.Tokens)
	case b.Cost > 0 && cost >= b.Cost:
		return fmt.Errorf("%w: %s of a budget of %s", ErrBudget, money(cost), money(b.Cost))
	}
	return nil
}

// money formats an amount with the precision a token's price needs.
func money(v float64) string {
	if v != 0 && math.Abs(v) < 0.01 {
		return fmt.Sprintf("%.6f", v)
	}
	return fmt.Sprintf("%.4f", v)
}

// chargeCost adds what a stored step cost to the debate's.
func (s *Session) chargeCost(c float64) {
	if c == 0 {
		return
	}
	s.usageMu.Lock()
	s.cost += c
	s.usageMu.Unlock()
}

// chargePurposes adds a stored step's usage by purpose to the debate's.
func (s *Session) chargePurposes(ps map[string]llm.Usage) {
	if len(ps) == 0 {
		return
	}
	s.usageMu.Lock()
	for p, u := range ps {
		s.purposes[p] = s.purposes[p].Add(u)
	}
	s.usageMu.Unlock()
}

// meter prices model calls and keeps what calls made outside any step cost
// (stored nowhere, counted in this process).
type meter struct {
	prices map[string]Price

	mu    sync.Mutex
	outer float64
}

// price is what resp, the reply to req, cost.
func (m *meter) price(req llm.Request, resp llm.Response) float64 {
	if m == nil || len(m.prices) == 0 {
		return 0
	}
	for _, model := range []string{req.Model, resp.Model} {
		if p, ok := m.prices[model]; ok && model != "" {
			return p.Cost(resp.Usage)
		}
	}
	return m.prices[""].Cost(resp.Usage)
}

// spend counts what resp, the reply to req, cost and the tokens it used:
// to the step whose context ctx is, else (its cost only) to the calls
// outside any step.
func (m *meter) spend(ctx context.Context, req llm.Request, resp llm.Response) {
	c := m.price(req, resp)
	if t, _ := ctx.Value(spendKey{}).(*spending); t != nil {
		t.add(c, req.Purpose, resp.Usage)
		return
	}
	if c == 0 {
		return
	}
	m.mu.Lock()
	m.outer += c
	m.mu.Unlock()
}

// loose is what the calls outside any step cost.
func (m *meter) loose() float64 {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.outer
}

// spendKey marks a context whose calls a stored record pays for.
type spendKey struct{}

// spending is what the calls of one record cost, and the tokens they
// used by purpose, from any goroutine.
type spending struct {
	mu       sync.Mutex
	cost     float64
	costs    map[string]float64 // by purpose
	purposes map[string]llm.Usage
}

func (t *spending) add(c float64, purpose string, u llm.Usage) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cost += c
	if c != 0 {
		if t.costs == nil {
			t.costs = map[string]float64{}
		}
		t.costs[purpose] += c
	}
	if u == (llm.Usage{}) {
		return
	}
	if t.purposes == nil {
		t.purposes = map[string]llm.Usage{}
	}
	t.purposes[purpose] = t.purposes[purpose].Add(u)
}

// paid is what the record's calls cost (see [entry]): their money, and
// their tokens by purpose; a step whose usage no call reported (its calls
// made with another client) is counted under the empty purpose, so the
// purposes always add up to the step's usage. replace, when not nil,
// stands for what its purpose's calls reported, and what they cost (a cut
// speech, whose usage is estimated: what a cancelled stream reports
// depends on when it was cancelled).
func (t *spending) paid(usage llm.Usage, replace *purposeUsage) (float64, map[string]llm.Usage) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ps, cost := maps.Clone(t.purposes), t.cost
	if replace != nil {
		if ps == nil {
			ps = map[string]llm.Usage{}
		}
		ps[replace.purpose] = replace.usage
		cost += replace.cost - t.costs[replace.purpose]
	}
	return cost, withRest(ps, usage)
}

// purposeUsage is the usage of one purpose and its cost.
type purposeUsage struct {
	purpose string
	usage   llm.Usage
	cost    float64
}

// withRest returns ps with what of total no purpose in ps accounts for
// under "": all of it when ps is empty (as a step stored by an earlier
// engine, which kept no purposes).
func withRest(ps map[string]llm.Usage, total llm.Usage) map[string]llm.Usage {
	var sum llm.Usage
	for _, u := range ps {
		sum = sum.Add(u)
	}
	rest := llm.Usage{
		PromptTokens:       total.PromptTokens - sum.PromptTokens,
		CompletionTokens:   total.CompletionTokens - sum.CompletionTokens,
		CachedPromptTokens: total.CachedPromptTokens - sum.CachedPromptTokens,
		ReasoningTokens:    total.ReasoningTokens - sum.ReasoningTokens,
	}
	if rest.PromptTokens > 0 || rest.CompletionTokens > 0 {
		if ps == nil {
			ps = map[string]llm.Usage{}
		}
		ps[""] = ps[""].Add(llm.Usage{PromptTokens: max(rest.PromptTokens, 0), CompletionTokens: max(rest.CompletionTokens, 0),
			CachedPromptTokens: max(rest.CachedPromptTokens, 0), ReasoningTokens: max(rest.ReasoningTokens, 0)})
	}
	return ps
}

// withSpending returns ctx carrying a fresh spending, whose calls it
// counts.
func withSpending(ctx context.Context) (context.Context, *spending) {
	t := &spending{}
	return context.WithValue(ctx, spendKey{}, t), t
}
