package argumentation

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the testdata/*.golden files")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got; go test -update rewrites it):\n%s", name, diff)
	}
}

func TestMarkdownGolden(t *testing.T) {
	var b bytes.Buffer
	if err := sampleReport(t).WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.md.golden", b.Bytes())
}

func TestDOTGolden(t *testing.T) {
	var b bytes.Buffer
	if err := sampleReport(t).WriteDOT(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "graph.dot.golden", b.Bytes())
}

// escapingGraph has text that must be escaped in tables and DOT strings.
func escapingGraph(t *testing.T) *Graph {
	g := NewGraph()
	for _, a := range []Argument{
		{ID: "A1", Base: 0.9, Text: `a | b \ "c"` + "\nnext line", Side: `P|R"O`},
		{ID: `we"ird\id`, Base: 0.2, Text: "x"},
	} {
		if err := g.AddArgumentInfo(a); err != nil {
			t.Fatal(err)
		}
	}
	mustAttack(t, g, `we"ird\id`, "A1", Undercut)
	return g
}

func TestDOTEscaping(t *testing.T) {
	g := escapingGraph(t)
	sc, err := Evaluate(g, Additive)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteDOT(&b, g, sc); err != nil {
		t.Fatal(err)
	}
	golden(t, "escaping.dot.golden", b.Bytes())
	// No raw line break or unescaped quote inside a quoted string: every
	// line is one statement.
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if strings.Count(strings.ReplaceAll(line, `\\`, ""), `"`)-strings.Count(strings.ReplaceAll(line, `\\`, ""), `\"`) == 1 {
			t.Errorf("unbalanced quotes in %q", line)
		}
	}
}

func TestMarkdownEscaping(t *testing.T) {
	g := escapingGraph(t)
	sc, _ := Evaluate(g, Additive)
	var b bytes.Buffer
	r := Report{Topic: "T | \"x\"\nsecond", Graph: g, Scores: sc}
	if err := r.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		`| A1 | a \| b \\ "c" next line | P\|R"O | 0.82 |`,
		`| we"ird\\id | A1 | Attack | Undercutting |`,
		`# Debate: "T | \"x\" second"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\nnext line") {
		t.Error("a line break in a cell split the table row")
	}
}
