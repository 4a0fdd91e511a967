package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// startRun runs the server's command line and returns its address and a
// stop that waits for it to end.
func startRun(t *testing.T, args ...string) (addr string, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, func() {}, append([]string{"-addr", "127.0.0.1:0", "-stub-delay", "0"}, args...), pw, io.Discard, func(string) string { return "" })
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("run %q: %v (%v)", args, err, <-done)
	}
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "duelogic web: listening on ")
	if !ok {
		t.Fatalf("first line %q", line)
	}
	go io.Copy(io.Discard, pr)
	return addr, func() error { cancel(); return <-done }
}

// TestRunWithSQLiteStore: -store sqlite:FILE keeps the debates in a SQLite
// file: a debate played by one server is listed, finished, by a server
// started later on the same file; a file that is not a store is refused,
// naming the flag, and left as it was.
func TestRunWithSQLiteStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "debates.db")
	addr, stop := startRun(t, "-store", "sqlite:"+path)
	var created map[string]any
	if code := call(t, "POST", addr+"/api/debates/scored", `{"proposition": "Ship a CLI for log search."}`, &created); code != 202 && code != 201 {
		t.Fatalf("POST: %d %v", code, created)
	}
	id, _ := created["id"].(string)
	if err := stop(); err != nil { // a graceful stop waits for the debate
		t.Fatal(err)
	}

	addr, stop = startRun(t, "-store", "sqlite:"+path)
	defer stop()
	var list []debateItem
	if code := call(t, "GET", addr+"/api/debates", "", &list); code != 200 || len(list) != 1 || list[0].ID != id || list[0].Status != statusFinished {
		t.Fatalf("GET /api/debates after a restart: %d %+v, want %s finished", code, list, id)
	}

	junk := filepath.Join(t.TempDir(), "junk.db")
	if err := os.WriteFile(junk, []byte("not a database, but someone's notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := run(t.Context(), func() {}, []string{"-addr", "127.0.0.1:0", "-store", "sqlite:" + junk}, io.Discard, io.Discard, func(string) string { return "" })
	if err == nil || !strings.Contains(err.Error(), "-store") || !strings.Contains(err.Error(), junk) {
		t.Errorf("run on a file that is not a store: %v", err)
	}
	if b, _ := os.ReadFile(junk); string(b) != "not a database, but someone's notes" {
		t.Errorf("the foreign file was changed: %q", b)
	}
	if err := run(t.Context(), func() {}, []string{"-store", "sqlite:"}, io.Discard, io.Discard, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "needs a file") {
		t.Errorf("-store sqlite: without a file: %v", err)
	}
}
