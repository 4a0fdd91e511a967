package sqlitestore

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/duelogic/duelogic/store"
)

// The tests' other processes are this test binary run again with
// SQLITESTORE_CHILD naming what it does (see child), on the database
// SQLITESTORE_DB.
func TestMain(m *testing.M) {
	if role := os.Getenv("SQLITESTORE_CHILD"); role != "" {
		os.Exit(child(role))
	}
	os.Exit(m.Run())
}

// child is the program of a child process; it returns its exit status.
func child(role string) int {
	ctx := context.Background()
	cfg := config{proj: projection}
	if role == "play" || role == "limited" {
		cfg.proj = killingProjection()
	}
	st, err := open(ctx, os.Getenv("SQLITESTORE_DB"), cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer st.Close()
	switch role {
	case "hold":
		return holdLock(ctx, st, os.Getenv("SQLITESTORE_ID"))
	case "append":
		return appendShared(ctx, st)
	case "play":
		return playUntilKilled(ctx, st)
	case "limited":
		return playLimited(ctx, st)
	}
	fmt.Fprintf(os.Stderr, "unknown child role %q\n", role)
	return 1
}

// startChild starts the test binary as a child of the role, with env added
// to its environment; its stdout is read from out. It is killed at the
// end of the test if it is still running.
func startChild(t *testing.T, role, db string, env ...string) (cmd *exec.Cmd, stdin io.WriteCloser, out *bufio.Reader) {
	t.Helper()
	cmd = exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{"SQLITESTORE_CHILD=" + role, "SQLITESTORE_DB=" + db}, env...)...)
	cmd.Stderr = &prefixWriter{t: t, prefix: role + " child: "}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, stdin, bufio.NewReader(stdout)
}

// prefixWriter logs what a child writes to stderr.
type prefixWriter struct {
	t      *testing.T
	prefix string
	mu     sync.Mutex
}

func (w *prefixWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.t.Logf("%s%s", w.prefix, strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

// killed waits for cmd and fails t unless SIGKILL ended it.
func killed(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	err := cmd.Wait()
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the child ended with %v, want killed by SIGKILL", err)
	}
}

// holdLock takes the lock of debate id, says "locked" (or "refused: ..."),
// and holds it until its stdin closes.
func holdLock(ctx context.Context, st *Store, id string) int {
	unlock, err := st.Lock(ctx, id)
	if err != nil {
		fmt.Printf("refused: %v\n", err)
		if errors.Is(err, store.ErrLocked) {
			return 3
		}
		return 1
	}
	fmt.Println("locked")
	io.Copy(io.Discard, os.Stdin)
	if err := unlock(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// The load of appendShared: each of its goroutines appends
// sharedRecords records to debate shared-<g % sharedDebates>, racing with
// the other goroutines and processes that append to it.
const (
	sharedGoroutines = 8
	sharedDebates    = 3
	sharedRecords    = 5
)

// appendShared appends from sharedGoroutines goroutines to the shared
// debates, each record's Data naming its writer (SQLITESTORE_WRITER), its
// goroutine and its number. A writer whose Seq was taken reads the log's
// end and tries the next one.
func appendShared(ctx context.Context, st *Store) int {
	writer := os.Getenv("SQLITESTORE_WRITER")
	if err := appendSharedFrom(ctx, st, writer); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func appendSharedFrom(ctx context.Context, st *Store, writer string) error {
	errc := make(chan error, sharedGoroutines)
	var wg sync.WaitGroup
	for g := range sharedGoroutines {
		wg.Go(func() {
			id := "shared-" + strconv.Itoa(g%sharedDebates)
			for i := range sharedRecords {
				data, _ := json.Marshal(map[string]any{"w": writer, "g": g, "i": i})
				if err := appendNext(ctx, st, store.Record{DebateID: id, Type: "t", Time: when, Data: data}); err != nil {
					errc <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errc)
	return <-errc
}

// appendNext appends rec after the last record of its debate, trying again
// while other writers take that Seq first.
func appendNext(ctx context.Context, st *Store, rec store.Record) error {
	for {
		recs, err := st.Records(ctx, rec.DebateID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		rec.Seq = int64(len(recs) + 1)
		err = st.Append(ctx, rec)
		if !errors.Is(err, store.ErrConflict) {
			return err
		}
	}
}
