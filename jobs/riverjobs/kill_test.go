package riverjobs_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/jobs/riverjobs"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/pgstore"
	"github.com/jackc/pgx/v5/pgxpool"
)

const childEnv = "DUELOGIC_RIVERJOBS_CHILD" // the child worker's database

// killConfig is the workers' configuration in TestKilledWorker: short
// attempts.
func killConfig(id string, model llm.Client) riverjobs.Config {
	return riverjobs.Config{ID: id, Model: model, Concurrency: 4, AttemptLimit: time.Second, StopGrace: time.Second,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

// TestKilledWorkerChild is the worker process TestKilledWorker kills: it
// prints "call" as each model call starts, and plays until killed.
func TestKilledWorkerChild(t *testing.T) {
	dsn := os.Getenv(childEnv)
	if dsn == "" {
		t.Skip("run by TestKilledWorker as its worker process")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	st, err := pgstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	model := stub(20 * time.Millisecond)
	model.onCall = func(llm.Request) { fmt.Println("call") }
	cfg := killConfig("child", model)
	cfg.Store = st
	q, err := riverjobs.New(ctx, pool, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
	os.Exit(0)
}

// A worker killed (SIGKILL) in the middle of its debates: once a live
// worker rescues their jobs (its session lock is free), another worker
// finishes each, equal to an
// uninterrupted run; the calls made twice are only those in flight at the
// kill.
func TestKilledWorker(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills a worker process")
	}
	d := newDB(t)
	q := d.queue(t, riverjobs.Config{})
	specs := mixed(4, "kill")
	ids := map[string]bool{}
	var refCalls int64
	for _, s := range specs {
		c := &counting{Client: llm.NewStub(1)}
		f, _ := engine.Open(s.format, s.config)
		if _, err := engine.Run(context.Background(), c, f, s.debate, engine.WithStore(store.NewMemory())); err != nil {
			t.Fatal(err)
		}
		refCalls += c.n.Load()
		if _, err := q.Enqueue(context.Background(), s.format, s.config, s.debate); err != nil {
			t.Fatal(err)
		}
		ids[s.debate.ID] = true
	}

	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWorkerChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+d.dsn)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	// Kill it once it has made some calls, with every debate started.
	var childCalls int64
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if sc.Text() == "call" {
			childCalls++
		}
		if childCalls == 12 {
			break
		}
	}
	list, err := q.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	running := 0
	for _, s := range list {
		if s.Status == riverjobs.StatusRunning && s.Worker == "child" {
			running++
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	rest, _ := io.ReadAll(out) // the calls started before it died
	for _, l := range splitLines(string(rest)) {
		if l == "call" {
			childCalls++
		}
	}
	cmd.Wait()
	if running == 0 {
		t.Fatalf("no debate was running on the child when it was killed: %+v", list)
	}

	var (
		firstCall sync.Once
		resumedIn time.Duration
		calls     atomic.Int64
	)
	model := stub(20 * time.Millisecond)
	model.onCall = func(llm.Request) {
		calls.Add(1)
		firstCall.Do(func() { resumedIn = time.Since(killed) })
	}
	rep := newReports()
	cfg := killConfig("survivor", model)
	cfg.Report = rep.add
	d.worker(t, cfg)
	rep.waitFinished(t, ids)
	for _, s := range specs {
		checkDebate(t, d.st, s)
	}
	twice := childCalls + calls.Load() - refCalls
	t.Logf("killed with %d debates running after %d calls; the survivor's first call %v after the kill; %d calls made twice (%d in all, %d uninterrupted)",
		running, childCalls, resumedIn.Round(time.Millisecond), twice, childCalls+calls.Load(), refCalls)
	// In flight at the kill: at most two calls per debate playing.
	if twice < 0 || twice > int64(2*running) {
		t.Errorf("%d calls made twice; want at most those in flight at the kill (%d debates)", twice, running)
	}
}

func splitLines(s string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}
