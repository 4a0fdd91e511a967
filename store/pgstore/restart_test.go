package pgstore_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
	"github.com/google/go-cmp/cmp"
)

// pgCtl returns the script that stops, starts and restarts the test
// database (.ci/postgres.sh exports it), or skips.
func pgCtl(t *testing.T) string {
	t.Helper()
	baseDSN(t)
	script := os.Getenv("DUELOGIC_PG_CTL")
	if script == "" {
		if os.Getenv("DUELOGIC_REQUIRE_PG") == "1" {
			t.Fatal("DUELOGIC_PG_CTL is not set: .ci/postgres.sh sets it")
		}
		t.Skip("DUELOGIC_PG_CTL is not set: no script to stop the database (.ci/postgres.sh sets it)")
	}
	return script
}

func ctl(t *testing.T, script, action string) {
	t.Helper()
	if out, err := exec.Command(script, action).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", script, action, err, out)
	}
}

// faulty is a model client that runs the database script with action
// before its call number at.
type faulty struct {
	llm.Client
	t              *testing.T
	script, action string
	at             int

	mu    sync.Mutex
	calls int
}

// Stream streams as the stub does (so the debate takes the path of an
// uninterrupted run: interruptions cut streams), after the same fault.
func (f *faulty) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	f.fault(ctx)
	return llm.Stream(ctx, f.Client, req, onDelta)
}

func (f *faulty) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	f.fault(ctx)
	return f.Client.Complete(ctx, req)
}

func (f *faulty) fault(ctx context.Context) {
	f.mu.Lock()
	f.calls++
	now := f.calls == f.at
	f.mu.Unlock()
	if now {
		if out, err := exec.CommandContext(ctx, f.script, f.action).CombinedOutput(); err != nil {
			f.t.Errorf("%s %s: %v\n%s", f.script, f.action, err, out)
		}
	}
}

// finishAndCompare resumes a debate, checks its log has no gap and its
// transcript is the uninterrupted one.
func finishAndCompare(t *testing.T, st store.Store, o *duelogic.Orchestrator, id string, want *duelogic.Result) {
	t.Helper()
	res, err := o.Resume(t.Context(), id)
	if err != nil {
		t.Fatalf("Resume: %v", err)
	}
	if diff := cmp.Diff(want.Transcript, res.Transcript); diff != "" {
		t.Fatalf("transcript differs from an uninterrupted run (-want +got):\n%s", diff)
	}
	recs, err := st.Records(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range recs {
		if r.Seq != int64(i+1) {
			t.Fatalf("record %d has seq %d", i, r.Seq)
		}
	}
}

// The database goes down in the middle of a debate: the debate stops with
// an error that names the store, what was committed stays, and once the
// database is back Resume finishes the debate as an uninterrupted run would
// have.
func TestDatabaseDown(t *testing.T) {
	script := pgCtl(t)
	dsn := schemaDSN(t)
	d := duelogic.Debate{ID: "down", Proposition: "Should cities ban private cars?"}
	ref := runPodcast(t, store.NewMemory(), d)

	st := open(t, dsn)
	client := &faulty{Client: stubClient(), t: t, script: script, action: "stop", at: 12}
	o, err := duelogic.New(podcastConfig(), client, duelogic.WithStore(st), duelogic.WithClock(clock()))
	if err != nil {
		t.Fatal(err)
	}
	started := false
	defer func() {
		if !started {
			ctl(t, script, "start") // for the tests after this one
		}
	}()
	_, err = o.Run(t.Context(), d)
	if err == nil {
		t.Fatal("the debate went on with the database down")
	}
	t.Logf("stopped by: %v", err)
	if !strings.Contains(err.Error(), "pgstore") {
		t.Errorf("error %q does not name the store", err)
	}
	ctl(t, script, "start")
	started = true
	recs, err := st.Records(t.Context(), d.ID)
	if err != nil {
		t.Fatalf("Records after the database came back: %v", err)
	}
	if len(recs) < 5 {
		t.Fatalf("%d records survived; want the ones committed before the database went down", len(recs))
	}
	t.Logf("%d records committed before the database went down", len(recs))
	finishAndCompare(t, st, o, d.ID, ref)
}

// The database restarts in the middle of a debate: the pool reconnects, or
// the debate stops with an error naming the store; either way nothing
// committed is lost and the finished debate is the uninterrupted one.
func TestDatabaseRestart(t *testing.T) {
	script := pgCtl(t)
	dsn := schemaDSN(t)
	d := duelogic.Debate{ID: "restarted", Proposition: "Should cities ban private cars?"}
	ref := runPodcast(t, store.NewMemory(), d)

	st := open(t, dsn)
	client := &faulty{Client: stubClient(), t: t, script: script, action: "restart", at: 12}
	o, err := duelogic.New(podcastConfig(), client, duelogic.WithStore(st), duelogic.WithClock(clock()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.Run(t.Context(), d); err != nil {
		t.Logf("stopped by: %v", err)
		if !strings.Contains(err.Error(), "pgstore") {
			t.Errorf("error %q does not name the store", err)
		}
	} else {
		t.Log("the pool reconnected: the debate went on")
	}
	finishAndCompare(t, st, o, d.ID, ref)
}
