package riverjobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/internal/sleep"
	"github.com/duelogic/duelogic/jobs/riverjobs"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/pgstore"
	"github.com/duelogic/duelogic/store/pgstore/pgtest"
	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"

	// The formats the tests play.
	_ "github.com/duelogic/duelogic"
	_ "github.com/duelogic/duelogic/formal"
	_ "github.com/duelogic/duelogic/moderated"
	_ "github.com/duelogic/duelogic/persuasion"
	_ "github.com/duelogic/duelogic/scored"
)

// db is a database of a test's own: a new schema, its pool and its store.
type db struct {
	dsn  string
	pool *pgxpool.Pool
	st   *pgstore.Store
}

func newDB(t testing.TB) *db {
	t.Helper()
	dsn := pgtest.SchemaDSN(t, "riverjobs_test")
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
	return &db{dsn: dsn, pool: pool, st: st}
}

// queue returns a Queue on the test's database; a worker is shut down
// after the test.
func (d *db) queue(t testing.TB, cfg riverjobs.Config) *riverjobs.Queue {
	t.Helper()
	cfg.Store = d.st
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	q, err := riverjobs.New(context.Background(), d.pool, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// start starts q's worker, shut down after the test.
func start(t testing.TB, q *riverjobs.Queue) {
	t.Helper()
	if err := q.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := q.Shutdown(10 * time.Second); err != nil {
			t.Error(err)
		}
	})
}

// proposition is the question of the tests' debates.
const proposition = "Should cities ban private cars?"

// spec is a debate of a format with its configuration.
type spec struct {
	format string
	config json.RawMessage
	debate engine.Debate
}

// mixed returns n debates of every format, round robin: short ones,
// unattended (nobody to ask), of IDs prefix-<i>.
func mixed(n int, prefix string) []spec {
	configs := map[string]string{
		"duelogic":   `{"flow":{"maxExchanges":3},"interruptions":{"cooldownSeconds":0,"aggressiveness":5}}`,
		"formal":     `{}`,
		"moderated":  `{}`,
		"persuasion": `{}`,
		"scored":     `{}`,
	}
	formats := engine.Formats()
	out := make([]spec, n)
	for i := range out {
		f := formats[i%len(formats)]
		out[i] = spec{f, json.RawMessage(configs[f]), engine.Debate{
			ID: prefix + "-" + f + "-" + strconv.Itoa(i), Proposition: proposition, Unattended: true,
		}}
	}
	return out
}

// referenceCache holds the reference runs by debate ID.
var referenceCache sync.Map

// reference plays s uninterrupted in memory with the stub: the result
// the queue's must equal, and its number of model calls.
func reference(t testing.TB, s spec) *engine.Result[engine.Outcome] {
	t.Helper()
	if r, ok := referenceCache.Load(s.debate.ID); ok {
		return r.(*engine.Result[engine.Outcome])
	}
	f, err := engine.Open(s.format, s.config)
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(context.Background(), llm.NewStub(1), f, s.debate, engine.WithStore(store.NewMemory()))
	if err != nil {
		t.Fatalf("reference %s: %v", s.debate.ID, err)
	}
	referenceCache.Store(s.debate.ID, res)
	return res
}

// checkDebate checks that the stored debate is finished (resuming it calls
// no model) with the reference's transcript and verdict.
func checkDebate(t testing.TB, st store.Store, s spec) {
	t.Helper()
	ref := reference(t, s)
	c := &counting{Client: llm.NewStub(1)}
	res, err := engine.ResumeStored(context.Background(), c, s.debate.ID, engine.WithStore(st))
	if err != nil {
		t.Errorf("%s: %v", s.debate.ID, err)
		return
	}
	if n := c.n.Load(); n != 0 {
		t.Errorf("%s is not finished: resuming it made %d model calls", s.debate.ID, n)
		return
	}
	if diff := cmp.Diff(said(ref.Transcript), said(res.Transcript)); diff != "" {
		t.Errorf("%s: transcript differs from an uninterrupted run (-want +got):\n%s", s.debate.ID, diff)
	}
	if got, want := res.Detail.Verdict(), ref.Detail.Verdict(); !cmp.Equal(got, want) {
		t.Errorf("%s: verdict %+v; want %+v", s.debate.ID, got, want)
	}
}

// counting counts the model calls it makes.
type counting struct {
	llm.Client
	n atomic.Int64
}

func (c *counting) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	c.n.Add(1)
	return c.Client.Complete(ctx, req)
}

// Stream streams through the model, as the worker does.
func (c *counting) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	c.n.Add(1)
	return llm.Stream(ctx, c.Client, req, onDelta)
}

// slow is a model that takes delay per call, calling onCall (when set)
// as each call starts.
type slow struct {
	llm.Client
	delay  time.Duration
	onCall func(req llm.Request)
}

func stub(delay time.Duration) *slow { return &slow{Client: llm.NewStub(1), delay: delay} }

func (s *slow) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if s.onCall != nil {
		s.onCall(req)
	}
	if err := sleep.For(ctx, s.delay); err != nil {
		return llm.Response{}, err
	}
	return s.Client.Complete(ctx, req)
}

// Stream streams the stub's answer after the delay.
func (s *slow) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	if s.onCall != nil {
		s.onCall(req)
	}
	if err := sleep.For(ctx, s.delay); err != nil {
		return llm.Response{}, err
	}
	return llm.Stream(ctx, s.Client, req, onDelta)
}

// reports collects a worker's reports.
type reports struct {
	mu   sync.Mutex
	list []riverjobs.Report
	ch   chan riverjobs.Report
}

func newReports() *reports { return &reports{ch: make(chan riverjobs.Report, 4096)} }

func (r *reports) add(rep riverjobs.Report) {
	r.mu.Lock()
	r.list = append(r.list, rep)
	r.mu.Unlock()
	r.ch <- rep
}

// count returns how many reports of debate id had the outcome.
func (r *reports) count(id, outcome string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, rep := range r.list {
		if rep.DebateID == id && rep.Outcome == outcome {
			n++
		}
	}
	return n
}

// waitFinished waits until every one of ids was reported finished (or
// failed), or fails after a minute.
func (r *reports) waitFinished(t testing.TB, ids map[string]bool) {
	t.Helper()
	left := len(ids)
	done := map[string]bool{}
	timeout := time.NewTimer(time.Minute)
	defer timeout.Stop()
	for left > 0 {
		select {
		case rep := <-r.ch:
			if ids[rep.DebateID] && !done[rep.DebateID] && (rep.Outcome == riverjobs.OutcomeFinished || rep.Outcome == riverjobs.OutcomeFailed) {
				done[rep.DebateID] = true
				left--
			}
		case <-timeout.C:
			t.Fatalf("%d debates not finished after a minute", left)
		}
	}
}

// refusing is a model that refuses every call.
type refusing struct{}

func (refusing) Complete(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, errRefused
}

var errRefused = errors.New("refused by the test")

// said is a transcript as comparable lines: each utterance without its Seq
// and ReplyTo, sorted. Formats that run turns side by side store them in an
// order that depends on timing; what was said does not.
func said(tr []engine.Utterance) []string {
	var lines []string
	for _, u := range tr {
		u.Seq, u.ReplyTo = 0, 0
		j, err := json.Marshal(u)
		if err != nil {
			panic(err)
		}
		lines = append(lines, string(j))
	}
	sort.Strings(lines)
	return lines
}
