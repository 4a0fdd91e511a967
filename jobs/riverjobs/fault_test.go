package riverjobs_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/duelogic/duelogic/jobs/riverjobs"
	"github.com/duelogic/duelogic/llm"
	"github.com/riverqueue/river"
)

// pgCtl stops or starts the test's PostgreSQL server with the script
// .ci/postgres.sh exports as DUELOGIC_PG_CTL.
func pgCtl(t *testing.T, action string) {
	t.Helper()
	out, err := exec.Command(os.Getenv("DUELOGIC_PG_CTL"), action).CombinedOutput()
	if err != nil {
		t.Fatalf("%s the database: %v\n%s", action, err, out)
	}
}

// The database goes away in the middle of debates (the server is stopped):
// each attempt under way stops with an error naming the database, the
// worker logs it and waits; when the server is back the debates are picked
// up again and finish equal to uninterrupted runs.
func TestDatabaseGoesAway(t *testing.T) {
	if os.Getenv("DUELOGIC_PG_CTL") == "" {
		t.Skip("DUELOGIC_PG_CTL is not set: the test stops and starts the server of .ci/postgres.sh")
	}
	if testing.Short() {
		t.Skip("stops the database server")
	}
	d := newDB(t)
	q := d.queue(t, riverjobs.Config{})
	ctx := context.Background()
	const n = 4
	specs := mixed(n, "away")
	ids := map[string]bool{}
	for i := range specs {
		specs[i].format, specs[i].config = "duelogic", json.RawMessage(`{"flow":{"maxExchanges":3}}`)
		reference(t, specs[i])
		if _, err := q.Enqueue(ctx, specs[i].format, specs[i].config, specs[i].debate); err != nil {
			t.Fatal(err)
		}
		ids[specs[i].debate.ID] = true
	}
	var calls atomic.Int64
	model := stub(20 * time.Millisecond)
	reached := make(chan struct{})
	model.onCall = func(llm.Request) {
		if calls.Add(1) == 3*n {
			close(reached)
		}
	}
	rep := newReports()
	logs := &syncBuffer{}
	w := d.worker(t, riverjobs.Config{ID: "away", Model: model, Concurrency: n, Report: rep.add,
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	completed, unsubscribe := w.Client().Subscribe(river.EventKindJobCompleted)
	defer unsubscribe()

	// Stop the server once every debate has said something.
	select {
	case <-rep.ch:
		t.Fatal("an attempt ended before the database went away")
	case <-reached:
	}
	pgCtl(t, "stop")
	restarted := false
	defer func() {
		if !restarted {
			pgCtl(t, "start")
		}
	}()
	conf := d.pool.Config().ConnConfig
	name := conf.User + "@" + conf.Host
	stopped := map[string]bool{}
	timeout := time.After(time.Minute)
	for len(stopped) < n {
		select {
		case r := <-rep.ch:
			if r.Outcome != riverjobs.OutcomeRetry || r.Err == nil || !strings.Contains(r.Err.Error(), "database "+name) {
				t.Errorf("%s: %s, %v; want retried, naming the database %s", r.DebateID, r.Outcome, r.Err, name)
			}
			stopped[r.DebateID] = true
		case <-timeout:
			t.Fatalf("%d of %d attempts stopped a minute after the database went away", len(stopped), n)
		}
	}
	if l := logs.String(); !strings.Contains(l, "database "+name) {
		t.Errorf("the worker's log does not name the database:\n%s", l)
	}
	pgCtl(t, "start")
	restarted = true
	rep.waitFinished(t, ids)
	for _, s := range specs {
		checkDebate(t, d.st, s)
	}
	for range n {
		select {
		case <-completed:
		case <-time.After(time.Minute):
			t.Fatal("the jobs were not completed a minute after their debates finished")
		}
	}
	var rows int
	if err := d.pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE state = 'completed'`).Scan(&rows); err != nil || rows != n {
		t.Errorf("%d jobs completed, %v; want %d", rows, err, n)
	}
}
