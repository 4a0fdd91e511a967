package riverjobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/riverqueue/river"
)

// errYield refuses the model calls of an attempt whose time is up, or of a
// worker that stops: the debate stops before its next step.
var errYield = errors.New("riverjobs: the attempt yields: its time is up or the worker stops")

// lockedSnooze is how long a job waits whose debate another process plays
// (a CLI, a web page, or a worker whose lock the database has not yet
// freed).
const lockedSnooze = 5 * time.Second

// output is what a job records in its metadata ("output"), for List.
type output struct {
	// Outcome is the attempt's: one of the Outcome constants.
	Outcome string `json:"outcome"`
	// Question is the kind of question a paused debate waits for.
	Question string `json:"question,omitempty"`
	// Error is why a failed job failed.
	Error string `json:"error,omitempty"`
}

// worker is the River worker of the debates' jobs.
type worker struct {
	river.WorkerDefaults[Args]
	q *Queue
	// drain is closed when the worker stops (Queue.Shutdown): attempts
	// yield at their next step, and calls waiting for a provider's slot
	// or rate stop waiting.
	drain     chan struct{}
	drainOnce sync.Once
}

// stop closes drain, once.
func (w *worker) stop() { w.drainOnce.Do(func() { close(w.drain) }) }

// draining reports whether the worker stops.
func (w *worker) draining() bool {
	select {
	case <-w.drain:
		return true
	default:
		return false
	}
}

// yieldKey is the context key of the channel that says an attempt's model
// calls should stop waiting for a provider (see yieldOf).
type yieldKey struct{}

// yieldOf returns the channel closed when the attempt whose model call ctx
// belongs to yields: a call waiting for a slot or the rate stops waiting
// then. Outside an attempt it is nil, which never fires.
func yieldOf(ctx context.Context) <-chan struct{} {
	ch, _ := ctx.Value(yieldKey{}).(<-chan struct{})
	return ch
}

// Timeout is an attempt's limit and the grace of its calls under way.
func (w *worker) Timeout(*river.Job[Args]) time.Duration {
	return w.q.cfg.AttemptLimit + w.q.cfg.StopGrace
}

// maxRetryDelay bounds the wait before a failed attempt is retried.
const maxRetryDelay = time.Minute

// NextRetry is when an attempt that failed (a model or database error) is
// retried: after 1 s, doubling with each attempt up to maxRetryDelay.
// River's default grows with the attempt's fourth power, and every rescue
// of a killed worker's job counts as an attempt: a debate whose workers
// were killed a few times would wait hours for its next error's retry.
func (w *worker) NextRetry(job *river.Job[Args]) time.Time {
	delay := maxRetryDelay
	if n := job.Attempt - 1; n < 6 {
		delay = min(time.Second<<max(n, 0), maxRetryDelay)
	}
	return w.q.cfg.Clock().Add(delay)
}

// Work plays the job's debate for one attempt.
func (w *worker) Work(ctx context.Context, job *river.Job[Args]) error {
	id := job.Args.DebateID
	rep := Report{DebateID: id}
	err := w.play(ctx, job, &rep)
	if w.q.cfg.Report != nil {
		w.q.cfg.Report(rep)
	}
	return err
}

// play plays the debate and fills rep; its error is what River makes of
// the attempt.
func (w *worker) play(ctx context.Context, job *river.Job[Args], rep *Report) error {
	id := job.Args.DebateID
	recs, err := w.q.st.Records(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return w.fail(ctx, rep, fmt.Errorf("no debate %s in the store", id))
	case err != nil:
		return w.retry(rep, fmt.Errorf("riverjobs: debate %s: %w", id, err))
	}
	sum, err := engine.Summarize(recs)
	if err != nil {
		return w.fail(ctx, rep, fmt.Errorf("debate %s: %w", id, err))
	}
	human := engine.Human(absent)
	if q, ok := engine.Pending(recs); ok {
		if job.Args.Answer == nil {
			// It waits for its person already: nothing to play.
			return w.paused(ctx, rep, q)
		}
		human = &answerOnce{q: q, a: *job.Args.Answer}
	}
	g := &gate{Client: w.q.cfg.Model, w: w, until: w.q.cfg.Clock().Add(w.q.cfg.AttemptLimit)}
	opts := []engine.Option{engine.WithStore(w.q.st)}
	if !legacyUnattended(sum.Spec) {
		opts = append(opts, engine.WithHuman(human))
	}
	if w.q.cfg.Options != nil {
		opts = append(opts, w.q.cfg.Options(id)...)
	}
	res, err := engine.ResumeStored(ctx, g, id, opts...)
	rep.Calls = g.calls.Load()
	switch {
	case err == nil:
		rep.Outcome = OutcomeFinished
		if res.Detail != nil {
			rep.Verdict = res.Detail.Verdict().Summary
		}
		return record(ctx, output{Outcome: OutcomeFinished})
	case errors.Is(err, engine.ErrPaused):
		q, _ := pendingOf(ctx, w, id)
		return w.paused(ctx, rep, q)
	case errors.Is(context.Cause(ctx), context.DeadlineExceeded):
		// River's job timeout: a call outlasted the attempt and its
		// grace. River retries the job.
		return w.retry(rep, fmt.Errorf("riverjobs: debate %s: %w", id, err))
	case ctx.Err() != nil:
		// Cancelled (Queue.Cancel), or the worker stops hard: River
		// reads why from the context.
		rep.Outcome, rep.Err = OutcomeCancelled, err
		return err
	case errors.Is(err, errYield):
		rep.Outcome = OutcomeSnoozed
		return river.JobSnooze(0)
	case errors.Is(err, store.ErrLocked), errors.Is(err, engine.ErrAlreadyRunning):
		rep.Outcome, rep.Err = OutcomeSnoozed, err
		return river.JobSnooze(lockedSnooze)
	case errors.Is(err, engine.ErrUnknownFormat), errors.Is(err, engine.ErrCorruptLog),
		errors.Is(err, store.ErrCorrupt), errors.Is(err, engine.ErrInvalidConfig):
		return w.fail(ctx, rep, err)
	case errors.Is(err, engine.ErrBudget):
		// The host's budget (engine.WithBudget in Config.Options) is
		// spent: another attempt would stop at once. The debate stays
		// stopped, everything said kept, until it is queued again
		// (Queue.Requeue) by workers with a larger budget.
		return w.fail(ctx, rep, err)
	}
	return w.retry(rep, fmt.Errorf("riverjobs: debate %s: %w", id, err))
}

// pendingOf reads the question debate id waits for.
func pendingOf(ctx context.Context, w *worker, id string) (engine.Question, bool) {
	recs, err := w.q.st.Records(context.WithoutCancel(ctx), id)
	if err != nil {
		return engine.Question{}, false
	}
	return engine.Pending(recs)
}

// paused completes the job of a debate that waits for its person.
func (w *worker) paused(ctx context.Context, rep *Report, q engine.Question) error {
	rep.Outcome = OutcomePaused
	return record(ctx, output{Outcome: OutcomePaused, Question: q.Kind})
}

// fail ends the job for good (no retry): err says why.
func (w *worker) fail(ctx context.Context, rep *Report, err error) error {
	rep.Outcome, rep.Err = OutcomeFailed, err
	w.q.cfg.Logger.Error("riverjobs: debate cannot be played", "debate", rep.DebateID, "err", err)
	if rerr := record(ctx, output{Outcome: OutcomeFailed, Error: err.Error()}); rerr != nil {
		return rerr
	}
	return river.JobCancel(err)
}

// retry lets River retry the job with its backoff.
func (w *worker) retry(rep *Report, err error) error {
	if isDBError(err) {
		err = fmt.Errorf("%w (database %s)", err, dbName(w.q))
	}
	rep.Outcome, rep.Err = OutcomeRetry, err
	w.q.cfg.Logger.Warn("riverjobs: attempt failed; River retries it", "debate", rep.DebateID, "err", err)
	return err
}

// record stores o as the job's output.
func record(ctx context.Context, o output) error {
	if err := river.RecordOutput(ctx, o); err != nil {
		return fmt.Errorf("riverjobs: record the job's output: %w", err)
	}
	return nil
}

// absent is the person of a debate a worker plays: not here. Every
// question pauses the debate (stored), for the person who started it.
var absent = engine.HumanFunc(func(context.Context, engine.Question) (engine.Answer, error) {
	return engine.Answer{}, fmt.Errorf("%w: the worker leaves the question to the debate's person", engine.ErrPaused)
})

// answerOnce answers the question the debate waited for when its job
// started with the answer the job brought; any later question pauses.
type answerOnce struct {
	q    engine.Question
	a    engine.Answer
	used bool
}

// Ask answers the first question once, if it is the one waited for.
func (h *answerOnce) Ask(ctx context.Context, q engine.Question) (engine.Answer, error) {
	if !h.used && q.Kind == h.q.Kind && q.Text == h.q.Text {
		h.used = true
		return h.a, nil
	}
	return absent(ctx, q)
}

// legacyUnattended reports whether spec, a debate's stored configuration,
// is the wrapper earlier versions of the web page stored for a moderated
// debate started with checkpoints off — {"config": {...}, "unattended":
// true} — rather than engine.Debate.Unattended: such a debate is played
// with nobody to ask, to its end.
func legacyUnattended(spec json.RawMessage) bool {
	var w struct {
		Config     json.RawMessage `json:"config"`
		Unattended bool            `json:"unattended"`
	}
	return json.Unmarshal(spec, &w) == nil && w.Unattended && len(w.Config) > 0
}

// gate is the model of one attempt: it refuses new calls once the
// attempt's time is up or the worker stops, and counts those it lets
// through.
type gate struct {
	llm.Client
	w     *worker
	until time.Time
	calls atomic.Int64
}

// open lets a call through, unless the attempt yields, and returns its
// context, which tells a limited client when to stop waiting (yieldOf).
func (g *gate) open(ctx context.Context) (context.Context, error) {
	if g.w.draining() || !g.w.q.cfg.Clock().Before(g.until) {
		return ctx, errYield
	}
	g.calls.Add(1)
	return context.WithValue(ctx, yieldKey{}, (<-chan struct{})(g.w.drain)), nil
}

// Complete calls the model unless the attempt yields.
func (g *gate) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	ctx, err := g.open(ctx)
	if err != nil {
		return llm.Response{}, err
	}
	return g.Client.Complete(ctx, req)
}

// Stream streams through the model when it streams, unless the attempt
// yields.
func (g *gate) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	ctx, err := g.open(ctx)
	if err != nil {
		return llm.Response{}, err
	}
	return llm.Stream(ctx, g.Client, req, onDelta)
}

// isDBError reports whether err came from the database or the connection
// to it (rather than from the model): River retries the attempt once the
// database is back.
func isDBError(err error) bool {
	var (
		pe *pgconn.PgError
		ce *pgconn.ConnectError
	)
	return errors.As(err, &pe) || errors.As(err, &ce) || pgconn.SafeToRetry(err) || pgconn.Timeout(err)
}
