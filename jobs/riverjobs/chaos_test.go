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
	"slices"
	"strconv"
	"strings"
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

// The chaos test's worker processes: the database, and the worker's ID.
const (
	chaosEnv   = "DUELOGIC_RIVERJOBS_CHAOS"
	chaosIDEnv = "DUELOGIC_RIVERJOBS_CHAOS_ID"
)

// envInt is the environment variable name as a positive number, or def.
func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	if s := os.Getenv(name); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a positive number", name, s)
		}
		return n
	}
	return def
}

// debateModel prints "call <debate>" as each model call starts.
type debateModel struct{ *slow }

func (m debateModel) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	id, _ := engine.DebateOf(ctx)
	fmt.Println("call " + id)
	return m.slow.Complete(ctx, req)
}

func (m debateModel) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	id, _ := engine.DebateOf(ctx)
	fmt.Println("call " + id)
	return m.slow.Stream(ctx, req, onDelta)
}

// TestChaosChild is a worker process of TestChaos: a 5 ms model, four
// debates at once, short attempts; it plays until killed or SIGTERM.
func TestChaosChild(t *testing.T) {
	dsn := os.Getenv(chaosEnv)
	if dsn == "" {
		t.Skip("run by TestChaos as its worker process")
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
	q, err := riverjobs.New(ctx, pool, riverjobs.Config{ID: os.Getenv(chaosIDEnv), Store: st, Model: debateModel{stub(5 * time.Millisecond)},
		Concurrency: 4, AttemptLimit: 2 * time.Second, StopGrace: 2 * time.Second,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
	q.Shutdown(5 * time.Second)
	os.Exit(0)
}

// call is a model call a worker process started.
type call struct {
	worker, debate string
	at             time.Time
}

// kill is a worker killed, and the debates it was playing.
type kill struct {
	worker  string
	at      time.Time
	debates []string
}

// TestChaos: issue 25's chaos tests. Four worker processes play 100
// debates of every format with a 5 ms model (DUELOGIC_JOBS_DEBATES),
// while the test kills a worker playing debates (SIGKILL) 20 times
// (DUELOGIC_JOBS_KILLS) and starts another in its place: each debate is
// finished once, equal to an uninterrupted run; the calls made twice are
// at most two per debate playing on a killed worker; it reports the time
// from each kill to the next model call of each of its debates.
func TestChaos(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills worker processes for a minute")
	}
	n := envInt(t, "DUELOGIC_JOBS_DEBATES", 100)
	kills := envInt(t, "DUELOGIC_JOBS_KILLS", 20)
	d := newDB(t)
	q := d.queue(t, riverjobs.Config{})
	ctx := context.Background()
	specs := mixed(n, "chaos")
	var refCalls int64
	for _, s := range specs {
		c := &counting{Client: llm.NewStub(1)}
		f, _ := engine.Open(s.format, s.config)
		res, err := engine.Run(ctx, c, f, s.debate, engine.WithStore(store.NewMemory()))
		if err != nil {
			t.Fatal(err)
		}
		referenceCache.Store(s.debate.ID, res)
		refCalls += c.n.Load()
		if _, err := q.Enqueue(ctx, s.format, s.config, s.debate); err != nil {
			t.Fatal(err)
		}
	}

	calls := make(chan call, 1<<16)
	type proc struct {
		id   string
		cmd  *exec.Cmd
		done chan struct{} // its output is read
	}
	var procs []*proc
	spawn := func(id string) *proc {
		cmd := exec.Command(os.Args[0], "-test.run=^TestChaosChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), chaosEnv+"="+d.dsn, chaosIDEnv+"="+id)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		p := &proc{id: id, cmd: cmd, done: make(chan struct{})}
		go func() {
			defer close(p.done)
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				if debate, ok := strings.CutPrefix(sc.Text(), "call "); ok {
					calls <- call{id, debate, time.Now()}
				}
			}
		}()
		procs = append(procs, p)
		return p
	}
	t.Cleanup(func() {
		for _, p := range procs {
			if p.cmd.ProcessState == nil {
				p.cmd.Process.Kill()
				p.cmd.Wait()
			}
		}
	})
	alive := []*proc{spawn("w1"), spawn("w2"), spawn("w3"), spawn("w4")}
	began := time.Now()

	var killed []kill
	tick := time.NewTicker(700 * time.Millisecond)
	defer tick.Stop()
	timeout := time.After(3 * time.Minute)
	for done := false; !done; {
		select {
		case <-timeout:
			rows, _ := d.pool.Query(ctx, `SELECT args->>'debate_id', state::text, attempt, attempted_by::text, scheduled_at::text, errors::text FROM river_job WHERE state <> 'completed'`)
			for rows.Next() {
				var id, state, by, sched, errs string
				var attempt int
				rows.Scan(&id, &state, &attempt, &by, &sched, &errs)
				t.Logf("%s: %s attempt %d by %s scheduled %s errors %.2000s", id, state, attempt, by, sched, errs)
			}
			t.Fatalf("not every debate finished after 3 minutes; %d kills", len(killed))
		case <-tick.C:
		}
		list, err := q.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		done = !slices.ContainsFunc(list, func(s riverjobs.Status) bool { return s.Status != riverjobs.StatusFinished })
		if done || len(killed) == kills {
			continue
		}
		// Kill the worker that plays the most debates now.
		playing := map[string][]string{}
		for _, s := range list {
			if s.Status == riverjobs.StatusRunning {
				playing[s.Worker] = append(playing[s.Worker], s.DebateID)
			}
		}
		i := -1
		for j, p := range alive {
			if len(playing[p.id]) > 0 && (i < 0 || len(playing[p.id]) > len(playing[alive[i].id])) {
				i = j
			}
		}
		if i < 0 {
			continue
		}
		victim := alive[i]
		if err := victim.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		killed = append(killed, kill{victim.id, time.Now(), playing[victim.id]})
		victim.cmd.Wait()
		alive[i] = spawn("w" + strconv.Itoa(4+len(killed)))
	}
	elapsed := time.Since(began)
	for _, p := range alive {
		p.cmd.Process.Signal(syscall.SIGTERM)
	}
	for _, p := range procs {
		p.cmd.Wait()
		<-p.done
	}
	close(calls)
	var all []call
	for c := range calls {
		all = append(all, c)
	}

	if len(killed) < kills {
		t.Errorf("%d kills before the debates finished; want %d", len(killed), kills)
	}
	for _, s := range specs {
		checkDebate(t, d.st, s)
	}
	// From each kill to the rescue of each of its debates' jobs (the time
	// the rescue wrote in the job's errors), and to the debate's next call
	// on another worker. A debate whose attempt ended between the test's
	// list and the kill had left the worker: it is not counted.
	var rescues, resumes []time.Duration
	inFlight, left := 0, 0
	for _, k := range killed {
		inFlight += 2 * len(k.debates)
		for _, id := range k.debates {
			var at *time.Time
			err := d.pool.QueryRow(ctx, `SELECT min((e->>'at')::timestamptz) FROM river_job, unnest(errors) e
				WHERE args->>'debate_id' = $1 AND e->>'error' LIKE 'riverjobs: rescued: its worker ' || $2 || ' %'`, id, k.worker).Scan(&at)
			if err != nil {
				t.Fatal(err)
			}
			if at == nil {
				left++
				continue
			}
			rescues = append(rescues, at.Sub(k.at))
			i := slices.IndexFunc(all, func(c call) bool { return c.debate == id && c.worker != k.worker && c.at.After(k.at) })
			if i >= 0 { // else it had no call left to make
				resumes = append(resumes, all[i].at.Sub(k.at))
			}
		}
	}
	slices.Sort(rescues)
	slices.Sort(resumes)
	if len(killed) > 0 && len(rescues) <= left {
		t.Errorf("%d debates of the killed workers rescued by a live worker, %d not; want most rescued", len(rescues), left)
	}
	if m := len(rescues); m > 0 {
		t.Logf("kill → its debates' jobs rescued, over %d debates (%d more had left the worker): median %v, max %v",
			m, left, rescues[m/2].Round(time.Millisecond), rescues[m-1].Round(time.Millisecond))
		if rescues[m-1] > 3*time.Second {
			t.Errorf("a killed worker's job was rescued %v after the kill; want within 3 s", rescues[m-1])
		}
	}
	if m := len(resumes); m > 0 {
		t.Logf("kill → the debate's next model call on another worker, over %d debates: median %v, max %v",
			m, resumes[m/2].Round(time.Millisecond), resumes[m-1].Round(time.Millisecond))
		if resumes[m-1] > 10*time.Second {
			t.Errorf("a killed worker's debate was resumed %v after the kill; want within 10 s", resumes[m-1])
		}
	}
	twice := int64(len(all)) - refCalls
	t.Logf("%d debates, 4 workers, %d kills in %v; %d model calls, %d uninterrupted: %d made twice (at most %d in flight at the kills)",
		n, len(killed), elapsed.Round(time.Millisecond), len(all), refCalls, twice, inFlight)
	if twice < 0 || twice > int64(inFlight) {
		t.Errorf("%d calls made twice; want at most those in flight at the kills (%d)", twice, inFlight)
	}
}
