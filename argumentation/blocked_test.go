package argumentation

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// randomRelations returns a graph of n arguments (random bases, some 0 or
// 1) with m random relations of all three kinds, repeats, self-relations,
// sources that both rebut and undercut a target and sources that support
// and attack it included. With acyclic, every relation goes from a lower to
// a higher index.
func randomRelations(r *rand.Rand, n, m int, acyclic bool) *Graph {
	g := NewGraph()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = "a" + strconv.Itoa(i)
		base := r.Float64()
		switch r.IntN(10) {
		case 0:
			base = 0
		case 1:
			base = 1
		}
		_ = g.AddArgument(ids[i], base)
	}
	for range m {
		from, to := r.IntN(n), r.IntN(n)
		if acyclic {
			if from == to {
				continue
			}
			from, to = min(from, to), max(from, to)
		}
		switch r.IntN(3) {
		case 0:
			_ = g.AddSupport(ids[from], ids[to])
		case 1:
			_ = g.AddAttack(ids[from], ids[to], Rebut)
		default:
			_ = g.AddAttack(ids[from], ids[to], Undercut)
		}
	}
	return g
}

// TestBlockedLayout: every (block, group) list holds exactly that block's
// relations of that group, as the csr has them, sorted by source.
func TestBlockedLayout(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, size := range []int{1, 3, 16, 1000} {
		c := randomRelations(r, 50, 400, false).frozen()
		b := buildBlocked(c, size)
		for lo, k := 0, 0; lo < c.n; lo, k = lo+size, k+1 {
			for g := range numGroups {
				src, dst := b.list(k, g)
				if !slices.IsSorted(src) {
					t.Errorf("size %d block %d group %d: sources not sorted: %v", size, k, g, src)
				}
				var got, want [][2]uint32
				for i, s := range src {
					got = append(got, [2]uint32{uint32(lo) + uint32(dst[i]), s})
				}
				for tg := lo; tg < min(lo+size, c.n); tg++ {
					bounds := []int32{c.off[tg], c.supEnd[tg], c.rebEnd[tg], c.off[tg+1]}
					for _, s := range c.src[bounds[g]:bounds[g+1]] {
						want = append(want, [2]uint32{uint32(tg), s})
					}
				}
				slices.SortFunc(got, func(a, b [2]uint32) int { return cmpPair(a, b) })
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("size %d block %d group %d: relations (-want +got):\n%s", size, k, g, diff)
				}
			}
		}
	}
}

func cmpPair(a, b [2]uint32) int {
	if a[0] != b[0] {
		return int(a[0]) - int(b[0])
	}
	return int(a[1]) - int(b[1])
}

// TestBlockedStepMatchesGather: the blocked step gives the plain step's
// values bit for bit (same fold order for every aggregate, DF-QuAD's
// products included) and the same max change, for every semantics, on
// cyclic and acyclic graphs, from the bases and from arbitrary strengths,
// whatever the block size; whole evaluations (discrete and continuous)
// agree exactly too.
func TestBlockedStepMatchesGather(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	sems := append(slices.Clone(allSemantics), AdditiveWith(Weights{Support: 0.7, Rebut: 0.05, Undercut: 1.3}))
	for k := range 40 {
		n := 1 + r.IntN(60)
		g := randomRelations(r, n, r.IntN(6*n+1), k%2 == 0)
		c := g.frozen()
		size := []int{1, 2, 5, 16, n, n + 7}[k%6]
		b := buildBlocked(c, size)
		states := [][]float64{slices.Clone(g.base)}
		for range 3 {
			s := make([]float64, n)
			for i := range s {
				s[i] = r.Float64()
			}
			states = append(states, s)
		}
		for _, s := range sems {
			plain := newEvaluator(g, s)
			plain.blk = nil
			blk := newEvaluator(g, s)
			blk.blk = b
			for si, cur := range states {
				want, got := make([]float64, n), make([]float64, n)
				dw := plain.gatherStep(cur, want)
				dg := blk.step(cur, got)
				if !sameBits(want, got) || math.Float64bits(dw) != math.Float64bits(dg) {
					t.Fatalf("graph %d (n %d, size %d) %v state %d: blocked step differs\nwant %v (d %v)\n got %v (d %v)",
						k, n, size, s, si, want, dw, got, dg)
				}
			}
			for m, limit := range map[Method]int{Discrete: 200, Continuous: 50} {
				opt, _ := Options{Method: m, MaxIterations: limit}.withDefaults()
				var wv, gv []float64
				var ws, gs Scores
				if m == Discrete {
					wv, ws = plain.discrete(opt)
					gv, gs = blk.discrete(opt)
				} else {
					wv, ws = plain.continuous(opt)
					gv, gs = blk.continuous(opt)
				}
				if !sameBits(wv, gv) || !cmp.Equal(ws, gs) {
					t.Fatalf("graph %d %v %v: blocked evaluation differs: %+v vs %+v", k, s, m, ws, gs)
				}
			}
		}
	}
}

// sameBits reports whether a and b hold the same float64 bits.
func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// TestBlockingThreshold: small graphs keep the plain step; from
// blockedMinRelations relations Evaluate uses the blocked layout and gives
// the plain step's result. (The graph's size is the point; five
// iterations, odd and even steps, compare the two layouts bit for bit, as
// TestBlockedStepMatchesGather does every step on smaller graphs.)
func TestBlockingThreshold(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	if c := randomRelations(r, 100, 500, false).frozen(); c.blocking() != nil {
		t.Errorf("graph of %d relations uses the blocked layout", len(c.src))
	}
	g := randomRelations(r, 20_000, blockedMinRelations+5000, false)
	c := g.frozen()
	if len(c.src) < blockedMinRelations {
		t.Fatalf("test graph has only %d relations", len(c.src))
	}
	if b := c.blocking(); b == nil || c.blocking() != b {
		t.Fatalf("graph of %d relations: no blocked layout, or a new one per call", len(c.src))
	}
	for _, s := range allSemantics {
		got, err := EvaluateWith(g, s, Options{MaxIterations: 5})
		if err != nil {
			t.Fatal(err)
		}
		ev := newEvaluator(g, s)
		ev.blk = nil
		opt, _ := Options{MaxIterations: 5}.withDefaults()
		wv, want := ev.discrete(opt)
		for i, v := range wv {
			if math.Float64bits(got.Strength[g.ids[i]]) != math.Float64bits(v) {
				t.Fatalf("%v: argument %d blocked %v, plain %v", s, i, got.Strength[g.ids[i]], v)
			}
		}
		got.Strength = nil
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%v: scores (-plain +blocked):\n%s", s, diff)
		}
	}
}
