package eval

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Z95 is the standard normal quantile of 0.975: the z of a two-sided 95%
// interval.
const Z95 = 1.959963984540054

// Alpha is the significance level of the report's tests: a difference is
// called significant when its (Holm-adjusted) p-value is below it.
const Alpha = 0.05

// McNemarExact returns the two-sided p-value of McNemar's exact test for
// two classifiers (or two arms) judged on the same items: onlyA items were
// answered right by A alone, onlyB by B alone; the items both got right or
// both got wrong carry no information about a difference and are not
// passed. Under the null hypothesis that A and B are equally accurate, each
// of the n = onlyA+onlyB discordant items goes either way with probability
// 1/2, so the test is a binomial test of min(onlyA, onlyB) against
// Binomial(n, 1/2): p = 2·P(X ≤ min(onlyA, onlyB)), capped at 1.
//
// Edge cases: no discordant item (0, 0) gives 1 (nothing tells A and B
// apart); onlyA == onlyB gives 1 (the cap); a negative count gives NaN.
func McNemarExact(onlyA, onlyB int) float64 {
	if onlyA < 0 || onlyB < 0 {
		return math.NaN()
	}
	n := onlyA + onlyB
	k := min(onlyA, onlyB)
	if n == 0 || 2*k >= n {
		return 1
	}
	// Sum the binomial probabilities P(X = i), i = 0..k, in log space so
	// that large n neither overflows nor underflows the terms one by one.
	// They grow with i (k < n/2), so the largest is the last: scale by it.
	logTerm := func(i int) float64 { return logChoose(n, i) - float64(n)*math.Ln2 }
	top := logTerm(k)
	sum := 0.0
	for i := 0; i <= k; i++ {
		sum += math.Exp(logTerm(i) - top)
	}
	return min(1, 2*math.Exp(top+math.Log(sum)))
}

// logChoose is log(n choose k).
func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// Wilson returns the 95% Wilson score interval (Wilson 1927) for a
// proportion of successes out of n: the interval of the proportions p
// whose score test at z = [Z95] does not reject the observed proportion.
// Unlike the textbook p ± z·√(p(1−p)/n) it stays inside [0, 1] and does not
// collapse to a point at 0 or n successes.
//
// Edge cases: n = 0 gives (0, 1), the interval of no information;
// successes outside 0..n gives (NaN, NaN).
func Wilson(successes, n int) (lo, hi float64) {
	if n < 0 || successes < 0 || successes > n {
		return math.NaN(), math.NaN()
	}
	if n == 0 {
		return 0, 1
	}
	const z2 = Z95 * Z95
	nf := float64(n)
	p := float64(successes) / nf
	denom := 1 + z2/nf
	center := (p + z2/(2*nf)) / denom
	half := Z95 / denom * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	lo, hi = max(0, center-half), min(1, center+half)
	// At 0 or n successes one bound is exactly 0 or 1; rounding must not
	// move it.
	if successes == 0 {
		lo = 0
	}
	if successes == n {
		hi = 1
	}
	return lo, hi
}

// FleissKappa returns Fleiss' kappa (Fleiss 1971) for items each rated by
// the same number of raters into categories: counts[i][j] is how many
// raters put item i in category j. It is the agreement between raters
// beyond what their overall use of the categories gives by chance: 1 for
// complete agreement, 0 for chance, negative for less than chance.
//
// Edge cases: no items, rows of different lengths or of different sums
// (the number of raters must be the same for every item), fewer than two
// raters, or a negative count give NaN. When every rating falls in one
// category the chance agreement is 1 and the formula is 0/0; since the
// raters then agree completely, FleissKappa returns 1.
func FleissKappa(counts [][]int) float64 {
	if len(counts) == 0 || len(counts[0]) == 0 {
		return math.NaN()
	}
	cats := len(counts[0])
	raters := 0
	for _, c := range counts[0] {
		raters += c
	}
	if raters < 2 {
		return math.NaN()
	}
	totals := make([]float64, cats)
	var agree float64 // the sum over items of P_i
	for _, row := range counts {
		if len(row) != cats {
			return math.NaN()
		}
		sum, pairs := 0, 0
		for j, c := range row {
			if c < 0 {
				return math.NaN()
			}
			sum += c
			pairs += c * (c - 1)
			totals[j] += float64(c)
		}
		if sum != raters {
			return math.NaN()
		}
		agree += float64(pairs) / float64(raters*(raters-1))
	}
	items := float64(len(counts))
	pBar := agree / items
	pe := 0.0
	for _, t := range totals {
		pj := t / (items * float64(raters))
		pe += pj * pj
	}
	if pe >= 1 {
		return 1
	}
	return (pBar - pe) / (1 - pe)
}

// CohenKappa returns Cohen's kappa (Cohen 1960) for two raters who each
// labelled the same items: a[i] and b[i] are their labels of item i,
// compared as strings. It is their agreement beyond what chance gives
// from how often each uses each label: (p_o − p_e)/(1 − p_e).
//
// Edge cases: slices of different lengths, or empty, give NaN. When both
// raters use one and the same label throughout, the chance agreement is 1
// and the formula is 0/0; since they agree completely, CohenKappa returns
// 1.
func CohenKappa(a, b []string) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return math.NaN()
	}
	n := float64(len(a))
	ca, cb := map[string]float64{}, map[string]float64{}
	agree := 0.0
	for i := range a {
		ca[a[i]]++
		cb[b[i]]++
		if a[i] == b[i] {
			agree++
		}
	}
	po := agree / n
	pe := 0.0
	for label, x := range ca {
		pe += (x / n) * (cb[label] / n)
	}
	if pe >= 1 {
		return 1
	}
	return (po - pe) / (1 - pe)
}

// BootstrapReps is the number of resamples [PairedBootstrap] draws.
const BootstrapReps = 4000

// PairedBootstrap returns a 95% percentile bootstrap interval for the
// difference of accuracies acc(a) − acc(b) of two arms judged on the same
// items (a[i] and b[i]: whether each was right on item i). Items are
// resampled with replacement, each keeping its pair, [BootstrapReps] times,
// from a generator seeded with seed, so the interval is the same on every
// run. Slices of different lengths, or empty, give (NaN, NaN).
func PairedBootstrap(a, b []bool, seed uint64) (lo, hi float64) {
	n := len(a)
	if n != len(b) || n == 0 {
		return math.NaN(), math.NaN()
	}
	d := make([]int, n) // +1: only a right; -1: only b right
	for i := range a {
		switch {
		case a[i] && !b[i]:
			d[i] = 1
		case b[i] && !a[i]:
			d[i] = -1
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	diffs := make([]float64, BootstrapReps)
	for r := range diffs {
		s := 0
		for range n {
			s += d[rng.IntN(n)]
		}
		diffs[r] = float64(s) / float64(n)
	}
	slices.Sort(diffs)
	return quantile(diffs, 0.025), quantile(diffs, 0.975)
}

// quantile is the q-quantile of sorted xs, interpolated linearly between
// order statistics (type 7, R's and NumPy's default).
func quantile(xs []float64, q float64) float64 {
	h := q * float64(len(xs)-1)
	i := int(math.Floor(h))
	if i+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	return xs[i] + (h-float64(i))*(xs[i+1]-xs[i])
}

// Holm adjusts p-values for testing several hypotheses at once (Holm
// 1979): the returned values, compared with [Alpha], keep the chance of
// calling any true null hypothesis false at or below Alpha. The i-th
// result is the adjusted p[i]; each is at most 1. A NaN stays NaN.
func Holm(p []float64) []float64 {
	m := len(p)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(x, y int) int {
		switch {
		case p[x] < p[y]:
			return -1
		case p[x] > p[y]:
			return 1
		}
		return 0
	})
	out := make([]float64, m)
	running := 0.0
	for rank, i := range idx {
		if math.IsNaN(p[i]) {
			out[i] = math.NaN()
			continue
		}
		running = max(running, min(1, float64(m-rank)*p[i]))
		out[i] = running
	}
	return out
}
