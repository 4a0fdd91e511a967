package main

import (
	"bufio"
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// runWorker runs examples/worker (its binary, built from its module) with
// the stub model on dsn until it prints a line starting with until, then
// stops it with SIGTERM; it returns what it printed.
func runWorker(t *testing.T, dsn, until string) (stdout, stderr string) {
	t.Helper()
	worker := binary(t, filepath.Join("..", "worker"), "worker")
	cmd := exec.Command(worker, "-dsn", dsn, "-stub", "-id", "test-worker")
	cmd.Env = env()
	var errb bytes.Buffer
	cmd.Stderr = &errb
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	found := false
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), until) {
			found = true
			break
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("worker: %v\n%s", err, errb.String())
	}
	if !found {
		t.Fatalf("the worker never printed %q:\n%s\n%s", until, out.String(), errb.String())
	}
	return out.String(), errb.String()
}

// status returns debate id's status in --list, and where it is.
func status(t *testing.T, dir, dsn, id string) (string, string) {
	t.Helper()
	f := listRow(t, dir, dsn, id)
	// ID FORMAT STATUS UTTERANCES DATE TIME WHERE...
	if len(f) < 7 {
		t.Fatalf("--list row %q", f)
	}
	return f[2], f[6]
}

// Debates queued with --enqueue are played by examples/worker: --list
// shows them queued, paused (waiting for their person), cancelled
// (--cancel) and finished; --requeue plays a cancelled one on, and answers
// a paused one. Hostile IDs and configurations are refused before anything
// is stored.
func TestEnqueueCancelList(t *testing.T) {
	dir, dsn := t.TempDir(), schemaDSN(t)
	enqueue := func(args ...string) string {
		t.Helper()
		r := run(t, dir, append([]string{"--store", dsn, "--enqueue"}, args...)...)
		noSecret(t, args, r)
		if r.code != 0 {
			t.Fatalf("--enqueue %q: exit %d: %s", args, r.code, r.stderr)
		}
		return strings.TrimSpace(r.stdout)
	}
	podcast := enqueue("--format", "duelogic", "--format-config", `{"flow":{"maxExchanges":3}}`, question)
	vague := enqueue("--format", "moderated", "--id", "vague-1", "Redis?")
	if vague != "vague-1" {
		t.Fatalf("--enqueue --id vague-1 printed %q", vague)
	}
	for _, id := range []string{podcast, vague} {
		if st, _ := status(t, dir, dsn, id); st != "queued" {
			t.Errorf("%s: %s; want queued", id, st)
		}
	}
	if r := run(t, dir, "--store", dsn, "--cancel", podcast); r.code != 0 {
		t.Fatalf("--cancel: exit %d: %s", r.code, r.stderr)
	}
	if st, _ := status(t, dir, dsn, podcast); st != "cancelled" {
		t.Errorf("%s after --cancel: %s; want cancelled", podcast, st)
	}
	if r := run(t, dir, "--store", dsn, "--cancel", podcast); r.code != 1 || !strings.Contains(r.stderr, "no job queued or running") {
		t.Errorf("a second --cancel: exit %d, %q; want it refused", r.code, r.stderr)
	}

	runWorker(t, dsn, "paused "+vague)
	if st, where := status(t, dir, dsn, vague); st != "paused" || where != "waits:" {
		t.Errorf("%s: %s %s; want paused, waiting", vague, st, where)
	}
	for _, id := range []string{podcast, vague} {
		args := []string{"--store", dsn, "--requeue", id}
		if id == vague {
			args = append(args, "--answer", "Redis as the cache of the sessions")
		}
		if r := run(t, dir, args...); r.code != 0 {
			t.Fatalf("--requeue %s: exit %d: %s", id, r.code, r.stderr)
		}
	}
	out, _ := runWorker(t, dsn, "played "+podcast+" ")
	if st, _ := status(t, dir, dsn, podcast); st != "finished" {
		t.Errorf("%s after the worker: %s; want finished\n%s", podcast, st, out)
	}

	tests := []struct {
		name string
		args []string
	}{
		{"path as ID", []string{"--id", "../../etc/passwd", question}},
		{"SQL as ID", []string{"--id", "x';DROP TABLE records;--", question}},
		{"unknown format", []string{"--format", "nope", question}},
		{"unknown field", []string{"--format-config", `{"colour":"red"}`, question}},
		{"config not JSON", []string{"--format-config", `{`, question}},
		{"no question", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, dir, append([]string{"--store", dsn, "--enqueue"}, tt.args...)...)
			if r.code != 2 {
				t.Errorf("exit %d, %q; want 2", r.code, r.stderr)
			}
		})
	}
	l := run(t, dir, "--store", dsn, "--list")
	if n := strings.Count(strings.TrimSpace(l.stdout), "\n"); n != 2 {
		t.Errorf("--list after the refusals shows %d debates; want the 2 queued:\n%s", n, l.stdout)
	}
}
