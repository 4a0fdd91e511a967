package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"github.com/duelogic/duelogic/store/pgstore/pgtest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// secret is the password every test puts in its DSN (the test cluster
// trusts local connections, so any password connects): no output may show
// it.
const secret = "pgcli-test-s3cret"

// binDir holds the binaries the tests build: pgcli, and examples/worker.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "pgcli-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// built builds the main package in dir (a directory of its own module)
// once, and returns the binary's path.
var built sync.Map // dir -> func() (string, error)

func binary(t *testing.T, dir, name string) string {
	t.Helper()
	f, _ := built.LoadOrStore(dir, sync.OnceValues(func() (string, error) {
		bin := filepath.Join(binDir, name)
		cmd := exec.Command("go", "build", "-o", bin, ".")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build in %s: %v\n%s", dir, err, out)
		}
		return bin, nil
	}))
	bin, err := f.(func() (string, error))()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// pgcli is this command, built.
func pgcli(t *testing.T) string { return binary(t, ".", "pgcli") }

// schemaDSN returns a DSN, with the password secret, whose connections use
// a new schema of the test database (DUELOGIC_PG_DSN), dropped after the
// test: each test gets a database of its own. Without DUELOGIC_PG_DSN the
// test skips, unless DUELOGIC_REQUIRE_PG=1 (CI), when it fails.
func schemaDSN(t *testing.T) string {
	t.Helper()
	base, name := pgtest.Schema(t, "pgcli_test")
	return withSecret(t, base, name)
}

// withSecret returns dsn with the password secret and, unless schema is
// empty, the search_path schema.
func withSecret(t *testing.T, dsn, schema string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("DUELOGIC_PG_DSN must be a URL here: %v", err)
	}
	u.User = url.UserPassword(u.User.Username(), secret)
	if schema != "" {
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
	}
	return u.String()
}

type result struct {
	code           int
	stdout, stderr string
}

// noSecret fails t if the output of a run shows the DSN's password.
func noSecret(t *testing.T, args []string, r result) {
	t.Helper()
	if strings.Contains(r.stdout, secret) || strings.Contains(r.stderr, secret) {
		t.Errorf("pgcli %q printed the password:\nstdout:\n%s\nstderr:\n%s", args, r.stdout, r.stderr)
	}
}

// env is the environment of every run: the offline stub model.
func env() []string {
	return append(os.Environ(), "DUELOGIC_BASE_URL=", "DUELOGIC_MODEL=", "NO_COLOR=1")
}

// run runs pgcli in dir with args, to the end.
func run(t *testing.T, dir string, args ...string) result {
	t.Helper()
	cmd := exec.Command(pgcli(t), args...)
	cmd.Dir = dir
	cmd.Env = env()
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
	r := result{code, out.String(), errb.String()}
	noSecret(t, args, r)
	return r
}

// stopAt runs pgcli in dir with args until its output has a line with
// mark, then sends it sig, and returns what it printed.
func stopAt(t *testing.T, dir, mark string, sig os.Signal, args ...string) result {
	t.Helper()
	cmd := exec.Command(pgcli(t), args...)
	cmd.Dir = dir
	cmd.Env = env()
	var errb bytes.Buffer
	cmd.Stderr = &errb
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	seen := false
	for sc := bufio.NewScanner(stdout); sc.Scan(); {
		out.WriteString(sc.Text() + "\n")
		if !seen && strings.Contains(sc.Text(), mark) {
			seen = true
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
		}
	}
	err = cmd.Wait()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		code = ee.ExitCode()
	case errors.As(err, &ee):
		code = -1 // killed by the signal
	case err != nil:
		t.Fatal(err)
	}
	r := result{code, out.String(), errb.String()}
	noSecret(t, args, r)
	if !seen {
		t.Fatalf("pgcli %q ended (exit %d) before printing %q:\n%s\n%s", args, code, mark, r.stdout, r.stderr)
	}
	return r
}

var debateIDRE = regexp.MustCompile(`(?m)^debate (dl-[0-9a-f]{16})$`)

func debateID(t *testing.T, r result) string {
	t.Helper()
	m := debateIDRE.FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no debate ID in the output:\n%s\n%s", r.stdout, r.stderr)
	}
	return m[1]
}

// transcript reads the transcript pgcli wrote to dir/out for debate id,
// with the ID written as ID, so that two debates compare.
func transcript(t *testing.T, dir, out, id string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, out, id+".md"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(b), id, "ID")
}

// listRow returns the fields of debate id's row in the output of --list.
func listRow(t *testing.T, dir, dsn, id string) []string {
	t.Helper()
	l := run(t, dir, "--store", dsn, "--list")
	if l.code != 0 {
		t.Fatalf("--list: exit %d: %s", l.code, l.stderr)
	}
	lines := strings.Split(strings.TrimSpace(l.stdout), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "ID") {
		t.Fatalf("--list:\n%s", l.stdout)
	}
	for _, line := range lines[1:] {
		if f := strings.Fields(line); f[0] == id {
			return f
		}
	}
	t.Fatalf("--list does not show %s:\n%s", id, l.stdout)
	return nil
}

// The podcast as the tests play it; a seed whose interruptions are not held
// back by their cooldown (which runs on the wall clock), so that a debate
// resumed later says what an uninterrupted one says.
var podcastArgs = []string{"--max-rounds", "3", "--seed", "1"}

const question = "Should cities ban cars?"

// reference plays the debate uninterrupted in dsn and returns its
// transcript and number of utterances.
func reference(t *testing.T, dir, dsn string) (md, utterances string) {
	t.Helper()
	r := run(t, dir, append([]string{"--store", dsn, "--out", "want"}, append(podcastArgs, question)...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	id := debateID(t, r)
	f := listRow(t, dir, dsn, id)
	if len(f) < 4 || f[1] != "duelogic" || f[2] != "finished" {
		t.Fatalf("--list row %q; want %s duelogic finished ...", f, id)
	}
	return transcript(t, dir, "want", id), f[3]
}

// A stub podcast recorded in PostgreSQL: --list shows it finished, with
// its utterances; its transcript has every segment.
func TestFullStubDebate(t *testing.T) {
	dir, dsn := t.TempDir(), schemaDSN(t)
	md, n := reference(t, dir, dsn)
	for _, want := range []string{"## Introduction", "## Opening", "## Exchange", "## Synthesis", question} {
		if !strings.Contains(md, want) {
			t.Errorf("transcript lacks %q", want)
		}
	}
	if got := strings.Count(md, "\n**"); fmt.Sprint(got) != n {
		t.Errorf("the transcript has %d utterances, --list says %s", got, n)
	}
	if l := run(t, dir, "--store", dsn, "--resume", "dl-0000000000000000"); l.code != 1 || !strings.Contains(l.stderr, "no debate dl-0000000000000000 in postgres://") {
		t.Errorf("--resume of an unknown debate: exit %d, %q", l.code, l.stderr)
	}
}

// A debate stopped by Ctrl-C (SIGINT) or killed (SIGKILL) at several points
// stays listed as stopped, and --resume finishes it with the transcript of
// an uninterrupted run. The hint to resume masks the password.
func TestStopThenResume(t *testing.T) {
	dir, dsn := t.TempDir(), schemaDSN(t)
	want, n := reference(t, dir, dsn)
	tests := []struct {
		name string
		mark string // the line at which the debate is stopped
		sig  os.Signal
	}{
		{"ctrl-c in opening", "══════ OPENING ══════", os.Interrupt},
		{"ctrl-c in exchange", "══════ EXCHANGE ══════", os.Interrupt},
		{"ctrl-c in synthesis", "══════ SYNTHESIS ══════", os.Interrupt},
		{"kill in exchange", "══════ EXCHANGE ══════", syscall.SIGKILL},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The stub pauses per word, so that the debate is mid-stream
			// when the signal comes.
			args := append([]string{"--store", dsn, "--stub-delay", "2ms"}, append(podcastArgs, question)...)
			r := stopAt(t, dir, tt.mark, tt.sig, args...)
			id := debateID(t, r)
			if tt.sig == os.Interrupt {
				hint := "the debate is stored; continue it with: debate --store "
				masked := strings.Replace(dsn, secret, "xxxxx", 1)
				if r.code != 1 || !strings.Contains(r.stderr, hint+masked+" --resume "+id) {
					t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and the hint %q", r.code, r.stderr, hint+masked+" --resume "+id)
				}
			} else if r.code != -1 {
				t.Errorf("exit %d after SIGKILL", r.code)
			}
			if f := listRow(t, dir, dsn, id); f[2] != "stopped" {
				t.Errorf("--list row %q; want %s stopped", f, id)
			}
			out := fmt.Sprint("got", i)
			res := run(t, dir, "--store", dsn, "--out", out, "--resume", id)
			if res.code != 0 {
				t.Fatalf("--resume: exit %d: %s", res.code, res.stderr)
			}
			if !strings.Contains(res.stdout, "── resumed "+id+" (stopped") {
				t.Errorf("output lacks the resume line:\n%s", res.stdout)
			}
			if diff := cmp.Diff(want, transcript(t, dir, out, id)); diff != "" {
				t.Errorf("resumed transcript (-uninterrupted +resumed):\n%s", diff)
			}
			if f := listRow(t, dir, dsn, id); f[2] != "finished" || f[3] != n {
				t.Errorf("--list row after resuming %q; want %s duelogic finished %s", f, id, n)
			}
		})
	}
}

// A debate started with --store postgres://... and stopped in its first
// exchange is queued again (--requeue) and finished by examples/worker (its
// binary, built from its module): the worker plays it once, the debate is finished, and its
// transcript begins with what the command recorded, as an uninterrupted run
// says it. (What the worker adds is not compared with the command's run: the
// worker's model does not stream, so its interrupt checks see whole
// responses, not the sentences of a stream, and decide otherwise.)
func TestWorkerFinishes(t *testing.T) {
	dir, dsn := t.TempDir(), schemaDSN(t)
	want, _ := reference(t, dir, dsn)
	r := stopAt(t, dir, "══════ EXCHANGE ══════", os.Interrupt,
		append([]string{"--store", dsn, "--stub-delay", "2ms"}, append(podcastArgs, question)...)...)
	id := debateID(t, r)
	if f := listRow(t, dir, dsn, id); f[2] != "stopped" {
		t.Fatalf("--list row %q; want %s stopped", f, id)
	}

	if q := run(t, dir, "--store", dsn, "--requeue", id); q.code != 0 || strings.TrimSpace(q.stdout) != "queued "+id {
		t.Fatalf("--requeue: exit %d, %q, %s", q.code, q.stdout, q.stderr)
	}
	out, errs := runWorker(t, dsn, "played "+id+" ")
	noSecret(t, []string{"worker"}, result{0, out, errs})
	if got := regexp.MustCompile(`(?m)^played (\S+) [1-9]\d*$`).FindAllStringSubmatch(out, -1); len(got) != 1 || got[0][1] != id {
		t.Fatalf("worker output:\n%s\nwant one line: played %s <calls>", out, id)
	}
	f := listRow(t, dir, dsn, id)
	if f[2] != "finished" {
		t.Errorf("--list row after the worker %q; want %s duelogic finished", f, id)
	}
	res := run(t, dir, "--store", dsn, "--out", "got", "--resume", id)
	if res.code != 0 {
		t.Fatalf("--resume: exit %d: %s", res.code, res.stderr)
	}
	got := transcript(t, dir, "got", id)
	// The introduction and the openings, as the uninterrupted run says them.
	_, said, _ := strings.Cut(want, "## Introduction")
	said, _, ok := strings.Cut(said, "## Exchange")
	if !ok {
		t.Fatalf("the reference transcript has no exchange:\n%s", want)
	}
	if !strings.Contains(got, "## Introduction"+said+"## Exchange") {
		t.Errorf("the transcript finished by the worker does not keep the introduction and openings the command recorded (-uninterrupted +worker):\n%s", cmp.Diff(want, got))
	}
	for _, seg := range []string{"## Exchange", "## Synthesis"} {
		if !strings.Contains(got, seg) {
			t.Errorf("the transcript finished by the worker lacks %q", seg)
		}
	}
	if n := strings.Count(got, "\n**"); fmt.Sprint(n) != f[3] {
		t.Errorf("the transcript has %d utterances, --list says %s", n, f[3])
	}
}

// A DSN's password is masked in every message, including those of a store
// that cannot be opened.
func TestPasswordNeverPrinted(t *testing.T) {
	dsn := schemaDSN(t)
	dir := t.TempDir()
	refused := withSecret(t, "postgres://postgres@127.0.0.1:1/duelogic?sslmode=disable&connect_timeout=5", "")
	tests := []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"list, server refuses", []string{"--store", refused, "--list"}, 1, "debate: open store postgres://postgres:xxxxx@127.0.0.1:1/duelogic"},
		{"debate, server refuses", []string{"--store", refused, question}, 1, "debate: open store postgres://postgres:xxxxx@127.0.0.1:1/duelogic"},
		{"unparsable URL", []string{"--store", "postgres://postgres:" + secret + "@[::1/x", "--list"}, 1, "debate: open store (an unparsable URL)"},
		{"unknown debate", []string{"--store", dsn, "--resume", "dl-nope"}, 1, "no debate dl-nope in postgres://postgres:xxxxx@"},
		{"empty list", []string{"--store", dsn, "--list"}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, dir, tt.args...) // run checks that the password is not printed
			if r.code != tt.code || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", r.code, r.stderr, tt.code, tt.want)
			}
		})
	}
}
