package riverjobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/pgstore"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"
)

// Kind is the River job kind of a debate.
const Kind = "duelogic_debate"

// QueueName is the River queue the debates' jobs go to.
const QueueName = "duelogic"

// Args are a debate's job: the debate to play, and the answer to the
// question it waits for, if any.
type Args struct {
	// DebateID names the debate in the store; jobs are unique by it.
	DebateID string `json:"debate_id" river:"unique"`
	// Answer, when set, answers the question the debate waits for
	// ([engine.Pending]) when the job starts; a debate that waits for none
	// plays on without it.
	Answer *engine.Answer `json:"answer,omitempty"`
}

// Kind is [Kind].
func (Args) Kind() string { return Kind }

// unfinalized are the job states in which a debate's job is unique: one
// job at a time is queued or playing a debate; one completed (paused),
// cancelled or discarded leaves room for the next.
var unfinalized = []rivertype.JobState{
	rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable,
	rivertype.JobStateRunning, rivertype.JobStateScheduled,
}

// InsertOpts puts the job on [QueueName], unique by debate ID among the jobs
// not finalized.
func (Args) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueName, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: unfinalized}}
}

// Errors a [Queue] returns; callers branch on them with errors.Is.
var (
	// ErrQueued: the debate has a job queued or running already.
	ErrQueued = errors.New("riverjobs: debate already queued or running")
	// ErrNoJob: the debate has no job queued or running to cancel.
	ErrNoJob = errors.New("riverjobs: debate has no job queued or running")
	// ErrNotPaused: an answer was given for a debate that waits for none.
	ErrNotPaused = errors.New("riverjobs: debate waits for no answer")
)

// MaxConfigBytes is the largest configuration Enqueue takes.
const MaxConfigBytes = 64 << 10

// Defaults of [Config].
const (
	DefaultAttemptLimit = 2 * time.Minute
	DefaultStopGrace    = time.Minute
	DefaultConcurrency  = 4
)

// Config configures a [Queue].
type Config struct {
	// Store is the debates' store, on the database of the Queue's pool.
	Store *pgstore.Store
	// Model plays the debates. Nil: the Queue only enqueues, cancels and
	// lists (a web page, the CLI); set: it is a worker too (see Start).
	Model llm.Client
	// Concurrency is how many debates a worker plays at once
	// (DefaultConcurrency when 0).
	Concurrency int
	// AttemptLimit is how long an attempt plays a debate before it
	// starts no new model call and snoozes the job at the debate's next
	// step (DefaultAttemptLimit when 0).
	AttemptLimit time.Duration
	// StopGrace is how long the model calls under way when an attempt
	// ends may take (DefaultStopGrace when 0): River's job timeout is
	// AttemptLimit + StopGrace, and a job running longer than that and a
	// few seconds more is rescued from a worker that died
	// (RescueStuckJobsAfter).
	StopGrace time.Duration
	// ID names the worker in the job list ("running on ..."); default
	// the host name and process ID.
	ID string
	// Logger receives the worker's logs and River's warnings and errors
	// (nil: text on standard error).
	Logger *slog.Logger
	// RescueInterval is how often a worker makes the jobs of workers that
	// died available again (see rescue.go: a worker's database session
	// holds a lock that dies with it); DefaultRescueInterval when 0,
	// negative: never (River's own rescue, after RescueStuckJobsAfter and
	// up to 30 s more, is left).
	RescueInterval time.Duration
	// Clock is the time an attempt's limit is read on, and the time a
	// failed attempt's retry is scheduled from (River compares it with the
	// database's clock) (nil: time.Now).
	Clock func() time.Time
	// Options are engine options added to every debate a worker plays
	// (a sink, a logger, prices...), made per debate.
	Options func(debateID string) []engine.Option
	// Report, when set, is told what each attempt came to.
	Report func(Report)
}

// Report is what an attempt of a debate's job came to.
type Report struct {
	DebateID string
	// Outcome is one of the Outcome constants.
	Outcome string
	// Calls is the number of model calls the attempt made.
	Calls int64
	// Verdict is the finished debate's verdict line.
	Verdict string
	// Err is why the attempt stopped (nil when finished or paused).
	Err error
}

// Outcomes of an attempt ([Report]).
const (
	OutcomeFinished  = "finished"  // played to its end
	OutcomePaused    = "paused"    // waits for its person
	OutcomeSnoozed   = "snoozed"   // its time was up, or the worker stops: resumed by the next
	OutcomeCancelled = "cancelled" // cancelled (Queue.Cancel), or the worker stopped hard
	OutcomeFailed    = "failed"    // cannot be played: not retried
	OutcomeRetry     = "retry"     // an error River retries with backoff
)

// Queue enqueues, plays, cancels and lists debates as River jobs.
type Queue struct {
	pool   *pgxpool.Pool
	st     *pgstore.Store
	client *river.Client[pgx.Tx]
	w      *worker // nil: no worker
	cfg    Config

	// stopRescue stops the rescue loop a started worker runs; rescued is
	// closed when it has returned (nil: none runs).
	stopRescue, rescued chan struct{}
}

// New returns a Queue on pool, the database of cfg.Store, after Migrate.
func New(ctx context.Context, pool *pgxpool.Pool, cfg Config) (*Queue, error) {
	if cfg.Store == nil {
		return nil, errors.New("riverjobs: no store: Config.Store is required")
	}
	if err := Migrate(ctx, pool); err != nil {
		return nil, err
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	if cfg.AttemptLimit <= 0 {
		cfg.AttemptLimit = DefaultAttemptLimit
	}
	if cfg.StopGrace <= 0 {
		cfg.StopGrace = DefaultStopGrace
	}
	if cfg.ID == "" {
		host, _ := os.Hostname()
		cfg.ID = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.RescueInterval == 0 {
		cfg.RescueInterval = DefaultRescueInterval
	}
	q := &Queue{pool: pool, st: cfg.Store, cfg: cfg}
	rc := &river.Config{ID: cfg.ID, Logger: quiet(cfg.Logger)}
	if cfg.Model != nil {
		q.w = &worker{q: q, drain: make(chan struct{})}
		workers := river.NewWorkers()
		if err := river.AddWorkerSafely(workers, river.Worker[Args](q.w)); err != nil {
			return nil, fmt.Errorf("riverjobs: %w", err)
		}
		rc.Workers = workers
		rc.Queues = map[string]river.QueueConfig{QueueName: {MaxWorkers: cfg.Concurrency}}
		rc.JobTimeout = cfg.AttemptLimit + cfg.StopGrace
		rc.RescueStuckJobsAfter = rc.JobTimeout + 2*time.Second
	}
	client, err := river.NewClient(riverpgxv5.New(pool), rc)
	if err != nil {
		return nil, fmt.Errorf("riverjobs: %w", err)
	}
	q.client = client
	return q, nil
}

// quiet is l for River, whose informational lines (a job snoozed, a
// client started) would drown the worker's: only its warnings and errors.
func quiet(l *slog.Logger) *slog.Logger { return slog.New(minLevel{l.Handler(), slog.LevelWarn}) }

// minLevel is a handler that drops the records below its level.
type minLevel struct {
	slog.Handler
	min slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(a []slog.Attr) slog.Handler {
	return minLevel{h.Handler.WithAttrs(a), h.min}
}

func (h minLevel) WithGroup(name string) slog.Handler {
	return minLevel{h.Handler.WithGroup(name), h.min}
}

// Client returns the Queue's River client (to subscribe to its events, or
// insert other jobs with it).
func (q *Queue) Client() *river.Client[pgx.Tx] { return q.client }

// Worker returns the River worker of the debates' jobs (for rivertest),
// nil for a Queue without a model.
func (q *Queue) Worker() river.Worker[Args] {
	if q.w == nil {
		return nil
	}
	return q.w
}

// Enqueue stores debate d of the format registered as format, configured by
// config (JSON as [engine.Open] takes it; nil for the format's defaults), and
// its job, in one transaction, and returns the debate's ID (d.ID, or a new
// one). It refuses, before anything is stored: an unknown format
// ([engine.ErrUnknownFormat]), an invalid configuration
// ([engine.ErrInvalidConfig]) or one over MaxConfigBytes, an invalid debate
// ([engine.ErrInvalidDebate]: its ID, its proposition, which must be given,
// its context), and the ID of a debate that exists ([engine.ErrDebateExists]).
// opts are the engine options the debate's first record keeps (those
// engine.Run stores: [engine.WithArgumentMap], say); the worker's own
// options play it.
func (q *Queue) Enqueue(ctx context.Context, format string, config json.RawMessage, d engine.Debate, opts ...engine.Option) (string, error) {
	if len(config) > MaxConfigBytes {
		ve := &engine.ValidationError{Format: format}
		ve.Add("config", "has %d bytes; at most %d", len(config), MaxConfigBytes)
		return "", ve
	}
	f, err := engine.Open(format, config)
	if err != nil {
		return "", err
	}
	if d.ID == "" {
		d.ID = engine.NewDebateID()
	}
	if err := engine.ValidateDebate(d); err != nil {
		return "", err
	}
	head, err := firstRecord(ctx, f, d, opts)
	if err != nil {
		return "", err
	}
	err = pgx.BeginFunc(ctx, q.pool, func(tx pgx.Tx) error {
		if err := q.st.AppendTx(ctx, tx, head); err != nil {
			if errors.Is(err, store.ErrConflict) {
				return fmt.Errorf("%w: %s", engine.ErrDebateExists, d.ID)
			}
			return err
		}
		return q.insert(ctx, tx, Args{DebateID: d.ID})
	})
	if err != nil {
		return "", fmt.Errorf("riverjobs: enqueue %s: %w", d.ID, err)
	}
	return d.ID, nil
}

// insert inserts args's job with tx.
func (q *Queue) insert(ctx context.Context, tx pgx.Tx, args Args) error {
	res, err := q.client.InsertTx(ctx, tx, args, nil)
	if err != nil {
		return err
	}
	if res.UniqueSkippedAsDuplicate {
		return fmt.Errorf("%w: job %d", ErrQueued, res.Job.ID)
	}
	return nil
}

// Requeue enqueues the stored debate id again: one cancelled, paused,
// stopped by an error or by a process that played it outside the queue.
// answer, when not nil, answers the question the debate waits for
// ([ErrNotPaused] when it waits for none; an answer that is not one of the
// question's choices is refused; an answer for a debate whose job is
// completing as it pauses waits for it, up to a few seconds). A debate
// queued or running already is [ErrQueued]; an unknown one wraps store.ErrNotFound.
func (q *Queue) Requeue(ctx context.Context, id string, answer *engine.Answer) error {
	if !engine.ValidID(id) {
		return fmt.Errorf("riverjobs: requeue: %w", &engine.DebateError{Violations: []engine.Violation{{Field: "id", Problem: fmt.Sprintf("%q is not a debate ID", id)}}})
	}
	recs, err := q.st.Records(ctx, id)
	if err != nil {
		return fmt.Errorf("riverjobs: requeue %s: %w", id, err)
	}
	if answer != nil {
		pending, ok := engine.Pending(recs)
		if !ok {
			return fmt.Errorf("riverjobs: requeue %s: %w", id, ErrNotPaused)
		}
		if len(pending.Choices) > 0 && !contains(pending.Choices, answer.Choice) {
			return fmt.Errorf("riverjobs: requeue %s: the answer %q is not one of %q", id, answer.Choice, pending.Choices)
		}
	}
	for wait := time.Duration(0); ; wait += pausingPoll {
		err = pgx.BeginFunc(ctx, q.pool, func(tx pgx.Tx) error { return q.insert(ctx, tx, Args{DebateID: id, Answer: answer}) })
		if !errors.Is(err, ErrQueued) || answer == nil || wait >= pausingWait {
			break
		}
		// The job that paused the debate may not have completed yet: it
		// will within moments, having nothing more to play.
		if st, serr := q.Status(ctx, id); serr != nil || st.Status != StatusPaused {
			break
		}
		t := time.NewTimer(pausingPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("riverjobs: requeue %s: %w", id, ctx.Err())
		case <-t.C:
		}
	}
	if err != nil {
		return fmt.Errorf("riverjobs: requeue %s: %w", id, err)
	}
	return nil
}

// How long, and how often, Requeue waits for the job of a paused debate to
// complete before it queues the answer's.
const (
	pausingWait = 5 * time.Second
	pausingPoll = 20 * time.Millisecond
)

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Cancel cancels the job of debate id, from any process: a queued job does
// not run, and the worker playing a running one abandons its model call
// within a second (River tells it by LISTEN/NOTIFY). What the debate said
// stays stored; Requeue resumes it. A debate without a job queued or running
// is [ErrNoJob].
func (q *Queue) Cancel(ctx context.Context, id string) error {
	var jobID int64
	err := q.pool.QueryRow(ctx, `SELECT id FROM river_job WHERE kind = $1 AND args @> jsonb_build_object('debate_id', $2::text)
		AND state NOT IN ('completed', 'cancelled', 'discarded') ORDER BY id DESC LIMIT 1`, Kind, id).Scan(&jobID)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("riverjobs: cancel %s: %w", id, ErrNoJob)
	}
	if err != nil {
		return fmt.Errorf("riverjobs: cancel %s: %w", id, err)
	}
	if _, err := q.client.JobCancel(ctx, jobID); err != nil {
		return fmt.Errorf("riverjobs: cancel %s: job %d: %w", id, jobID, err)
	}
	return nil
}

// Start starts the worker: it fetches and plays jobs until Shutdown (or
// until ctx ends, which cancels what is playing). A Queue without a model
// has nothing to start.
func (q *Queue) Start(ctx context.Context) error {
	if q.w == nil {
		return errors.New("riverjobs: start: no model: Config.Model makes a Queue a worker")
	}
	var alive *pgx.Conn
	if q.cfg.RescueInterval > 0 {
		var err error
		if alive, err = q.holdAlive(ctx); err != nil {
			return fmt.Errorf("riverjobs: start: %w", err)
		}
	}
	if err := q.client.Start(ctx); err != nil {
		if alive != nil {
			alive.Close(context.WithoutCancel(ctx))
		}
		return fmt.Errorf("riverjobs: start: %w", err)
	}
	if alive != nil {
		q.stopRescue, q.rescued = make(chan struct{}), make(chan struct{})
		go func() {
			defer close(q.rescued)
			q.rescue(alive, q.stopRescue)
		}()
	}
	return nil
}

// endRescue stops the rescue loop, once the client has stopped.
func (q *Queue) endRescue() {
	if q.stopRescue != nil {
		close(q.stopRescue)
		<-q.rescued
		q.stopRescue = nil
	}
}

// Shutdown stops the worker gracefully: it fetches no more jobs, each
// debate playing stops at its next step (no new model call starts; those
// under way finish) and its job is snoozed for another worker. What is
// still playing after bound is cancelled (its job goes back to the queue),
// and Shutdown returns once the client has stopped, or an error after
// bound and a few seconds more.
func (q *Queue) Shutdown(bound time.Duration) error {
	if q.w != nil {
		q.w.stop()
	}
	defer q.endRescue()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	if err := q.client.Stop(ctx); err == nil {
		return nil
	}
	hard, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel2()
	if err := q.client.StopAndCancel(hard); err != nil {
		return fmt.Errorf("riverjobs: shutdown: %w", err)
	}
	return nil
}

// Stopped is closed once the worker has stopped.
func (q *Queue) Stopped() <-chan struct{} { return q.client.Stopped() }
