package main

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/duelogic/duelogic/engine"
)

// priceFlags collects repeated -price flags, by model ID ("" for "*"): the
// same syntax as the CLI's --price and the web's -price (neither parser is
// exported: examples/internal/cliapp's, examples/web's own module).
type priceFlags map[string]engine.Price

// String lists the prices, for flag.Value.
func (p priceFlags) String() string {
	var parts []string
	for _, m := range slices.Sorted(maps.Keys(p)) {
		pr, name := p[m], m
		if name == "" {
			name = "*"
		}
		rates := fmt.Sprintf("%g/%g", pr.Input, pr.Output)
		if pr.CachedInput != 0 {
			rates = fmt.Sprintf("%g/%g/%g", pr.Input, pr.CachedInput, pr.Output)
		}
		parts = append(parts, name+"="+rates)
	}
	return strings.Join(parts, " ")
}

// Set reads MODEL=IN/OUT or MODEL=IN/CACHED/OUT, money per million tokens
// (MODEL * prices every model without a price of its own).
func (p priceFlags) Set(s string) error {
	model, pr, err := parsePrice(s)
	if err != nil {
		return err
	}
	p[model] = pr
	return nil
}

// errPriceSyntax is the mistake of a -price value that is not
// MODEL=IN[/CACHED]/OUT.
var errPriceSyntax = errors.New("want MODEL=IN/OUT or MODEL=IN/CACHED/OUT, dollars per million tokens (MODEL * for any model)")

// parsePrice reads a -price value: "gpt-4o-mini=0.15/0.60",
// "claude-sonnet-4=3/0.30/15" (the cached input's rate in the middle), or
// "*=..." for any model without a price of its own (model "").
func parsePrice(s string) (string, engine.Price, error) {
	model, rates, ok := strings.Cut(s, "=")
	model = strings.TrimSpace(model)
	parts := strings.Split(rates, "/")
	if !ok || model == "" || len(parts) < 2 || len(parts) > 3 {
		return "", engine.Price{}, errPriceSyntax
	}
	vals := make([]float64, len(parts))
	for i, part := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			return "", engine.Price{}, fmt.Errorf("rate %q is not a number of dollars", part)
		}
		vals[i] = v
	}
	if model == "*" {
		model = ""
	}
	pr := engine.Price{Input: vals[0], Output: vals[len(vals)-1]}
	if len(vals) == 3 {
		pr.CachedInput = vals[1]
	}
	return model, pr, nil
}
