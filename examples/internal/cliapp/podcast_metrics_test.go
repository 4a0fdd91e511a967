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
		// --max-rounds 3 keeps 45 minutes out of reach, and the line says
		// so.
		fmt.Sprintf("length %d words, about %.1f spoken minutes at 150 words a minute (target 45: out of reach, the bounds allow %.1f-%.1f minutes)", m.Words, m.SpokenMinutes, m.MinMinutes, m.MaxMinutes),
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

// TestPodcastTargetMinutes: --target-minutes sets the episode's target
// duration (flow.targetDurationMinutes), which paces it: classic_clash at
// 20 minutes plays fewer than its 8 exchanges and speaks within 20% of the
// target, as the metrics say; 0 paces nothing.
func TestPodcastTargetMinutes(t *testing.T) {
	for _, tt := range []struct {
		minutes   string
		want      string
		exchanges func(int) bool
	}{
		{"20", "(target 20: on target, within 20%)", func(n int) bool { return n >= 3 && n < 8 }},
		{"0", " spoken minutes at 150 words a minute\n", func(n int) bool { return n == 8 }},
	} {
		dir := t.TempDir()
		r := debate(t, dir, "", "--store", "db", "--out", "docs", "--format", "duelogic", "--preset", "classic_clash",
			"--target-minutes", tt.minutes, "Should AI development be paused?")
		if r.code != 0 {
			t.Fatalf("--target-minutes %s: exit %d: %s", tt.minutes, r.code, r.stderr)
		}
		id := debateIDRE.FindStringSubmatch(r.stdout)[1]
		js, err := os.ReadFile(filepath.Join(dir, "docs", id+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var res struct {
			Detail struct {
				Config  duelogic.Config  `json:"config"`
				Metrics duelogic.Metrics `json:"metrics"`
			} `json:"detail"`
		}
		if err := json.Unmarshal(js, &res); err != nil {
			t.Fatal(err)
		}
		m := res.Detail.Metrics
		if got := fmt.Sprint(res.Detail.Config.Flow.TargetDurationMinutes); got != tt.minutes {
			t.Errorf("--target-minutes %s: flow.targetDurationMinutes %s", tt.minutes, got)
		}
		if !tt.exchanges(m.Exchanges) {
			t.Errorf("--target-minutes %s: %d exchanges", tt.minutes, m.Exchanges)
		}
		if !strings.Contains(r.stdout, tt.want) {
			t.Errorf("--target-minutes %s: the output lacks %q:\n%s", tt.minutes, tt.want, r.stdout[max(0, len(r.stdout)-600):])
		}
	}
}
