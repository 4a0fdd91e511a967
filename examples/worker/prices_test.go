package main

import (
	"flag"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/duelogic/duelogic/engine"
	"github.com/google/go-cmp/cmp"
)

func TestParsePrice(t *testing.T) {
	tests := []struct {
		in      string
		model   string
		price   engine.Price
		wantErr bool
	}{
		{in: "gpt-4o-mini=0.15/0.60", model: "gpt-4o-mini", price: engine.Price{Input: 0.15, Output: 0.6}},
		{in: "claude-sonnet-4=3/0.30/15", model: "claude-sonnet-4", price: engine.Price{Input: 3, CachedInput: 0.3, Output: 15}},
		{in: "*=1/2", model: "", price: engine.Price{Input: 1, Output: 2}},
		{in: " m = 1 / 2 ", model: "m", price: engine.Price{Input: 1, Output: 2}},
		{in: "m=1", wantErr: true},
		{in: "m=1/2/3/4", wantErr: true},
		{in: "=1/2", wantErr: true},
		{in: "m 1/2", wantErr: true},
		{in: "m=-1/2", wantErr: true},
		{in: "m=1/NaN", wantErr: true},
		{in: "m=Inf/2", wantErr: true},
		{in: "m=one/2", wantErr: true},
	}
	for _, tt := range tests {
		model, price, err := parsePrice(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("parsePrice(%q): error %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if model != tt.model || price != tt.price {
			t.Errorf("parsePrice(%q) = %q, %+v; want %q, %+v", tt.in, model, price, tt.model, tt.price)
		}
	}
}

// TestPriceFlagRepeats: -price is repeatable, a later price of a model
// replaces an earlier one, and String lists them back in the same syntax.
func TestPriceFlagRepeats(t *testing.T) {
	p := priceFlags{}
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(p, "price", "")
	if err := fs.Parse([]string{"-price", "a=1/2", "-price", "*=0.5/0.1/3", "-price", "a=4/5"}); err != nil {
		t.Fatal(err)
	}
	want := priceFlags{"a": {Input: 4, Output: 5}, "": {Input: 0.5, CachedInput: 0.1, Output: 3}}
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
		model, p, err := parsePrice(s)
		if err != nil {
			return
		}
		for _, v := range []float64{p.Input, p.CachedInput, p.Output} {
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("parsePrice(%q) = %+v: a rate out of range", s, p)
			}
		}
		if model == "*" || strings.Contains(model, "=") {
			t.Fatalf("parsePrice(%q): model %q", s, model)
		}
		// What String prints reads back the same.
		back := priceFlags{}
		if err := back.Set(priceFlags{model: p}.String()); err != nil || back[model] != p {
			t.Fatalf("parsePrice(%q) = %q %+v; printed and read back: %+v, %v", s, model, p, back, err)
		}
	})
}
