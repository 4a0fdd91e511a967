package cliapp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/formal"
	"github.com/duelogic/duelogic/store"
)

// storedFormal returns the stored log and configuration of the formal
// debate id in the JSONL store dir.
func storedFormal(t *testing.T, dir, id string) ([]formal.Entry, formal.Config) {
	t.Helper()
	js, err := store.OpenJSONL(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer js.Close()
	recs, err := js.Records(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := formal.EntriesFromRecords(recs)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := engine.Inspect(context.Background(), js, id)
	if err != nil {
		t.Fatal(err)
	}
	var f formal.Format
	if err := json.Unmarshal(sum.Spec, &f); err != nil {
		t.Fatal(err)
	}
	return entries, f.Config
}

// The seed's Step C: "OUTPUT_DIR="output/${TIMESTAMP}-${SLUG}"", its
// documents ("transcript.md", "summary.md", "blog-post.md (if present)",
// "assessor-report.md") and its log, read back by formal.ImportLog.
func TestFormalOutputLayout(t *testing.T) {
	dir := t.TempDir()
	const question = "Should we use GraphQL or REST?"
	r := debate(t, dir, "", "--format", "formal", "--max-rounds", "2", "--store", "db", "--out", "out", question)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	id := debateIDRE.FindStringSubmatch(r.stdout)[1]
	ents, err := os.ReadDir(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || !ents[0].IsDir() || !regexp.MustCompile(`^\d{8}T\d{6}Z-should-we-use-graphql-or-rest-$`).MatchString(ents[0].Name()) {
		t.Fatalf("out holds %v; want one <timestamp>-<slug> directory", ents)
	}
	out := filepath.Join(dir, "out", ents[0].Name())
	stored, cfg := storedFormal(t, filepath.Join(dir, "db"), id)
	// Named by the debate's recorded start (its setup entry, to the
	// second), not by the time the files were written.
	if want := formal.DirName(stored[0].Timestamp, question); ents[0].Name() != want {
		t.Errorf("directory %s; the debate started at %v: want %s", ents[0].Name(), stored[0].Timestamp, want)
	}
	files, _ := os.ReadDir(out)
	var names []string
	for _, f := range files {
		names = append(names, f.Name())
	}
	want := []string{formal.FileAssessorReport, formal.FileLog, formal.FileSummary, formal.FileTranscript}
	if !strings.Contains(r.stdout, "══════ OUTCOME ══════\nvoid ") {
		want = append(want, formal.FileBlogPost)
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	for _, name := range names {
		if !strings.Contains(r.stderr, "wrote "+filepath.Join("out", ents[0].Name(), name)) {
			t.Errorf("stderr does not say it wrote %s:\n%s", name, r.stderr)
		}
	}
	// The log is the seed's JSONL: 0-indexed, the stored debate's, as said
	// (appended as the debate went: a struck entry stays, its redaction
	// follows).
	f, err := os.Open(filepath.Join(out, formal.FileLog))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	back, err := formal.ImportLog(f)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(stored, back); diff != "" {
		t.Errorf("debate-log.jsonl (-store +file):\n%s", diff)
	}
	if back[0].Seq != 0 || back[0].Type != formal.TypeSetup {
		t.Errorf("first entry %+v", back[0])
	}
	if cfg.OutputDir != "out" {
		t.Errorf("the stored configuration writes its documents to %q, want out, as it goes", cfg.OutputDir)
	}
	// Other formats keep the flat layout; formal writes none of it.
	if _, err := os.Stat(filepath.Join(dir, "out", id+".json")); !os.IsNotExist(err) {
		t.Errorf("%s.json: %v", id, err)
	}

	// Resumed (finished: replayed), the same outcome goes to the same
	// directory, untouched, and to the same name elsewhere.
	before, _ := os.ReadFile(filepath.Join(out, formal.FileSummary))
	r = debate(t, dir, "", "--store", "db", "--resume", id, "--out", "out")
	if r.code != 0 {
		t.Fatalf("resume: exit %d: %s", r.code, r.stderr)
	}
	if again, _ := os.ReadDir(filepath.Join(dir, "out")); len(again) != 1 {
		t.Errorf("after the resume out holds %v", again)
	}
	if after, _ := os.ReadFile(filepath.Join(out, formal.FileSummary)); string(after) != string(before) {
		t.Error("the summary changed")
	}
	r = debate(t, dir, "", "--store", "db", "--resume", id, "--out", "elsewhere")
	if _, err := os.Stat(filepath.Join(dir, "elsewhere", ents[0].Name(), formal.FileLog)); r.code != 0 || err != nil {
		t.Errorf("resume to another directory: exit %d, %v\n%s", r.code, err, r.stderr)
	}
}

// "Run between `min_rounds` and `max_rounds` rounds (from config)" and
// "If `round >= min_rounds` AND (... OR time budget exceeded)": both
// settable from the command line, stored with the debate.
func TestFormalRoundsAndBudgetFlags(t *testing.T) {
	// The configuration is stored before the first model call: a server
	// that answers nothing stops each debate there.
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"this test server answers nothing"}}`, http.StatusBadRequest)
	}))
	defer s.Close()
	for _, tc := range []struct {
		args     []string
		min, max int
		budget   time.Duration
	}{
		{[]string{"--min-rounds", "2", "--max-rounds", "4", "--time-budget", "90m"}, 2, 4, 90 * time.Minute},
		{[]string{"--max-rounds", "2"}, 2, 2, 45 * time.Minute},
		{[]string{"--min-rounds", "8"}, 8, 8, 45 * time.Minute},
		{[]string{"--min-rounds", "1", "--max-rounds", "1", "--time-budget", "0"}, 1, 1, 0},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			dir := t.TempDir()
			r := debate(t, dir, "", append([]string{"--format", "formal", "--store", "db", "--base-url", s.URL + "/v1", "--model", "m", "q?"}, tc.args...)...)
			if r.code != 1 || !strings.Contains(r.stderr, "the debate is stored") {
				t.Fatalf("exit %d; want 1, the debate stored: %s", r.code, r.stderr)
			}
			id := debateIDRE.FindStringSubmatch(r.stdout)[1]
			_, cfg := storedFormal(t, filepath.Join(dir, "db"), id)
			if cfg.MinRounds != tc.min || cfg.MaxRounds != tc.max || cfg.TimeBudget != tc.budget {
				t.Errorf("stored rounds %d..%d, budget %v; want %d..%d, %v", cfg.MinRounds, cfg.MaxRounds, cfg.TimeBudget, tc.min, tc.max, tc.budget)
			}
		})
	}
}

// "If `topic` is empty: use `topic_prompt` from config as the topic".
func TestFormalTopicPrompt(t *testing.T) {
	dir := t.TempDir()
	r := debate(t, dir, "", "--format", "formal", "--max-rounds", "1", "--store", "db", "--topic-prompt", "Should cities ban cars?")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	id := debateIDRE.FindStringSubmatch(r.stdout)[1]
	stored, cfg := storedFormal(t, filepath.Join(dir, "db"), id)
	if !strings.HasSuffix(stored[1].Content, "Topic: Should cities ban cars?") || cfg.TopicPrompt != "Should cities ban cars?" {
		t.Errorf("announced %q, stored topic prompt %q", stored[1].Content, cfg.TopicPrompt)
	}
	// A question given wins over the prompt.
	r = debate(t, dir, "", "--format", "formal", "--max-rounds", "1", "--store", "db", "--topic-prompt", "Should cities ban cars?", "Is remote work better?")
	id = debateIDRE.FindStringSubmatch(r.stdout)[1]
	if stored, _ := storedFormal(t, filepath.Join(dir, "db"), id); !strings.HasSuffix(stored[1].Content, "Topic: Is remote work better?") {
		t.Errorf("announced %q", stored[1].Content)
	}
}

func TestFormalFlagErrorsAndHelp(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--format", "formal", "--min-rounds", "5", "--max-rounds", "3", "q"}, "invalid configuration: --max-rounds: 3; must be at least --min-rounds (5)"},
		{[]string{"--format", "formal", "--time-budget", "-1m", "q"}, "--time-budget: -1m0s; must not be negative"},
		{[]string{"--format", "formal", "--min-rounds", "21", "q"}, "--min-rounds 21: must be at most 20"},
		{[]string{"--format", "formal", "--min-rounds", "-1", "q"}, "--min-rounds -1: must not be negative"},
		{[]string{"--min-rounds", "2", "q"}, "--min-rounds: not used by the duelogic format"},
		{[]string{"--format", "scored", "--topic-prompt", "x"}, "--topic-prompt: not used by the scored format"},
		{[]string{"--format", "formal"}, "no question to debate"},
	} {
		r := debate(t, t.TempDir(), "", tc.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr lacks %q:\n%s", tc.args, r.code, tc.want, r.stderr)
		}
	}
	r := debate(t, t.TempDir(), "", "--help")
	for _, want := range []string{"-min-rounds", "-time-budget", "-topic-prompt", "<out>/<timestamp>-<slug>/"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("usage lacks %q", want)
		}
	}
}

// Rule 12, "an immediate disqualification offence", as the command shows
// it: stub seed 285 has the promoter's opening statement struck at the
// start of round 1; from then on the promoter is silent.
func TestFormalDisqualifiedDebaterIsSilent(t *testing.T) {
	r := debate(t, t.TempDir(), "", "--format", "formal", "--seed", "285", "--store", "db", "Cities should ban private cars from their centres.")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	_, after, ok := strings.Cut(r.stdout, "REDACTED: seq 2 (promoter)")
	if !ok {
		t.Fatalf("seed 285 strikes no promoter opening:\n%s", r.stdout)
	}
	for _, want := range []string{
		"The promoter is disqualified under rule 12 and speaks no more in this debate.",
		"▶ DETRACTOR (NEGATIVE)\nTo close,",
		"detractor wins (rule 12: promoter disqualified)",
	} {
		if !strings.Contains(after, want) {
			t.Errorf("after the redaction the output lacks %q", want)
		}
	}
	if strings.Contains(after, "▶ PROMOTER") {
		t.Errorf("the promoter speaks after its disqualification:\n%s", after)
	}
}

// The seed's Step B: with no question, "ask the user: What should the
// debate topic be?"; with nobody to answer, there is no debate.
func TestFormalAsksForTheTopic(t *testing.T) {
	dir := t.TempDir()
	r := debate(t, dir, "Should cities ban cars?\n", "--format", "formal", "--max-rounds", "1", "--store", "db")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.HasPrefix(r.stdout, "\n═══ Topic ═══\nWhat should the debate topic be?\n> Should cities ban cars?\n") {
		t.Errorf("the output does not begin with the question:\n%.200s", r.stdout)
	}
	id := debateIDRE.FindStringSubmatch(r.stdout)[1]
	if stored, _ := storedFormal(t, filepath.Join(dir, "db"), id); !strings.HasSuffix(stored[1].Content, "Topic: Should cities ban cars?") {
		t.Errorf("announced %q", stored[1].Content)
	}
	for _, tc := range []struct {
		stdin string
		args  []string
		asked bool
	}{
		{"", nil, true},
		{"\n", nil, true},
		{"Should cities ban cars?\n", []string{"--no-checkpoints"}, false},
	} {
		dir := t.TempDir()
		r := debate(t, dir, tc.stdin, append([]string{"--format", "formal", "--store", "db"}, tc.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, "no question to debate") {
			t.Errorf("stdin %q %v: exit %d, %s", tc.stdin, tc.args, r.code, r.stderr)
		}
		if asked := strings.Contains(r.stdout, "What should the debate topic be?"); asked != tc.asked {
			t.Errorf("stdin %q %v: asked %v", tc.stdin, tc.args, asked)
		}
		if _, err := os.Stat(filepath.Join(dir, "db")); err == nil {
			if ents, _ := os.ReadDir(filepath.Join(dir, "db")); len(ents) > 0 {
				t.Errorf("stdin %q %v: a debate was stored: %v", tc.stdin, tc.args, ents)
			}
		}
	}
}

// "Step A — Read config: cat config/debate-config.json", Step B ("Write
// the final topic back to config/debate-config.json") and Step C ("Update
// output_dir in config/debate-config.json with this path").
func TestFormalConfigFile(t *testing.T) {
	for _, tc := range []struct {
		name     string
		file     string
		args     []string
		topic    string
		min, max int
		prompt   string
	}{
		{"topic prompt", `{"topic": "", "topic_prompt": "Should cities ban cars?", "min_rounds": 1, "max_rounds": 1, "models": {"chair": "anthropic/claude-sonnet-4"}, "output_dir": ""}`,
			nil, "Should cities ban cars?", 1, 1, "Should cities ban cars?"},
		{"topic, and the command line wins", `{"topic": "Is remote work better?", "min_rounds": 2, "max_rounds": 3}`,
			[]string{"--max-rounds", "1"}, "Is remote work better?", 1, 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "config"), 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, formal.SeedConfigPath)
			if err := os.WriteFile(path, []byte(tc.file), 0o644); err != nil {
				t.Fatal(err)
			}
			r := debate(t, dir, "", append([]string{"--format", "formal", "--store", "db", "--config", formal.SeedConfigPath}, tc.args...)...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			id := debateIDRE.FindStringSubmatch(r.stdout)[1]
			stored, cfg := storedFormal(t, filepath.Join(dir, "db"), id)
			if !strings.HasSuffix(stored[1].Content, "Topic: "+tc.topic) || cfg.MinRounds != tc.min || cfg.MaxRounds != tc.max || cfg.TopicPrompt != tc.prompt {
				t.Errorf("announced %q, rounds %d..%d, topic prompt %q", stored[1].Content, cfg.MinRounds, cfg.MaxRounds, cfg.TopicPrompt)
			}
			sc, err := formal.LoadSeedConfig(path)
			if err != nil {
				t.Fatal(err)
			}
			want := filepath.Join(formal.SeedOutputParent, formal.DirName(stored[0].Timestamp, tc.topic))
			if sc.Topic != tc.topic || sc.OutputDir != want {
				t.Errorf("written back: topic %q, output_dir %q; want %q, %q", sc.Topic, sc.OutputDir, tc.topic, want)
			}
			if _, err := os.Stat(filepath.Join(dir, want, formal.FileSummary)); err != nil {
				t.Errorf("the output directory: %v", err)
			}
			back, _ := os.ReadFile(path)
			if strings.Contains(tc.file, "models") && !strings.Contains(string(back), `"chair": "anthropic/claude-sonnet-4"`) {
				t.Errorf("the file's other fields were lost:\n%s", back)
			}
		})
	}
	r := debate(t, t.TempDir(), "", "--format", "formal", "--config", "missing.json", "q?")
	if r.code != 2 || !strings.Contains(r.stderr, "--config: formal: read debate config") {
		t.Errorf("a missing file: exit %d, %s", r.code, r.stderr)
	}
}

// With --out, the output directory is made when the debate starts and its
// debate-log.jsonl is appended as the debate goes: a debate that stops
// leaves the log of what it stored.
func TestFormalOutWritesTheLogAsItGoes(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"this test server answers nothing"}}`, http.StatusBadRequest)
	}))
	defer s.Close()
	dir := t.TempDir()
	r := debate(t, dir, "", "--format", "formal", "--store", "db", "--out", "out", "--base-url", s.URL+"/v1", "--model", "m", "Should cities ban cars?")
	if r.code != 1 || !strings.Contains(r.stderr, "the debate is stored") {
		t.Fatalf("exit %d; want 1, the debate stored: %s", r.code, r.stderr)
	}
	id := debateIDRE.FindStringSubmatch(r.stdout)[1]
	stored, _ := storedFormal(t, filepath.Join(dir, "db"), id)
	ents, _ := os.ReadDir(filepath.Join(dir, "out"))
	if len(ents) != 1 {
		t.Fatalf("out holds %v; want the debate's directory", ents)
	}
	f, err := os.Open(filepath.Join(dir, "out", ents[0].Name(), formal.FileLog))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	back, err := formal.ImportLog(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) == 0 || !cmp.Equal(stored, back) {
		t.Errorf("the log holds %d entries, the store %d", len(back), len(stored))
	}
}
