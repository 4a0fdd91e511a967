package argumentation

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

type semanticsKind int

const (
	kindNone semanticsKind = iota
	kindAdditive
	kindDFQuAD
	kindQE
	kindEuler
	kindEulerTop
	kindHCat
)

// Semantics is a gradual semantics: a rule that gives every argument a
// strength in [0, 1] from its base score and the strengths of its attackers
// and supporters. Use the package values ([Additive], [DFQuAD], …) or
// [AdditiveWith]; the zero Semantics is invalid. Semantics values are
// comparable.
//
// With w the base score, s the strengths, Att and Sup the attackers and
// supporters of an argument:
//
//   - Additive (the seed's formula): s = clamp(w + 0.2·Σ_Sup s − 0.3·Σ_Rebutters s
//     − 0.4·Σ_Undercutters s, 0, 1); the weights are configurable with AdditiveWith.
//   - DFQuAD: E = Π_Att(1−s) − Π_Sup(1−s); s = w − w·max(0,−E) + (1−w)·max(0,E).
//   - QuadraticEnergy: E = Σ_Sup s − Σ_Att s; h(x) = max(0,x)²/(1+max(0,x)²);
//     s = w − w·h(−E) + (1−w)·h(E).
//   - EulerBased: E as for QuadraticEnergy; s = 1 − (1−w²)/(1+w·e^E).
//   - EulerBasedTop: E = max(Sup ∪ {0}) − max(Att ∪ {0}), Euler influence.
//   - HCategorizer (weighted by the base): s = w/(1 + Σ_Att s); supports are
//     ignored.
//
// All but Additive treat rebuts and undercuts alike.
type Semantics struct {
	kind semanticsKind
	w    Weights
}

// Weights are the additive semantics' coefficients.
type Weights struct {
	Support  float64 // per unit of supporter strength
	Rebut    float64 // per unit of rebutter strength
	Undercut float64 // per unit of undercutter strength
}

// SeedWeights are the seed's additive weights: support 0.2, rebut 0.3,
// undercut 0.4.
var SeedWeights = Weights{Support: 0.2, Rebut: 0.3, Undercut: 0.4}

// The gradual semantics; see Semantics for their formulas.
var (
	// Additive is the seed's formula with SeedWeights.
	Additive = Semantics{kind: kindAdditive, w: SeedWeights}
	// DFQuAD is Rago et al.'s discontinuity-free QuAD semantics.
	DFQuAD = Semantics{kind: kindDFQuAD}
	// QuadraticEnergy is Potyka's quadratic energy model.
	QuadraticEnergy = Semantics{kind: kindQE}
	// EulerBased is Amgoud and Ben-Naim's Euler-based semantics (sum
	// aggregation).
	EulerBased = Semantics{kind: kindEuler}
	// EulerBasedTop is the Euler-based influence with top (max)
	// aggregation.
	EulerBasedTop = Semantics{kind: kindEulerTop}
	// HCategorizer is the h-categorizer weighted by the base score (all
	// bases 1: Besnard and Hunter's h-categorizer); it ignores supports.
	HCategorizer = Semantics{kind: kindHCat}
)

// AdditiveWith returns the additive semantics with other weights. Weights
// must be finite and non-negative (checked by Evaluate).
func AdditiveWith(w Weights) Semantics { return Semantics{kind: kindAdditive, w: w} }

// Weights returns the additive weights (zero for other semantics).
func (s Semantics) Weights() Weights { return s.w }

var semanticsNames = map[semanticsKind]string{
	kindAdditive: "additive",
	kindDFQuAD:   "dfquad",
	kindQE:       "quadratic-energy",
	kindEuler:    "euler",
	kindEulerTop: "euler-top",
	kindHCat:     "h-categorizer",
}

// String returns the semantics' name: "additive", "dfquad",
// "quadratic-energy", "euler", "euler-top" or "h-categorizer".
func (s Semantics) String() string {
	if n, ok := semanticsNames[s.kind]; ok {
		return n
	}
	return "invalid"
}

// ParseSemantics returns the semantics named by name: the String forms, in
// any case, with "_" or " " for "-" and the hyphen optional ("df-quad",
// "quadratic_energy", "hcat", "qe" are accepted too). Additive gets
// SeedWeights.
func ParseSemantics(name string) (Semantics, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	n = strings.NewReplacer("_", "", "-", "", " ", "").Replace(n)
	switch n {
	case "additive", "seed":
		return Additive, nil
	case "dfquad":
		return DFQuAD, nil
	case "quadraticenergy", "qe":
		return QuadraticEnergy, nil
	case "euler", "eulerbased":
		return EulerBased, nil
	case "eulertop", "eulerbasedtop":
		return EulerBasedTop, nil
	case "hcategorizer", "hcat", "categorizer":
		return HCategorizer, nil
	}
	return Semantics{}, fmt.Errorf("%w: unknown name %q", ErrInvalidSemantics, name)
}

func (s Semantics) check() error {
	if _, ok := semanticsNames[s.kind]; !ok {
		return fmt.Errorf("%w: zero Semantics value", ErrInvalidSemantics)
	}
	if s.kind == kindAdditive {
		for _, v := range []float64{s.w.Support, s.w.Rebut, s.w.Undercut} {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return fmt.Errorf("%w: additive weights %+v", ErrInvalidSemantics, s.w)
			}
		}
	}
	return nil
}

// Method chooses how Evaluate computes strengths on a cyclic graph. On an
// acyclic graph every method but Exact gives the exact values in one pass in
// topological order.
type Method int

const (
	// Discrete iterates s_{k+1} = f(s_k) synchronously from the base scores
	// until no strength changes by more than the tolerance. The default.
	Discrete Method = iota
	// Continuous integrates Potyka's model ds/dt = f(s) − s with the
	// classical Runge-Kutta method (RK4) from the base scores until
	// |f(s) − s| is within the tolerance everywhere. It converges on graphs
	// where the discrete iteration oscillates.
	Continuous
	// Auto tries Discrete and, if it does not converge, Continuous.
	Auto
	// Exact is the topological pass alone: EvaluateWith fails with ErrCyclic
	// on a graph with a cycle.
	Exact
)

// String returns "discrete", "continuous", "auto" or "exact".
func (m Method) String() string {
	switch m {
	case Discrete:
		return "discrete"
	case Continuous:
		return "continuous"
	case Auto:
		return "auto"
	case Exact:
		return "exact"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// Defaults of Options.
const (
	DefaultTolerance     = 1e-12
	DefaultMaxIterations = 100000
	DefaultStep          = 0.1
)

// Options tune EvaluateWith. The zero Options is Evaluate's behaviour.
type Options struct {
	Method Method
	// Tolerance: Discrete stops when no strength changes by more than this
	// in one iteration; Continuous when max |f(s) − s| is at most this.
	// 0 means DefaultTolerance.
	Tolerance float64
	// MaxIterations caps discrete iterations or RK4 steps (each method's
	// own cap under Auto). 0 means DefaultMaxIterations, which suits
	// debate-sized graphs; on a graph of millions of arguments each
	// iteration takes tens of milliseconds, so set a cap to match.
	MaxIterations int
	// Step is the RK4 time step, in (0, 1]. 0 means DefaultStep.
	Step float64
}

// Scores is the result of a gradual evaluation.
type Scores struct {
	// Strength maps every argument ID to its strength in [0, 1] (the last
	// iterate when Converged is false).
	Strength map[string]float64 `json:"strength"`
	// Iterations is, for an exact pass, the number of levels of the
	// topological order (the number of synchronous rounds that reach the
	// same values); otherwise the number of discrete iterations or RK4
	// steps taken by Method. The discrete iteration stops before its cap
	// when it revisits an earlier iterate exactly: it is then periodic and
	// cannot converge.
	Iterations int `json:"iterations"`
	// Converged reports whether the values are a fixed point within the
	// tolerance. It is false when the iteration cap was reached, e.g.
	// because the discrete iteration oscillates; Strength then holds the
	// last iterate, which is not an answer.
	Converged bool `json:"converged"`
	// Method is how the values were computed: Exact, Discrete or
	// Continuous (never Auto).
	Method Method `json:"method"`
	// Residual is max |f(s) − s| over the arguments for the returned s
	// (0 for an exact pass).
	Residual float64 `json:"residual"`
}

// Evaluate computes the strengths of g's arguments under s: exactly in one
// topological pass if g is acyclic, by synchronous iteration otherwise (see
// [Discrete]). Scores.Converged reports honestly whether a cyclic graph's
// iteration converged. The error is non-nil only for a nil graph or an
// invalid semantics.
func Evaluate(g *Graph, s Semantics) (Scores, error) {
	return EvaluateWith(g, s, Options{})
}

// EvaluateWith is Evaluate with a choice of method, tolerance, iteration cap
// and step.
func EvaluateWith(g *Graph, s Semantics, opt Options) (Scores, error) {
	if g == nil {
		return Scores{}, fmt.Errorf("%w: nil graph", ErrInvalidOptions)
	}
	if err := s.check(); err != nil {
		return Scores{}, err
	}
	opt, err := opt.withDefaults()
	if err != nil {
		return Scores{}, err
	}
	ev := newEvaluator(g, s)
	vals, sc := ev.run(opt)
	if sc.Method == Exact && vals == nil {
		return Scores{}, fmt.Errorf("%w: method exact needs an acyclic graph (%v)", ErrCyclic, g)
	}
	sc.Strength = make(map[string]float64, len(vals))
	for i, v := range vals {
		sc.Strength[g.ids[i]] = v
	}
	return sc, nil
}

func (o Options) withDefaults() (Options, error) {
	if o.Method < Discrete || o.Method > Exact {
		return o, fmt.Errorf("%w: method %v", ErrInvalidOptions, o.Method)
	}
	if o.Tolerance == 0 {
		o.Tolerance = DefaultTolerance
	}
	if math.IsNaN(o.Tolerance) || o.Tolerance < 0 {
		return o, fmt.Errorf("%w: tolerance %v", ErrInvalidOptions, o.Tolerance)
	}
	if o.MaxIterations == 0 {
		o.MaxIterations = DefaultMaxIterations
	}
	if o.MaxIterations < 0 {
		return o, fmt.Errorf("%w: max iterations %d", ErrInvalidOptions, o.MaxIterations)
	}
	if o.Step == 0 {
		o.Step = DefaultStep
	}
	if !(o.Step > 0 && o.Step <= 1) {
		return o, fmt.Errorf("%w: step %v outside (0,1]", ErrInvalidOptions, o.Step)
	}
	return o, nil
}

// evaluator holds what one evaluation needs: the compressed graph, the base
// scores and the semantics.
type evaluator struct {
	c    *csr
	base []float64
	kind semanticsKind
	w    Weights
	buf  []float64 // gathered source strengths, reused

	blk *blocked      // the blocked layout on a large graph, else nil
	acc *accumulators // the blocked step's scratch, allocated on first use
}

func newEvaluator(g *Graph, s Semantics) *evaluator {
	c := g.frozen()
	return &evaluator{c: c, base: g.base, kind: s.kind, w: s.w, blk: c.blocking()}
}

// run evaluates with defaulted options. It returns nil values only for
// Method Exact on a cyclic graph.
func (ev *evaluator) run(opt Options) ([]float64, Scores) {
	if order := ev.c.order(ev.kind == kindHCat); order != nil {
		vals, levels := ev.exact(order)
		return vals, Scores{Iterations: levels, Converged: true, Method: Exact}
	}
	switch opt.Method {
	case Exact:
		return nil, Scores{Method: Exact}
	case Continuous:
		return ev.continuous(opt)
	}
	vals, sc := ev.discrete(opt)
	if opt.Method == Auto && !sc.Converged {
		return ev.continuous(opt)
	}
	return vals, sc
}

// exact computes the strengths in topological order; levels is the length
// of the longest path plus one.
func (ev *evaluator) exact(order []uint32) (vals []float64, levels int) {
	c := ev.c
	s := make([]float64, c.n)
	level := make([]int32, c.n)
	deepest := int32(0)
	for _, i := range order {
		s[i] = ev.node(i, s)
		lv := int32(0)
		lo := c.off[i]
		if ev.kind == kindHCat {
			lo = c.supEnd[i]
		}
		for _, j := range c.src[lo:c.off[i+1]] {
			lv = max(lv, level[j]+1)
		}
		level[i] = lv
		deepest = max(deepest, lv)
	}
	return s, int(deepest) + 1
}

// cycleWindow is how many recent iterates the discrete iteration
// remembers (by fingerprint) to notice that it has become periodic.
const cycleWindow = 64

// discrete runs the synchronous iteration from the base scores. It stops
// early, not converged, when an iterate repeats one of the last cycleWindow
// exactly: the map is deterministic, so the sequence is then periodic and
// can never settle.
func (ev *evaluator) discrete(opt Options) ([]float64, Scores) {
	cur := append([]float64(nil), ev.base...)
	next := make([]float64, len(cur))
	sc := Scores{Method: Discrete}
	var seen [cycleWindow]uint64
	seen[0] = fingerprint(cur)
	stored := 1
	for sc.Iterations < opt.MaxIterations {
		d := ev.step(cur, next)
		sc.Iterations++
		cur, next = next, cur
		if d <= opt.Tolerance {
			sc.Converged = true
			break
		}
		h := fingerprint(cur)
		if slices.Contains(seen[:min(stored, cycleWindow)], h) {
			break
		}
		seen[stored%cycleWindow] = h
		stored++
	}
	sc.Residual = ev.step(cur, next)
	return cur, sc
}

// fingerprint hashes the exact bits of s (FNV-1a over 64-bit words).
func fingerprint(s []float64) uint64 {
	h := uint64(14695981039346656037)
	for _, v := range s {
		h ^= math.Float64bits(v)
		h *= 1099511628211
	}
	return h
}

// continuous integrates ds/dt = f(s) − s with RK4 from the base scores.
func (ev *evaluator) continuous(opt Options) ([]float64, Scores) {
	n := ev.c.n
	h := opt.Step
	s := append([]float64(nil), ev.base...)
	tmp := make([]float64, n)
	fx := make([]float64, n)
	acc := make([]float64, n)
	sc := Scores{Method: Continuous}
	for {
		// k1 = f(s) − s, kept in acc with weight 1.
		ev.step(s, fx)
		res := 0.0
		for i := range n {
			k := fx[i] - s[i]
			acc[i] = k
			tmp[i] = s[i] + h/2*k
			res = max(res, math.Abs(k))
		}
		sc.Residual = res
		if res <= opt.Tolerance {
			sc.Converged = true
			break
		}
		if sc.Iterations >= opt.MaxIterations {
			break
		}
		// k2 at s + h/2·k1; k3 at s + h/2·k2; k4 at s + h·k3.
		ev.step(tmp, fx)
		for i := range n {
			k := fx[i] - tmp[i]
			acc[i] += 2 * k
			tmp[i] = s[i] + h/2*k
		}
		ev.step(tmp, fx)
		for i := range n {
			k := fx[i] - tmp[i]
			acc[i] += 2 * k
			tmp[i] = s[i] + h*k
		}
		ev.step(tmp, fx)
		for i := range n {
			k := fx[i] - tmp[i]
			s[i] += h / 6 * (acc[i] + k)
		}
		sc.Iterations++
	}
	return s, sc
}

// gatherChunk is how many arguments step handles at a time: it first copies
// the strengths of their sources into a buffer (independent loads, which a
// CPU overlaps far better than the loads of short per-argument loops), then
// computes their new strengths from that buffer, which stays in cache.
const gatherChunk = 4096

// step computes next = f(cur) for every argument and returns
// max |next − cur|. It is one synchronous iteration. A large graph takes the
// blocked step (blocked.go), which gives the same values faster.
func (ev *evaluator) step(cur, next []float64) float64 {
	if ev.blk != nil {
		return ev.blockedStep(ev.blk, cur, next)
	}
	return ev.gatherStep(cur, next)
}

// gatherStep is step for every graph: it walks the arguments in order,
// gathering their sources' strengths chunk by chunk.
func (ev *evaluator) gatherStep(cur, next []float64) float64 {
	c := ev.c
	n := c.n
	d := 0.0
	for lo := 0; lo < n; lo += gatherChunk {
		hi := min(lo+gatherChunk, n)
		e0, e1 := c.off[lo], c.off[hi]
		if int(e1-e0) > cap(ev.buf) {
			ev.buf = make([]float64, e1-e0)
		}
		buf := ev.buf[:e1-e0]
		for k, j := range c.src[e0:e1] {
			buf[k] = cur[j]
		}
		d = max(d, ev.chunk(lo, hi, e0, buf, cur, next))
	}
	return d
}

// chunk computes next[lo:hi] from buf, the strengths of the sources of
// those arguments' incoming relations (buf[0] is relation e0).
func (ev *evaluator) chunk(lo, hi int, e0 int32, buf, cur, next []float64) float64 {
	c := ev.c
	off, supEnd, rebEnd := c.off[lo:hi+1], c.supEnd[lo:hi], c.rebEnd[lo:hi]
	base, cur, next := ev.base[lo:hi], cur[lo:hi], next[lo:hi]
	d := 0.0
	switch ev.kind {
	case kindAdditive:
		ws, wr, wu := ev.w.Support, ev.w.Rebut, ev.w.Undercut
		for i := range base {
			a, s, r, z := off[i]-e0, supEnd[i]-e0, rebEnd[i]-e0, off[i+1]-e0
			v := additive(base[i], ws, wr, wu, sum(buf[a:s]), sum(buf[s:r]), sum(buf[r:z]))
			next[i] = v
			if x := math.Abs(v - cur[i]); x > d || x != x { // a NaN sticks
				d = x
			}
		}
	case kindDFQuAD:
		for i := range base {
			a, s, z := off[i]-e0, supEnd[i]-e0, off[i+1]-e0
			v := dfquad(base[i], complProduct(buf[s:z]), complProduct(buf[a:s]))
			next[i] = v
			if x := math.Abs(v - cur[i]); x > d || x != x { // a NaN sticks
				d = x
			}
		}
	case kindQE:
		for i := range base {
			a, s, z := off[i]-e0, supEnd[i]-e0, off[i+1]-e0
			v := quadraticEnergy(base[i], sum(buf[a:s])-sum(buf[s:z]))
			next[i] = v
			if x := math.Abs(v - cur[i]); x > d || x != x { // a NaN sticks
				d = x
			}
		}
	case kindEuler:
		for i := range base {
			a, s, z := off[i]-e0, supEnd[i]-e0, off[i+1]-e0
			v := euler(base[i], sum(buf[a:s])-sum(buf[s:z]))
			next[i] = v
			if x := math.Abs(v - cur[i]); x > d || x != x { // a NaN sticks
				d = x
			}
		}
	case kindEulerTop:
		for i := range base {
			a, s, z := off[i]-e0, supEnd[i]-e0, off[i+1]-e0
			v := euler(base[i], top(buf[a:s])-top(buf[s:z]))
			next[i] = v
			if x := math.Abs(v - cur[i]); x > d || x != x { // a NaN sticks
				d = x
			}
		}
	case kindHCat:
		for i := range base {
			s, z := supEnd[i]-e0, off[i+1]-e0
			v := base[i] / (1 + sum(buf[s:z]))
			next[i] = v
			if x := math.Abs(v - cur[i]); x > d || x != x { // a NaN sticks
				d = x
			}
		}
	}
	return d
}

// node computes f for one argument from the strengths in s.
func (ev *evaluator) node(i uint32, s []float64) float64 {
	c := ev.c
	lo, hi := c.off[i], c.off[i+1]
	buf := ev.buf[:0]
	for _, j := range c.src[lo:hi] {
		buf = append(buf, s[j])
	}
	ev.buf = buf
	sup, att := buf[:c.supEnd[i]-lo], buf[c.supEnd[i]-lo:]
	w := ev.base[i]
	switch ev.kind {
	case kindAdditive:
		r := c.rebEnd[i] - c.supEnd[i]
		return additive(w, ev.w.Support, ev.w.Rebut, ev.w.Undercut, sum(sup), sum(att[:r]), sum(att[r:]))
	case kindDFQuAD:
		return dfquad(w, complProduct(att), complProduct(sup))
	case kindQE:
		return quadraticEnergy(w, sum(sup)-sum(att))
	case kindEuler:
		return euler(w, sum(sup)-sum(att))
	case kindEulerTop:
		return euler(w, top(sup)-top(att))
	case kindHCat:
		return w / (1 + sum(att))
	}
	panic("argumentation: unreachable semantics kind")
}

func sum(vs []float64) float64 {
	t := 0.0
	for _, v := range vs {
		t += v
	}
	return t
}

// top is max(vs ∪ {0}).
func top(vs []float64) float64 {
	m := 0.0
	for _, v := range vs {
		m = max(m, v)
	}
	return m
}

// complProduct is Π(1 − v) over vs.
func complProduct(vs []float64) float64 {
	p := 1.0
	for _, v := range vs {
		p *= 1 - v
	}
	return p
}

// The formulas below take the aggregates of an argument's attackers and
// supporters, not the strengths themselves, so that the gathering step and
// the blocked step (blocked.go) finish every argument with the same code and
// get the same bits.

// additive takes the sums of the supporters', rebutters' and undercutters'
// strengths.
func additive(w, ws, wr, wu, sup, reb, und float64) float64 {
	v := w + ws*sup - wr*reb - wu*und
	return min(max(v, 0), 1)
}

// dfquad takes Π(1 − s) over the attackers (pa) and over the supporters
// (ps).
func dfquad(w, pa, ps float64) float64 {
	e := pa - ps
	if e < 0 {
		return w + w*e
	}
	return w + (1-w)*e
}

func quadraticEnergy(w, e float64) float64 {
	if e < 0 {
		return w - w*e*e/(1+e*e)
	}
	return w + (1-w)*e*e/(1+e*e)
}

func euler(w, e float64) float64 {
	if w == 0 {
		return 0 // avoids 0·Inf when e^E overflows
	}
	return eulerExp(w, math.Exp(e))
}

// eulerExp is euler given exp(E) rather than E, for w ≠ 0.
func eulerExp(w, expE float64) float64 {
	return 1 - (1-w*w)/(1+w*expE)
}
