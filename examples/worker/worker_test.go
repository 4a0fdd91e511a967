package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/jobs/riverjobs"
	"github.com/duelogic/duelogic/store/pgstore"
	"github.com/duelogic/duelogic/store/pgstore/pgtest"
	"github.com/jackc/pgx/v5/pgxpool"
)

func noEnv(string) string { return "" }

// The command refuses what it cannot run with, before it connects.
func TestFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"no database", []string{"-stub"}, nil, "no database"},
		{"no model", []string{"-dsn", "postgres://x/y"}, nil, "no model"},
		{"stub and base URL", []string{"-dsn", "postgres://x/y", "-stub", "-base-url", "http://m"}, nil, "give one"},
		{"base URL not HTTP", []string{"-dsn", "postgres://x/y", "-base-url", "file:///etc/passwd"}, nil, "want an http"},
		{"no concurrency", []string{"-dsn", "postgres://x/y", "-stub", "-concurrency", "0"}, nil, "-concurrency 0"},
		{"negative limit", []string{"-dsn", "postgres://x/y", "-stub", "-provider-limit", "-1"}, nil, "-provider-limit"},
		{"negative rate", []string{"-dsn", "postgres://x/y", "-stub", "-provider-rate", "-1"}, nil, "-provider-rate"},
		{"zero attempt", []string{"-dsn", "postgres://x/y", "-stub", "-attempt", "0s"}, nil, "must be positive"},
		{"a stray argument", []string{"-dsn", "postgres://x/y", "-stub", "now"}, nil, "unexpected"},
		{"a price without rates", []string{"-dsn", "postgres://x/y", "-stub", "-price", "gpt-4o"}, nil, "MODEL=IN/OUT"},
		{"negative budget", []string{"-dsn", "postgres://x/y", "-stub", "-max-tokens", "-5"}, nil, "-max-tokens"},
		{"a cost limit without prices", []string{"-dsn", "postgres://x/y", "-stub", "-max-cost", "2"}, nil, "needs the models' prices"},
		{"OTLP not HTTP", []string{"-dsn", "postgres://x/y", "-stub", "-otlp", "localhost:4318"}, nil, "-otlp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string { return tt.env[k] }
			err := run(context.Background(), tt.args, io.Discard, io.Discard, getenv)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("run %q: %v; want an error saying %q", tt.args, err, tt.want)
			}
		})
	}
}

// lineWriter sends each line written to it.
type lineWriter struct {
	ch   chan string
	rest string
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.rest += string(p)
	for {
		i := strings.IndexByte(w.rest, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.ch <- w.rest[:i]
		w.rest = w.rest[i+1:]
	}
}

// enqueue queues a debate of every format in the database dsn names and
// returns their IDs.
func enqueue(t *testing.T, dsn string) map[string]bool {
	t.Helper()
	ctx := context.Background()
	st, err := pgstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	q, err := riverjobs.New(ctx, pool, riverjobs.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, f := range engine.Formats() {
		id, err := q.Enqueue(ctx, f, nil, engine.Debate{ID: "cmd-" + f, Proposition: "Should cities ban private cars?", Unattended: true})
		if err != nil {
			t.Fatal(err)
		}
		ids[id] = true
	}
	return ids
}

// The worker plays the queued debates of every format to their end,
// printing their lines, and stops when its context ends.
func TestWorkerPlaysQueuedDebates(t *testing.T) {
	dsn := pgtest.SchemaDSN(t, "worker_test")
	playAll(t, dsn, enqueue(t, dsn))
}

// With -provider-rate (and -provider-limit) the worker's calls keep to the
// provider's rate: each call's start is stamped in the database.
func TestWorkerProviderRate(t *testing.T) {
	dsn := pgtest.SchemaDSN(t, "worker_test")
	began := time.Now()
	calls := playAll(t, dsn, enqueue(t, dsn), "-provider-limit", "2", "-provider-rate", "100000")
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var stamped int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM duelogic_provider_calls WHERE provider = 'stub'`).Scan(&stamped); err != nil {
		t.Fatal(err)
	}
	// Within a minute no stamp has left the rate's window.
	if calls == 0 || stamped != calls && time.Since(began) < 50*time.Second {
		t.Errorf("%d calls stamped for the provider's rate; want the %d calls made", stamped, calls)
	}
}

// playAll runs the worker with args until it has played the debates ids to
// their end, then stops it, and returns the model calls it made.
func playAll(t *testing.T, dsn string, ids map[string]bool, args ...string) int {
	t.Helper()
	out := &lineWriter{ch: make(chan string, 100)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		args := append([]string{"-dsn", dsn, "-stub", "-stub-delay", "1ms", "-concurrency", "4", "-id", "test"}, args...)
		done <- run(ctx, args, out, io.Discard, noEnv)
	}()
	calls := 0
	played := map[string]bool{}
	verdicts := map[string]string{}
	timeout := time.After(time.Minute)
	for len(verdicts) < len(ids) {
		select {
		case l := <-out.ch:
			f := strings.Fields(l)
			switch {
			case len(f) == 3 && f[0] == "played":
				played[f[1]] = true
				n, err := strconv.Atoi(f[2])
				if err != nil {
					t.Fatalf("worker: %s", l)
				}
				calls += n
			case len(f) >= 2 && f[0] == "verdict":
				verdicts[f[1]] = strings.Join(f[2:], " ")
			case len(f) >= 2 && (f[0] == "failed" || f[0] == "retry"):
				t.Fatalf("worker: %s", l)
			}
		case err := <-done:
			t.Fatalf("the worker stopped: %v", err)
		case <-timeout:
			t.Fatalf("played %v after a minute; want %v", played, ids)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("the worker stopped with %v", err)
	}
	st, err := pgstore.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for id := range ids {
		sum, err := engine.Inspect(context.Background(), st, id)
		if err != nil || !sum.Finished || !played[id] || verdicts[id] == "" {
			t.Errorf("%s: finished %t, played %t, verdict %q, %v", id, sum.Finished, played[id], verdicts[id], err)
		}
	}
	return calls
}

const childEnv = "DUELOGIC_WORKER_CHILD" // the worker's arguments, tab-separated

// TestWorkerChild is a worker process when the tests start one.
func TestWorkerChild(t *testing.T) {
	args := os.Getenv(childEnv)
	if args == "" {
		t.Skip("run by the other tests as a worker process")
	}
	os.Args = append([]string{"worker"}, strings.Split(args, "\t")...)
	main()
	os.Exit(0)
}

// SIGTERM stops a worker process playing debates cleanly, within its
// -stop-timeout.
func TestWorkerSIGTERM(t *testing.T) {
	dsn := pgtest.SchemaDSN(t, "worker_test")
	enqueue(t, dsn)
	cmd := exec.Command(os.Args[0], "-test.run=^TestWorkerChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+strings.Join([]string{"-dsn", dsn, "-stub", "-stub-delay", "50ms", "-stop-timeout", "2s"}, "\t"))
	stderr, err := cmd.StderrPipe()
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
	sc := bufio.NewScanner(stderr)
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "worker: playing") {
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	var said []string
	for sc.Scan() {
		said = append(said, sc.Text())
	}
	err = cmd.Wait()
	if took := time.Since(sent); err != nil || took > 10*time.Second {
		t.Fatalf("after SIGTERM: %v, %v; want a clean exit within the stop timeout (%q)", err, took, said)
	}
	if len(said) == 0 || !strings.HasPrefix(said[0], "worker: stopping") {
		t.Errorf("stderr after SIGTERM %q; want it to say it stops", said)
	}
}
