package argumentation

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type dungExpected struct {
	Grounded  []string   `json:"grounded"`
	Complete  [][]string `json:"complete"`
	Preferred [][]string `json:"preferred"`
	Stable    [][]string `json:"stable"`
}

func TestArgrefDung(t *testing.T) {
	for _, c := range loadRef(t, "dung.json") {
		t.Run(c.Name, func(t *testing.T) {
			var want dungExpected
			if err := json.Unmarshal(c.Expected, &want); err != nil {
				t.Fatal(err)
			}
			g := c.graph(t)
			// cmp.Diff tells nil from empty: the results must be non-nil
			// like the decoded JSON.
			if diff := cmp.Diff(want.Grounded, Grounded(g)); diff != "" {
				t.Errorf("Grounded (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want.Complete, Complete(g)); diff != "" {
				t.Errorf("Complete (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want.Preferred, Preferred(g)); diff != "" {
				t.Errorf("Preferred (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want.Stable, Stable(g)); diff != "" {
				t.Errorf("Stable (-want +got):\n%s", diff)
			}
			checkAcceptance(t, g, want)
		})
	}
}

// checkAcceptance checks the acceptance queries against the extensions.
func checkAcceptance(t *testing.T, g *Graph, want dungExpected) {
	t.Helper()
	in := func(exts [][]string, id string, all bool) bool {
		for _, e := range exts {
			if slices.Contains(e, id) != all {
				return !all
			}
		}
		return all
	}
	for _, a := range g.Arguments() {
		id := a.ID
		for _, tc := range []struct {
			sem        DungSemantics
			exts       [][]string
			cred, scep bool
		}{
			{DungGrounded, [][]string{want.Grounded}, in([][]string{want.Grounded}, id, false), in([][]string{want.Grounded}, id, true)},
			{DungComplete, want.Complete, in(want.Complete, id, false), in(want.Complete, id, true)},
			{DungPreferred, want.Preferred, in(want.Preferred, id, false), in(want.Preferred, id, true)},
			{DungStable, want.Stable, in(want.Stable, id, false), in(want.Stable, id, true)},
		} {
			cred, err := CredulouslyAccepted(g, id, tc.sem)
			if err != nil || cred != tc.cred {
				t.Errorf("CredulouslyAccepted(%s, %v) = %v, %v; want %v", id, tc.sem, cred, err, tc.cred)
			}
			scep, err := ScepticallyAccepted(g, id, tc.sem)
			if err != nil || scep != tc.scep {
				t.Errorf("ScepticallyAccepted(%s, %v) = %v, %v; want %v", id, tc.sem, scep, err, tc.scep)
			}
		}
	}
	for _, e := range want.Complete {
		if !ConflictFree(g, e) || !Admissible(g, e) {
			t.Errorf("complete extension %v: ConflictFree=%v Admissible=%v, want both true", e, ConflictFree(g, e), Admissible(g, e))
		}
	}
}

// bruteDung computes the Dung extensions of a small attack graph (n <= 12)
// by enumerating every subset: the definitions, with no cleverness.
func bruteDung(n int, att [][2]int) dungExpected {
	attacks := func(s uint, b int) bool { // does some member of s attack b?
		for _, e := range att {
			if e[1] == b && s&(1<<e[0]) != 0 {
				return true
			}
		}
		return false
	}
	conflictFree := func(s uint) bool {
		for _, e := range att {
			if s&(1<<e[0]) != 0 && s&(1<<e[1]) != 0 {
				return false
			}
		}
		return true
	}
	defended := func(s uint) uint { // F(s)
		var f uint
		for a := range n {
			ok := true
			for _, e := range att {
				if e[1] == a && !attacks(s, e[0]) {
					ok = false
				}
			}
			if ok {
				f |= 1 << a
			}
		}
		return f
	}
	names := func(s uint) []string {
		out := []string{}
		for a := range n {
			if s&(1<<a) != 0 {
				out = append(out, fmt.Sprintf("a%02d", a))
			}
		}
		return out
	}
	var ground uint
	for {
		next := defended(ground)
		if next == ground {
			break
		}
		ground = next
	}
	var admissible []uint
	want := dungExpected{Grounded: names(ground), Complete: [][]string{}, Preferred: [][]string{}, Stable: [][]string{}}
	for s := uint(0); s < 1<<n; s++ {
		if !conflictFree(s) {
			continue
		}
		f := defended(s)
		if s&^f == 0 {
			admissible = append(admissible, s)
		}
		if f == s {
			want.Complete = append(want.Complete, names(s))
		}
		stable := true
		for b := range n {
			if s&(1<<b) == 0 && !attacks(s, b) {
				stable = false
			}
		}
		if stable {
			want.Stable = append(want.Stable, names(s))
		}
	}
	for _, s := range admissible {
		maximal := true
		for _, o := range admissible {
			if o != s && s&^o == 0 {
				maximal = false
			}
		}
		if maximal {
			want.Preferred = append(want.Preferred, names(s))
		}
	}
	for _, l := range [][][]string{want.Complete, want.Preferred, want.Stable} {
		slices.SortFunc(l, slices.Compare[[]string])
	}
	return want
}

func randomAF(r *rand.Rand, n int, p float64) (*Graph, [][2]int) {
	g := NewGraph()
	for a := range n {
		if err := g.AddArgument(fmt.Sprintf("a%02d", a), 1); err != nil {
			panic(err)
		}
	}
	var att [][2]int
	for a := range n {
		for b := range n {
			if r.Float64() < p {
				att = append(att, [2]int{a, b})
				kind := Rebut
				if r.IntN(2) == 0 {
					kind = Undercut
				}
				if err := g.AddAttack(fmt.Sprintf("a%02d", a), fmt.Sprintf("a%02d", b), kind); err != nil {
					panic(err)
				}
			}
		}
	}
	return g, att
}

// TestDungRandomAgainstBruteForce cross-checks every Dung function with
// the subset enumeration on random small graphs, self-attacks included.
func TestDungRandomAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for k := range 300 {
		n := 1 + r.IntN(9)
		p := []float64{0.1, 0.2, 0.3, 0.5}[k%4]
		g, att := randomAF(r, n, p)
		want := bruteDung(n, att)
		got := dungExpected{Grounded(g), Complete(g), Preferred(g), Stable(g)}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("graph %d (n=%d, attacks %v) (-want +got):\n%s", k, n, att, diff)
		}
		checkAcceptance(t, g, want)
		if t.Failed() {
			t.Fatalf("graph %d (n=%d, attacks %v)", k, n, att)
		}
	}
}

func TestDungEdgeCases(t *testing.T) {
	if diff := cmp.Diff(dungExpected{[]string{}, [][]string{{}}, [][]string{{}}, [][]string{{}}},
		dungExpected{Grounded(nil), Complete(nil), Preferred(nil), Stable(nil)}); diff != "" {
		t.Errorf("nil graph (-want +got):\n%s", diff)
	}
	g := NewGraph()
	for _, id := range []string{"a", "b", "s"} {
		if err := g.AddArgument(id, 0.5); err != nil {
			t.Fatal(err)
		}
	}
	mustAttack(t, g, "a", "b", Rebut)
	mustAttack(t, g, "s", "s", Undercut)
	// Supports play no part in Dung semantics on the plain graph.
	if err := g.AddSupport("b", "a"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a"}, Grounded(g)); diff != "" {
		t.Errorf("Grounded (-want +got):\n%s", diff)
	}
	for _, set := range [][]string{{"s"}, {"a", "b"}, {"a", "nope"}} {
		if ConflictFree(g, set) {
			t.Errorf("ConflictFree(%v) = true, want false", set)
		}
	}
	if Admissible(g, []string{"b"}) {
		t.Error("Admissible({b}) = true, want false: a attacks b undefended")
	}
	if !Admissible(g, nil) {
		t.Error("Admissible({}) = false, want true")
	}
	if _, err := CredulouslyAccepted(g, "x", DungPreferred); !errors.Is(err, ErrUnknownArgument) {
		t.Errorf("CredulouslyAccepted(unknown) error = %v, want ErrUnknownArgument", err)
	}
	if _, err := ScepticallyAccepted(g, "a", DungSemantics(9)); !errors.Is(err, ErrInvalidSemantics) {
		t.Errorf("ScepticallyAccepted(bad semantics) error = %v, want ErrInvalidSemantics", err)
	}
	exts, err := Extensions(g, DungStable)
	if err != nil || len(exts) != 0 {
		t.Errorf("Extensions(stable) = %v, %v; want none (s attacks itself and nothing attacks it)", exts, err)
	}
}

func mustAttack(t *testing.T, g *Graph, from, to string, k AttackKind) {
	t.Helper()
	if err := g.AddAttack(from, to, k); err != nil {
		t.Fatal(err)
	}
}
