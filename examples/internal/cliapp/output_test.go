package cliapp

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
	"github.com/google/go-cmp/cmp"
)

// runIn runs the command in-process with stdin, its --store and --out
// under dir, and returns its exit status and output.
func runIn(t *testing.T, dir, stdin string, env map[string]string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	args = append([]string{"--store", filepath.Join(dir, "db"), "--out", filepath.Join(dir, "out")}, args...)
	code := run(t.Context(), args, strings.NewReader(stdin), &out, &errb, func(k string) string { return env[k] })
	return result{code, out.String(), errb.String()}
}

var idRE = regexp.MustCompile(`dl-[0-9a-f]{16}`)

// TestOutputIsTheSameEveryRun: the formats that generate several speeches
// at once (scored: both sides argue, then rebut, at once; moderated: the
// debaters' arguments) print each speech whole, in the transcript's order,
// so the same command on the stub prints the same bytes every run (debate
// IDs aside); before, the speeches were printed token by token as they
// streamed, interleaved differently each run. The moderated debate and the
// podcast, cut speeches included, are held to their golden transcripts
// (TestGoldenTranscripts), on terminals fast and slow, machines idle and
// busy.
func TestOutputIsTheSameEveryRun(t *testing.T) {
	for _, format := range []string{"scored"} {
		t.Run(format, func(t *testing.T) {
			var first string
			for i := range 3 {
				r := runIn(t, t.TempDir(), "", nil, "--format", format, "--no-checkpoints", "Should we adopt Kubernetes?")
				if r.code != 0 {
					t.Fatalf("exit %d:\n%s", r.code, r.stderr)
				}
				out := idRE.ReplaceAllString(r.stdout, "ID")
				if i == 0 {
					first = out
					continue
				}
				if diff := cmp.Diff(first, out); diff != "" {
					t.Fatalf("run %d printed otherwise than run 1 (-run 1 +run %d):\n%s", i+1, i+1, diff)
				}
			}
			// One header a speech: no speech is split by another.
			if heads, paras := strings.Count(first, "\n▶ "), strings.Count(first, "\n\n"); heads == 0 || heads > paras {
				t.Errorf("%d speaker headers:\n%s", heads, first)
			}
		})
	}
}

// TestUnreachableServer: a --base-url where no server answers fails before
// anything is stored, naming the URL (its password masked); a server that
// answers 404 to GET /models still gets the debate, on the formats' models.
func TestUnreachableServer(t *testing.T) {
	s := httptest.NewServer(http.NotFoundHandler())
	gone := s.URL
	s.Close()
	u := strings.Replace(gone, "http://", "http://me:s3cret@", 1) + "/v1"
	dir := t.TempDir()
	r := runIn(t, dir, "", map[string]string{"DUELOGIC_API_KEY": "sk-key"}, "--base-url", u, "Q?")
	if r.code != 1 {
		t.Errorf("exit %d; want 1", r.code)
	}
	if want := "debate: cannot reach the model server at " + strings.Replace(u, "s3cret", "xxxxx", 1) + ": "; !strings.HasPrefix(r.stderr, want) {
		t.Errorf("stderr does not start with %q:\n%s", want, r.stderr)
	}
	if strings.Contains(r.stderr, "s3cret") || strings.Contains(r.stderr, "sk-key") || strings.Contains(r.stderr, "--resume") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "db")); !os.IsNotExist(err) {
		t.Errorf("the store was opened (%v): a debate may be left behind", err)
	}

	// A server without /models: the fallback, then the debate (which
	// this server fails, once stored).
	s = httptest.NewServer(http.NotFoundHandler())
	defer s.Close()
	r = runIn(t, dir, "", nil, "--base-url", s.URL+"/v1", "Q?")
	if r.code != 1 || !strings.Contains(r.stderr, "could not list the server's models") || !strings.Contains(r.stderr, "the debate is stored") {
		t.Errorf("exit %d:\n%s", r.code, r.stderr)
	}
}

// TestStoreWarningsShown: the JSONL store's warnings reach stderr: a torn
// last line (a crash in the middle of an append) that it cuts off is said.
func TestStoreWarningsShown(t *testing.T) {
	dir := t.TempDir()
	id, file, data := debateOnDisk(t, dir)
	// Drop the last record's newline and cut it short, as a crash would.
	if err := os.WriteFile(file, data[:len(data)-10], 0o600); err != nil {
		t.Fatal(err)
	}
	r := runIn(t, dir, "", nil, "--resume", id)
	if !regexp.MustCompile(`(?m)^debate: level=WARN msg="store: [^"]+" file=\S*` + id + `\.jsonl`).MatchString(r.stderr) {
		t.Errorf("stderr has no warning of the store naming the file:\n%s", r.stderr)
	}
}

// TestModeratedDecisionUnreviewedAtEndOfInput: with the input at its end
// the synthesis is not reviewed, and its decision says so.
func TestModeratedDecisionUnreviewedAtEndOfInput(t *testing.T) {
	dir := t.TempDir()
	// Answer the clarifying question and continue at the one checkpoint;
	// the input ends at the approval.
	r := runIn(t, dir, "\nc\n", nil, "--format", "moderated", "--max-rounds", "1", "Which cache?")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "out", "docs", "decisions", "*.md"))
	if len(files) != 1 {
		t.Fatalf("decisions %v\n%s", files, r.stderr)
	}
	doc, _ := os.ReadFile(files[0])
	if !strings.Contains(string(doc), "\n**Status:** Unreviewed\n") {
		t.Errorf("decision:\n%s", doc)
	}
}

// TestScoredOnePrecision: the terminal's scores are written as the verdict
// cards and the Markdown write them, two decimals.
func TestScoredOnePrecision(t *testing.T) {
	dir := t.TempDir()
	r := runIn(t, dir, "", nil, "--format", "scored", "An app for clinics")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	md, err := os.ReadFile(filepath.Join(dir, "out", idRE.FindString(r.stdout)+".debate.md"))
	if err != nil {
		t.Fatal(err)
	}
	total := regexp.MustCompile(`\*\*Total score change:\*\* (\S+)`).FindSubmatch(md)
	if total == nil || !strings.Contains(r.stdout, fmt.Sprintf("\ntotal adjustment %s\n", total[1])) {
		t.Errorf("the terminal's total differs from the document's %q:\n%s", total, r.stdout)
	}
	for _, card := range regexp.MustCompile(`Score: (\S+ → \S+ \(\S+\))\.`).FindAllStringSubmatch(r.stdout, -1) {
		if !strings.Contains(r.stdout, " "+card[1]+"  from a neutral default\n") {
			t.Errorf("the table lacks the card's %q:\n%s", card[1], r.stdout)
		}
	}
}

// TestControlCharactersRefused: a question or a flag's text with a control
// character other than newline and tab — an escape sequence that would
// rewrite the terminal of whoever shows the debate — is a usage error
// naming it, in one line, before anything is stored; newlines and tabs
// are text.
func TestControlCharactersRefused(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // stderr's first line
	}{
		{"clear screen, window title, bell", []string{"Q?\x1b[2J\x1b]0;PWNED\x07"},
			"debate: the question has a control character (U+001B at byte 2); only newlines and tabs may be given"},
		{"in a word of the question", []string{"Which", "cache\x08?"},
			"debate: the question has a control character (U+0008 at byte 11); only newlines and tabs may be given"},
		{"carriage return", []string{"--context", "We run\r on-call", "Which cache?"},
			"debate: --context has a control character (U+000D at byte 6); only newlines and tabs may be given"},
		{"C1 control", []string{"--format", "persuasion", "--perspective", "cost\u009b31m", "Which cache?"},
			"debate: --perspective has a control character (U+009B at byte 4); only newlines and tabs may be given"},
		{"DEL in the topic prompt", []string{"--format", "formal", "--topic-prompt", "a\x7f"},
			"debate: --topic-prompt has a control character (U+007F at byte 1); only newlines and tabs may be given"},
		{"not UTF-8", []string{"Which \xff cache?"}, "debate: the question is not valid UTF-8 text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			r := runIn(t, dir, "", nil, tt.args...)
			if want := tt.want + "\nrun debate -h for the flags\n"; r.code != 2 || r.stderr != want {
				t.Errorf("exit %d, stderr %q; want 2, %q", r.code, r.stderr, want)
			}
			if r.stdout != "" {
				t.Errorf("stdout %q", r.stdout)
			}
			if _, err := os.Stat(filepath.Join(dir, "db")); !os.IsNotExist(err) {
				t.Errorf("the store was opened (%v)", err)
			}
		})
	}
	for _, args := range [][]string{
		{"Which cache?\n\tFor sessions: Redis or PostgreSQL?"},
		{"--context", "We run on-call.\n\tTwo people.", "Which cache?"},
	} {
		if _, _, err := parse(args, func(string) string { return "" }); err != nil {
			t.Errorf("parse(%q): %v", args, err)
		}
	}
}

// TestStoredControlCharactersNeutralised: a debate stored by another
// program with escape sequences in its question (and so in what the
// models said of it) is listed and shown with them neutralised.
func TestStoredControlCharactersNeutralised(t *testing.T) {
	dir := t.TempDir()
	js, err := store.OpenJSONL(filepath.Join(dir, "db"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := duelogic.DefaultConfig()
	cfg.Flow.MaxExchanges = 3
	f, err := duelogic.NewPodcast(cfg)
	if err != nil {
		t.Fatal(err)
	}
	const evil = "Q?\x1b[2J\x1b]0;PWNED\x07"
	res, err := engine.Run(t.Context(), llm.NewStub(1), f, engine.Debate{Proposition: evil}, engine.WithStore(js))
	js.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--list"}, {"--resume", res.DebateID}} {
		r := runIn(t, dir, "", nil, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
		if out := r.stdout + r.stderr; strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(r.stdout, "Q?␛[2J␛]0;PWNED␇") {
			t.Errorf("%v printed:\n%q", args, out)
		}
	}
}

// TestDamagedLogHint: a debate whose stored log is damaged — a line that
// is not a record (store.ErrCorrupt), a record that is not the step the
// debate expects (engine.ErrCorruptLog) — is not answered with the
// --resume that just failed, but with the file and what to do.
func TestDamagedLogHint(t *testing.T) {
	dir := t.TempDir()
	id, file, log := debateOnDisk(t, dir)
	lines := strings.SplitAfter(string(log), "\n")
	tests := []struct {
		name  string
		line5 string
		want  []string // in stderr
	}{
		{"a line that is not a record", "garbage\n", []string{
			"debate: store: corrupt log: " + file + ":5: ",
			"the log of debate " + id + ", " + file + ", is damaged at the line the error names: resuming it would fail the same way.\n",
		}},
		{"a record out of place", strings.Replace(lines[4], `"key":"`, `"key":"x`, 1), []string{
			"debate: engine: corrupt debate log: record 5 has key ",
			"the log of debate " + id + ", " + file + ", does not make a debate this program can continue (the error says why; record n is line n of the file)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			damaged := append([]string(nil), lines...)
			damaged[4] = tt.line5
			if err := os.WriteFile(file, []byte(strings.Join(damaged, "")), 0o600); err != nil {
				t.Fatal(err)
			}
			r := runIn(t, dir, "", nil, "--resume", id)
			if r.code != 1 {
				t.Errorf("exit %d; want 1", r.code)
			}
			for _, want := range append(tt.want, "repair it by hand or restore it from a backup") {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
			if strings.Contains(r.stderr, "--resume "+id) {
				t.Errorf("stderr suggests resuming:\n%s", r.stderr)
			}
		})
	}
}

// debateOnDisk plays a debate with the CLI in dir and returns its ID, its
// JSONL file and what the file holds.
func debateOnDisk(t *testing.T, dir string) (id, file string, data []byte) {
	t.Helper()
	r := runIn(t, dir, "", nil, "--max-rounds", "3", "Should cities ban cars?")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	id = idRE.FindString(r.stdout)
	file = filepath.Join(dir, "db", id+".jsonl")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return id, file, data
}
