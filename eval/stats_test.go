package eval_test

import (
	"math"
	"math/big"
	"slices"
	"testing"

	"github.com/duelogic/duelogic/eval"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// exactMcNemar is the exact two-sided McNemar p-value in rational
// arithmetic: 2·Σ_{i ≤ min} C(n, i) / 2^n, capped at 1. It checks the
// floating-point implementation.
func exactMcNemar(b, c int) float64 {
	n := b + c
	k := min(b, c)
	sum, term := new(big.Int), big.NewInt(1) // term: C(n, i)
	for i := 0; i <= k; i++ {
		sum.Add(sum, term)
		term.Mul(term, big.NewInt(int64(n-i)))
		term.Quo(term, big.NewInt(int64(i+1)))
	}
	r := new(big.Rat).SetFrac(new(big.Int).Mul(sum, big.NewInt(2)), new(big.Int).Lsh(big.NewInt(1), uint(n)))
	f, _ := r.Float64()
	return min(1, f)
}

func TestMcNemarExact(t *testing.T) {
	tests := []struct {
		name         string
		onlyA, onlyB int
		want         float64
		tol          float64
	}{
		// Fagerland, Lydersen & Laake (2013), "The McNemar test for binary
		// matched-pairs data: mid-p and asymptotic are better than exact
		// conditional", BMC Medical Research Methodology 13:91, Table 1:
		// airway hyper-responsiveness before and after stem cell
		// transplantation (Bentur et al. 2009), discordant pairs 1 and 7;
		// the exact conditional test gives p = 0.070 (18/256 = 0.0703125).
		{"Fagerland 2013 example", 1, 7, 18.0 / 256, 1e-15},
		{"Fagerland 2013 example, sides swapped", 7, 1, 18.0 / 256, 1e-15},
		// R: binom.test(0, 10)$p.value = 0.001953125 = 2/1024.
		{"all discordant one way", 0, 10, 2.0 / 1024, 1e-15},
		{"no discordant pair", 0, 0, 1, 0},
		{"balanced: capped at 1", 5, 5, 1, 0},
		{"one discordant pair", 0, 1, 1, 0},
		{"nearly balanced, odd n", 4, 5, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := eval.McNemarExact(tt.onlyA, tt.onlyB); !near(got, tt.want, tt.tol) {
				t.Errorf("McNemarExact(%d, %d) = %.17g, want %.17g", tt.onlyA, tt.onlyB, got, tt.want)
			}
		})
	}
	if p := eval.McNemarExact(-1, 3); !math.IsNaN(p) {
		t.Errorf("McNemarExact(-1, 3) = %v, want NaN", p)
	}
}

// TestMcNemarExactMatchesRationalArithmetic checks every small table, and a
// few large ones where a naive 2^-n would underflow, against the exact sum.
func TestMcNemarExactMatchesRationalArithmetic(t *testing.T) {
	check := func(b, c int) {
		t.Helper()
		got, want := eval.McNemarExact(b, c), exactMcNemar(b, c)
		if !near(got, want, 1e-12*max(want, 1e-300)) && !near(got, want, 1e-300) {
			t.Errorf("McNemarExact(%d, %d) = %.17g, want %.17g", b, c, got, want)
		}
	}
	for b := 0; b <= 25; b++ {
		for c := 0; c <= 25; c++ {
			check(b, c)
		}
	}
	check(300, 420)
	check(1000, 1100)
	check(10, 1500)
}

func TestWilson(t *testing.T) {
	tests := []struct {
		name       string
		s, n       int
		wantLo, hi float64
	}{
		// Newcombe (1998), "Two-sided confidence intervals for the single
		// proportion: comparison of seven methods", Statistics in
		// Medicine 17:857-872, Table II, method 3 (Wilson score, no
		// continuity correction), to four decimals.
		{"Newcombe 81/263", 81, 263, 0.2553, 0.3662},
		{"Newcombe 15/148", 15, 148, 0.0624, 0.1605},
		{"Newcombe 0/20", 0, 20, 0.0000, 0.1611},
		{"Newcombe 1/29", 1, 29, 0.0061, 0.1718},
		{"all successes", 29, 29, 0.8830, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi := eval.Wilson(tt.s, tt.n)
			if !near(lo, tt.wantLo, 5e-5) || !near(hi, tt.hi, 5e-5) {
				t.Errorf("Wilson(%d, %d) = (%.5f, %.5f), want (%.4f, %.4f)", tt.s, tt.n, lo, hi, tt.wantLo, tt.hi)
			}
		})
	}
	if lo, hi := eval.Wilson(0, 20); lo != 0 {
		t.Errorf("Wilson(0, 20) lower bound = %v, want exactly 0 (hi %v)", lo, hi)
	}
	if lo, hi := eval.Wilson(20, 20); hi != 1 {
		t.Errorf("Wilson(20, 20) upper bound = %v, want exactly 1 (lo %v)", hi, lo)
	}
	// With no failures (or no successes) a bound has a closed form, which
	// pins z to all its digits: n/(n+z²) and z²/(n+z²).
	const z = 1.959963984540054 // the 0.975 quantile of the standard normal
	const z2 = z * z
	if lo, _ := eval.Wilson(20, 20); !near(lo, 20/(20+z2), 1e-15) {
		t.Errorf("Wilson(20, 20) lower bound = %.17g, want %.17g", lo, 20/(20+z2))
	}
	if _, hi := eval.Wilson(0, 20); !near(hi, z2/(20+z2), 1e-15) {
		t.Errorf("Wilson(0, 20) upper bound = %.17g, want %.17g", hi, z2/(20+z2))
	}
	if lo, hi := eval.Wilson(0, 0); lo != 0 || hi != 1 {
		t.Errorf("Wilson(0, 0) = (%v, %v), want (0, 1)", lo, hi)
	}
	for _, bad := range [][2]int{{-1, 5}, {6, 5}, {0, -1}} {
		if lo, hi := eval.Wilson(bad[0], bad[1]); !math.IsNaN(lo) || !math.IsNaN(hi) {
			t.Errorf("Wilson(%d, %d) = (%v, %v), want NaNs", bad[0], bad[1], lo, hi)
		}
	}
	// The interval holds the observed proportion and narrows as n grows.
	prev := 1.0
	for _, n := range []int{10, 100, 1000, 10000} {
		lo, hi := eval.Wilson(7*n/10, n)
		if lo > 0.7 || hi < 0.7 || hi-lo >= prev {
			t.Errorf("Wilson(%d, %d) = (%v, %v): should hold 0.7 and be narrower than %v", 7*n/10, n, lo, hi, prev)
		}
		prev = hi - lo
	}
}

// wikipediaFleiss is the worked example of the Wikipedia article "Fleiss'
// kappa" (14 raters, 10 subjects, 5 categories): P̄ = 0.378, P̄e = 0.213,
// κ = 0.210. statsmodels tests its fleiss_kappa against the same table.
var wikipediaFleiss = [][]int{
	{0, 0, 0, 0, 14},
	{0, 2, 6, 4, 2},
	{0, 0, 3, 5, 6},
	{0, 3, 9, 2, 0},
	{2, 2, 8, 1, 1},
	{7, 7, 0, 0, 0},
	{3, 2, 6, 3, 0},
	{2, 5, 3, 2, 2},
	{6, 5, 2, 1, 0},
	{0, 2, 2, 3, 7},
}

// fleiss1971 is the data of Fleiss (1971), "Measuring nominal scale
// agreement among many raters", Psychological Bulletin 76(5):378-382,
// Table 1: 30 patients, each diagnosed by 6 psychiatrists as 1 depression,
// 2 personality disorder, 3 schizophrenia, 4 neurosis or 5 other; as R's
// irr package ships it (dataset "diagnoses", one column per rater), where
// kappam.fleiss(diagnoses) gives κ = 0.4302445 (Fleiss reports 0.430).
var fleiss1971 = [][]int{
	{4, 4, 4, 4, 4, 4}, {2, 2, 2, 5, 5, 5}, {2, 3, 3, 3, 3, 5}, {5, 5, 5, 5, 5, 5},
	{2, 2, 2, 4, 4, 4}, {1, 1, 3, 3, 3, 3}, {3, 3, 3, 3, 5, 5}, {1, 1, 3, 3, 3, 4},
	{1, 1, 4, 4, 4, 4}, {5, 5, 5, 5, 5, 5}, {1, 4, 4, 4, 4, 4}, {1, 2, 4, 4, 4, 4},
	{2, 2, 2, 3, 3, 3}, {1, 4, 4, 4, 4, 4}, {2, 2, 4, 4, 4, 5}, {3, 3, 3, 3, 3, 5},
	{1, 1, 1, 4, 5, 5}, {1, 1, 1, 1, 1, 2}, {2, 2, 4, 4, 4, 4}, {1, 3, 3, 5, 5, 5},
	{5, 5, 5, 5, 5, 5}, {2, 4, 4, 4, 4, 4}, {2, 2, 4, 5, 5, 5}, {1, 1, 4, 4, 4, 4},
	{1, 4, 4, 4, 4, 5}, {2, 2, 2, 2, 2, 4}, {1, 1, 1, 1, 5, 5}, {2, 2, 4, 4, 4, 4},
	{1, 3, 3, 3, 3, 3}, {5, 5, 5, 5, 5, 5},
}

// countsOf turns raters' labels (1..cats) per item into counts per category.
func countsOf(ratings [][]int, cats int) [][]int {
	out := make([][]int, len(ratings))
	for i, r := range ratings {
		out[i] = make([]int, cats)
		for _, c := range r {
			out[i][c-1]++
		}
	}
	return out
}

func TestFleissKappa(t *testing.T) {
	table := countsOf(fleiss1971, 5)
	var colsum [5]int
	for _, row := range table {
		for j, c := range row {
			colsum[j] += c
		}
	}
	if colsum != [5]int{26, 26, 30, 55, 43} { // as Fleiss's Table 1 totals
		t.Fatalf("the Fleiss (1971) data were copied wrong: column sums %v", colsum)
	}
	tests := []struct {
		name   string
		counts [][]int
		want   float64
		tol    float64
	}{
		{"Fleiss 1971, Table 1", table, 0.4302445, 5e-8},
		{"Wikipedia worked example", wikipediaFleiss, 0.210, 5e-4},
		{"complete agreement on different categories", [][]int{{3, 0}, {0, 3}, {3, 0}}, 1, 1e-15},
		{"every rating in one category", [][]int{{4, 0}, {4, 0}}, 1, 0},
		// Two raters always split: observed agreement 0, chance 1/2.
		{"complete disagreement", [][]int{{1, 1}, {1, 1}}, -1, 1e-15},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := eval.FleissKappa(tt.counts); !near(got, tt.want, tt.tol) {
				t.Errorf("FleissKappa = %.9f, want %.9f", got, tt.want)
			}
		})
	}
	for name, bad := range map[string][][]int{
		"no items":         nil,
		"no categories":    {{}},
		"one rater":        {{1, 0}, {0, 1}},
		"ragged rows":      {{1, 1}, {2}},
		"unequal raters":   {{1, 1}, {2, 1}},
		"a negative count": {{3, -1}, {1, 1}},
	} {
		if got := eval.FleissKappa(bad); !math.IsNaN(got) {
			t.Errorf("%s: FleissKappa = %v, want NaN", name, got)
		}
	}
}

// table expands a confusion matrix (rows: rater A's label, columns: rater
// B's) into two label slices.
func table(labels []string, m [][]int) (a, b []string) {
	for i, row := range m {
		for j, n := range row {
			for range n {
				a = append(a, labels[i])
				b = append(b, labels[j])
			}
		}
	}
	return a, b
}

// anxiety is R irr's dataset "anxiety" (20 subjects, 3 raters, ratings
// 1-6), column by column.
var anxiety = []int{
	3, 3, 3, 4, 5, 5, 2, 3, 5, 2, 2, 6, 1, 5, 2, 2, 1, 2, 4, 3,
	3, 6, 4, 6, 2, 4, 2, 4, 3, 3, 2, 3, 3, 3, 2, 2, 1, 3, 3, 4,
	2, 1, 4, 4, 3, 2, 1, 6, 1, 1, 1, 2, 3, 3, 1, 1, 3, 3, 2, 2,
}

func labelsOf(xs []int) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(rune('0' + x))
	}
	return out
}

func TestCohenKappa(t *testing.T) {
	yn := []string{"yes", "no"}
	// Wikipedia, "Cohen's kappa", worked example: 50 grant proposals,
	// both readers yes 20, A yes B no 5, A no B yes 10, both no 15:
	// p_o = 0.7, p_e = 0.5, κ = 0.4.
	wa, wb := table(yn, [][]int{{20, 5}, {10, 15}})
	// The same article's pair of tables with equal agreement (60%) and
	// different kappas: 0.1304 and 0.2593.
	s1a, s1b := table(yn, [][]int{{45, 15}, {25, 15}})
	s2a, s2b := table(yn, [][]int{{25, 35}, {5, 35}})
	// SAS PROC FREQ's example of a 3x3 table as statsmodels tests it
	// (test_inter_rater.py): simple kappa 0.4842.
	sa, sb := table([]string{"1", "2", "3"}, [][]int{{0, 4, 1}, {0, 8, 0}, {0, 1, 5}})
	tests := []struct {
		name string
		a, b []string
		want float64
		tol  float64
	}{
		{"Wikipedia worked example", wa, wb, 0.4, 1e-12},
		{"Wikipedia, same agreement 1", s1a, s1b, 0.06 / 0.46, 1e-12},
		{"Wikipedia, same agreement 2", s2a, s2b, 0.14 / 0.54, 1e-12},
		{"SAS 3x3 example", sa, sb, 0.4842, 5e-5},
		// R: irr::kappa2(anxiety[, 2:3]) gives -0.006289308.
		{"R irr anxiety, raters 2 and 3", labelsOf(anxiety[20:40]), labelsOf(anxiety[40:60]), -0.006289308, 5e-10},
		{"complete agreement", []string{"a", "b", "a"}, []string{"a", "b", "a"}, 1, 1e-15},
		{"one label throughout", []string{"a", "a"}, []string{"a", "a"}, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := eval.CohenKappa(tt.a, tt.b); !near(got, tt.want, tt.tol) {
				t.Errorf("CohenKappa = %.9f, want %.9f", got, tt.want)
			}
		})
	}
	if got := eval.CohenKappa([]string{"a"}, []string{"a", "b"}); !math.IsNaN(got) {
		t.Errorf("CohenKappa of different lengths = %v, want NaN", got)
	}
	if got := eval.CohenKappa(nil, nil); !math.IsNaN(got) {
		t.Errorf("CohenKappa of nothing = %v, want NaN", got)
	}
}

func TestPairedBootstrap(t *testing.T) {
	// 100 items: both right on 50, only a on 20, only b on 5, neither 25:
	// the observed difference is 0.15.
	var a, b []bool
	add := func(n int, x, y bool) {
		for range n {
			a, b = append(a, x), append(b, y)
		}
	}
	add(50, true, true)
	add(20, true, false)
	add(5, false, true)
	add(25, false, false)
	lo, hi := eval.PairedBootstrap(a, b, 1)
	if !(lo < 0.15 && 0.15 < hi) {
		t.Errorf("interval (%v, %v) does not hold the observed difference 0.15", lo, hi)
	}
	// The normal approximation of the paired difference's standard error,
	// √((b+c) − (b−c)²/n)/n = 0.0456, gives about ±0.089: the percentile
	// interval is close to it.
	if !near(lo, 0.15-0.089, 0.02) || !near(hi, 0.15+0.089, 0.02) {
		t.Errorf("interval (%v, %v), want about (0.061, 0.239)", lo, hi)
	}
	lo2, hi2 := eval.PairedBootstrap(a, b, 1)
	if lo2 != lo || hi2 != hi {
		t.Errorf("the same seed gave (%v, %v), then (%v, %v)", lo, hi, lo2, hi2)
	}
	// Concordant items only: the difference is exactly 0 in every resample.
	if lo, hi := eval.PairedBootstrap([]bool{true, false}, []bool{true, false}, 3); lo != 0 || hi != 0 {
		t.Errorf("no discordant item: (%v, %v), want (0, 0)", lo, hi)
	}
	if lo, hi := eval.PairedBootstrap(nil, nil, 1); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("no items: (%v, %v), want NaNs", lo, hi)
	}
}

func TestHolm(t *testing.T) {
	// Holm (1979) by hand: sorted 0.01, 0.02, 0.04 times 3, 2, 1, made
	// monotone: 0.03, 0.04, 0.04.
	got := eval.Holm([]float64{0.04, 0.01, 0.02})
	want := []float64{0.04, 0.03, 0.04}
	for i := range want {
		if !near(got[i], want[i], 1e-15) {
			t.Fatalf("Holm = %v, want %v", got, want)
		}
	}
	if got := eval.Holm([]float64{0.5, 0.9}); !slices.Equal(got, []float64{1, 1}) {
		t.Errorf("Holm caps at 1: got %v", got)
	}
}
