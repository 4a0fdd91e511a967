package riverjobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/jobs/riverjobs"
	"github.com/duelogic/duelogic/store"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/riverqueue/river/rivertype"
)

// work works one job of debate id with River's test worker, committed.
func work(t *testing.T, d *db, q *riverjobs.Queue, args riverjobs.Args) *rivertest.WorkResult {
	t.Helper()
	ctx := context.Background()
	tw := rivertest.NewWorker(t, riverpgxv5.New(d.pool), &river.Config{ID: "test-worker"}, q.Worker())
	var res *rivertest.WorkResult
	err := pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error {
		var err error
		res, err = tw.Work(ctx, t, tx, args, nil)
		return err
	})
	if err != nil && res == nil {
		t.Fatalf("work %s: %v", args.DebateID, err)
	}
	return res
}

// outputOf is a worked job's recorded output.
func outputOf(t *testing.T, job *rivertype.JobRow) map[string]string {
	t.Helper()
	var o map[string]string
	if err := json.Unmarshal(job.Output(), &o); err != nil {
		t.Fatalf("job %d output %s: %v", job.ID, job.Output(), err)
	}
	return o
}

// A job plays its debate, of any format, to its end with the host's model:
// the debate equals an uninterrupted run.
func TestWorkerPlaysEveryFormat(t *testing.T) {
	d := newDB(t)
	q := d.queue(t, riverjobs.Config{Model: stub(0)})
	for _, s := range mixed(len(engine.Formats()), "one") {
		t.Run(s.format, func(t *testing.T) {
			if _, err := q.Enqueue(context.Background(), s.format, s.config, s.debate); err != nil {
				t.Fatal(err)
			}
			res := work(t, d, q, riverjobs.Args{DebateID: s.debate.ID})
			if res.EventKind != river.EventKindJobCompleted {
				t.Fatalf("job: %s; want completed", res.EventKind)
			}
			if o := outputOf(t, res.Job); o["outcome"] != riverjobs.OutcomeFinished {
				t.Errorf("output %v; want finished", o)
			}
			checkDebate(t, d.st, s)
		})
	}
}

// stepClock is a clock that moves a second each time it is read.
type stepClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *stepClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

// An attempt plays for at most its limit: then the debate stops at its
// next step and the job is snoozed; the next attempts resume it (the log
// replays, no call is made twice) to the uninterrupted run's end.
func TestWorkerSnoozesAtTheAttemptLimit(t *testing.T) {
	d := newDB(t)
	clock := &stepClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	rep := newReports()
	q := d.queue(t, riverjobs.Config{Model: stub(0), AttemptLimit: 5 * time.Second, Clock: clock.now, Report: rep.add})
	s := mixed(1, "limit")[0]
	if _, err := q.Enqueue(context.Background(), s.format, s.config, s.debate); err != nil {
		t.Fatal(err)
	}
	attempts := 0
	var calls int64
	for {
		attempts++
		if attempts > 100 {
			t.Fatal("not finished after 100 attempts")
		}
		res := work(t, d, q, riverjobs.Args{DebateID: s.debate.ID})
		r := <-rep.ch
		calls += r.Calls
		if r.Calls > 4 {
			t.Errorf("attempt %d made %d calls; the limit lets at most 4 start", attempts, r.Calls)
		}
		if res.EventKind == river.EventKindJobCompleted {
			break
		}
		if res.EventKind != river.EventKindJobSnoozed {
			t.Fatalf("attempt %d: %s (%v); want snoozed or completed", attempts, res.EventKind, r.Err)
		}
	}
	if attempts < 3 {
		t.Errorf("finished in %d attempts; want the limit to split it", attempts)
	}
	checkDebate(t, d.st, s)
	ref := &counting{Client: stub(0)}
	f, _ := engine.Open(s.format, s.config)
	if _, err := engine.Run(context.Background(), ref, f, s.debate, engine.WithStore(store.NewMemory())); err != nil {
		t.Fatal(err)
	}
	// A yield can lose a call that ran beside the refused one (an
	// evaluation in flight): at most two per attempt that yielded.
	if extra := calls - ref.n.Load(); extra < 0 || extra > 2*int64(attempts-1) {
		t.Errorf("%d model calls over %d attempts; an uninterrupted run makes %d", calls, attempts, ref.n.Load())
	}
	t.Logf("%d model calls over %d attempts; an uninterrupted run makes %d", calls, attempts, ref.n.Load())
}

// A debate that asks its person completes its job as paused, which List
// shows; the person's answer enqueues it again and the worker gives it to
// the waiting question.
func TestWorkerPausesForItsPerson(t *testing.T) {
	d := newDB(t)
	q := d.queue(t, riverjobs.Config{Model: stub(0)})
	ctx := context.Background()
	// A vague question: the moderator asks what it means.
	if _, err := q.Enqueue(ctx, "moderated", nil, engine.Debate{ID: "vague", Proposition: "Redis?"}); err != nil {
		t.Fatal(err)
	}
	res := work(t, d, q, riverjobs.Args{DebateID: "vague"})
	if res.EventKind != river.EventKindJobCompleted || outputOf(t, res.Job)["outcome"] != riverjobs.OutcomePaused {
		t.Fatalf("job: %s, output %s; want completed as paused", res.EventKind, res.Job.Output())
	}
	// The job the enqueue made is still queued; cancel it to read the
	// status as the worker left it.
	if err := q.Cancel(ctx, "vague"); err != nil {
		t.Fatal(err)
	}
	if err := q.Requeue(ctx, "vague", &engine.Answer{Text: "a cache"}); err != nil {
		t.Fatal(err)
	}
	recs, _ := d.st.Records(ctx, "vague")
	pending, ok := engine.Pending(recs)
	if !ok || pending.Kind != engine.QuestionClarification {
		t.Fatalf("pending %+v %t; want the clarification", pending, ok)
	}
	res = work(t, d, q, riverjobs.Args{DebateID: "vague", Answer: &engine.Answer{Text: "Redis as the cache of the sessions"}})
	if res.EventKind != river.EventKindJobCompleted {
		t.Fatalf("answered: %s", res.EventKind)
	}
	after, _ := d.st.Records(ctx, "vague")
	if len(after) <= len(recs) {
		t.Fatalf("answered: %d records, were %d: the debate did not go on", len(after), len(recs))
	}
	evs, err := engine.Replay(after)
	if err != nil {
		t.Fatal(err)
	}
	answered := false
	for _, e := range evs {
		if e.Type != engine.EventAsked {
			continue
		}
		a, err := engine.DataAs[engine.Asked](e)
		if err == nil && a.Question.Kind == engine.QuestionClarification && !a.Paused && a.Answer.Text == "Redis as the cache of the sessions" {
			answered = true
		}
	}
	if !answered {
		t.Error("the clarification was not answered with the job's answer")
	}
	if err := q.Requeue(ctx, "one-duelogic-0", &engine.Answer{Text: "x"}); err == nil {
		t.Error("an answer for a debate that does not exist was taken")
	}
}

// A job whose debate cannot be played fails once, with the reason, and is
// not retried: a debate that is not stored, a format not linked in.
func TestWorkerFailsOnce(t *testing.T) {
	d := newDB(t)
	q := d.queue(t, riverjobs.Config{Model: stub(0)})
	ctx := context.Background()
	head := store.Record{DebateID: "alien", Seq: 1, Type: engine.RecordDebate, Time: time.Now(),
		Data: json.RawMessage(`{"key":"debate","value":{"version":2,"format":"nope","debate":{"id":"alien","proposition":"p"}}}`)}
	if err := d.st.Append(ctx, head); err != nil {
		t.Fatal(err)
	}
	// A damaged log: a formal debate whose stored configuration is not
	// formal's.
	damaged := store.Record{DebateID: "damaged", Seq: 1, Type: engine.RecordDebate, Time: time.Now(),
		Data: json.RawMessage(`{"key":"debate","value":{"version":2,"format":"formal","spec":{"rounds":"many"},"debate":{"id":"damaged","proposition":"p"}}}`)}
	if err := d.st.Append(ctx, damaged); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"missing", "alien", "damaged"} {
		t.Run(id, func(t *testing.T) {
			res := work(t, d, q, riverjobs.Args{DebateID: id})
			if res.EventKind != river.EventKindJobCancelled {
				t.Fatalf("job: %s; want cancelled, not retried", res.EventKind)
			}
			if o := outputOf(t, res.Job); o["outcome"] != riverjobs.OutcomeFailed || o["error"] == "" {
				t.Errorf("output %v; want failed with its reason", o)
			}
		})
	}
	list, err := q.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Status != riverjobs.StatusStopped || list[0].Error == "" || list[1].Status != riverjobs.StatusStopped || list[1].Error == "" {
		t.Errorf("list %+v; want alien and damaged stopped with their errors", list)
	}
	if st, err := q.Status(ctx, "damaged"); err != nil || st.Status != riverjobs.StatusStopped || !strings.Contains(st.Error, "damaged") {
		t.Errorf("status of damaged: %+v, %v; want stopped with its error", st, err)
	}
	if _, err := q.Status(ctx, "missing"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("status of a debate not stored: %v; want store.ErrNotFound", err)
	}
}

// A failed attempt is retried after 1 s, doubling up to a minute, however
// many attempts the job's rescues have counted (River's default would wait
// hours after a dozen).
func TestWorkerRetryDelay(t *testing.T) {
	d := newDB(t)
	w := d.queue(t, riverjobs.Config{Model: stub(0)}).Worker()
	tests := []struct {
		attempt int
		want    time.Duration
	}{
		{1, time.Second}, {2, 2 * time.Second}, {3, 4 * time.Second}, {6, 32 * time.Second},
		{7, time.Minute}, {11, time.Minute}, {25, time.Minute},
	}
	for _, tt := range tests {
		before := time.Now()
		at := w.NextRetry(&river.Job[riverjobs.Args]{JobRow: &rivertype.JobRow{Attempt: tt.attempt}})
		if got := at.Sub(before); got < tt.want || got > tt.want+time.Second {
			t.Errorf("attempt %d: retried after %v; want %v", tt.attempt, got, tt.want)
		}
	}
}

// A debate whose budget (the host's engine.WithBudget) is spent stops for
// good — its job is not retried, its status says stopped and why — and is
// played to its end, equal to an uninterrupted run, by workers with a
// larger budget.
func TestWorkerStopsAtTheBudget(t *testing.T) {
	d := newDB(t)
	ctx := context.Background()
	small := d.queue(t, riverjobs.Config{Model: stub(0), Options: func(string) []engine.Option {
		return []engine.Option{engine.WithBudget(engine.Budget{Tokens: 500})}
	}})
	s := mixed(1, "budget")[0]
	if _, err := small.Enqueue(ctx, s.format, s.config, s.debate); err != nil {
		t.Fatal(err)
	}
	res := work(t, d, small, riverjobs.Args{DebateID: s.debate.ID})
	if res.EventKind != river.EventKindJobCancelled {
		t.Fatalf("job: %s; want cancelled, not retried", res.EventKind)
	}
	if o := outputOf(t, res.Job); o["outcome"] != riverjobs.OutcomeFailed || !strings.Contains(o["error"], "budget") {
		t.Errorf("output %v; want failed at the budget", o)
	}
	if st, err := small.Status(ctx, s.debate.ID); err != nil || st.Status != riverjobs.StatusStopped || !strings.Contains(st.Error, "budget") {
		t.Errorf("status %+v, %v; want stopped at the budget", st, err)
	}
	// The job that played it (rivertest's) is final; played again by
	// workers without the limit, the debate finishes as if never stopped.
	large := d.queue(t, riverjobs.Config{Model: stub(0)})
	if res := work(t, d, large, riverjobs.Args{DebateID: s.debate.ID}); res.EventKind != river.EventKindJobCompleted {
		t.Fatalf("requeued job: %s; want completed", res.EventKind)
	}
	checkDebate(t, d.st, s)
}
