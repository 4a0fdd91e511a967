package argumentation

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGraphErrors(t *testing.T) {
	g := NewGraph()
	if err := g.AddArgument("a", 0.5); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"duplicate", g.AddArgument("a", 0.1), ErrDuplicate},
		{"empty id", g.AddArgument("", 0.1), ErrInvalidID},
		{"NaN base", g.AddArgument("b", math.NaN()), ErrInvalidBase},
		{"negative base", g.AddArgument("b", -0.01), ErrInvalidBase},
		{"base above 1", g.AddArgument("b", 1.01), ErrInvalidBase},
		{"infinite base", g.AddArgument("b", math.Inf(1)), ErrInvalidBase},
		{"attack from unknown", g.AddAttack("x", "a", Rebut), ErrUnknownArgument},
		{"attack to unknown", g.AddAttack("a", "x", Undercut), ErrUnknownArgument},
		{"support unknown", g.AddSupport("a", "x"), ErrUnknownArgument},
		{"invalid kind", g.AddAttack("a", "a", AttackKind(7)), ErrInvalidKind},
		{"SetBase unknown", g.SetBase("x", 0.5), ErrUnknownArgument},
		{"SetBase out of range", g.SetBase("a", 2), ErrInvalidBase},
	}
	for _, tc := range tests {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: error = %v, want %v", tc.name, tc.err, tc.want)
		}
	}
	if g.Len() != 1 || len(g.Relations()) != 0 {
		t.Errorf("failed calls changed the graph: %v, relations %v", g, g.Relations())
	}
	if err := g.AddArgument("zero", 0); err != nil {
		t.Errorf("base 0: %v", err)
	}
	if err := g.AddArgument("one", 1); err != nil {
		t.Errorf("base 1: %v", err)
	}
}

func TestAttackKindText(t *testing.T) {
	for _, k := range []AttackKind{Rebut, Undercut} {
		b, err := k.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var got AttackKind
		if err := got.UnmarshalText(b); err != nil || got != k {
			t.Errorf("round trip %v: got %v, %v", k, got, err)
		}
	}
	var k AttackKind
	if err := k.UnmarshalText([]byte("Undercutting")); err != nil || k != Undercut {
		t.Errorf("UnmarshalText(Undercutting) = %v, %v", k, err)
	}
	if err := k.UnmarshalText([]byte("support")); !errors.Is(err, ErrInvalidKind) {
		t.Errorf("UnmarshalText(support) error = %v, want ErrInvalidKind", err)
	}
	if _, err := AttackKind(3).MarshalText(); !errors.Is(err, ErrInvalidKind) {
		t.Errorf("MarshalText(3) error = %v, want ErrInvalidKind", err)
	}
}

func TestGraphMetadataAndRelations(t *testing.T) {
	g := NewGraph()
	for _, a := range []Argument{
		{ID: "a", Base: 0.5, Text: "φ", Side: "PRO", Move: "M1"},
		{ID: "b", Base: 0.25},
		{ID: "c", Base: 1, Side: "OPP"},
	} {
		if err := g.AddArgumentInfo(a); err != nil {
			t.Fatal(err)
		}
	}
	mustAttack(t, g, "b", "a", Rebut)
	mustAttack(t, g, "b", "a", Rebut)    // duplicate: ignored
	mustAttack(t, g, "c", "a", Rebut)    // then also undercut: counts once, as undercut
	mustAttack(t, g, "c", "a", Undercut) //
	if err := g.AddSupport("c", "b"); err != nil {
		t.Fatal(err)
	}
	if err := g.AddSupport("c", "b"); err != nil {
		t.Fatal(err)
	}
	mustAttack(t, g, "c", "b", Undercut) // attack and support between the same pair: both kept
	want := []Relation{
		{From: "b", To: "a", Type: Attack, Kind: Rebut},
		{From: "c", To: "a", Type: Attack, Kind: Undercut},
		{From: "c", To: "b", Type: Support},
		{From: "c", To: "b", Type: Attack, Kind: Undercut},
	}
	if diff := cmp.Diff(want, g.Relations()); diff != "" {
		t.Errorf("Relations (-want +got):\n%s", diff)
	}
	wantArgs := []Argument{
		{ID: "a", Base: 0.5, Text: "φ", Side: "PRO", Move: "M1"},
		{ID: "b", Base: 0.25},
		{ID: "c", Base: 1, Side: "OPP"},
	}
	if diff := cmp.Diff(wantArgs, g.Arguments()); diff != "" {
		t.Errorf("Arguments (-want +got):\n%s", diff)
	}
	if a, ok := g.Argument("a"); !ok || a.Text != "φ" {
		t.Errorf("Argument(a) = %+v, %v", a, ok)
	}
	if _, ok := g.Argument("zz"); ok || g.Has("zz") || !g.Has("c") {
		t.Error("Argument/Has disagree with the graph")
	}
	// The compressed form agrees: a has rebutter b and undercutter c only.
	c := g.frozen()
	ia, ib, ic := g.index["a"], g.index["b"], g.index["c"]
	if diff := cmp.Diff([][]uint32{{}, {ib}, {ic}}, [][]uint32{
		c.src[c.off[ia]:c.supEnd[ia]], c.src[c.supEnd[ia]:c.rebEnd[ia]], c.src[c.rebEnd[ia]:c.off[ia+1]],
	}); diff != "" {
		t.Errorf("in-lists of a (supports, rebuts, undercuts) (-want +got):\n%s", diff)
	}
	sc, err := Evaluate(g, Additive)
	if err != nil {
		t.Fatal(err)
	}
	// b = 0.25 + 0.2·1 − 0.4·1 = 0.05; a = 0.5 − 0.3·0.05 − 0.4·1 = 0.085.
	closeTo(t, "additive", map[string]float64{"a": 0.085, "b": 0.05, "c": 1}, sc.Strength, 1e-12)
}

// TestCSRMatchesNaive builds random multigraphs and compares the
// compressed form with per-argument sets built the obvious way.
func TestCSRMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 50 {
		n := 1 + r.IntN(30)
		g := NewGraph()
		for i := range n {
			_ = g.AddArgument(fmt.Sprint(i), r.Float64())
		}
		type key struct{ from, to, code int }
		set := map[key]bool{}
		for range r.IntN(4 * n) {
			f, to, code := r.IntN(n), r.IntN(n), r.IntN(3)
			set[key{f, to, code}] = true
			switch code {
			case codeSupport:
				_ = g.AddSupport(fmt.Sprint(f), fmt.Sprint(to))
			case codeRebut:
				_ = g.AddAttack(fmt.Sprint(f), fmt.Sprint(to), Rebut)
			default:
				_ = g.AddAttack(fmt.Sprint(f), fmt.Sprint(to), Undercut)
			}
		}
		c := g.frozen()
		for i := range n {
			var sup, reb, und, out []uint32
			for j := range n {
				if set[key{j, i, codeSupport}] {
					sup = append(sup, uint32(j))
				}
				if set[key{j, i, codeUndercut}] {
					und = append(und, uint32(j))
				} else if set[key{j, i, codeRebut}] {
					reb = append(reb, uint32(j))
				}
				if set[key{i, j, codeUndercut}] || set[key{i, j, codeRebut}] {
					out = append(out, uint32(j))
				}
			}
			got := [][]uint32{
				slices.Clone(c.src[c.off[i]:c.supEnd[i]]), slices.Clone(c.src[c.supEnd[i]:c.rebEnd[i]]),
				slices.Clone(c.src[c.rebEnd[i]:c.off[i+1]]), slices.Clone(c.attacked(uint32(i))),
			}
			want := [][]uint32{sup, reb, und, out}
			if diff := cmp.Diff(want, got, cmpEmpty); diff != "" {
				t.Fatalf("argument %d: (supports, rebuts, undercuts, attacked) (-want +got):\n%s", i, diff)
			}
		}
	}
}

var cmpEmpty = cmp.Comparer(func(a, b []uint32) bool { return slices.Equal(a, b) })

func TestMutationAfterEvaluation(t *testing.T) {
	g := NewGraph()
	_ = g.AddArgument("a", 0.5)
	_ = g.AddArgument("b", 0.5)
	if got := Grounded(g); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("Grounded = %v", got)
	}
	mustAttack(t, g, "a", "b", Rebut)
	if got := Grounded(g); !slices.Equal(got, []string{"a"}) {
		t.Errorf("Grounded after AddAttack = %v, want [a]: the compressed form was not rebuilt", got)
	}
	if err := g.SetBase("a", 1); err != nil {
		t.Fatal(err)
	}
	sc, _ := Evaluate(g, Additive)
	closeTo(t, "after SetBase", map[string]float64{"a": 1, "b": 0.2}, sc.Strength, 1e-12)
}

func TestFlatten(t *testing.T) {
	g := NewGraph()
	for _, id := range []string{"x", "y", "y2", "z", "w", "v"} {
		_ = g.AddArgumentInfo(Argument{ID: id, Base: 0.5, Text: "t-" + id})
	}
	// x supports y2 supports y; y undercuts z: x and y2 attack z (supported).
	// w rebuts y; y supports v: w attacks v (secondary).
	_ = g.AddSupport("x", "y2")
	_ = g.AddSupport("y2", "y")
	mustAttack(t, g, "y", "z", Undercut)
	mustAttack(t, g, "w", "y", Rebut)
	_ = g.AddSupport("y", "v")
	mustAttack(t, g, "x", "z", Rebut) // direct already: no derived duplicate
	f := g.Flatten()
	want := []Relation{
		{From: "y", To: "z", Type: Attack, Kind: Undercut},
		{From: "w", To: "y", Type: Attack, Kind: Rebut},
		{From: "x", To: "z", Type: Attack, Kind: Rebut},
		{From: "y2", To: "z", Type: Attack, Kind: Undercut, Derivation: SupportedAttack},
		{From: "w", To: "v", Type: Attack, Kind: Rebut, Derivation: SecondaryAttack},
	}
	if diff := cmp.Diff(want, f.Relations()); diff != "" {
		t.Errorf("Flatten().Relations (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(g.Arguments(), f.Arguments()); diff != "" {
		t.Errorf("Flatten().Arguments (-want +got):\n%s", diff)
	}
	// Dung on the flattened graph: v is defeated by w (unattacked).
	if diff := cmp.Diff([]string{"w", "x", "y2"}, Grounded(f)); diff != "" {
		t.Errorf("Grounded(flattened) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"v", "w", "x", "y2"}, Grounded(g)); diff != "" {
		t.Errorf("Grounded (-want +got):\n%s", diff)
	}
}

// TestConcurrentReads evaluates one graph from several goroutines, the
// first of them building the compressed form (run with -race).
func TestConcurrentReads(t *testing.T) {
	g, _ := randomAF(rand.New(rand.NewPCG(5, 6)), 40, 0.05)
	want, err := Evaluate(g, DFQuAD)
	if err != nil {
		t.Fatal(err)
	}
	g.invalidate()
	var wg sync.WaitGroup
	results := make([]Scores, 4)
	for i := range results {
		wg.Go(func() {
			results[i], _ = EvaluateWith(g, DFQuAD, Options{})
			_ = Grounded(g)
			_ = Preferred(g)
		})
	}
	wg.Wait()
	for _, got := range results {
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("concurrent Evaluate (-want +got):\n%s", diff)
		}
	}
}
