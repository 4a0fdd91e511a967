package sqlitestore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/duelogic/duelogic/store"
)

// A lock held by another process excludes this one's Lock; when the holder
// is killed with SIGKILL the lock is free at once (the kernel frees a flock
// with its holder's file), and what the dead holder leaves behind is its
// lock file, which the next holder takes and removes when it unlocks.
func TestLockAcrossProcesses(t *testing.T) {
	st := openTest(t)
	const id = "held-by-a-child"
	cmd, stdin, out := startChild(t, "hold", st.Path(), "SQLITESTORE_ID="+id)
	if line, err := out.ReadString('\n'); line != "locked\n" {
		t.Fatalf("the child said %q (%v), want locked", line, err)
	}

	_, err := st.Lock(t.Context(), id)
	if !errors.Is(err, store.ErrLocked) {
		t.Fatalf("Lock of a debate another process holds: got %v, want ErrLocked", err)
	}
	t.Logf("refused: %v", err)
	other, err := st.Lock(t.Context(), "another-debate")
	if err != nil {
		t.Fatalf("Lock of another debate: %v", err)
	}
	if err := other(); err != nil {
		t.Fatal(err)
	}

	// kill -9 the holder: the lock is free as soon as the process is gone.
	if err := cmd.Process.Signal(os.Kill); err != nil {
		t.Fatal(err)
	}
	killed(t, cmd)
	stdin.Close()
	left, err := os.ReadFile(lockName(st.locks, id))
	if err != nil {
		t.Fatalf("the dead holder's lock file: %v", err)
	}
	if want := fmt.Sprintf("pid %d\ndebate %q\n", cmd.Process.Pid, id); string(left) != want {
		t.Errorf("the dead holder's lock file holds %q, want %q", left, want)
	}
	unlock, err := st.Lock(t.Context(), id)
	if err != nil {
		t.Fatalf("Lock after the holder was killed: %v", err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	if names := lockFiles(t, st); len(names) != 0 {
		t.Errorf("lock files after every lock was unlocked: %v, want none", names)
	}
}

// A lock this process holds excludes another process's Lock, until it is
// unlocked; the child that then takes it unlocks when told.
func TestLockExcludesOtherProcess(t *testing.T) {
	st := openTest(t)
	const id = "held-here"
	unlock, err := st.Lock(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	cmd, _, out := startChild(t, "hold", st.Path(), "SQLITESTORE_ID="+id)
	line, _ := out.ReadString('\n')
	if !strings.HasPrefix(line, "refused: ") || !strings.Contains(line, "locked") {
		t.Fatalf("the child said %q, want refused: ... locked", line)
	}
	if err := cmd.Wait(); cmd.ProcessState.ExitCode() != 3 {
		t.Fatalf("the child exited with %v, want status 3 (ErrLocked)", err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	cmd, stdin, out := startChild(t, "hold", st.Path(), "SQLITESTORE_ID="+id)
	if line, err := out.ReadString('\n'); line != "locked\n" {
		t.Fatalf("after unlock, the child said %q (%v), want locked", line, err)
	}
	stdin.Close() // the child unlocks and exits
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the child: %v", err)
	}
	if names := lockFiles(t, st); len(names) != 0 {
		t.Errorf("lock files after every lock was unlocked: %v, want none", names)
	}
}

// A holder removes its lock file before it unlocks, so a Lock that opened
// the file just before is not fooled into holding a removed file: only one
// of many Lock and unlock rounds holds the debate at a time.
func TestLockRemovedFileNotHeld(t *testing.T) {
	st := openTest(t)
	a, err := st.Lock(t.Context(), "x")
	if err != nil {
		t.Fatal(err)
	}
	// A contender opened the file while a held it...
	f, err := os.OpenFile(lockName(st.locks, "x"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// ...a unlocks (removing the file) and b locks the new one...
	if err := a(); err != nil {
		t.Fatal(err)
	}
	b, err := st.Lock(t.Context(), "x")
	if err != nil {
		t.Fatal(err)
	}
	defer b()
	// ...the contender's flock of the old file succeeds, but the file is
	// not the lock any more.
	ok, err := tryLock(f)
	if err != nil || !ok {
		t.Fatalf("flock of the removed file: %v %v", ok, err)
	}
	if current(f, lockName(st.locks, "x")) {
		t.Fatal("the removed lock file counts as the current one: two holders")
	}
	if _, err := st.Lock(t.Context(), "x"); !errors.Is(err, store.ErrLocked) {
		t.Fatalf("Lock while b holds it: %v, want ErrLocked", err)
	}
}

// lockFiles lists the store's lock directory.
func lockFiles(t *testing.T, st *Store) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(st.locks, "*"))
	if err != nil {
		t.Fatal(err)
	}
	return names
}
