package riverjobs

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/store"
)

// Statuses of a debate ([Status]).
const (
	StatusQueued    = "queued"    // its job waits for a worker (new, snoozed, or retried after an error)
	StatusRunning   = "running"   // a worker plays it (Status.Worker)
	StatusPaused    = "paused"    // it waits for its person's answer (Status.Question)
	StatusCancelled = "cancelled" // its job was cancelled (Queue.Cancel)
	StatusStopped   = "stopped"   // not finished and not queued: it failed (Status.Error), or was left by a process outside the queue
	StatusFinished  = "finished"  // played to its end
)

// Status is where a debate stands, as [Queue.List] tells it.
type Status struct {
	DebateID string
	// Format is the format's name.
	Format      string
	Proposition string
	// Status is one of the Status constants.
	Status string
	// Worker names the worker of a running debate (its Config.ID).
	Worker string
	// Question is the kind of question a paused debate waits for.
	Question string
	// Error is why a stopped debate's last job failed.
	Error string
	// Records is the number of records stored; Utterances, of
	// utterances (pgstore's utterances projection).
	Records, Utterances int64
	// Updated is the time of the debate's last record.
	Updated time.Time
	// Job is the ID of the debate's last River job (0 for none).
	Job int64
}

// listQuery reads each engine debate (pgstore's debates projection) with
// its last record and its newest job.
const listQuery = `SELECT d.id, d.debate_mode, d.proposition, d.status, d.records, d.updated_at,
	r.type, r.data::text, (SELECT count(*) FROM utterances u WHERE u.debate_id = d.id),
	j.id, j.state, j.attempted_by, j.metadata->'output', j.answered, r.stored_at, j.attempted_at
FROM debates d
JOIN records r ON r.debate_id = d.id AND r.seq = d.records
LEFT JOIN LATERAL (
	SELECT id, state::text AS state, attempted_by, attempted_at, metadata, args->'answer' IS NOT NULL AS answered FROM river_job
	WHERE kind = $1 AND args @> jsonb_build_object('debate_id', d.id)
	ORDER BY id DESC LIMIT 1
) j ON true
WHERE $2::text IS NULL OR d.id = $2
ORDER BY d.created_at, d.id COLLATE "C"`

// List returns the status of every debate of the store, oldest first.
// The status of a debate whose last job River has cleaned out (completed
// and cancelled jobs are kept a day by default) is read from its log:
// finished, paused, or else stopped.
func (q *Queue) List(ctx context.Context) ([]Status, error) {
	return q.list(ctx, nil)
}

// Status returns the status of debate id, as List tells it; an unknown
// debate wraps store.ErrNotFound.
func (q *Queue) Status(ctx context.Context, id string) (Status, error) {
	out, err := q.list(ctx, &id)
	if err != nil {
		return Status{}, err
	}
	if len(out) == 0 {
		return Status{}, fmt.Errorf("riverjobs: status: %w: debate %q", store.ErrNotFound, id)
	}
	return out[0], nil
}

// list lists every debate, or debate *id.
func (q *Queue) list(ctx context.Context, id *string) ([]Status, error) {
	rows, err := q.pool.Query(ctx, listQuery, Kind, id)
	if err != nil {
		return nil, fmt.Errorf("riverjobs: list: %w", err)
	}
	var out []Status
	for rows.Next() {
		var (
			s           Status
			status, typ string
			data        string
			jobID       *int64
			state       *string
			attemptedBy []string
			jobOut      []byte
			answered    *bool
			storedAt    time.Time
			attemptedAt *time.Time
		)
		if err := rows.Scan(&s.DebateID, &s.Format, &s.Proposition, &status, &s.Records, &s.Updated,
			&typ, &data, &s.Utterances, &jobID, &state, &attemptedBy, &jobOut, &answered, &storedAt, &attemptedAt); err != nil {
			rows.Close()
			return nil, fmt.Errorf("riverjobs: list: %w", err)
		}
		var o output
		if len(jobOut) > 0 {
			_ = json.Unmarshal(jobOut, &o) // an output of another shape says nothing
		}
		if jobID != nil {
			s.Job = *jobID
		}
		last := store.Record{DebateID: s.DebateID, Seq: s.Records, Type: typ, Data: json.RawMessage(data)}
		pending, paused := engine.Pending([]store.Record{last})
		switch {
		case status == "finished":
			s.Status = StatusFinished
		case state == nil:
			s.Status = StatusStopped
		case *state == "running":
			s.Status = StatusRunning
			if n := len(attemptedBy); n > 0 {
				s.Worker = attemptedBy[n-1]
			}
		case *state == "available", *state == "scheduled", *state == "retryable", *state == "pending":
			s.Status = StatusQueued
		case *state == "cancelled" && o.Outcome != OutcomeFailed:
			s.Status = StatusCancelled
		default:
			s.Status, s.Error = StatusStopped, o.Error
		}
		// A job that brings no answer completes as paused without playing,
		// and one whose attempt began before the question was asked used
		// its answer already: the debate is paused, not queued or running.
		unanswered := answered == nil || !*answered || attemptedAt != nil && storedAt.After(*attemptedAt)
		if paused && (s.Status == StatusStopped || (s.Status == StatusQueued || s.Status == StatusRunning) && unanswered) {
			s.Status = StatusPaused
		}
		if paused && s.Status == StatusPaused {
			s.Question = pending.Kind
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("riverjobs: list: %w", err)
	}
	return out, nil
}
