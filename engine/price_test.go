package engine_test

import (
	"errors"
	"flag"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
)

func TestParsePrice(t *testing.T) {
	for _, tt := range []struct {
		in    string
		model string
		price engine.Price
		bad   bool
	}{
		{in: "gpt-4o-mini=0.15/0.60", model: "gpt-4o-mini", price: engine.Price{Input: 0.15, Output: 0.6}},
		{in: "claude-sonnet-4=3/0.30/15", model: "claude-sonnet-4", price: engine.Price{Input: 3, CachedInput: 0.3, Output: 15}},
		{in: "*=1/2", model: "", price: engine.Price{Input: 1, Output: 2}},
		{in: " m = 1 / 2 ", model: "m", price: engine.Price{Input: 1, Output: 2}},
		{in: "m=1", bad: true},
		{in: "m=1/2/3/4", bad: true},
		{in: "=1/2", bad: true},
		{in: "m 1/2", bad: true},
		{in: "m=-1/2", bad: true},
		{in: "m=1/NaN", bad: true},
		{in: "m=Inf/2", bad: true},
		{in: "m=one/2", bad: true},
	} {
		model, price, err := engine.ParsePrice(tt.in)
		if tt.bad {
			if !errors.Is(err, engine.ErrInvalidPrice) {
				t.Errorf("ParsePrice(%q): %v, want ErrInvalidPrice", tt.in, err)
			}
			continue
		}
		if err != nil || model != tt.model || price != tt.price {
			t.Errorf("ParsePrice(%q) = %q, %+v, %v; want %q, %+v", tt.in, model, price, err, tt.model, tt.price)
		}
		if m, p, err := engine.ParsePrice(engine.PriceArg(model, price)); err != nil || m != model || p != price {
			t.Errorf("PriceArg of %q does not read back: %q %+v %v", tt.in, m, p, err)
		}
	}
}

// Prices is a repeatable flag: a later price of a model replaces an
// earlier one, and String lists them back in the same syntax.
func TestPricesFlag(t *testing.T) {
	p := engine.Prices{}
	fs := flag.NewFlagSet("debate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(p, "price", "")
	if err := fs.Parse([]string{"-price", "a=1/2", "-price", "*=0.5/0.1/3", "-price", "a=4/5"}); err != nil {
		t.Fatal(err)
	}
	want := engine.Prices{"a": {Input: 4, Output: 5}, "": {Input: 0.5, CachedInput: 0.1, Output: 3}}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("prices (-want +got):\n%s", diff)
	}
	if got, want := p.String(), "*=0.5/0.1/3 a=4/5"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if err := fs.Parse([]string{"-price", "a"}); err == nil || !strings.Contains(err.Error(), "MODEL=IN/OUT") {
		t.Errorf("-price a: %v; want the syntax", err)
	}
}

func FuzzParsePrice(f *testing.F) {
	for _, s := range []string{"gpt-4o-mini=0.15/0.60", "m=3/0.30/15", "*=1/2", "=", "m=1/2/3/4", "m=1e308/1e309"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		model, p, err := engine.ParsePrice(s)
		if err != nil {
			return
		}
		for _, v := range []float64{p.Input, p.CachedInput, p.Output} {
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("ParsePrice(%q) = %+v: a rate out of range", s, p)
			}
		}
		if m, q, err := engine.ParsePrice(engine.PriceArg(model, p)); err != nil || m != model || q != p {
			t.Fatalf("ParsePrice(%q) = %q %+v does not write back: %q %+v %v", s, model, p, m, q, err)
		}
	})
}
