package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/pgstore"
	"github.com/duelogic/duelogic/store/pgstore/pgtest"
	"github.com/duelogic/duelogic/store/storetest"
	"github.com/google/go-cmp/cmp"
)

// schemaDSN returns a DSN on a new schema of the test database, dropped
// after the test (pgtest).
func schemaDSN(t *testing.T) string { return pgtest.SchemaDSN(t, "worker_test") }

func openStore(t *testing.T, dsn string) *pgstore.Store {
	t.Helper()
	st, err := pgstore.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	return st
}

// testConfig is a short podcast with evaluations and interruptions (no
// cooldown: the debate does not depend on the clock).
func testConfig() duelogic.Config {
	cfg := duelogic.DefaultConfig()
	cfg.Flow.MaxExchanges = 3
	cfg.Interruptions.CooldownSeconds = 0
	cfg.Interruptions.Aggressiveness = 5
	cfg.Arbiter.AccountabilityLevel = duelogic.Strict
	return cfg
}

type countingClient struct {
	llm.Client
	n atomic.Int64
}

func (c *countingClient) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	c.n.Add(1)
	return c.Client.Complete(ctx, req)
}

// Stream streams through the stub, as the worker does, so that the
// reference's interruptions cut mid-stream like the worker's.
func (c *countingClient) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	c.n.Add(1)
	return llm.Stream(ctx, c.Client, req, onDelta)
}

// reference plays the debate uninterrupted in memory: its result and its
// number of model calls.
func reference(t *testing.T, id string) (*duelogic.Result, int64) {
	t.Helper()
	c := &countingClient{Client: llm.NewStub(1)}
	o, err := duelogic.New(testConfig(), c, duelogic.WithStore(store.NewMemory()))
	if err != nil {
		t.Fatal(err)
	}
	res, err := o.Run(t.Context(), duelogic.Debate{ID: id, Proposition: "Should cities ban private cars?"})
	if err != nil {
		t.Fatal(err)
	}
	return res, c.n.Load()
}

var errStopped = errors.New("stopped by the test")

// post starts debate id in st and stops it after its first record: a
// debate posted for the workers.
func post(t *testing.T, st store.Store, id string) {
	t.Helper()
	o, err := duelogic.New(testConfig(), llm.NewStub(1), duelogic.WithStore(storetest.FailAfter(st, 1, errStopped)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.Run(t.Context(), duelogic.Debate{ID: id, Proposition: "Should cities ban private cars?"}); !errors.Is(err, errStopped) {
		t.Fatalf("post %s: %v", id, err)
	}
}

// finished resumes a debate that must be finished (no model call) and
// returns its result.
func finished(t *testing.T, st store.Store, id string) *duelogic.Result {
	t.Helper()
	c := &countingClient{Client: llm.NewStub(1)}
	o, err := duelogic.New(testConfig(), c, duelogic.WithStore(st))
	if err != nil {
		t.Fatal(err)
	}
	res, err := o.Resume(t.Context(), id)
	if err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	if n := c.n.Load(); n != 0 {
		t.Fatalf("%s is not finished: resuming it made %d model calls", id, n)
	}
	return res
}

// checkDebate checks a debate finished by workers against the uninterrupted
// run: the same transcript, each utterance recorded once.
func checkDebate(t *testing.T, st store.Store, id string, ref *duelogic.Result) {
	t.Helper()
	res := finished(t, st, id)
	if diff := cmp.Diff(ref.Transcript, res.Transcript); diff != "" {
		t.Fatalf("%s: transcript differs from an uninterrupted run (-want +got):\n%s", id, diff)
	}
	recs, err := st.Records(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	events, err := engine.Replay(recs)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range events {
		if e.Type == engine.EventUtterance {
			n++
		}
	}
	if n != len(ref.Transcript) {
		t.Fatalf("%s: %d utterance records, want %d: an utterance was recorded twice", id, n, len(ref.Transcript))
	}
}

const childEnv = "DUELOGIC_WORKER_CHILD" // the worker's arguments, tab-separated

// TestWorkerChild is a worker process when the tests start one.
func TestWorkerChild(t *testing.T) {
	args := os.Getenv(childEnv)
	if args == "" {
		t.Skip("run by the other tests as a worker process")
	}
	if err := run(context.Background(), strings.Split(args, "\t"), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// startWorker starts a worker process; lines receives what it prints.
func startWorker(t *testing.T, dsn string, args ...string) (*exec.Cmd, <-chan string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestWorkerChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+strings.Join(append([]string{"-dsn", dsn}, args...), "\t"))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1024)
	go func() {
		defer close(lines)
		for sc := bufio.NewScanner(stdout); sc.Scan(); {
			lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, lines
}

// plays collects the "played <id> <calls>" lines of a worker until it ends.
func plays(lines <-chan string) map[string][]int64 {
	out := map[string][]int64{}
	for l := range lines {
		f := strings.Fields(l)
		if len(f) == 3 && f[0] == "played" {
			n, _ := strconv.ParseInt(f[2], 10, 64)
			out[f[1]] = append(out[f[1]], n)
		}
	}
	return out
}

// A worker killed with SIGKILL in the middle of a debate (20 trials, each
// at another model call) loses nothing: another worker finishes the debate,
// whose transcript is the uninterrupted one, without a seq gap or an
// utterance recorded twice.
func TestWorkerKilled(t *testing.T) {
	const trials = 20
	ref, calls := reference(t, "chaos")
	if calls < 4 {
		t.Fatalf("the debate makes %d model calls; too few to kill it mid-debate", calls)
	}
	for trial := range trials {
		t.Run(fmt.Sprint(trial), func(t *testing.T) {
			dsn := schemaDSN(t)
			st := openStore(t, dsn)
			post(t, st, "chaos")
			// Kill at call 2..calls-1, spread over the debate (a point may
			// come twice when the debate makes fewer calls than trials).
			at := 2 + (trial*7919)%int(calls-2)
			victim, lines := startWorker(t, dsn, "-v", "-delay", "1ms")
			want := fmt.Sprintf("call %d", at)
			for l := range lines {
				if l == want {
					break
				}
			}
			if err := victim.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			victim.Wait()
			go func() {
				for range lines {
				}
			}()
			sum, err := engine.Inspect(t.Context(), st, "chaos")
			if err != nil {
				t.Fatal(err)
			}
			if sum.Finished {
				t.Fatalf("the worker finished the debate before it was killed at call %d", at)
			}
			t.Logf("killed at call %d of %d, %d records stored", at, calls, sum.Records)
			rescuer, rlines := startWorker(t, dsn)
			played := plays(rlines)
			if err := rescuer.Wait(); err != nil {
				t.Fatalf("second worker: %v", err)
			}
			if len(played["chaos"]) != 1 {
				t.Fatalf("the second worker played the debate %d times, want once", len(played["chaos"]))
			}
			checkDebate(t, st, "chaos", ref)
		})
	}
}

// Four workers race for 100 debates: every debate is played once — its
// model calls are those of one uninterrupted run, made by one worker.
func TestWorkersRace(t *testing.T) {
	const debates, workers = 100, 4
	dsn := schemaDSN(t)
	st := openStore(t, dsn)
	ref, calls := reference(t, "x")
	ids := make([]string, debates)
	for i := range ids {
		ids[i] = fmt.Sprintf("race-%03d", i)
		post(t, st, ids[i])
	}
	var (
		mu  sync.Mutex
		all = map[string][]int64{}
		wg  sync.WaitGroup
	)
	cmds := make([]*exec.Cmd, workers)
	for w := range cmds {
		cmd, lines := startWorker(t, dsn)
		cmds[w] = cmd
		wg.Go(func() {
			p := plays(lines)
			mu.Lock()
			defer mu.Unlock()
			for id, ns := range p {
				all[id] = append(all[id], ns...)
			}
		})
	}
	for w, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("worker %d: %v", w, err)
		}
	}
	wg.Wait()
	busy := map[int]int{} // debates played by how many workers
	for _, id := range ids {
		var sum int64
		players := 0
		for _, n := range all[id] {
			sum += n
			if n > 0 {
				players++
			}
		}
		busy[players]++
		if sum != calls || players != 1 {
			t.Errorf("%s: %d model calls by %d workers; want %d by one", id, sum, players, calls)
		}
	}
	if left, err := st.Unfinished(t.Context()); err != nil || len(left) != 0 {
		t.Fatalf("Unfinished after the workers = %q, %v", left, err)
	}
	for _, id := range ids {
		checkDebate(t, st, id, ref) // the transcript holds no debate ID
	}
	t.Logf("%d debates, %d workers: debates by number of workers that made calls: %v", debates, workers, busy)
}
