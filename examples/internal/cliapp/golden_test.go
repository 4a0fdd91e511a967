package cliapp

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in testdata")

// slowTerminal is a terminal that takes its time over every write: it
// works a while and yields the processor first (no sleep), so that the
// engine's goroutine, which hands the renderer the events, falls behind
// the debate's goroutine, which goes on to ask the person the next
// question.
type slowTerminal struct{ w io.Writer }

func (t slowTerminal) Write(b []byte) (int, error) {
	spun.Add(int64(spin(20000)))
	runtime.Gosched()
	return t.w.Write(b)
}

// spin works n steps on the processor and returns their result.
func spin(n int) int {
	x := 1
	for i := range n {
		x = x*31 + i
	}
	return x
}

// spun keeps the result of the busy work, so that it is not optimized
// away.
var spun atomic.Int64

// hog keeps a goroutine a processor busy until the returned stop is
// called; stop returns once they have ended. They yield between short
// bursts of work, as the goroutines of a busy process do, so that the
// test's goroutines run between them, at other times than on an idle
// machine.
func hog() (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				spun.Add(int64(spin(2000)))
				runtime.Gosched()
			}
		})
	}
	return func() {
		close(done)
		wg.Wait()
	}
}

// TestGoldenTranscripts runs the moderated debate (a person answers its
// clarifying question, guides a checkpoint, approves the synthesis and
// asks for the workflow), the formal one and the podcast on the stub, on a
// fast terminal and on a slow one, with and without every processor kept
// busy, and compares what they print with testdata/<flow>.golden byte for
// byte (debate IDs and the temporary directory aside; the clock is
// pinned): a question comes whole, after every event before it, with no
// event inside it, however the goroutines are scheduled. go test -update
// rewrites the golden files.
func TestGoldenTranscripts(t *testing.T) {
	flows := []struct {
		name  string
		stdin string
		args  []string
	}{
		{"moderated", "Redis or PostgreSQL, for user sessions\ng\nMind the on-call load\nc\na\ny\n",
			[]string{"--format", "moderated", "--max-rounds", "2", "Which cache?"}},
		{"formal", "", []string{"--format", "formal", "--max-rounds", "1", "Should cities ban cars?"}},
		{"duelogic", "", []string{"--max-rounds", "3", "Should we use GraphQL or REST?"}},
	}
	clock := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	for _, f := range flows {
		t.Run(f.name, func(t *testing.T) {
			golden := filepath.Join("testdata", f.name+".golden")
			var want string
			if !*update {
				b, err := os.ReadFile(golden)
				if err != nil {
					t.Fatal(err)
				}
				want = string(b)
			}
			for _, v := range []struct {
				name       string
				slow, busy bool
			}{{"fast", false, false}, {"slow", true, false}, {"fast busy", false, true}, {"slow busy", true, true}} {
				t.Run(v.name, func(t *testing.T) {
					if v.busy {
						stop := hog()
						defer stop()
					}
					dir := t.TempDir()
					var out, errb bytes.Buffer
					var term io.Writer = &out
					if v.slow {
						term = slowTerminal{&out}
					}
					args := append([]string{"--store", filepath.Join(dir, "db"), "--out", filepath.Join(dir, "out")}, f.args...)
					code := runAt(t.Context(), now, args, strings.NewReader(f.stdin), term, &errb, func(string) string { return "" }, nil)
					got := fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", code, &out, &errb)
					got = strings.ReplaceAll(idRE.ReplaceAllString(got, "dl-ID"), dir, "DIR")
					if *update && want == "" {
						// The first run writes the file; the others
						// are compared with it.
						if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
							t.Fatal(err)
						}
						want = got
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("output differs from %s (-want +got):\n%s", golden, diff)
					}
				})
			}
		})
	}
}
