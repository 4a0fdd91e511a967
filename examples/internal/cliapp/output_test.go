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
// streamed, interleaved differently each run. The podcast, whose speeches
// stream one at a time, prints the same too, cut speeches included.
func TestOutputIsTheSameEveryRun(t *testing.T) {
	for _, format := range []string{"scored", "moderated", "duelogic"} {
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
	r := runIn(t, dir, "", nil, "--max-rounds", "3", "Should cities ban cars?")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	id := idRE.FindString(r.stdout)
	file := filepath.Join(dir, "db", id+".jsonl")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// Drop the last record's newline and cut it short, as a crash would.
	if err := os.WriteFile(file, data[:len(data)-10], 0o600); err != nil {
		t.Fatal(err)
	}
	r = runIn(t, dir, "", nil, "--resume", id)
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
	md, err := os.ReadFile(filepath.Join(dir, "out", idRE.FindString(r.stdout)+".md"))
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
