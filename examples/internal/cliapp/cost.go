package cliapp

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
)

// priceArg is the --price value of model's price p, quoted for a shell.
func priceArg(model string, p engine.Price) string {
	return "'" + engine.PriceArg(model, p) + "'"
}

// spendMeter counts what the model calls of this process spend, on top of
// what the stored debate had spent before it (a resume's), for the running
// line; the result's usage and cost are the engine's.
type spendMeter struct {
	prices map[string]engine.Price

	mu    sync.Mutex
	usage llm.Usage
	cost  float64
}

// add counts the reply resp to req.
func (m *spendMeter) add(req llm.Request, resp llm.Response) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.usage = m.usage.Add(resp.Usage)
	m.cost += priceOf(m.prices, req.Model, resp.Model).Cost(resp.Usage)
}

// start sets what was spent before this process.
func (m *spendMeter) start(u llm.Usage, cost float64) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.usage, m.cost = u, cost
}

// spent is what was spent so far.
func (m *spendMeter) spent() (llm.Usage, float64) {
	if m == nil {
		return llm.Usage{}, 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.usage, m.cost
}

// priceOf is the price of a call as the engine reads it: the request's
// model, else the reply's, else "".
func priceOf(prices map[string]engine.Price, models ...string) engine.Price {
	for _, m := range models {
		if p, ok := prices[m]; ok && m != "" {
			return p
		}
	}
	return prices[""]
}

// meteredClient is a client whose replies a spendMeter counts; it streams
// when its client does.
type meteredClient struct {
	llm.Client
	m *spendMeter
}

func (c meteredClient) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	resp, err := c.Client.Complete(ctx, req)
	c.m.add(req, resp)
	return resp, err
}

// meteredStreamer is a meteredClient of a client that streams.
type meteredStreamer struct {
	meteredClient
	s llm.Streamer
}

func (c meteredStreamer) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	resp, err := c.s.Stream(ctx, req, onDelta)
	c.m.add(req, resp)
	return resp, err
}

// metered returns c with its replies counted by m.
func metered(c llm.Client, m *spendMeter) llm.Client {
	mc := meteredClient{c, m}
	if s, ok := c.(llm.Streamer); ok {
		return meteredStreamer{mc, s}
	}
	return mc
}

// spentLine is the running line: the tokens spent so far, the share of
// the prompt served from the provider's cache, the money at the prices
// given, against the budget.
func spentLine(u llm.Usage, cost float64, priced bool, b engine.Budget) string {
	line := fmt.Sprintf("%d tokens", u.Total())
	if b.Tokens > 0 {
		line += fmt.Sprintf(" of %d", b.Tokens)
	}
	if u.CachedPromptTokens > 0 && u.PromptTokens > 0 {
		line += fmt.Sprintf(" (%.0f%% of the prompt cached)", 100*float64(u.CachedPromptTokens)/float64(u.PromptTokens))
	}
	if priced || b.Cost > 0 {
		line += ", " + dollars(cost)
		if b.Cost > 0 {
			line += " of " + dollars(b.Cost)
		}
	}
	return line
}

// dollars formats an amount of money with the precision a few tokens'
// price needs.
func dollars(v float64) string {
	if v != 0 && math.Abs(v) < 0.01 {
		return fmt.Sprintf("$%.6f", v)
	}
	return fmt.Sprintf("$%.4f", v)
}

// usageLines is the summary of what a debate spent: its tokens and cost,
// then by purpose and by speaker, the largest first.
func usageLines(res *engine.Result[engine.Outcome], priced bool) []string {
	u := res.Usage
	head := fmt.Sprintf("spent %d tokens: %d prompt", u.Total(), u.PromptTokens)
	if u.CachedPromptTokens > 0 {
		head += fmt.Sprintf(" (%d cached, %.0f%%)", u.CachedPromptTokens, 100*float64(u.CachedPromptTokens)/float64(max(u.PromptTokens, 1)))
	}
	head += fmt.Sprintf(", %d completion", u.CompletionTokens)
	if u.ReasoningTokens > 0 {
		head += fmt.Sprintf(" (%d reasoning)", u.ReasoningTokens)
	}
	if priced || res.Cost > 0 {
		head += "; cost " + dollars(res.Cost)
	}
	lines := []string{head}
	if s := usageSplit(res.UsageByPurpose, func(p string) string {
		if p == "" {
			return "unattributed"
		}
		return strings.ReplaceAll(p, "_", " ")
	}); s != "" {
		lines = append(lines, "  by purpose: "+s)
	}
	if s := usageSplit(res.UsageBySpeaker, func(sp string) string {
		if sp == "" {
			return "the debate"
		}
		return sp
	}); s != "" {
		lines = append(lines, "  by speaker: "+s)
	}
	return lines
}

// usageSplit lists the totals of by, the largest first, named by name.
func usageSplit(by map[string]llm.Usage, name func(string) string) string {
	keys := slices.Collect(maps.Keys(by))
	slices.SortFunc(keys, func(a, b string) int {
		return cmp.Or(cmp.Compare(by[b].Total(), by[a].Total()), cmp.Compare(a, b))
	})
	var parts []string
	for _, k := range keys {
		if t := by[k].Total(); t > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", name(k), t))
		}
	}
	return strings.Join(parts, ", ")
}
