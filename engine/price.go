package engine

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ErrInvalidPrice is what ParsePrice wraps for a price it cannot read.
var ErrInvalidPrice = errors.New("engine: invalid price")

// ParsePrice reads a price as front ends take it on their command lines:
// "MODEL=IN/OUT" or "MODEL=IN/CACHED/OUT", dollars per million input,
// cached input and output tokens ("gpt-4o-mini=0.15/0.60",
// "claude-sonnet-4=3/0.30/15"); MODEL "*" is "", the price of any model
// without one of its own (see [WithPrices]). A rate must be a finite
// number, not negative.
func ParsePrice(s string) (model string, p Price, err error) {
	model, rates, ok := strings.Cut(s, "=")
	model = strings.TrimSpace(model)
	parts := strings.Split(rates, "/")
	if !ok || model == "" || len(parts) < 2 || len(parts) > 3 {
		return "", Price{}, fmt.Errorf("%w %q: want MODEL=IN/OUT or MODEL=IN/CACHED/OUT, dollars per million tokens (MODEL * for any model)", ErrInvalidPrice, s)
	}
	vals := make([]float64, len(parts))
	for i, part := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			return "", Price{}, fmt.Errorf("%w %q: rate %q is not a number of dollars", ErrInvalidPrice, s, part)
		}
		vals[i] = v
	}
	if model == "*" {
		model = ""
	}
	p = Price{Input: vals[0], Output: vals[len(vals)-1]}
	if len(vals) == 3 {
		p.CachedInput = vals[1]
	}
	return model, p, nil
}

// Prices are prices by model ID, as [WithPrices] takes them, and a
// repeatable command-line flag (flag.Value) whose values [ParsePrice]
// reads: a later price of a model replaces an earlier one.
type Prices map[string]Price

// String lists the prices in the syntax Set reads, by model ("*" first).
func (p Prices) String() string {
	var parts []string
	for _, m := range slices.Sorted(maps.Keys(p)) {
		parts = append(parts, PriceArg(m, p[m]))
	}
	return strings.Join(parts, " ")
}

// Set adds one price (see [ParsePrice]).
func (p Prices) Set(s string) error {
	model, pr, err := ParsePrice(s)
	if err != nil {
		return err
	}
	p[model] = pr
	return nil
}

// PriceArg writes model's price p in the syntax ParsePrice reads ("*" for
// model "").
func PriceArg(model string, p Price) string {
	rates := fmt.Sprintf("%g/%g", p.Input, p.Output)
	if p.CachedInput != 0 {
		rates = fmt.Sprintf("%g/%g/%g", p.Input, p.CachedInput, p.Output)
	}
	if model == "" {
		model = "*"
	}
	return model + "=" + rates
}
