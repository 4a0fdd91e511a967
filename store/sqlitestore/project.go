package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/sqlproj"
)

// projector keeps the tables derived from the log (the projections that
// the SQL stores share). Every Append runs project in the transaction that
// inserts the record, after the insert, so that the tables are never ahead
// of the log; Rebuild runs clear and then project for each of a debate's
// records, in one transaction.
type projector struct {
	// schema creates the tables (and adds the columns a table of an
	// earlier version lacks), run by Open in the migration's transaction
	// each time a store opens; it must be idempotent.
	schema func(ctx context.Context, tx *sql.Tx) error
	// project derives the rows of rec, just inserted in tx.
	project func(ctx context.Context, tx *sql.Tx, rec store.Record) error
	// clear deletes the rows of a debate.
	clear func(ctx context.Context, tx *sql.Tx, debateID string) error
}

// projection is the projector of every Store: package sqlproj's tables in
// its SQLite dialect — the common tables of every debate and the tables of
// each format linked into the process (engine.Projector) — the same
// definition pgstore renders for PostgreSQL.
var projection = projector{
	schema: func(ctx context.Context, tx *sql.Tx) error {
		for _, ddl := range sqlproj.SQLite.Schema() {
			if _, err := tx.ExecContext(ctx, ddl); err != nil {
				return err
			}
		}
		for _, t := range sqlproj.Tables() {
			have, err := columns(ctx, tx, t.Name)
			if err != nil {
				return err
			}
			for _, ddl := range sqlproj.SQLite.AddColumns(t, have) {
				if _, err := tx.ExecContext(ctx, ddl); err != nil {
					return err
				}
			}
		}
		return nil
	},
	project: func(ctx context.Context, tx *sql.Tx, rec store.Record) error {
		deb, ok, err := debateOf(ctx, tx, rec)
		if err != nil || !ok {
			return err
		}
		stmts, err := sqlproj.SQLite.Project(deb, rec)
		if err != nil {
			return err
		}
		return sqlproj.Exec(ctx, tx, stmts)
	},
	clear: func(ctx context.Context, tx *sql.Tx, debateID string) error {
		return sqlproj.Exec(ctx, tx, sqlproj.SQLite.Delete(debateID))
	},
}

// columns returns the names of the columns of table, none when it does
// not exist.
func columns(ctx context.Context, tx *sql.Tx, table string) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	return names, rows.Err()
}

// debateOf returns what projecting a record of its debate needs (see
// sqlproj.DebateOf), from the debate's first record, read on tx for a
// later record (a primary-key lookup in the transaction that holds the
// write lock); false when the debate is not the engine's, whose records
// are not projected.
func debateOf(ctx context.Context, tx *sql.Tx, rec store.Record) (sqlproj.Debate, bool, error) {
	if rec.Seq == 1 {
		d, ok := sqlproj.DebateOf(rec)
		return d, ok, nil
	}
	var typ, at, data string
	err := tx.QueryRowContext(ctx, `SELECT type, time, data FROM records WHERE debate_id = ? AND seq = 1`, rec.DebateID).
		Scan(&typ, &at, &data)
	if errors.Is(err, sql.ErrNoRows) {
		return sqlproj.Debate{}, false, nil
	}
	if err != nil {
		return sqlproj.Debate{}, false, err
	}
	d, ok, err := sqlproj.FirstRecord(rec.DebateID, typ, at, data)
	if err != nil {
		return sqlproj.Debate{}, false, err
	}
	return d, ok, nil
}

// project runs the projection of rec, just inserted in tx, under a
// savepoint. When the projection fails for what it is (a format's
// projector, a table changed by hand) rather than for the database (full,
// busy, damaged, closed), the savepoint is rolled back and the failure
// kept in projection_faults: the record stays stored — the log is the
// truth, and a debate must not stop because a table disagrees — the
// tables miss its rows, and the fault says so until [Store.Rebuild] of
// the debate succeeds. pgstore keeps the same rule.
func (s *Store) project(ctx context.Context, tx *sql.Tx, rec store.Record) error {
	if _, err := tx.ExecContext(ctx, `SAVEPOINT projection`); err != nil {
		return err
	}
	perr := s.proj.project(ctx, tx, rec)
	if perr != nil && !isFault(ctx, perr) {
		return projectionError{perr}
	}
	if perr != nil {
		if _, err := tx.ExecContext(ctx, `ROLLBACK TO projection`); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `RELEASE projection`); err != nil {
		return err
	}
	if perr == nil {
		return nil
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO projection_faults (debate_id, seq, error, at) VALUES (?, ?, ?, ?)
		ON CONFLICT (debate_id, seq) DO UPDATE SET error = excluded.error, at = excluded.at`,
		rec.DebateID, rec.Seq, sqlproj.Text(perr.Error()), sqlproj.EncodeTime(rec.Time))
	return err
}

// isFault reports whether err, the failure of a record's projection, is
// the projection's own (kept as a fault, the record stored) rather than
// the database's or the caller's (which fail the Append).
func isFault(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return true // the projection's own error: a record it cannot read
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_CONSTRAINT, sqlite3.SQLITE_ERROR, sqlite3.SQLITE_MISMATCH, sqlite3.SQLITE_RANGE, sqlite3.SQLITE_TOOBIG:
		return true
	}
	return false
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
	rows, err := s.r.QueryContext(ctx, `SELECT debate_id, seq, error, at FROM projection_faults ORDER BY debate_id, seq`)
	if err != nil {
		return nil, s.dbError("projection faults", err)
	}
	defer rows.Close()
	var fs []ProjectionFault
	for rows.Next() {
		var (
			f  ProjectionFault
			at string
		)
		if err := rows.Scan(&f.DebateID, &f.Seq, &f.Error, &at); err != nil {
			return nil, s.dbError("projection faults", err)
		}
		if f.At, err = time.Parse(time.RFC3339Nano, at); err != nil {
			return nil, fmt.Errorf("sqlitestore: projection faults: stored time %q: %w", at, err)
		}
		fs = append(fs, f)
	}
	if err := rows.Err(); err != nil {
		return nil, s.dbError("projection faults", err)
	}
	return fs, nil
}
