package argumentation

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

var allSemantics = []Semantics{Additive, DFQuAD, QuadraticEnergy, EulerBased, EulerBasedTop, HCategorizer}

func TestSemanticsNames(t *testing.T) {
	for _, s := range allSemantics {
		got, err := ParseSemantics(s.String())
		if err != nil || got != s {
			t.Errorf("ParseSemantics(%q) = %v, %v; want %v", s.String(), got, err, s)
		}
	}
	for name, want := range map[string]Semantics{
		"DF-QuAD": DFQuAD, "quadratic_energy": QuadraticEnergy, "Euler_Top": EulerBasedTop, "hcat": HCategorizer,
	} {
		if got, err := ParseSemantics(name); err != nil || got != want {
			t.Errorf("ParseSemantics(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	if _, err := ParseSemantics("bayes"); !errors.Is(err, ErrInvalidSemantics) {
		t.Errorf("ParseSemantics(bayes) error = %v, want ErrInvalidSemantics", err)
	}
	if (Semantics{}).String() != "invalid" {
		t.Errorf("zero Semantics String = %q", Semantics{}.String())
	}
	if Additive.Weights() != SeedWeights || SeedWeights != (Weights{0.2, 0.3, 0.4}) {
		t.Errorf("Additive weights = %+v, want the seed's 0.2/0.3/0.4", Additive.Weights())
	}
}

func TestEvaluateErrors(t *testing.T) {
	g := NewGraph()
	_ = g.AddArgument("a", 1)
	_ = g.AddArgument("b", 1)
	mustAttack(t, g, "a", "b", Rebut)
	mustAttack(t, g, "b", "a", Rebut)
	tests := []struct {
		name string
		g    *Graph
		s    Semantics
		opt  Options
		want error
	}{
		{"nil graph", nil, Additive, Options{}, ErrInvalidOptions},
		{"zero semantics", g, Semantics{}, Options{}, ErrInvalidSemantics},
		{"negative weight", g, AdditiveWith(Weights{Support: -1}), Options{}, ErrInvalidSemantics},
		{"NaN weight", g, AdditiveWith(Weights{Rebut: math.NaN()}), Options{}, ErrInvalidSemantics},
		{"bad method", g, DFQuAD, Options{Method: Method(9)}, ErrInvalidOptions},
		{"negative tolerance", g, DFQuAD, Options{Tolerance: -1}, ErrInvalidOptions},
		{"negative cap", g, DFQuAD, Options{MaxIterations: -1}, ErrInvalidOptions},
		{"step too big", g, DFQuAD, Options{Step: 1.5}, ErrInvalidOptions},
		{"exact on a cycle", g, DFQuAD, Options{Method: Exact}, ErrCyclic},
	}
	for _, tc := range tests {
		if _, err := EvaluateWith(tc.g, tc.s, tc.opt); !errors.Is(err, tc.want) {
			t.Errorf("%s: error = %v, want %v", tc.name, err, tc.want)
		}
	}
}

// TestOscillationReported: DF-QuAD on two mutually attacking arguments of
// base 1 flips between (1,1) and (0,0) for ever. The discrete method must
// say so (it notices the repeat after two iterations); the continuous one
// converges to 0.5.
func TestOscillationReported(t *testing.T) {
	g := NewGraph()
	_ = g.AddArgument("a", 1)
	_ = g.AddArgument("b", 1)
	mustAttack(t, g, "a", "b", Rebut)
	mustAttack(t, g, "b", "a", Undercut)
	sc, err := Evaluate(g, DFQuAD)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Converged || sc.Iterations != 2 || sc.Method != Discrete || sc.Residual != 1 {
		t.Errorf("discrete = %+v, want not converged, stopped after 2 iterations with residual 1", sc)
	}
	sc, err = EvaluateWith(g, DFQuAD, Options{Method: Auto})
	if err != nil {
		t.Fatal(err)
	}
	if !sc.Converged || sc.Method != Continuous || !(sc.Residual <= DefaultTolerance) {
		t.Errorf("auto = %+v, want converged by the continuous method", sc)
	}
	closeTo(t, "auto", map[string]float64{"a": 0.5, "b": 0.5}, sc.Strength, 1e-9)
	sc, err = EvaluateWith(g, DFQuAD, Options{Method: Continuous, MaxIterations: 3})
	if err != nil {
		t.Fatal(err)
	}
	if sc.Converged || sc.Iterations != 3 {
		t.Errorf("continuous capped at 3 steps = %+v, want not converged after 3", sc)
	}
	// The cap holds for an iteration that converges, slowly.
	sc, err = EvaluateWith(g, HCategorizer, Options{MaxIterations: 3})
	if err != nil {
		t.Fatal(err)
	}
	if sc.Converged || sc.Iterations != 3 {
		t.Errorf("h-categorizer capped at 3 iterations = %+v, want not converged after 3", sc)
	}
	if sc, _ = Evaluate(g, HCategorizer); !sc.Converged {
		t.Errorf("h-categorizer uncapped = %+v, want converged", sc)
	}
}

func randomBipolar(r *rand.Rand, n int, p float64, acyclic bool) *Graph {
	g := NewGraph()
	for i := range n {
		_ = g.AddArgument(fmt.Sprint("n", i), math.Round(r.Float64()*100)/100)
	}
	for i := range n {
		for j := range n {
			if acyclic && i >= j || r.Float64() >= p {
				continue
			}
			from, to := fmt.Sprint("n", i), fmt.Sprint("n", j)
			switch r.IntN(3) {
			case 0:
				_ = g.AddSupport(from, to)
			case 1:
				_ = g.AddAttack(from, to, Rebut)
			default:
				_ = g.AddAttack(from, to, Undercut)
			}
		}
	}
	return g
}

// TestExactMatchesIteration: on acyclic graphs the topological pass and
// the synchronous iteration reach the same values, and the iteration needs
// exactly as many rounds as the pass reports levels.
func TestExactMatchesIteration(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for k := range 60 {
		g := randomBipolar(r, 2+r.IntN(25), 0.2, true)
		for _, s := range allSemantics {
			ev := newEvaluator(g, s)
			order := ev.c.order(s == HCategorizer)
			if order == nil {
				t.Fatalf("graph %d: acyclic graph reported cyclic", k)
			}
			exact, levels := ev.exact(order)
			iter, sc := ev.discrete(Options{Tolerance: 0, MaxIterations: 1000})
			if !sc.Converged {
				t.Fatalf("graph %d %v: iteration did not reach a fixed point", k, s)
			}
			for i := range exact {
				if math.Abs(exact[i]-iter[i]) > 1e-12 {
					t.Fatalf("graph %d %v: argument %d exact %v, iterated %v", k, s, i, exact[i], iter[i])
				}
			}
			// The iteration stops one round after the last change.
			if sc.Iterations > levels+1 {
				t.Errorf("graph %d %v: %d iterations for %d levels", k, s, sc.Iterations, levels)
			}
		}
	}
}

// TestContinuousMatchesDiscrete: on random cyclic graphs where the discrete
// iteration converges, RK4 reaches the same fixed point.
func TestContinuousMatchesDiscrete(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	checked := 0
	for k := range 80 {
		g := randomBipolar(r, 2+r.IntN(12), 0.15, false)
		for _, s := range allSemantics {
			d, err := Evaluate(g, s)
			if err != nil {
				t.Fatal(err)
			}
			if !d.Converged || d.Method == Exact {
				continue
			}
			c, err := EvaluateWith(g, s, Options{Method: Continuous})
			if err != nil {
				t.Fatal(err)
			}
			if !c.Converged {
				continue // several fixed points are possible; not this test's business
			}
			for id, v := range d.Strength {
				if math.Abs(v-c.Strength[id]) > 1e-7 {
					// Several fixed points exist on some cyclic graphs;
					// then both must still be fixed points.
					if d.Residual > 1e-9 || c.Residual > 1e-9 {
						t.Errorf("graph %d %v: %s discrete %v, continuous %v", k, s, id, v, c.Strength[id])
					}
				}
			}
			checked++
		}
	}
	if checked < 20 {
		t.Errorf("only %d cyclic cases checked", checked)
	}
}

func TestEvaluateEdgeCases(t *testing.T) {
	g := NewGraph()
	sc, err := Evaluate(g, DFQuAD)
	if err != nil || !sc.Converged || len(sc.Strength) != 0 || sc.Strength == nil {
		t.Errorf("empty graph: %+v, %v", sc, err)
	}
	// Euler with base 0 and an overflowing exponent stays 0, not NaN.
	g = NewGraph()
	_ = g.AddArgument("t", 0)
	for i := range 800 {
		id := fmt.Sprint("s", i)
		_ = g.AddArgument(id, 1)
		_ = g.AddSupport(id, "t")
	}
	sc, err = Evaluate(g, EulerBased)
	if err != nil || sc.Strength["t"] != 0 {
		t.Errorf("Euler base 0 with 800 supporters: %v, %v", sc.Strength["t"], err)
	}
	// Custom additive weights.
	g = NewGraph()
	_ = g.AddArgument("a", 0.5)
	_ = g.AddArgument("b", 0.5)
	_ = g.AddArgument("c", 0.5)
	_ = g.AddSupport("a", "c")
	mustAttack(t, g, "b", "c", Undercut)
	sc, err = Evaluate(g, AdditiveWith(Weights{Support: 0.5, Rebut: 0, Undercut: 0.1}))
	if err != nil {
		t.Fatal(err)
	}
	closeTo(t, "custom weights", map[string]float64{"a": 0.5, "b": 0.5, "c": 0.7}, sc.Strength, 1e-12)
}
