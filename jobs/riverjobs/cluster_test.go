package riverjobs_test

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/jobs/riverjobs"
	"github.com/duelogic/duelogic/store/pgstore"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
)

// worker starts a worker with a store and a pool of its own, as another
// process would have, shut down after the test.
func (d *db) worker(t testing.TB, cfg riverjobs.Config) *riverjobs.Queue {
	t.Helper()
	ctx := context.Background()
	st, err := pgstore.Open(ctx, d.dsn)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.New(ctx, d.dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close(); st.Close() }) // after the shutdown below
	w := (&db{dsn: d.dsn, pool: pool, st: st}).queue(t, cfg)
	start(t, w)
	return w
}

// manyDebates is the number of debates TestManyWorkers plays:
// DUELOGIC_JOBS_DEBATES, or 40.
func manyDebates(t *testing.T) int {
	if s := os.Getenv("DUELOGIC_JOBS_DEBATES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("DUELOGIC_JOBS_DEBATES=%q: want a positive number", s)
		}
		return n
	}
	return 40
}

// Four workers play debates of every format with a 5 ms model, in short
// attempts that hop from worker to worker: each debate is played to its
// end exactly once and equals an uninterrupted run.
func TestManyWorkers(t *testing.T) {
	d := newDB(t)
	q := d.queue(t, riverjobs.Config{})
	rep := newReports()
	n := manyDebates(t)
	specs := mixed(n, "many")
	ids := map[string]bool{}
	for _, s := range specs {
		reference(t, s)
		if _, err := q.Enqueue(context.Background(), s.format, s.config, s.debate); err != nil {
			t.Fatal(err)
		}
		ids[s.debate.ID] = true
	}
	began := time.Now()
	for i := range 4 {
		d.worker(t, riverjobs.Config{ID: "w" + strconv.Itoa(i+1), Model: stub(5 * time.Millisecond), Concurrency: 4,
			AttemptLimit: time.Second, StopGrace: time.Second, Report: rep.add})
	}
	rep.waitFinished(t, ids)
	t.Logf("%d debates on 4 workers in %v", n, time.Since(began).Round(time.Millisecond))
	snoozes := 0
	for _, s := range specs {
		if c := rep.count(s.debate.ID, riverjobs.OutcomeFinished); c != 1 {
			t.Errorf("%s finished %d times; want once", s.debate.ID, c)
		}
		snoozes += rep.count(s.debate.ID, riverjobs.OutcomeSnoozed)
		checkDebate(t, d.st, s)
	}
	t.Logf("%d attempts snoozed at their limit", snoozes)
	list, err := q.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list {
		if s.Status != riverjobs.StatusFinished {
			t.Errorf("%s: %s; want finished", s.DebateID, s.Status)
		}
	}
}

// sinkFunc is an engine.EventSink.
type sinkFunc func(ctx context.Context, e engine.Event)

func (f sinkFunc) Emit(ctx context.Context, e engine.Event) { f(ctx, e) }

// Cancelling running debates from another process stops each within a
// second — the model call under way is abandoned, what was said stays —
// List shows them cancelled, and Requeue plays each on to the end of an
// uninterrupted run.
func TestCancelRunningDebates(t *testing.T) {
	d := newDB(t)
	q := d.queue(t, riverjobs.Config{})
	rep := newReports()
	const n = 10
	specs := mixed(n, "cancel")
	ids := map[string]bool{}
	for i := range specs {
		specs[i].format, specs[i].config = "duelogic", json.RawMessage(`{"flow":{"maxExchanges":3}}`)
		specs[i].debate.ID = "cancel-" + strconv.Itoa(i)
		reference(t, specs[i])
		if _, err := q.Enqueue(context.Background(), specs[i].format, specs[i].config, specs[i].debate); err != nil {
			t.Fatal(err)
		}
		ids[specs[i].debate.ID] = true
	}
	spoke := make(chan string, 100*n)
	cfg := riverjobs.Config{Model: stub(50 * time.Millisecond), Concurrency: n / 2, AttemptLimit: time.Minute, Report: rep.add,
		Options: func(id string) []engine.Option {
			return []engine.Option{engine.WithSink(sinkFunc(func(_ context.Context, e engine.Event) {
				if e.Type == engine.EventUtterance {
					spoke <- id
				}
			}))}
		}}
	var events [2]<-chan *river.Event
	for i := range events {
		cfg.ID = "c" + strconv.Itoa(i+1)
		ch, cancel := d.worker(t, cfg).Client().Subscribe(river.EventKindJobCancelled)
		t.Cleanup(cancel)
		events[i] = ch
	}
	// Cancel each once it has said something.
	asked := map[string]time.Time{}
	for len(asked) < n {
		id := <-spoke
		if _, ok := asked[id]; ok {
			continue
		}
		asked[id] = time.Now()
		if err := q.Cancel(context.Background(), id); err != nil {
			t.Fatalf("cancel %s: %v", id, err)
		}
	}
	stopped := map[string]bool{}
	timeout := time.After(time.Minute)
	var slowest time.Duration
	for len(stopped) < n {
		select {
		case r := <-rep.ch:
			if stopped[r.DebateID] {
				continue
			}
			if r.Outcome != riverjobs.OutcomeCancelled {
				t.Fatalf("%s: %s (%v); want cancelled", r.DebateID, r.Outcome, r.Err)
			}
			took := time.Since(asked[r.DebateID])
			slowest = max(slowest, took)
			if took > time.Second {
				t.Errorf("%s stopped %v after its cancel; want within a second", r.DebateID, took)
			}
			stopped[r.DebateID] = true
		case <-timeout:
			t.Fatalf("%d of %d debates stopped after a minute", len(stopped), n)
		}
	}
	t.Logf("the slowest of %d debates stopped %v after its cancel", n, slowest)
	// River has marked their jobs cancelled.
	for range n {
		select {
		case <-events[0]:
		case <-events[1]:
		case <-timeout:
			t.Fatal("jobs not cancelled after a minute")
		}
	}
	list, err := q.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list {
		if s.Status != riverjobs.StatusCancelled {
			t.Errorf("%s: %s; want cancelled", s.DebateID, s.Status)
		}
	}
	for id := range ids {
		if err := q.Requeue(context.Background(), id, nil); err != nil {
			t.Fatal(err)
		}
	}
	rep.waitFinished(t, ids)
	for _, s := range specs {
		checkDebate(t, d.st, s)
	}
}
