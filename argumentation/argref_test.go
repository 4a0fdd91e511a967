package argumentation

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// argrefDir is the shared reference corpus, relative to the package
// directory (the working directory of its tests).
var argrefDir = filepath.Join("..", "..", "shared", "argref")

type refCase struct {
	Name      string `json:"name"`
	Arguments []struct {
		ID   string   `json:"id"`
		Base *float64 `json:"base"`
	} `json:"arguments"`
	Attacks             [][]string      `json:"attacks"`
	Supports            [][]string      `json:"supports"`
	Acyclic             *bool           `json:"acyclic"`
	Expected            json.RawMessage `json:"expected"`
	Tolerance           *float64        `json:"tolerance"`
	DiscreteConverges   *bool           `json:"discrete_converges"`
	ContinuousConverges *bool           `json:"continuous_converges"`
	Converges           *bool           `json:"converges"`
	Iterations          int             `json:"iterations"`
	Published           *struct {
		Values    map[string]float64 `json:"values"`
		Tolerance float64            `json:"tolerance"`
	} `json:"published"`
}

func loadRef(t *testing.T, file string) []refCase {
	t.Helper()
	if _, err := os.Stat(argrefDir); err != nil {
		t.Skipf("reference corpus %s not available: %v", argrefDir, err)
	}
	data, err := os.ReadFile(filepath.Join(argrefDir, file))
	if err != nil {
		t.Fatalf("read %s: %v", file, err)
	}
	var cases []refCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatalf("decode %s: %v", file, err)
	}
	if len(cases) == 0 {
		t.Fatalf("%s: no cases", file)
	}
	return cases
}

func (c refCase) graph(t *testing.T) *Graph {
	t.Helper()
	g := NewGraph()
	for _, a := range c.Arguments {
		base := 1.0
		if a.Base != nil {
			base = *a.Base
		}
		if err := g.AddArgument(a.ID, base); err != nil {
			t.Fatalf("AddArgument(%q): %v", a.ID, err)
		}
	}
	for _, at := range c.Attacks {
		kind := Rebut
		if len(at) == 3 {
			if err := kind.UnmarshalText([]byte(at[2])); err != nil {
				t.Fatalf("attack %v: %v", at, err)
			}
		}
		if err := g.AddAttack(at[0], at[1], kind); err != nil {
			t.Fatalf("AddAttack(%v): %v", at, err)
		}
	}
	for _, su := range c.Supports {
		if err := g.AddSupport(su[0], su[1]); err != nil {
			t.Fatalf("AddSupport(%v): %v", su, err)
		}
	}
	return g
}

func (c refCase) expectedStrengths(t *testing.T) map[string]float64 {
	t.Helper()
	var m map[string]float64
	if err := json.Unmarshal(c.Expected, &m); err != nil {
		t.Fatalf("expected: %v", err)
	}
	return m
}

// closeTo compares strengths: same IDs, each within tol.
func closeTo(t *testing.T, what string, want, got map[string]float64, tol float64) {
	t.Helper()
	if diff := cmp.Diff(sortedKeys(want), sortedKeys(got)); diff != "" {
		t.Errorf("%s: argument IDs (-want +got):\n%s", what, diff)
		return
	}
	for id, w := range want {
		if g := got[id]; !(math.Abs(g-w) <= tol) {
			t.Errorf("%s: %s = %.15g, want %.15g (±%g)", what, id, g, w, tol)
		}
	}
}

func sortedKeys(m map[string]float64) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func TestArgrefGradual(t *testing.T) {
	files := []struct {
		file string
		sem  Semantics
	}{
		{"dfquad.json", DFQuAD},
		{"quadratic_energy.json", QuadraticEnergy},
		{"euler.json", EulerBased},
		{"euler_top.json", EulerBasedTop},
		{"hcat.json", HCategorizer},
	}
	for _, f := range files {
		for _, c := range loadRef(t, f.file) {
			t.Run(f.sem.String()+"/"+c.Name, func(t *testing.T) {
				g := c.graph(t)
				want := c.expectedStrengths(t)
				tol := *c.Tolerance
				sc, err := Evaluate(g, f.sem)
				if err != nil {
					t.Fatalf("Evaluate: %v", err)
				}
				if c.Acyclic != nil && *c.Acyclic && sc.Method != Exact {
					t.Errorf("acyclic graph evaluated by %v, want exact", sc.Method)
				}
				discreteOK := c.DiscreteConverges == nil || *c.DiscreteConverges
				if discreteOK {
					if !sc.Converged {
						t.Fatalf("discrete: not converged after %d iterations", sc.Iterations)
					}
					closeTo(t, "discrete", want, sc.Strength, tol)
				} else if sc.Converged {
					t.Errorf("discrete: Converged = true (after %d iterations, residual %g) on a graph where it oscillates; strengths %v",
						sc.Iterations, sc.Residual, sc.Strength)
				}
				for _, m := range []Method{Continuous, Auto} {
					sc, err = EvaluateWith(g, f.sem, Options{Method: m})
					if err != nil {
						t.Fatalf("%v: %v", m, err)
					}
					if !sc.Converged {
						t.Fatalf("%v: not converged after %d iterations (residual %g)", m, sc.Iterations, sc.Residual)
					}
					closeTo(t, m.String(), want, sc.Strength, tol)
				}
				if p := c.Published; p != nil {
					// sc is the Auto result, converged.
					closeTo(t, "published", p.Values, sc.Strength, p.Tolerance)
				}
			})
		}
	}
}

func TestArgrefAdditive(t *testing.T) {
	for _, c := range loadRef(t, "additive.json") {
		t.Run(c.Name, func(t *testing.T) {
			g := c.graph(t)
			sc, err := Evaluate(g, Additive)
			if err != nil {
				t.Fatalf("Evaluate: %v", err)
			}
			if !*c.Converges {
				if sc.Converged {
					t.Fatalf("Converged = true after %d iterations on a graph where the additive iteration does not converge", sc.Iterations)
				}
				return
			}
			if !sc.Converged {
				t.Fatalf("not converged after %d iterations (residual %g)", sc.Iterations, sc.Residual)
			}
			closeTo(t, "additive", c.expectedStrengths(t), sc.Strength, *c.Tolerance)
			if *c.Acyclic && sc.Iterations != c.Iterations {
				t.Errorf("Iterations = %d, want %d (levels of the graph)", sc.Iterations, c.Iterations)
			}
			// The reference iterated to a largest change <= 1e-13; with the
			// same stopping rule the iteration count is the same.
			if !*c.Acyclic {
				sc, err := EvaluateWith(g, Additive, Options{Tolerance: 1e-13})
				if err != nil {
					t.Fatal(err)
				}
				if sc.Iterations != c.Iterations {
					t.Errorf("Iterations (tolerance 1e-13) = %d, want %d", sc.Iterations, c.Iterations)
				}
			}
		})
	}
}
