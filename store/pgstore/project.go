package pgstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/sqlproj"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// EventEvaluation is the event type whose records go to
// response_evaluations: the Duelogic podcast's evaluations of chair
// responses, whose Data is the evaluation (none when it went unscored).
const EventEvaluation engine.EventType = "evaluation"

// EventInterruption is the event type whose records go to
// chair_interruptions: the Duelogic podcast's interruptions, whose Data names
// the interrupting and interrupted chairs, the trigger and the urgency.
const EventInterruption engine.EventType = "interruption"

// debates remembers what the projection of each debate's records needs to
// know of the debate (its format and start, from its first record), so
// that an Append does not read the first record again. It is bounded: when
// full it is emptied, and the first record is read again as needed.
type debates struct {
	mu sync.Mutex
	m  map[string]cachedDebate
}

// cachedDebate is a debate as debates keeps it: ok is false for one whose
// first record is not the engine's (nothing of it is projected).
type cachedDebate struct {
	d  sqlproj.Debate
	ok bool
}

const maxCachedDebates = 10000

func (c *debates) get(id string) (cachedDebate, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.m[id]
	return d, ok
}

func (c *debates) put(id string, d cachedDebate) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedDebates {
		c.m = make(map[string]cachedDebate)
	}
	c.m[id] = d
}

// debateOf returns what projecting a record of debate id needs (see
// sqlproj.DebateOf), reading its first record on tx when it is not known;
// false when the debate is not the engine's (its records are not
// projected).
func (s *Store) debateOf(ctx context.Context, tx pgx.Tx, rec store.Record) (sqlproj.Debate, bool, error) {
	if rec.Seq == 1 {
		d, ok := sqlproj.DebateOf(rec)
		return d, ok, nil
	}
	if c, ok := s.debates.get(rec.DebateID); ok {
		return c.d, c.ok, nil
	}
	var typ, at, data string
	err := tx.QueryRow(ctx, `SELECT type, time, data::text FROM records WHERE debate_id = $1 AND seq = 1`, rec.DebateID).
		Scan(&typ, &at, &data)
	if errors.Is(err, pgx.ErrNoRows) {
		return sqlproj.Debate{}, false, nil
	}
	if err != nil {
		return sqlproj.Debate{}, false, err
	}
	d, ok, err := sqlproj.FirstRecord(rec.DebateID, typ, at, data)
	if err != nil {
		return sqlproj.Debate{}, false, err
	}
	s.debates.put(rec.DebateID, cachedDebate{d, ok})
	return d, ok, nil
}

// appendTx stores rec and its projections on tx.
//
// The record is inserted first; its projection runs after it under a
// savepoint. If the projection fails in the database (a programming error
// in a format's projector, a table changed by hand), it is rolled back to
// the savepoint and the failure is kept in projection_faults: the record
// is stored (the log is the truth, and a debate must not stop because a
// table disagrees), the tables miss that record's rows, and the fault says
// so until [Store.Rebuild] of the debate succeeds. Any other error fails
// the append as a whole: nothing of it is stored.
func (s *Store) appendTx(ctx context.Context, tx pgx.Tx, rec store.Record) error {
	deb, ok, err := s.debateOf(ctx, tx, rec)
	if err != nil {
		return err
	}
	b := &pgx.Batch{}
	b.Queue(insertRecord, rec.DebateID, rec.Seq, rec.Type, sqlproj.EncodeTime(rec.Time), string(rec.Data))
	var perr error
	if ok {
		var stmts []sqlproj.Stmt
		stmts, perr = sqlproj.Postgres.Project(deb, rec)
		if perr == nil && len(stmts) > 0 {
			b.Queue(`SAVEPOINT projection`)
			for _, st := range stmts {
				b.Queue(st.SQL, st.Args...)
			}
			b.Queue(`RELEASE SAVEPOINT projection`)
		}
	}
	at, err := runBatchAt(ctx, tx, b)
	var pe *pgconn.PgError
	switch {
	case err != nil && at > 0 && errors.As(err, &pe) && ctx.Err() == nil:
		return s.fault(ctx, tx, rec, err, true)
	case err != nil:
		return err
	case perr != nil:
		return s.fault(ctx, tx, rec, perr, false)
	}
	return nil
}

// fault keeps in projection_faults that rec could not be projected.
func (s *Store) fault(ctx context.Context, tx pgx.Tx, rec store.Record, cause error, rollback bool) error {
	if rollback {
		if _, err := tx.Exec(ctx, `ROLLBACK TO SAVEPOINT projection`); err != nil {
			return err
		}
	}
	_, err := tx.Exec(ctx, `INSERT INTO projection_faults (debate_id, seq, error) VALUES ($1, $2, $3)
		ON CONFLICT (debate_id, seq) DO UPDATE SET error = excluded.error, at = now()`,
		rec.DebateID, rec.Seq, sqlproj.Text(cause.Error()))
	return err
}

// Rebuild derives the projections of a debate again from its log, in one
// transaction (see sqlproj.Dialect.Rebuild): its rows of every projected
// table are deleted and every record projected again, and its
// projection_faults are cleared. It waits for Appends of the debate in
// flight and holds later ones until it commits. A debate whose first
// record is not the engine's has no projections; Rebuild then only
// deletes. It returns an error wrapping store.ErrNotFound for a debate
// without records, and the projection's error, with nothing changed, when
// a record still cannot be projected.
func (s *Store) Rebuild(ctx context.Context, debateID string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// Appends of the debate update its row first: this waits for them.
		if _, err := tx.Exec(ctx, `SELECT FROM debates WHERE id = $1 FOR UPDATE`, debateID); err != nil {
			return err
		}
		recs, err := readRecords(ctx, tx, debateID)
		if err != nil {
			return err
		}
		if len(recs) == 0 {
			return fmt.Errorf("%w: debate %q", store.ErrNotFound, debateID)
		}
		stmts, err := sqlproj.Postgres.Rebuild(recs)
		if err != nil {
			return err
		}
		b := &pgx.Batch{}
		b.Queue(`DELETE FROM projection_faults WHERE debate_id = $1`, debateID)
		for _, st := range stmts {
			b.Queue(st.SQL, st.Args...)
		}
		return runBatch(ctx, tx, b)
	})
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		return fmt.Errorf("pgstore: rebuild debate %q: %w", debateID, err)
	}
	return nil
}

// RebuildAll rebuilds the projections of every debate (see
// [Store.Rebuild]), one transaction each: after an upgrade that added
// tables or columns, or to link a format whose tables were empty.
func (s *Store) RebuildAll(ctx context.Context) error {
	ids, err := s.Debates(ctx)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := s.Rebuild(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// ProjectionFault is a record whose projection failed (see [Store.Append]).
type ProjectionFault struct {
	DebateID string
	Seq      int64
	Error    string
	At       time.Time
}

// ProjectionFaults returns the records whose projection failed and that no
// Rebuild has repaired since, by debate and Seq.
func (s *Store) ProjectionFaults(ctx context.Context) ([]ProjectionFault, error) {
	rows, err := s.pool.Query(ctx, `SELECT debate_id, seq, error, at FROM projection_faults ORDER BY debate_id COLLATE "C", seq`)
	if err != nil {
		return nil, fmt.Errorf("pgstore: projection faults: %w", err)
	}
	fs, err := pgx.CollectRows(rows, pgx.RowToStructByPos[ProjectionFault])
	if err != nil {
		return nil, fmt.Errorf("pgstore: projection faults: %w", err)
	}
	return fs, nil
}
