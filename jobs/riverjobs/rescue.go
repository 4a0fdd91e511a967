package riverjobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// A worker that dies leaves its jobs running in River's table until River's
// rescuer, which runs every 30 seconds on the leader, finds them older
// than RescueStuckJobsAfter. duelogic rescues them sooner: each worker
// holds a session-level advisory lock named after its ID on a connection
// of its own while it runs, which the database frees as soon as that
// session ends — the process was killed, or its machine is unreachable
// (the session's TCP keepalives, set short, tell within about 15 s). Every
// RescueInterval each worker makes the running jobs of the workers whose
// lock is free available again, in one statement: whichever worker fetches
// one resumes its debate from the log. A worker whose lock is held is
// alive; its jobs are left alone.

// DefaultRescueInterval is how often a worker looks for the jobs of dead
// workers when Config.RescueInterval is 0.
const DefaultRescueInterval = time.Second

// aliveKey is the advisory lock key of worker $1 of the current schema.
const aliveKey = `hashtextextended('duelogic/riverjobs/worker/' || current_schema() || '/' || $1, 0)`

// rescueDead makes available again the running jobs whose worker's lock is
// free (River's own rescue, for a worker known dead): attempts left, else
// discarded, as River's rescuer does. A job keeps its scheduled time, so
// that it comes before the jobs queued after it. It returns the rescued
// debates.
const rescueDead = `UPDATE river_job SET
	state = CASE WHEN attempt >= max_attempts THEN 'discarded' ELSE 'available' END::river_job_state,
	finalized_at = CASE WHEN attempt >= max_attempts THEN now() END,
	scheduled_at = least(scheduled_at, now()),
	errors = array_append(errors, jsonb_build_object('at', now(), 'attempt', attempt, 'trace', '',
		'error', 'riverjobs: rescued: its worker ' || attempted_by[cardinality(attempted_by)] || ' died (its database session ended)')),
	metadata = metadata || jsonb_build_object('river:rescue_count',
		coalesce(CASE WHEN jsonb_typeof(metadata -> 'river:rescue_count') = 'number' THEN (metadata ->> 'river:rescue_count')::int END, 0) + 1)
WHERE id IN (
	SELECT id FROM river_job
	WHERE kind = $1 AND state = 'running' AND cardinality(attempted_by) > 0
		AND pg_try_advisory_xact_lock(hashtextextended('duelogic/riverjobs/worker/' || current_schema() || '/' || attempted_by[cardinality(attempted_by)], 0))
	FOR UPDATE SKIP LOCKED)
RETURNING args->>'debate_id', attempted_by[cardinality(attempted_by)]`

// ErrWorkerID: another live worker of the database has this worker's ID.
var ErrWorkerID = errors.New("riverjobs: a live worker has this ID")

// holdAlive connects a session of the worker's own and takes its lock.
func (q *Queue) holdAlive(ctx context.Context) (*pgx.Conn, error) {
	cfg := q.pool.Config().ConnConfig.Copy()
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	// The server notices a machine that went away within about 15 s.
	cfg.RuntimeParams["tcp_keepalives_idle"] = "5"
	cfg.RuntimeParams["tcp_keepalives_interval"] = "2"
	cfg.RuntimeParams["tcp_keepalives_count"] = "5"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("riverjobs: worker %s: %w", q.cfg.ID, dbError(q, err))
	}
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock(`+aliveKey+`)`, q.cfg.ID).Scan(&ok); err != nil || !ok {
		conn.Close(context.WithoutCancel(ctx))
		if err == nil {
			err = ErrWorkerID
		}
		return nil, fmt.Errorf("riverjobs: worker %s: %w", q.cfg.ID, dbError(q, err))
	}
	return conn, nil
}

// rescue runs until stop is closed: every RescueInterval it rescues the
// jobs of dead workers, and keeps the worker's own lock (connecting again
// if its session was lost).
func (q *Queue) rescue(alive *pgx.Conn, stop <-chan struct{}) {
	defer func() {
		if alive != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			alive.Close(ctx)
			cancel()
		}
	}()
	t := time.NewTicker(q.cfg.RescueInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), q.cfg.RescueInterval+5*time.Second)
		if alive == nil || alive.Ping(ctx) != nil {
			if alive != nil {
				alive.Close(ctx)
				q.cfg.Logger.Error("riverjobs: the worker's session ended: its jobs may be rescued by another worker", "worker", q.cfg.ID, "db", dbName(q))
			}
			var err error
			if alive, err = q.holdAlive(ctx); err != nil {
				q.cfg.Logger.Error("riverjobs: the worker cannot hold its session", "err", err)
			}
		}
		if err := q.rescueOnce(ctx); err != nil {
			q.cfg.Logger.Warn("riverjobs: rescue the jobs of dead workers", "err", err)
		}
		cancel()
	}
}

// rescueOnce makes the jobs of dead workers available again.
func (q *Queue) rescueOnce(ctx context.Context) error {
	rows, err := q.pool.Query(ctx, rescueDead, Kind)
	if err != nil {
		return dbError(q, err)
	}
	for rows.Next() {
		var id, by string
		if err := rows.Scan(&id, &by); err != nil {
			rows.Close()
			return dbError(q, err)
		}
		q.cfg.Logger.Warn("riverjobs: rescued the debate of a dead worker", "debate", id, "dead", by)
	}
	if err := rows.Err(); err != nil {
		return dbError(q, err)
	}
	return nil
}

// dbName names the Queue's database: user@host:port/database.
func dbName(q *Queue) string {
	c := q.pool.Config().ConnConfig
	return fmt.Sprintf("%s@%s:%d/%s", c.User, c.Host, c.Port, c.Database)
}

// dbError is err of the Queue's database, naming it.
func dbError(q *Queue, err error) error {
	return fmt.Errorf("database %s: %w", dbName(q), err)
}
