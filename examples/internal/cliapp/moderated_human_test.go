package cliapp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/moderated"
	"github.com/duelogic/duelogic/store"
)

// wroteRE finds the files the command says it wrote.
var wroteRE = regexp.MustCompile(`(?m)^wrote (.+)$`)

func wrote(stderr, under string) []string {
	var out []string
	for _, m := range wroteRE.FindAllStringSubmatch(stderr, -1) {
		if strings.Contains(filepath.ToSlash(m[1]), under) {
			out = append(out, m[1])
		}
	}
	return out
}

func read(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestModeratedClarifyApproveAndWorkflow: seed 004 from the terminal. "Prompt
// too vague | Moderator asks clarifying question before assigning
// perspectives"; the Human "approves final synthesis"; "Output is a
// structured markdown document committed to docs/decisions/"; "After
// synthesis, Moderator asks: "Would you like me to create a workflow from
// this decision?"". Without --out the decision goes under the working
// directory.
func TestModeratedClarifyApproveAndWorkflow(t *testing.T) {
	dir := t.TempDir()
	r := debate(t, dir, "Redis or PostgreSQL, for user sessions\na\ny\n",
		"--format", "moderated", "--store", "db", "--max-rounds", "1", "Which cache?")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"═══ Clarifying question ═══\nThe question is too vague to assign perspectives. Before assigning them, the moderator asks:\nWhat exactly is being decided in \"Which cache?\"",
		"an empty answer keeps the assumption.\n> Redis or PostgreSQL, for user sessions\n",
		"Before assigning perspectives I asked: ",
		"[S]kip  [A]pprove  [R]eject  (Enter: skip)\n> a\n",
		"═══ Workflow ═══\nWould you like me to create a workflow from this decision?\n",
		"[Y]es  [N]o  (Enter: yes)\n> y\n",
		"══════ VERDICT ══════\nrecommendation (approved): ",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	// The clarifying question comes before the perspectives are assigned.
	if i, j := strings.Index(r.stdout, "═══ Clarifying question ═══"), strings.Index(r.stdout, "Arguing it:"); i < 0 || j < i {
		t.Errorf("the question (at %d) does not precede the assignment (at %d)", i, j)
	}
	decisions := wrote(r.stderr, "docs/decisions/")
	workflows := wrote(r.stderr, "docs/workflows/")
	if len(decisions) != 1 || len(workflows) != 1 {
		t.Fatalf("wrote decisions %v, workflows %v:\n%s", decisions, workflows, r.stderr)
	}
	name := filepath.Base(decisions[0])
	if !regexp.MustCompile(`^\d{4}-\d{2}-\d{2}-which-cache\.md$`).MatchString(name) || decisions[0] != filepath.Join("docs", "decisions", name) {
		t.Errorf("decision written to %s", decisions[0])
	}
	doc := read(t, dir, decisions[0])
	for _, want := range []string{"**Date:** " + name[:10] + "\n", "**Status:** Approved\n", "**Answer:** Redis or PostgreSQL, for user sessions\n"} {
		if !strings.Contains(doc, want) {
			t.Errorf("decision lacks %q:\n%s", want, doc)
		}
	}
	if wf := read(t, dir, workflows[0]); !strings.Contains(wf, "**From decision:** docs/decisions/"+name) {
		t.Errorf("workflow:\n%s", wf)
	}

	// The answers are stored: resuming the finished debate asks nothing
	// and writes the same decision again.
	id := debateIDRE.FindStringSubmatch(r.stdout)[1]
	again := debate(t, dir, "", "--store", "db", "--resume", id)
	if again.code != 0 || strings.Contains(again.stdout, "[A]pprove") || strings.Contains(again.stdout, "═══ Clarifying question") {
		t.Fatalf("resume: exit %d\n%s\n%s", again.code, again.stdout, again.stderr)
	}
	if got := wrote(again.stderr, "docs/decisions/"); len(got) != 1 || got[0] != decisions[0] || read(t, dir, got[0]) != doc {
		t.Errorf("resume wrote %v", got)
	}
}

// TestModeratedRejectsTheSynthesis: a rejected synthesis goes back to the
// moderator with the reason; the revision is shown and asked about in
// turn (issue 24). Rejected too, it is marked so in its document and no
// workflow is offered; approved, it is the decision and the workflow is
// offered. With --out the decision goes under it.
func TestModeratedRejectsTheSynthesis(t *testing.T) {
	tests := []struct {
		name, input string
		status      string
		workflow    bool
	}{
		{"rejected twice", "r\nIt ignores our on-call load\nr\nStill not\n", "**Status:** Rejected — Still not\n", false},
		{"the revision approved", "r\nIt ignores our on-call load\na\nn\n", "**Status:** Approved\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			r := debate(t, dir, tt.input,
				"--format", "moderated", "--store", "db", "--out", "out", "--max-rounds", "1", "Should we use GraphQL or REST?")
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if strings.Contains(r.stdout, "Clarifying question") || strings.Contains(r.stdout, "create a workflow") != tt.workflow {
				t.Errorf("asked a clarifying question, or offered a workflow (want %v):\n%s", tt.workflow, r.stdout)
			}
			// The revision is said, after the first synthesis's
			// rejection, and asked about after it is shown.
			first := strings.Index(r.stdout, "Why (optional): It ignores our on-call load\n")
			revised := strings.Index(r.stdout, "**Revised:** after the people who asked rejected the first synthesis — It ignores our on-call load\n")
			second := strings.LastIndex(r.stdout, "═══ Your decision ═══")
			if first < 0 || revised < first || second < revised || strings.Count(r.stdout, "═══ Your decision ═══") != 2 {
				t.Errorf("rejection at %d, revision at %d, its review at %d:\n%s", first, revised, second, r.stdout)
			}
			decisions := wrote(r.stderr, "docs/decisions/")
			if len(decisions) != 1 || !strings.HasPrefix(decisions[0], filepath.Join("out", "docs", "decisions")+string(filepath.Separator)) {
				t.Fatalf("decisions %v:\n%s", decisions, r.stderr)
			}
			doc := read(t, dir, decisions[0])
			for _, want := range []string{tt.status, "**Revised:** after the people who asked rejected the first synthesis — It ignores our on-call load\n",
				"Revised after the first synthesis was rejected, because the people who asked said: \"It ignores our on-call load\""} {
				if !strings.Contains(doc, want) {
					t.Errorf("decision lacks %q:\n%s", want, doc)
				}
			}
			if rejected := strings.Contains(doc, "> **Rejected.** The people who asked rejected this synthesis"); rejected == tt.workflow {
				t.Errorf("decision marked rejected: %v:\n%s", rejected, doc)
			}
		})
	}
}

// TestModeratedWithoutAsking: with --no-checkpoints nothing is asked — the
// moderator's assumption stands for a vague prompt, the synthesis stays
// unreviewed — and the decision is still written. At the end of input
// without it, the clarifying question takes the assumption too and the
// debate pauses at its first checkpoint.
func TestModeratedWithoutAsking(t *testing.T) {
	dir := t.TempDir()
	r := debate(t, dir, "", "--format", "moderated", "--store", "db", "--no-checkpoints", "--max-rounds", "1", "Which cache?")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, "═══ Clarifying question ═══") || strings.Contains(r.stdout, "[A]pprove") || strings.Contains(r.stdout, "═══ Workflow") {
		t.Errorf("asked something:\n%s", r.stdout)
	}
	decisions := wrote(r.stderr, "docs/decisions/")
	if len(decisions) != 1 {
		t.Fatalf("decisions %v", decisions)
	}
	// Nobody said yes to a workflow.
	if wf := wrote(r.stderr, "docs/workflows/"); len(wf) != 0 {
		t.Errorf("wrote workflows %v", wf)
	}
	// Unreviewed is said, as Approved and Rejected are, with the other
	// header lines.
	doc := read(t, dir, decisions[0])
	if !strings.Contains(doc, "**Assumed (no answer):** a choice between the common options") ||
		!regexp.MustCompile(`\n\*\*Perspectives:\*\* [^\n]+\n\*\*Status:\*\* Unreviewed\n\n## Question\n`).MatchString(doc) ||
		strings.Count(doc, "**Status:**") != 1 {
		t.Errorf("decision:\n%s", doc)
	}

	// (On the stub's seed 2 the first round does not end the debate.)
	r = debate(t, dir, "", "--format", "moderated", "--store", "db", "--max-rounds", "3", "--seed", "2", "Which cache?")
	if r.code != 0 || !strings.Contains(r.stdout, "═══ Clarifying question ═══") || !strings.Contains(r.stderr, "paused at a checkpoint") {
		t.Errorf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestModeratedSettingsFile: seed 004, "Users can override or extend via
// settings.amelia.yaml" — here a JSON file with the seed's names, given
// with --settings; a flag given wins over the file; a bad file is a usage
// error naming the field.
func TestModeratedSettingsFile(t *testing.T) {
	dir := t.TempDir()
	settings := `{"debate": {
	  "max_rounds": 4, "default_perspectives": 3, "token_budget_per_round": "unlimited",
	  "round_timeout_seconds": 300, "checkpoint_timeout_seconds": 600, "total_timeout_seconds": 3600,
	  "custom_perspectives": [{"name": "Compliance First", "priorities": ["audit trails", "data residency"],
	    "trade_offs": "Will accept development slowdown for compliance"}]}}`
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	r := debate(t, dir, "", "--format", "moderated", "--no-checkpoints", "--settings", "settings.json", "--max-rounds", "1",
		"--store", "db", "Should audit logs stay in the EU region?")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	id := debateIDRE.FindStringSubmatch(r.stdout)[1]
	js, err := store.OpenJSONL(filepath.Join(dir, "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer js.Close()
	sum, err := engine.Inspect(context.Background(), js, id)
	if err != nil {
		t.Fatal(err)
	}
	var f moderated.Format
	if err := json.Unmarshal(sum.Spec, &f); err != nil {
		t.Fatal(err)
	}
	cfg := f.Config
	if cfg.MaxRounds != 1 || cfg.Debaters != 3 || cfg.TokenBudget != 0 || cfg.RoundTimeout != 5*time.Minute ||
		cfg.CheckpointTimeout != 10*time.Minute || cfg.TotalTimeout != time.Hour ||
		len(cfg.CustomPerspectives) != 1 || cfg.CustomPerspectives[0].ID != "compliance_first" {
		t.Errorf("stored config %+v", cfg)
	}

	if err := os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"debate": {"max_rounds": 30, "custom_perspectives": [{"name": "X"}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r = debate(t, dir, "", "--format", "moderated", "--settings", "bad.json", "--store", "db", "q")
	want := "debate: --settings bad.json:\n  debate.custom_perspectives[0].priorities: is empty: a perspective is its priorities\n"
	if r.code != 2 || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d; stderr lacks %q:\n%s", r.code, want, r.stderr)
	}
	r = debate(t, dir, "", "--format", "moderated", "--settings", "bad2.json", "--store", "db", "q")
	if r.code != 2 || !strings.Contains(r.stderr, "--settings: open bad2.json") {
		t.Errorf("missing file: exit %d:\n%s", r.code, r.stderr)
	}
	r = debate(t, dir, "", "--settings", "settings.json", "--store", "db", "q")
	if r.code != 2 || !strings.Contains(r.stderr, "--settings: not used by the duelogic format") {
		t.Errorf("another format: exit %d:\n%s", r.code, r.stderr)
	}
	r = debate(t, dir, "", "-h")
	if !strings.Contains(r.stderr, "-settings string") || !strings.Contains(r.stderr, "docs/decisions/") {
		t.Errorf("help lacks --settings or the decisions:\n%s", r.stderr)
	}
}

// TestDecisionFileName: the decision is named by the debate's recorded
// date, not the day it is written, and a decision of another debate under
// the same name is not overwritten.
func TestDecisionFileName(t *testing.T) {
	dir := t.TempDir()
	s := moderated.Synthesis{Title: "Caching: Redis or PostgreSQL?", DebateID: "dl-1", Date: time.Date(2025, 12, 5, 23, 0, 0, 0, time.UTC)}
	doc := func(s moderated.Synthesis) string { return s.DecisionMarkdown() }
	p, err := writeDecision(dir, "dl-1", s, doc(s))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "docs", "decisions", "2025-12-05-caching-redis-or-postgresql.md"); p != want {
		t.Errorf("wrote %s, want %s", p, want)
	}
	if again, _ := writeDecision(dir, "dl-1", s, doc(s)); again != p {
		t.Errorf("the same debate again went to %s", again)
	}
	s.DebateID = "dl-2"
	if other, _ := writeDecision(dir, "dl-2", s, doc(s)); other != strings.TrimSuffix(p, ".md")+"-dl-2.md" {
		t.Errorf("another debate's decision went to %s", other)
	}
	for title, want := range map[string]string{"": "dl-2", "  !!": "dl-2", "Élan vital — or not": "lan-vital-or-not"} {
		if got := slug(title, "dl-2"); got != want {
			t.Errorf("slug(%q) = %q, want %q", title, got, want)
		}
	}
}

// TestModeratedQuestionsFollow: each question of a moderated debate waits
// for the event it follows; a checkpoint, for the judgment of the round
// after the last one whose checkpoint is stored as answered (a pause is
// not an answer), so that a debate resumed in its second round does not
// ask before that round is shown.
func TestModeratedQuestionsFollow(t *testing.T) {
	judgment := func(round int) engine.Event {
		return engine.Event{Type: engine.EventUtterance, Utterance: &engine.Utterance{Kind: moderated.KindJudgment, Exchange: round}}
	}
	checkpointed := func(round int, paused bool) engine.Event {
		data, err := json.Marshal(moderated.CheckpointOutcome{Round: round, Paused: paused})
		if err != nil {
			t.Fatal(err)
		}
		return engine.Event{Type: moderated.EventCheckpoint, Data: data}
	}
	cp := engine.Question{Kind: engine.QuestionCheckpoint}
	for _, tt := range []struct {
		name   string
		stored []engine.Event
		rounds []int // the rounds whose judgment the checkpoints asked in turn follow
	}{
		{"fresh", nil, []int{1, 2, 3}},
		{"after round 1's checkpoint", []engine.Event{judgment(1), checkpointed(1, false)}, []int{2, 3}},
		{"paused at round 1's checkpoint", []engine.Event{judgment(1), checkpointed(1, true)}, []int{1, 2}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			follows := moderatedQuestions(tt.stored)
			for _, round := range tt.rounds {
				after := follows(cp)
				for r := 1; r <= 3; r++ {
					if got := after(judgment(r)); got != (r == round) {
						t.Errorf("checkpoint of round %d follows the judgment of round %d: %t", round, r, got)
					}
				}
			}
		})
	}
	follows := moderatedQuestions(nil)
	if !follows(engine.Question{Kind: engine.QuestionApproval})(engine.Event{Type: engine.EventUtterance, Utterance: &engine.Utterance{Kind: moderated.KindSynthesis}}) {
		t.Error("the approval does not follow the synthesis")
	}
	if follows(engine.Question{Kind: "topic"}) != nil {
		t.Error("a question moderated does not ask follows an event")
	}
}

// TestModeratedResumesAtTheSecondCheckpoint: a debate paused at round 2's
// checkpoint (round 1's answered) asks round 2's again on resume, after
// the stored rounds are shown.
func TestModeratedResumesAtTheSecondCheckpoint(t *testing.T) {
	dir := t.TempDir()
	// Keep the assumption, continue after round 1; the input ends at
	// round 2's checkpoint. (On the stub's seed 2 neither round ends the
	// debate.)
	r := runIn(t, dir, "\nc\n", nil, "--format", "moderated", "--max-rounds", "4", "--seed", "2", "Which cache?")
	if r.code != 0 || !strings.Contains(r.stderr, "paused at a checkpoint question") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	id := idRE.FindString(r.stdout)
	r = runIn(t, dir, "e\n", nil, "--resume", id)
	if r.code != 0 {
		t.Fatalf("resume: exit %d: %s", r.code, r.stderr)
	}
	resumed := strings.Index(r.stdout, "── resumed "+id)
	asked := strings.Index(r.stdout, "═══ Checkpoint ═══\nRound 2 of at most 4 is over.")
	if resumed < 0 || asked < resumed || strings.Count(r.stdout, "═══ Checkpoint ═══") != 1 || !strings.Contains(r.stdout, "**Rounds:** 2\n") {
		t.Errorf("resumed output:\n%s", r.stdout)
	}
}

// TestModeratedQuestionTimesOut (issue 24): every question to the person
// honours the checkpoint timeout (--checkpoint-timeout), the workflow
// question too, which once waited for the end of input: nobody answers
// within it, the debate pauses there (seed 004: "Checkpoint timeout: 30
// minutes before auto-pause"), is listed as paused, and --resume asks the
// question again. On synctest's clock.
func TestModeratedQuestionTimesOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		db := filepath.Join(dir, "db")
		noEnv := func(string) string { return "" }
		pr, pw := io.Pipe() // the person approves, then answers nothing more
		defer pw.Close()
		go io.WriteString(pw, "a\n")
		var out, errb bytes.Buffer
		start := time.Now()
		code := Run(t.Context(), []string{"--format", "moderated", "--store", db, "--out", dir, "--max-rounds", "1", "--checkpoint-timeout", "1m",
			"Should we use GraphQL or REST?"}, pr, &out, &errb, noEnv, nil)
		waited := time.Since(start)
		if code != 0 || !strings.Contains(errb.String(), "paused at a workflow question") {
			t.Fatalf("exit %d:\n%s\n%s", code, out.String(), errb.String())
		}
		if waited < time.Minute || waited > time.Minute+showLimit {
			t.Errorf("paused after %v; want after the checkpoint timeout, 1m", waited)
		}
		if !strings.Contains(out.String(), "═══ Workflow ═══") {
			t.Errorf("the workflow question was not asked:\n%s", out.String())
		}
		id := debateIDRE.FindStringSubmatch(out.String())[1]
		var list bytes.Buffer
		if code := Run(t.Context(), []string{"--store", db, "--list"}, strings.NewReader(""), &list, &errb, noEnv, nil); code != 0 ||
			!strings.Contains(list.String(), id+"  moderated  paused") {
			t.Errorf("--list: exit %d\n%s", code, list.String())
		}
		out.Reset()
		errb.Reset()
		if code := Run(t.Context(), []string{"--store", db, "--out", dir, "--resume", id}, strings.NewReader("n\n"), &out, &errb, noEnv, nil); code != 0 ||
			!strings.Contains(out.String(), "═══ Workflow ═══") || !strings.Contains(out.String(), "recommendation (approved)") {
			t.Errorf("resume: exit %d\n%s\n%s", code, out.String(), errb.String())
		}
		if wf := wrote(errb.String(), "docs/workflows/"); len(wf) != 0 {
			t.Errorf("wrote a workflow after no: %v", wf)
		}
	})
}

// storedConfig is the configuration stored with the moderated debate id
// in dir/db.
func storedConfig(t *testing.T, dir, id string) moderated.Config {
	t.Helper()
	js, err := store.OpenJSONL(filepath.Join(dir, "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer js.Close()
	sum, err := engine.Inspect(context.Background(), js, id)
	if err != nil {
		t.Fatal(err)
	}
	var f moderated.Format
	if err := json.Unmarshal(sum.Spec, &f); err != nil {
		t.Fatal(err)
	}
	return f.Config
}

// TestModeratedPerspectivesDefaultToAuto (issue 24): seed 004's "amelia
// debate ... --perspectives 3 # Request 3 debaters (default: auto)": without
// --perspectives, or with --perspectives auto, the moderator chooses how
// many argue (Debaters 0: three for this multi-faceted question); a
// settings file's default_perspectives, or a count given, decides
// otherwise.
func TestModeratedPerspectivesDefaultToAuto(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "two.json"), []byte(`{"debate": {"default_perspectives": 2}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rounds.json"), []byte(`{"debate": {"max_rounds": 2}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	const question = "How should we structure the plugin system for security, speed and UX?"
	tests := []struct {
		name     string
		args     []string
		debaters int // stored
		seats    int
	}{
		{"default", nil, 0, 3},
		{"auto", []string{"--perspectives", "auto"}, 0, 3},
		{"a count", []string{"--perspectives", "2"}, 2, 2},
		{"a settings file without the count", []string{"--settings", "rounds.json"}, 0, 3},
		{"a settings file's count", []string{"--settings", "two.json"}, 2, 2},
		{"a count over the file's", []string{"--settings", "two.json", "--perspectives", "4"}, 4, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"--format", "moderated", "--no-checkpoints", "--max-rounds", "1", "--store", "db", "--seed", "2"}, tt.args...)
			r := debate(t, dir, "", append(args, question)...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			cfg := storedConfig(t, dir, debateIDRE.FindStringSubmatch(r.stdout)[1])
			_, arguing, _ := strings.Cut(r.stdout, "Arguing it:\n")
			arguing, _, _ = strings.Cut(arguing, "\n\n")
			if seats := strings.Count(arguing, "- "); cfg.Debaters != tt.debaters || seats != tt.seats {
				t.Errorf("stored debaters %d, %d seated; want %d, %d:\n%s", cfg.Debaters, seats, tt.debaters, tt.seats, arguing)
			}
		})
	}
	if r := debate(t, dir, "", "--format", "moderated", "--perspectives", "some", question); r.code != 2 || !strings.Contains(r.stderr, "want a number, or auto") {
		t.Errorf("--perspectives some: exit %d, %s", r.code, r.stderr)
	}
}

// TestModeratedYAMLSettingsNeedThePgcliBuild: the core command links no
// YAML library (issue 24): a YAML settings file is a usage error that names
// the build that reads it, and the JSON it reads.
func TestModeratedYAMLSettingsNeedThePgcliBuild(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "settings.amelia.yaml"), []byte("debate:\n  max_rounds: 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := debate(t, dir, "", "--format", "moderated", "--settings", "settings.amelia.yaml", "--store", "db", "q?")
	if r.code != 2 || !strings.Contains(r.stderr, "--settings settings.amelia.yaml: a YAML settings file needs the build with YAML linked in (examples/pgcli)") {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}
}
