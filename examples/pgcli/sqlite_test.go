package main

import (
	"crypto/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// --store sqlite:FILE works as a postgres:// URL does: a debate is played
// into the file (created on first use; --list of a missing file creates
// nothing), listed, stopped by Ctrl-C or SIGKILL and resumed to the
// transcript of an uninterrupted run, and forked.
func TestSQLiteStore(t *testing.T) {
	dir := t.TempDir()
	const st = "sqlite:debates.db" // relative to the command's directory
	if l := run(t, dir, "--store", st, "--list"); l.code != 0 || l.stdout != "no debates in sqlite:debates.db\n" {
		t.Fatalf("--list of a missing file: exit %d, %q, %q", l.code, l.stdout, l.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "debates.db")); !os.IsNotExist(err) {
		t.Fatalf("--list of a missing file created it: %v", err)
	}
	want, n := reference(t, dir, st)
	if _, err := os.Stat(filepath.Join(dir, "debates.db")); err != nil {
		t.Fatalf("the debate was not recorded in the SQLite file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, st)); !os.IsNotExist(err) {
		t.Fatalf("%s was taken for a JSONL directory", st)
	}

	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGKILL} {
		args := append([]string{"--store", st, "--stub-delay", "2ms"}, append(podcastArgs, question)...)
		r := stopAt(t, dir, "══════ EXCHANGE ══════", sig, args...)
		id := debateID(t, r)
		if hint := "continue it with: debate --store " + st + " --resume " + id; sig == os.Interrupt && !strings.Contains(r.stderr, hint) {
			t.Errorf("stderr lacks the hint %q:\n%s", hint, r.stderr)
		}
		if f := listRow(t, dir, st, id); f[2] != "stopped" {
			t.Errorf("%v: --list row %q; want %s stopped", sig, f, id)
		}
		out := "got-" + id
		res := run(t, dir, "--store", st, "--out", out, "--resume", id)
		if res.code != 0 {
			t.Fatalf("%v: --resume: exit %d: %s", sig, res.code, res.stderr)
		}
		if diff := cmp.Diff(want, transcript(t, dir, out, id)); diff != "" {
			t.Errorf("%v: resumed transcript (-uninterrupted +resumed):\n%s", sig, diff)
		}
		if f := listRow(t, dir, st, id); f[2] != "finished" || f[3] != n {
			t.Errorf("%v: --list row after resuming %q; want %s duelogic finished %s", sig, f, id, n)
		}
	}

	r := run(t, dir, append([]string{"--store", st}, append(podcastArgs, question)...)...)
	id := debateID(t, r)
	f := run(t, dir, "--store", st, "--fork", id+"@5", "--set", "flow.maxExchanges=4")
	if f.code != 0 {
		t.Fatalf("--fork: exit %d: %s", f.code, f.stderr)
	}
	m := regexp.MustCompile(`debate: forked (dl-[0-9a-f]{16}) after record 5 into (dl-[0-9a-f]{16})\n`).FindStringSubmatch(f.stderr)
	if m == nil || m[1] != id {
		t.Fatalf("stderr does not name the fork of %s:\n%s", id, f.stderr)
	}
	if row := listRow(t, dir, st, m[2]); row[2] != "finished" {
		t.Errorf("--list row of the fork %q; want finished", row)
	}
}

// The job commands refuse a sqlite: store with a usage error that says
// why; a sqlite: store that is not a duelogic database (random bytes) is
// refused naming the file, which stays as it was.
func TestSQLiteStoreRefusals(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--store", "sqlite:d.db", "--enqueue", question},
		{"--store", "sqlite:d.db", "--cancel", "dl-0000000000000000"},
		{"--store", "sqlite:d.db", "--requeue", "dl-0000000000000000"},
	} {
		r := run(t, dir, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "a SQLite store has no job queue") {
			t.Errorf("pgcli %q: exit %d, %q; want 2 and no job queue", args, r.code, r.stderr)
		}
	}
	junk := make([]byte, 4096)
	rand.Read(junk)
	path := filepath.Join(dir, "junk.db")
	if err := os.WriteFile(path, junk, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--store", "sqlite:junk.db", question},
		{"--store", "sqlite:junk.db", "--list"},
		{"--store", "sqlite:junk.db", "--resume", "dl-0000000000000000"},
	} {
		r := run(t, dir, args...)
		if r.code != 1 || !strings.Contains(r.stderr, path) || !strings.Contains(r.stderr, "not a SQLite database") {
			t.Errorf("pgcli %q: exit %d, %q; want 1 naming %s", args, r.code, r.stderr, path)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != string(junk) {
		t.Error("the file was written to")
	}
	if r := run(t, dir, "--store", "sqlite:", question); r.code == 0 || !strings.Contains(r.stderr, "sqlite:FILE") {
		t.Errorf("--store sqlite: : exit %d, %q", r.code, r.stderr)
	}
}
