package cliapp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/moderated"
	"github.com/duelogic/duelogic/store"
	"github.com/google/go-cmp/cmp"
)

// binary is the debate command built once for the tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "debate-cli")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "debate")
	out, err := exec.Command("go", "build", "-o", binary, "../../cli").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	code           int
	stdout, stderr string
}

// debate runs the binary in dir with args and stdin.
func debate(t *testing.T, dir, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "DUELOGIC_BASE_URL=", "DUELOGIC_MODEL=")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, out.String(), errb.String()}
}

var debateIDRE = regexp.MustCompile(`(?m)^debate (dl-[0-9a-f]{16})$`)

func TestFullStubDebate(t *testing.T) {
	dir := t.TempDir()
	// Flags after the question work too.
	r := debate(t, dir, "", "--store", "db", "Should we use GraphQL or REST?", "--max-rounds", "3", "--out", "docs")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	m := debateIDRE.FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no debate ID in the output:\n%s", r.stdout)
	}
	id := m[1]
	for _, want := range []string{
		"══════ INTRODUCTION ══════", "══════ OPENING ══════", "══════ EXCHANGE ══════", "══════ SYNTHESIS ══════",
		"▶ ARBITER", "▶ CLAUDE SONNET 4 · Utilitarian Chair", "▶ GROK 3 · Virtue Ethics Chair",
		"✓ evaluation: adherence", `Today's proposition: "Should we use GraphQL or REST?"`,
		"══════ METRICS ══════", "responses 6, evaluated 6",
		// The stub's chairs cut each other off as they speak; every
		// chair still responds in every exchange.
		"✂ cut off by ",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(r.stdout, "\x1b[") || strings.Contains(r.stdout, "⏳") {
		t.Error("colours or a status line in output that is not a terminal")
	}
	for _, name := range []string{id + ".md", id + ".json"} {
		b, err := os.ReadFile(filepath.Join(dir, "docs", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte("Should we use GraphQL or REST?")) {
			t.Errorf("%s lacks the question", name)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "db", id+".jsonl")); err != nil {
		t.Errorf("debate not stored: %v", err)
	}

	l := debate(t, dir, "", "--list", "--store", "db")
	if l.code != 0 {
		t.Fatalf("--list: exit %d: %s", l.code, l.stderr)
	}
	lines := strings.Split(strings.TrimSpace(l.stdout), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "ID") {
		t.Fatalf("--list:\n%s", l.stdout)
	}
	// As many utterances as the debate printed, each under its header.
	said := strconv.Itoa(len(regexp.MustCompile(`(?m)^▶ `).FindAllString(r.stdout, -1)))
	if f := strings.Fields(lines[1]); len(f) < 4 || f[0] != id || f[1] != "duelogic" || f[2] != "finished" || f[3] != said {
		t.Errorf("--list row %q; want %s duelogic finished %s ...", lines[1], id, said)
	}

	empty := debate(t, dir, "", "--list", "--store", "none")
	if empty.code != 0 || !strings.Contains(empty.stdout, "no debates in none") {
		t.Errorf("--list of a missing store: exit %d, %q", empty.code, empty.stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "none")); err == nil {
		t.Error("--list created the store directory")
	}
}

// TestResume stops a debate after each of several records (by cutting its
// log), resumes it, and compares the documents with the uninterrupted run's.
func TestResume(t *testing.T) {
	dir := t.TempDir()
	// With this seed no interruption is held back by its cooldown, which
	// runs on the wall clock: a resumed run makes the same decisions however
	// late it comes.
	r := debate(t, dir, "", "--store", "full", "--out", "want", "--max-rounds", "3", "--seed", "1", "Should cities ban cars?")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	id := debateIDRE.FindStringSubmatch(r.stdout)[1]
	log, err := os.ReadFile(filepath.Join(dir, "full", id+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(log), "\n")
	lines = lines[:len(lines)-1] // the empty string after the last newline
	wantMD, err := os.ReadFile(filepath.Join(dir, "want", id+".md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, keep := range []int{1, 3, len(lines) / 2, len(lines) - 1, len(lines)} {
		t.Run(fmt.Sprint(keep), func(t *testing.T) {
			st := fmt.Sprintf("cut%d", keep)
			if err := os.MkdirAll(filepath.Join(dir, st), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, st, id+".jsonl"), []byte(strings.Join(lines[:keep], "")), 0o600); err != nil {
				t.Fatal(err)
			}
			status := "stopped"
			if keep == len(lines) {
				status = "finished"
			}
			if l := debate(t, dir, "", "--store", st, "--list"); !strings.Contains(l.stdout, " "+status+" ") {
				t.Errorf("--list before resuming:\n%s", l.stdout)
			}
			out := "got" + fmt.Sprint(keep)
			r := debate(t, dir, "", "--store", st, "--out", out, "--resume", id, "--seed", "1")
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			switch {
			case status == "finished" && !strings.Contains(r.stderr, "debate: debate "+id+" had already finished; showing it\n"):
				t.Errorf("stderr does not say the debate had finished:\n%s", r.stderr)
			case status != "finished" && !strings.Contains(r.stdout, "── resumed "+id+" ("+status):
				t.Errorf("output lacks the resume line:\n%s", r.stdout)
			}
			got, err := os.ReadFile(filepath.Join(dir, out, id+".md"))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(wantMD), string(got)); diff != "" {
				t.Errorf("resumed transcript (-uninterrupted +resumed):\n%s", diff)
			}
			if l := debate(t, dir, "", "--store", st, "--list"); !strings.Contains(l.stdout, " finished ") {
				t.Errorf("--list after resuming:\n%s", l.stdout)
			}
		})
	}

	if r := debate(t, dir, "", "--store", "full", "--resume", "dl-nope"); r.code != 1 || !strings.Contains(r.stderr, "no debate dl-nope") {
		t.Errorf("resume of an unknown debate: exit %d, %q", r.code, r.stderr)
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"unknown flag", []string{"--nope", "q"}, "flag provided but not defined: -nope"},
		{"no question", nil, "no question to debate"},
		{"list with a question", []string{"--list", "q"}, "--list takes no question"},
		{"resume with a question", []string{"--resume", "x", "q"}, "--resume takes no question"},
		{"unknown format", []string{"--format", "chess", "q"}, `unknown format "chess"`},
		{"unknown preset", []string{"--preset", "nope", "q"}, `unknown preset "nope"`},
		{"too many rounds", []string{"--max-rounds", "99", "q"}, "debate: invalid configuration: --max-rounds: 99 is outside 3..30\n"},
		{"by the alias given", []string{"--exchanges", "99", "q"}, "debate: invalid configuration: --exchanges: 99 is outside 3..30\n"},
		{"every violation", []string{"--format", "formal", "--max-rounds", "25", "--time-budget", "-1s", "q"},
			"invalid configuration:\n  --max-rounds: 25; must be at most 20\n  --time-budget: -1s; must not be negative\n"},
		{"one chair", []string{"--chairs", "utilitarian", "q"}, "debate: --chairs: 1 chair; a debate needs 2 to 6\n"},
		{"seven chairs", []string{"--chairs", "utilitarian,virtue_ethics,deontological,pragmatic,libertarian,communitarian,cosmopolitan", "q"},
			"debate: --chairs: 7 chairs; a debate needs 2 to 6\n"},
		{"unknown chair", []string{"--chairs", "stoic,utilitarian", "q"}, `debate: --chairs: unknown framework or perspective "stoic"; have utilitarian, `},
		{"too many perspectives", []string{"--perspectives", "7", "q"}, "--perspectives 7"},
		{"negative rounds", []string{"--max-rounds", "-1", "q"}, "debate: --max-rounds -1: must not be negative\n"},
		{"negative rounds by alias", []string{"--rounds", "-1", "q"}, "debate: --rounds -1: must not be negative\n"},
		{"negative perspectives", []string{"--perspectives", "-1", "q"}, "debate: --perspectives -1: must not be negative\n"},
		{"bad number", []string{"--max-rounds", "many", "q"}, `invalid value "many"`},
		{"bad base URL", []string{"--base-url", "localhost:1", "q"}, "want an http:// or https:// URL"},
		{"format flag of another format", []string{"--perspective", "cost", "q"}, "--perspective: not used by the duelogic format"},
		{"flags the format does not read", []string{"--format", "scored", "--max-rounds", "4", "--preset", "x", "q"}, "--max-rounds, --preset: not used by the scored format"},
		{"unknown format", []string{"--format", "oxford", "q"}, `unknown format "oxford"`},
		{"persuasion config", []string{"--format", "persuasion", "--rounds", "11", "q"}, "debate: invalid configuration: --rounds: 11 is outside 1..10\n"},
		{"moderated config", []string{"--format", "moderated", "--perspectives", "5", "q"}, "debate: invalid configuration: --perspectives: 5: want 2..4"},
		{"formal config", []string{"--format", "formal", "--max-rounds", "21", "q"}, "debate: invalid configuration: --max-rounds: 21; must be at most 20\n"},
		{"formal rounds", []string{"--format", "formal", "--max-rounds", "2", "--min-rounds", "5", "q"},
			"debate: invalid configuration: --max-rounds: 2; must be at least --min-rounds (5)\n"},
		{"negative timeout", []string{"--format", "moderated", "--round-timeout", "-1m", "q"}, "debate: --round-timeout -1m0s: must not be negative\n"},
		{"negative total timeout", []string{"--format", "moderated", "--total-timeout", "-1m", "q"}, "debate: --total-timeout -1m0s: must not be negative\n"},
		{"timeout of another format", []string{"--round-timeout", "5m", "q"}, "--round-timeout: not used by the duelogic format"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := debate(t, t.TempDir(), "", tt.args...)
			if r.code != 2 {
				t.Errorf("exit %d; want 2\nstderr:\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, tt.want) {
				t.Errorf("stderr lacks %q:\n%s", tt.want, r.stderr)
			}
			// The cause first, then where the flags are described; not
			// the usage.
			if !strings.HasPrefix(r.stderr, "debate: ") || !strings.HasSuffix(r.stderr, "\nrun debate -h for the flags\n") {
				t.Errorf("stderr is not the cause and the hint:\n%s", r.stderr)
			}
			if strings.Contains(r.stderr, "usage: debate") || strings.Count(r.stderr, "\n") > 5 {
				t.Errorf("the usage on stderr:\n%s", r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout: %q", r.stdout)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	for _, arg := range []string{"-h", "--help", "-help"} {
		t.Run(arg, func(t *testing.T) {
			r := debate(t, t.TempDir(), "", arg)
			if r.code != 0 {
				t.Errorf("exit %d; want 0", r.code)
			}
			if n := strings.Count(r.stderr, "usage: debate [flags]"); n != 1 {
				t.Errorf("the usage %d times on stderr; want once:\n%s", n, r.stderr)
			}
			for _, want := range []string{"-max-rounds", "-no-checkpoints", "  scored      a scored debate: "} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("usage lacks %q:\n%s", want, r.stderr)
				}
			}
			if r.stdout != "" {
				t.Errorf("stdout: %q", r.stdout)
			}
		})
	}
}

// TestListDamaged lists a store holding a finished debate and a damaged
// file: the debate is listed, and the file is named on stderr.
func TestListDamaged(t *testing.T) {
	dir := t.TempDir()
	r := debate(t, dir, "", "--store", "good", "--max-rounds", "3", "Should cities ban cars?")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	id := debateIDRE.FindStringSubmatch(r.stdout)[1]
	good, err := os.ReadFile(filepath.Join(dir, "good", id+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// rec is a line of the debate "bad".
	rec := func(seq int, typ, data string) string {
		return fmt.Sprintf(`{"debateId":"bad","seq":%d,"time":"2025-06-01T12:00:00Z","type":%q,"data":%s}`+"\n", seq, typ, data)
	}
	tests := []struct {
		name, bad string
		want      string // in stderr, after the file's name
	}{
		{"only line not a record", "garbage\n", "bad.jsonl:1: invalid character"},
		{"first line not a record", "garbage\n" + rec(2, "debate", "{}"), "bad.jsonl:1: invalid character"},
		{"first record not a debate", rec(1, "utterance", "{}"), "do not start with a debate record"},
		{"undecodable debate record", rec(1, "debate", "[1,2]"), "cannot unmarshal"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := filepath.Join(dir, fmt.Sprint("store", i))
			if err := os.MkdirAll(st, 0o700); err != nil {
				t.Fatal(err)
			}
			for name, b := range map[string][]byte{id + ".jsonl": good, "bad.jsonl": []byte(tt.bad)} {
				if err := os.WriteFile(filepath.Join(st, name), b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			l := debate(t, dir, "", "--list", "--store", st)
			if l.code != 0 {
				t.Errorf("exit %d; want 0", l.code)
			}
			lines := strings.Split(strings.TrimSpace(l.stdout), "\n")
			if len(lines) != 2 || !strings.HasPrefix(lines[0], "ID") || !strings.HasPrefix(lines[1], id+"  duelogic  finished ") {
				t.Errorf("stdout:\n%s\nwant the header and the row of %s", l.stdout, id)
			}
			note := "debate: " + filepath.Join(st, "bad.jsonl") + " is damaged (not listed): "
			if i := strings.Index(l.stderr, note); i < 0 || !strings.Contains(l.stderr[i:], tt.want) {
				t.Errorf("stderr:\n%s\nwant %q then %q", l.stderr, note, tt.want)
			}
		})
	}
}

func TestModeratedCheckpointsFromStdin(t *testing.T) {
	dir := t.TempDir()
	r := debate(t, dir, "x\ng\nFocus on our team's PostgreSQL experience\nc\nc\nc\n",
		"--format", "moderated", "--store", "db", "--out", "docs", "--max-rounds", "3", "--seed", "2", "Should we use GraphQL or REST?")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"═══ Checkpoint ═══\nRound 1 of at most 3 is over. The moderator's judgment:\n",
		"[C]ontinue  [G]uide  [E]nd  (Enter: continue)\n> x\n\"x\": answer c, g or e\n",
		"> g\nYour guidance: Focus on our team's PostgreSQL experience\n",
		"▶ HUMAN\nFocus on our team's PostgreSQL experience\n",
		"══════ SYNTHESIS ══════",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	// The round is shown, down to the moderator's judgment, before the
	// checkpoint asks about it, quoting that judgment.
	head, rest, _ := strings.Cut(r.stdout, "═══ Checkpoint ═══\nRound 1 of at most 3 is over. The moderator's judgment:\n")
	judgment, _, _ := strings.Cut(rest, "\n")
	if judgment == "" || !strings.Contains(head, judgment) {
		t.Errorf("the checkpoint came before the round's judgment %q", judgment)
	}
	id := debateIDRE.FindStringSubmatch(r.stdout)[1]
	for _, name := range []string{id + ".md", id + ".json", id + ".synthesis.md"} {
		if _, err := os.Stat(filepath.Join(dir, "docs", name)); err != nil {
			t.Error(err)
		}
	}
}

func TestModeratedPausesAtEndOfInputAndResumes(t *testing.T) {
	dir := t.TempDir()
	// (On the stub's seed 2 the first round does not end the debate.)
	r := debate(t, dir, "", "--format", "moderated", "--store", "db", "--max-rounds", "3", "--seed", "2", "Should we use GraphQL or REST?")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	id := debateIDRE.FindStringSubmatch(r.stdout)[1]
	if want := "paused at a checkpoint question; continue with: debate --store db --resume " + id; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}
	// Issue 24: a debate paused at a checkpoint is listed as paused.
	if l := debate(t, dir, "", "--list", "--store", "db"); !strings.Contains(l.stdout, id+"  moderated  paused") {
		t.Errorf("--list:\n%s", l.stdout)
	}
	// The checkpoint asks again, and ending there writes the synthesis.
	r = debate(t, dir, "e\n", "--store", "db", "--resume", id)
	if r.code != 0 {
		t.Fatalf("resume: exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "── resumed "+id+" (paused, ") {
		t.Errorf("resumed output lacks the resume line:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "═══ Checkpoint ═══\nRound 1 of at most 3 is over.") || !strings.Contains(r.stdout, "> e\n") {
		t.Errorf("resumed output lacks the checkpoint:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "**Rounds:** 1\n") || !strings.Contains(r.stdout, "══════ VERDICT ══════\nrecommendation: ") {
		t.Errorf("resumed output lacks the end after round 1:\n%s", r.stdout)
	}
	if l := debate(t, dir, "", "--list", "--store", "db"); !strings.Contains(l.stdout, id+"  moderated  finished") {
		t.Errorf("--list after resuming:\n%s", l.stdout)
	}
}

// TestEveryFormat runs every format from the command line with
// --no-checkpoints, as a script running them all would (a format without
// checkpoints accepts it and does nothing), each as few rounds as it
// plays: it finishes without asking or pausing, prints its segments and
// its summary, writes its documents and is listed as finished.
func TestEveryFormat(t *testing.T) {
	tests := map[string]struct {
		args []string
		want []string // in stdout
		docs []string // suffixes written to --out
	}{
		"duelogic": {[]string{"--max-rounds", "3"},
			[]string{"══════ OPENING ══════", "▶ ARBITER", "══════ VERDICT ══════\n2 chairs, 3 exchanges; ", "══════ METRICS ══════"}, []string{".md", ".json"}},
		"moderated": {[]string{"--perspectives", "3", "--max-rounds", "1"},
			[]string{"══════ ANALYSIS ══════", "══════ ROUNDS ══════", "══════ SYNTHESIS ══════", "══════ VERDICT ══════\nrecommendation: "},
			[]string{".md", ".json", ".decision.md", ".synthesis.md"}},
		"scored": {nil, []string{"══════ VERDICT ══════\n", "══════ SCORES ══════", "Problem Validity", "total adjustment"}, []string{".md", ".json", ".debate.md"}},
		"formal": {[]string{"--max-rounds", "1"},
			[]string{"══════ SETUP ══════", "▶ PROMOTER", "▶ DETRACTOR", "══════ VERDICT ══════\n"},
			nil}, // the seed's layout: formal_out_test.go
		"persuasion": {[]string{"--rounds", "1", "--perspective", "cost"},
			[]string{"▶ PRO", "▶ OPP", "══════ VERDICT ══════", "additive semantics)"}, []string{".md", ".json", ".dialogue.md", ".dot"}},
	}
	for _, name := range engine.Formats() {
		tt, ok := tests[name]
		if !ok {
			t.Errorf("format %s is not tested", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			r := debate(t, dir, "", append(tt.args, "--format", name, "--no-checkpoints", "--store", "db", "--out", "docs", "Should we use GraphQL or REST?")...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if strings.Contains(r.stdout, "[C]ontinue") || strings.Contains(r.stderr, "paused") {
				t.Errorf("stopped at a checkpoint:\n%s\n%s", r.stdout, r.stderr)
			}
			for _, want := range tt.want {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("output lacks %q:\n%s", want, r.stdout)
				}
			}
			m := debateIDRE.FindStringSubmatch(r.stdout)
			if m == nil {
				t.Fatalf("no debate ID in the output:\n%s", r.stdout)
			}
			id := m[1]
			for _, suffix := range tt.docs {
				if _, err := os.Stat(filepath.Join(dir, "docs", id+suffix)); err != nil {
					t.Error(err)
				}
			}
			if l := debate(t, dir, "", "--list", "--store", "db"); !strings.Contains(l.stdout, id+"  "+name) || !strings.Contains(l.stdout, " finished ") {
				t.Errorf("--list:\n%s", l.stdout)
			}
		})
	}
}

// TestModeratedTimeoutFlags: --round-timeout and --total-timeout reach the
// stored configuration, so a resume on a slow local server keeps them.
func TestModeratedTimeoutFlags(t *testing.T) {
	dir := t.TempDir()
	r := debate(t, dir, "", "--format", "moderated", "--no-checkpoints", "--max-rounds", "1",
		"--round-timeout", "7m", "--total-timeout", "2h", "--store", "db", "q?")
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
	if cfg := f.Config; cfg.RoundTimeout != 7*time.Minute || cfg.TotalTimeout != 2*time.Hour {
		t.Errorf("stored timeouts %v, %v; want 7m0s, 2h0m0s", cfg.RoundTimeout, cfg.TotalTimeout)
	}
}

// TestSeatsTheServersModel: against a server without --model, the CLI asks
// the server which model it serves (GET /v1/models) and seats that one in
// every seat, instead of sending hosted model IDs to a local server.
func TestSeatsTheServersModel(t *testing.T) {
	var mu sync.Mutex
	var models []string
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/v1/models" {
			io.WriteString(w, `{"object":"list","data":[{"id":"local-qwen.gguf"}]}`)
			return
		}
		if r.URL.Path == "/props" { // not a llama.cpp server: it does not say its slots
			w.WriteHeader(http.StatusNotFound)
			return
		}
		var body struct{ Model string }
		json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		models = append(models, body.Model)
		mu.Unlock()
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"message":"this test server answers nothing","type":"invalid_request_error"}}`)
	}))
	defer s.Close()
	for _, format := range []string{"duelogic", "scored", "persuasion"} {
		t.Run(format, func(t *testing.T) {
			mu.Lock()
			models = nil
			mu.Unlock()
			r := debate(t, t.TempDir(), "", "--format", format, "--base-url", s.URL+"/v1", "q?")
			if r.code != 1 {
				t.Errorf("exit %d; want 1 (the server answers nothing)\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, "seating the server's model local-qwen.gguf") {
				t.Errorf("stderr does not say which model it seats:\n%s", r.stderr)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(models) == 0 {
				t.Fatal("no completion request reached the server")
			}
			for _, m := range models {
				if m != "local-qwen.gguf" {
					t.Errorf("a request for model %q; want the server's local-qwen.gguf", m)
				}
			}
		})
	}
}

// TestContextOverflowSaysWhatToChange: a prompt over the server's context
// is not answered with a bare "--resume" (which would fail the same way) but
// with the setting to change.
func TestContextOverflowSaysWhatToChange(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":3100,"n_ctx":2048}}`)
	}))
	defer s.Close()
	r := debate(t, t.TempDir(), "", "--base-url", s.URL+"/v1", "--model", "m", "--store", "db", "q?")
	if r.code != 1 {
		t.Errorf("exit %d; want 1", r.code)
	}
	for _, want := range []string{"prompt 3100 tokens", "context 2048 tokens", "start the server with a larger context (llama-server -c"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}
