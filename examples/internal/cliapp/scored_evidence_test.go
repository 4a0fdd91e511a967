package cliapp

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/scored"
)

// writeFile writes text to name in dir and returns name.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// TestScoredEvidence: seed 003 debates an idea from its evaluation —
// "runDebate(ideaContext, evaluation: EvaluationResult, redTeamChallenges:
// Challenge[])", with arguments "Based on evaluation evidence" — and
// "4. **Score Integration**: ... Track pre/post debate deltas". --evidence
// gives the CLI that evaluation: its scores are the pre-debate scores, and
// the one category it leaves out is called a neutral default, before the
// debate, beside the scores and in the documents. A resumed debate keeps
// the evidence it started with.
func TestScoredEvidence(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "evidence.json", `{
  "evaluations": {
    "problem": {"score": 7, "evidence": ["40% of surveyed clinics double-book weekly"]},
    "market":  {"score": 4.5, "evidence": ["About 9,000 small clinics in the region"]}
  },
  "challenges": [{"category": "market", "text": "Two incumbents bundle scheduling for free", "severity": "high"}]
}`)
	r := debate(t, dir, "", "--format", "scored", "--evidence", file, "--store", "db", "--out", "docs", "A scheduling app for small clinics")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if want := "debate: no evaluation of Solution Fit in the evidence: starting from the neutral default 5.5\n"; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}
	for _, want := range []string{"Problem Validity     7 → ", "Market Opportunity   4.5 → ", "Solution Fit         5.5 → "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("scores lack %q:\n%s", want, r.stdout)
		}
	}
	if n := strings.Count(r.stdout, "from a neutral default"); n != 1 {
		t.Errorf("%d scores marked as from a neutral default, want 1 (Solution Fit):\n%s", n, r.stdout)
	}
	id := debateIDRE.FindStringSubmatch(r.stdout)[1]
	md, err := os.ReadFile(filepath.Join(dir, "docs", id+".debate.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "- **Starting scores:** neutral defaults (the middle of the scale, no evaluation supplied) for Solution Fit") {
		t.Errorf("debate.md does not name the neutral category:\n%s", md)
	}
	js, err := os.ReadFile(filepath.Join(dir, "docs", id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var res engine.Result[*scored.Outcome]
	if err := json.Unmarshal(js, &res); err != nil {
		t.Fatal(err)
	}
	cfg := res.Detail.Config
	if ev := cfg.Evaluations["problem"]; ev.Score != 7 || len(ev.Evidence) != 1 || ev.Neutral {
		t.Errorf("stored problem evaluation = %+v", ev)
	}
	if len(cfg.Challenges) != 1 || cfg.Challenges[0].Severity != "high" {
		t.Errorf("stored challenges = %+v", cfg.Challenges)
	}
	for _, rd := range res.Detail.Rounds {
		if math.Abs(rd.Delta-(rd.PostScore-rd.PreScore)) > 1e-9 {
			t.Errorf("round %d: delta %v is not post %v - pre %v", rd.Number, rd.Delta, rd.PostScore, rd.PreScore)
		}
	}

	again := debate(t, dir, "", "--resume", id, "--store", "db")
	if again.code != 0 {
		t.Fatalf("resume: exit %d: %s", again.code, again.stderr)
	}
	if !strings.Contains(again.stdout, "Problem Validity     7 → ") || strings.Count(again.stdout, "from a neutral default") != 1 {
		t.Errorf("the resumed debate lost its evidence:\n%s", again.stdout)
	}
	if r := debate(t, dir, "", "--resume", id, "--store", "db", "--evidence", file); r.code != 2 ||
		!strings.Contains(r.stderr, "--evidence: --resume keeps the stored configuration") {
		t.Errorf("--evidence on resume: exit %d: %s", r.code, r.stderr)
	}
}

// TestScoredWithoutEvidenceSaysNeutral: without --evidence the CLI says the
// scores start from neutral defaults instead of silently using 5.5.
func TestScoredWithoutEvidenceSaysNeutral(t *testing.T) {
	dir := t.TempDir()
	r := debate(t, dir, "", "--format", "scored", "--store", "db", "A scheduling app for small clinics")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	note := "no evaluation of the idea (--evidence FILE): every category starts at the neutral default 5.5, so the scores measure the arguments alone"
	if !strings.Contains(r.stderr, "debate: "+note) {
		t.Errorf("stderr lacks the note:\n%s", r.stderr)
	}
	if !strings.Contains(r.stdout, "total adjustment") || !strings.Contains(r.stdout, note) {
		t.Errorf("the scores are not called neutral defaults:\n%s", r.stdout)
	}
	if n := strings.Count(r.stdout, "from a neutral default"); n != 3 {
		t.Errorf("%d scores marked as from a neutral default, want 3", n)
	}
}

// TestScoredBadEvidence: a bad evidence file is a usage error naming the
// file and every problem by its JSON path.
func TestScoredBadEvidence(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"types and unknown fields", []string{"--evidence", writeFile(t, dir, "bad.json",
			`{"evaluations": {"problem": {"score": "high"}, "market": {"score": 5, "evidnce": []}}, "challenges": [{"text": ""}]}`)},
			[]string{"--evidence bad.json: invalid evidence file:",
				`  evaluations["market"].evidnce: unknown field; an evaluation has score and evidence`,
				`  evaluations["problem"].score: want a number, got a string`,
				"  challenges[0].text: empty"}},
		{"unknown category, score off the scale", []string{"--evidence", writeFile(t, dir, "cats.json",
			`{"evaluations": {"team": {"score": 5}, "market": {"score": 11}}, "challenges": [{"category": "legal", "text": "t"}]}`)},
			[]string{"--evidence cats.json: invalid evidence file:",
				`  evaluations["market"].score: 11 is outside the scale 1..10`,
				`  evaluations["team"]: names no category; the categories are problem, solution, market`,
				`  challenges[0].category: "legal" names no category; the categories are problem, solution, market`}},
		{"not JSON", []string{"--evidence", writeFile(t, dir, "broken.json", "{\n  \"evaluations\": {\n    \"problem\": {\"score\": 7,}\n")},
			[]string{"--evidence broken.json: invalid evidence file:\n  not JSON: line 3, column 28: invalid character '}'"}},
		{"no file", []string{"--evidence", "missing.json"}, []string{"--evidence: open missing.json: no such file or directory"}},
		{"another format", []string{"--format", "duelogic", "--evidence", "missing.json"}, []string{"--evidence: not used by the duelogic format"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"--format", "scored"}, tt.args...)
			r := debate(t, dir, "", append(args, "--store", "db", "idea")...)
			if r.code != 2 {
				t.Fatalf("exit %d, want 2 (usage): %s", r.code, r.stderr)
			}
			for _, want := range tt.want {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
			if strings.Contains(r.stdout, "══════") {
				t.Error("a debate ran")
			}
		})
	}
	if h := debate(t, dir, "", "--help"); !strings.Contains(h.stderr, "-evidence string") {
		t.Errorf("--help lacks --evidence:\n%s", h.stderr)
	}
}
