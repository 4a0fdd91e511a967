package store_test

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"runtime"
	"testing"

	"github.com/duelogic/duelogic/store"
)

// Two JSONL values on one directory stand for two processes: a lock taken
// through one excludes the other until it is unlocked.
func TestJSONLLockTwoValues(t *testing.T) {
	dir := t.TempDir()
	a, b := newJSONL(t, dir), newJSONL(t, dir)
	unlock, err := a.Lock(t.Context(), "d")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Lock(t.Context(), "d"); !errors.Is(err, store.ErrLocked) && store.HasFileLock {
		t.Fatalf("Lock through another JSONL: got error %v, want ErrLocked", err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	unlock, err = b.Lock(t.Context(), "d")
	if err != nil {
		t.Fatalf("Lock after the other JSONL unlocked: %v", err)
	}
	unlock()
	// The lock file is not a debate.
	mustAppend(t, a, testRec("e", 1))
	if ids, err := a.Debates(t.Context()); err != nil || len(ids) != 1 || ids[0] != "e" {
		t.Errorf("Debates = %q, %v; want [e]", ids, err)
	}
}

func TestJSONLLockInvalidID(t *testing.T) {
	s := newJSONL(t, t.TempDir())
	if _, err := s.Lock(t.Context(), "../x"); !errors.Is(err, store.ErrInvalidID) {
		t.Fatalf("Lock(../x): got error %v, want ErrInvalidID", err)
	}
}

const lockChildEnv = "DUELOGIC_STORE_LOCK_CHILD" // the directory

// TestJSONLLockProcess: a lock held by another process is ErrLocked, and
// freed when that process is killed.
func TestJSONLLockProcess(t *testing.T) {
	if !store.HasFileLock {
		t.Skip("no flock on " + runtime.GOOS)
	}
	if testing.Short() {
		t.Skip("starts a process")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestJSONLLockChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), lockChildEnv+"="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "locked\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child said %q, %v; want locked", line, err)
	}
	s := newJSONL(t, dir)
	if _, err := s.Lock(t.Context(), "d"); !errors.Is(err, store.ErrLocked) {
		t.Errorf("Lock held by another process: got error %v, want ErrLocked", err)
	}
	cmd.Process.Kill() // SIGKILL: no unlock runs
	cmd.Wait()
	unlock, err := s.Lock(t.Context(), "d")
	if err != nil {
		t.Fatalf("Lock after the holder was killed: %v", err)
	}
	unlock()
}

// TestJSONLLockChild holds the lock for TestJSONLLockProcess until killed
// (or its stdin closes).
func TestJSONLLockChild(t *testing.T) {
	dir := os.Getenv(lockChildEnv)
	if dir == "" {
		t.Skip("run by TestJSONLLockProcess")
	}
	if _, err := newJSONL(t, dir).Lock(t.Context(), "d"); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("locked\n")
	io.Copy(io.Discard, os.Stdin)
}
