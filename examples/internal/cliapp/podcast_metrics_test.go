package cliapp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/duelogic/duelogic"
)

// TestPodcastMetricsAgainstTargets: the CLI shows seed 000's success
// metrics as the seed defines them — "Steel-manning attempts in >80% of
// critique responses", "Self-critique present in >70% of substantive
// responses" — each over its own count, against its target, and the
// debate's spoken length at ~150 words a minute beside its target
// duration; the --out documents say the same.
func TestPodcastMetricsAgainstTargets(t *testing.T) {
	dir := t.TempDir()
	r := debate(t, dir, "", "--store", "db", "--out", "docs", "--max-rounds", "3", "Should we use GraphQL or REST?")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	id := debateIDRE.FindStringSubmatch(r.stdout)[1]
	js, err := os.ReadFile(filepath.Join(dir, "docs", id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Detail struct {
			Metrics duelogic.Metrics `json:"metrics"`
		} `json:"detail"`
	}
	if err := json.Unmarshal(js, &res); err != nil {
		t.Fatal(err)
	}
	m := res.Detail.Metrics
	if m.Evaluated == 0 || m.Words == 0 || m.TargetMinutes != 45 {
		t.Fatalf("metrics %+v", m)
	}
	verdict := func(met bool) string {
		if met {
			return "met"
		}
		return "missed"
	}
	// Responses cut off by an interruption are left out of the
	// self-critique rate, and the line says so.
	cut := ""
	if m.CutResponses > 0 {
		cut = fmt.Sprintf("; %d cut off by an interruption not counted", m.CutResponses)
	}
	want := []string{
		fmt.Sprintf("steel-manning %.0f%% of %d critique responses (target >80%%: %s)", 100*m.SteelManningRate, m.CritiqueResponses, verdict(m.MeetsSteelManning)),
		fmt.Sprintf("self-critique %.0f%% of %d substantive responses (target >70%%: %s)%s", 100*m.SelfCritiqueRate, m.SubstantiveResponses, verdict(m.MeetsSelfCritique), cut),
		fmt.Sprintf("length %d words, about %.1f spoken minutes at 150 words a minute (target 45)", m.Words, m.SpokenMinutes),
	}
	md, err := os.ReadFile(filepath.Join(dir, "docs", id+".md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !strings.Contains(r.stdout, w+"\n") {
			t.Errorf("output lacks %q:\n%s", w, r.stdout)
		}
		if !strings.Contains(string(md), "- "+w+"\n") {
			t.Errorf("transcript document lacks %q", w)
		}
	}
	if !regexp.MustCompile(`length \d+ words, about \d+\.\d spoken minutes`).MatchString(r.stdout) {
		t.Error("no spoken length")
	}
}
