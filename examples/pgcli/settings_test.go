package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/moderated"
	"github.com/duelogic/duelogic/store"
)

// ameliaYAML is seed 004's settings.amelia.yaml: its configuration summary,
// with a custom perspective.
const ameliaYAML = `# settings.amelia.yaml
debate:
  max_rounds: 4                      # Maximum rounds before forced synthesis
  default_perspectives: 3            # Default number of debaters (2-4)
  token_budget_per_round: unlimited  # Per-debater token limit, or "unlimited"
  round_timeout_seconds: 300         # Timeout per round
  checkpoint_timeout_seconds: 600    # Auto-pause if human doesn't respond
  total_timeout_seconds: 3600        # Total debate timeout

  custom_perspectives:               # Extend the built-in catalog
    - name: "Compliance First"
      priorities: [audit trails, data residency, SOC2 requirements]
      trade_offs: "Will accept development slowdown for compliance"
`

// TestYAMLSettings (issue 24): this build reads the seed's settings as
// YAML, settings.amelia.yaml's shape, into the configuration the JSON file
// gives; what is not settings is refused with its reason.
func TestYAMLSettings(t *testing.T) {
	data, err := yamlToJSON([]byte(ameliaYAML))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := moderated.ParseSettings(data, moderated.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MaxRounds != 4 || cfg.Debaters != 3 || cfg.TokenBudget != 0 || cfg.RoundTimeout != 5*time.Minute ||
		cfg.CheckpointTimeout != 10*time.Minute || cfg.TotalTimeout != time.Hour || len(cfg.CustomPerspectives) != 1 ||
		cfg.CustomPerspectives[0].Name != "Compliance First" || len(cfg.CustomPerspectives[0].Priorities) != 3 {
		t.Errorf("config %+v", cfg)
	}
	// A setting of the wrong kind is named by its path, as in JSON.
	bad, err := yamlToJSON([]byte("debate:\n  max_rounds: [4]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := moderated.ParseSettings(bad, moderated.DefaultConfig()); err == nil || !strings.Contains(err.Error(), "debate.max_rounds") {
		t.Errorf("a list of rounds: %v", err)
	}
	for _, doc := range []string{"", "# nothing\n", "- a list\n", "debate: [unclosed\n", "debate:\n  1: {2: 3}\n"} {
		if got, err := yamlToJSON([]byte(doc)); err == nil {
			t.Errorf("yamlToJSON(%q) = %s; want an error", doc, got)
		}
	}
}

// FuzzYAMLToJSON: any input either is refused or becomes a JSON object.
func FuzzYAMLToJSON(f *testing.F) {
	f.Add(ameliaYAML)
	f.Add("debate: {max_rounds: 2, when: 2001-12-14}\n")
	f.Add("a: &x [1, *x]\n")
	f.Fuzz(func(t *testing.T, doc string) {
		out, err := yamlToJSON([]byte(doc))
		if err != nil {
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatalf("yamlToJSON(%q) = %s, not a JSON object: %v", doc, out, err)
		}
	})
}

// TestYAMLSettingsFile: pgcli plays a moderated debate with the seed's
// settings.amelia.yaml (--settings), the flags given winning over it; the
// core command says a YAML file needs this build.
func TestYAMLSettingsFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "settings.amelia.yaml"), []byte(ameliaYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, "--format", "moderated", "--no-checkpoints", "--settings", "settings.amelia.yaml", "--max-rounds", "1",
		"--store", "db", "Should audit logs stay in the EU region?")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	m := regexp.MustCompile(`(?m)^debate (dl-[0-9a-f]{16})$`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no debate ID:\n%s", r.stdout)
	}
	js, err := store.OpenJSONL(filepath.Join(dir, "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer js.Close()
	sum, err := engine.Inspect(context.Background(), js, m[1])
	if err != nil {
		t.Fatal(err)
	}
	var f moderated.Format
	if err := json.Unmarshal(sum.Spec, &f); err != nil {
		t.Fatal(err)
	}
	if cfg := f.Config; cfg.MaxRounds != 1 || cfg.Debaters != 3 || cfg.CheckpointTimeout != 10*time.Minute ||
		len(cfg.CustomPerspectives) != 1 || cfg.CustomPerspectives[0].ID != "compliance_first" {
		t.Errorf("stored config %+v", cfg)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.yml"), []byte("debate:\n  max_rounds: 4\n  colour: blue\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, dir, "--format", "moderated", "--settings", "bad.yml", "--store", "db", "q?")
	if r.code != 2 || !strings.Contains(r.stderr, "--settings bad.yml:\n  debate.colour: unknown setting") {
		t.Errorf("bad YAML settings: exit %d, %s", r.code, r.stderr)
	}
}
