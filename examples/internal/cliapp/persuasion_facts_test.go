package cliapp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPersuasionFacts: --facts FILE fills the persuasion debate's shared
// context K, which every prompt and the report carry; a file without a
// fact, or one that cannot be read, is a usage error before anything is
// stored.
func TestPersuasionFacts(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return name
	}
	facts := write("facts.txt", "# what we know\nBilling handles 2,000 invoices a day\n\n  The on-call rota has three engineers  \n")
	r := debate(t, dir, "", "--format", "persuasion", "--facts", facts, "--max-rounds", "1", "--store", "db", "--out", "out", "Should we rewrite billing in Go?")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	docs, err := filepath.Glob(filepath.Join(dir, "out", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("no document written: %v", err)
	}
	var all strings.Builder
	for _, d := range docs {
		b, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	for _, want := range []string{"Billing handles 2,000 invoices a day", "The on-call rota has three engineers"} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("the documents lack the fact %q", want)
		}
	}
	if strings.Contains(all.String(), "what we know") {
		t.Error("a comment line became a fact")
	}

	for _, tt := range []struct {
		name, file, want string
	}{
		{"no fact", write("empty.txt", "# nothing\n\n"), "debate: --facts empty.txt: no facts: give one per line"},
		{"no file", "missing.txt", "debate: --facts missing.txt: open missing.txt: no such file or directory"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := debate(t, dir, "", "--format", "persuasion", "--facts", tt.file, "--store", "db2", "q?")
			if r.code != 2 || !strings.HasPrefix(r.stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", r.code, r.stderr, tt.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "db2")); err == nil {
				entries, _ := os.ReadDir(filepath.Join(dir, "db2"))
				if len(entries) > 0 {
					t.Errorf("a refused debate stored %d files", len(entries))
				}
			}
		})
	}
}
