package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/sqlproj"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Store is a [store.Store] and [store.Locker] in one SQLite database file.
// It is safe for concurrent use, and several processes of one machine may
// open the same file at once.
type Store struct {
	path  string
	locks string  // the directory of lock files, path + ".locks"
	w     *sql.DB // one connection: the appends of this process, in turn
	r     *sql.DB // the readers
	proj  projector
	group group // the Appends waiting to commit
}

var (
	_ store.Store  = (*Store)(nil)
	_ store.Locker = (*Store)(nil)
)

// MaxIDLen is the longest debate ID the store takes, in bytes.
const MaxIDLen = sqlproj.MaxIDLen

// BusyTimeout is how long a statement waits for another connection's
// write transaction (of this process or another) before it fails.
const BusyTimeout = 30 * time.Second

// ErrForeign means the file Open was given is not a duelogic store: not a
// SQLite database at all (damaged, or another kind of file), or the
// database of another application. Open writes nothing to such a file.
var ErrForeign = errors.New("sqlitestore: not a duelogic database")

// Open opens the store in the SQLite database file path, creating the file
// (mode 0644, as SQLite creates files) and its schema if it does not exist,
// and returns it; call Close when done. The database is put in WAL mode,
// so that readers do not wait for writers.
//
// A file that exists must be a database this package created (its
// application_id is [ApplicationID]) or an empty SQLite database;
// anything else — bytes that are not a SQLite database, another
// application's database — is refused with an error wrapping [ErrForeign]
// that names the file, and nothing is written to it. A database whose
// schema is newer than this package's is refused too.
func Open(ctx context.Context, path string) (*Store, error) {
	return open(ctx, path, config{proj: projection})
}

// config is what Open sets and tests change.
type config struct {
	// pragmas are run on every connection (tests set max_page_count, to
	// fill the database).
	pragmas []string
	proj    projector
}

func open(ctx context.Context, path string, cfg config) (*Store, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if path == "" {
		return nil, errors.New("sqlitestore: open: empty file name")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: open %s: %w", path, err)
	}
	if err := checkFile(abs); err != nil {
		return nil, err
	}
	w, err := sql.Open("sqlite", dsn(abs, "rwc", true, cfg.pragmas))
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: open %s: %w", abs, err)
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxIdleTime(0)
	s := &Store{path: abs, locks: abs + ".locks", w: w, proj: cfg.proj}
	if err := s.migrate(ctx); err != nil {
		w.Close()
		return nil, err
	}
	r, err := sql.Open("sqlite", dsn(abs, "rw", false, cfg.pragmas))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlitestore: open %s: %w", abs, err)
	}
	r.SetMaxOpenConns(readers)
	r.SetMaxIdleConns(readers)
	s.r = r
	return s, nil
}

// readers is the number of connections that read at once.
const readers = 4

// dsn is the driver's name of the database at abs, opened in SQLite's mode
// (ro, rw, rwc), with writer's transactions beginning IMMEDIATE (taking the
// write lock first, so that they wait for one another in the busy handler
// rather than fail on upgrading a read lock).
func dsn(abs, mode string, writer bool, pragmas []string) string {
	q := url.Values{}
	q.Set("mode", mode)
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", BusyTimeout.Milliseconds()))
	// Every acknowledged append is on disk: the WAL is synced at each
	// commit, as store.JSONL fsyncs each line.
	q.Add("_pragma", "synchronous(FULL)")
	if writer {
		q.Set("_txlock", "immediate")
	} else {
		q.Add("_pragma", "query_only(1)")
	}
	for _, p := range pragmas {
		q.Add("_pragma", p)
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: q.Encode()}
	if !strings.HasPrefix(u.Path, "/") { // a Windows path, C:/...
		u.Path = "/" + u.Path
	}
	return u.String()
}

// Path is the absolute name of the store's database file.
func (s *Store) Path() string { return s.path }

// Close closes the store's connections; the last connection to the file,
// in any process, checkpoints the WAL into the database file. Locks taken
// with Lock stay held until they are unlocked.
func (s *Store) Close() error {
	return errors.Join(s.w.Close(), s.r.Close())
}

// Append stores rec and its projections in one transaction. It returns an
// error wrapping store.ErrConflict unless rec.Seq is the debate's last Seq
// + 1: the transaction holds the database's write lock from its start, so
// of concurrent Appends of one Seq, in this process or any other, one
// wins. A record it cannot store faithfully (see [sqlproj.CheckRecord]) is refused
// with an error wrapping store.ErrInvalidID or store.ErrInvalidRecord. When
// the disk (or the database's size limit) is full, Append fails naming the
// file and nothing of rec is stored.
//
// Concurrent Appends of one Store are committed together (group commit,
// see commitBatch): one transaction and one sync of the WAL for all the
// records that wait while the one before commits, each record in a
// savepoint of its own, so that each Append has its own verdict. An
// Append returns when its record is committed (or refused).
func (s *Store) Append(ctx context.Context, rec store.Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := sqlproj.CheckRecord(rec); err != nil {
		return err
	}
	return s.group.append(ctx, s, rec)
}

// appendOne is Append of one record in a transaction of its own.
func (s *Store) appendOne(ctx context.Context, rec store.Record) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error { return s.insert(ctx, tx, rec) })
	return s.appendError(ctx, rec, err)
}

// insert checks rec's Seq against the debate's log, inserts it and
// projects it, in tx. It returns an error wrapping store.ErrConflict for a
// Seq out of turn, and a projectionError when the projection fails for the
// database (see [Store.project]).
func (s *Store) insert(ctx context.Context, tx *sql.Tx, rec store.Record) error {
	var last int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM records WHERE debate_id = ?`, rec.DebateID).Scan(&last); err != nil {
		return err
	}
	if rec.Seq != last+1 {
		return fmt.Errorf("%w: debate %q: seq %d, want %d", store.ErrConflict, rec.DebateID, rec.Seq, last+1)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO records (debate_id, seq, type, time, data) VALUES (?, ?, ?, ?, ?)`,
		rec.DebateID, rec.Seq, rec.Type, sqlproj.EncodeTime(rec.Time), string(rec.Data)); err != nil {
		return err
	}
	return s.project(ctx, tx, rec)
}

// projectionError is the failure of a record's projection.
type projectionError struct{ err error }

func (e projectionError) Error() string { return "projection: " + e.err.Error() }
func (e projectionError) Unwrap() error { return e.err }

// appendError is the error Append returns for rec after err (nil: none).
func (s *Store) appendError(ctx context.Context, rec store.Record, err error) error {
	if err == nil || errors.Is(err, store.ErrConflict) {
		return err
	}
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	return s.dbError(fmt.Sprintf("append to debate %q, seq %d", rec.DebateID, rec.Seq), err)
}

// inTx runs fn in a write transaction (BEGIN IMMEDIATE) and commits it, or
// rolls it back when fn fails.
func (s *Store) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// dbError is err, the failure of what on the database, naming the file:
// store.ErrCorrupt when SQLite finds the file damaged, and a plain word for
// a full disk.
func (s *Store) dbError(what string, err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return fmt.Errorf("%w: sqlitestore: %s: the database %s is damaged: %v", store.ErrCorrupt, what, s.path, err)
		case sqlite3.SQLITE_FULL:
			return fmt.Errorf("sqlitestore: %s: the database %s is full (no space left on its disk, or at its size limit): nothing of it was stored: %w", what, s.path, err)
		case sqlite3.SQLITE_IOERR:
			return fmt.Errorf("sqlitestore: %s: reading or writing the database %s failed (a full disk, a file size limit, an I/O error): nothing of it was stored: %w", what, s.path, err)
		}
	}
	return fmt.Errorf("sqlitestore: %s in %s: %w", what, s.path, err)
}

// Records returns the debate's records in Seq order, or an error wrapping
// store.ErrNotFound when there are none. A stored record it cannot read back
// (its time, or a gap in the sequence, left by a hand edit) is reported with
// an error wrapping store.ErrCorrupt that names the file, the debate and
// the Seq.
func (s *Store) Records(ctx context.Context, debateID string) ([]store.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	recs, err := s.readRecords(ctx, s.r, debateID)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%w: debate %q", store.ErrNotFound, debateID)
	}
	return recs, nil
}

// querier is a database or a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func (s *Store) readRecords(ctx context.Context, q querier, debateID string) ([]store.Record, error) {
	fail := func(err error) ([]store.Record, error) {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, s.dbError(fmt.Sprintf("read debate %q", debateID), err)
	}
	rows, err := q.QueryContext(ctx, `SELECT seq, type, time, data FROM records WHERE debate_id = ? ORDER BY seq`, debateID)
	if err != nil {
		return fail(err)
	}
	defer rows.Close()
	var recs []store.Record
	for rows.Next() {
		var (
			r        = store.Record{DebateID: debateID}
			at, data string
		)
		if err := rows.Scan(&r.Seq, &r.Type, &at, &data); err != nil {
			return fail(err)
		}
		if r.Seq != int64(len(recs)+1) {
			return nil, fmt.Errorf("%w: sqlitestore: %s: debate %q: seq %d follows seq %d", store.ErrCorrupt, s.path, debateID, r.Seq, len(recs))
		}
		t, err := time.Parse(time.RFC3339Nano, at)
		if err != nil {
			return nil, fmt.Errorf("%w: sqlitestore: %s: debate %q seq %d: stored time %q: %v", store.ErrCorrupt, s.path, debateID, r.Seq, at, err)
		}
		r.Time, r.Data = t, json.RawMessage(data)
		recs = append(recs, r)
	}
	if err := rows.Err(); err != nil {
		return fail(err)
	}
	return recs, nil
}

// Debates returns the IDs of the debates that have records, sorted by byte
// value.
func (s *Store) Debates(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.ids(ctx, `SELECT debate_id FROM records WHERE seq = 1 ORDER BY debate_id`)
}

// Unfinished returns the IDs of the debates played by the engine (their
// first record is the engine's debate record) that have not ended, oldest
// first (by the time of their first record): the ones a worker resumes.
func (s *Store) Unfinished(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.ids(ctx, `SELECT h.debate_id FROM records h
		WHERE h.seq = 1 AND h.type = '`+engine.RecordDebate+`' AND NOT EXISTS (
			SELECT 1 FROM records e WHERE e.debate_id = h.debate_id AND e.type = '`+engine.RecordDebateEnded+`')
		ORDER BY julianday(h.time), h.debate_id`)
}

func (s *Store) ids(ctx context.Context, query string) ([]string, error) {
	fail := func(err error) ([]string, error) {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, s.dbError("list debates", err)
	}
	rows, err := s.r.QueryContext(ctx, query)
	if err != nil {
		return fail(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return fail(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return fail(err)
	}
	return ids, nil
}

// Rebuild derives the projections of a debate again from its log, in one
// transaction: it deletes the debate's rows and projects every record
// again. It holds the database's write lock meanwhile, so no Append
// interleaves; it clears the debate's projection faults. It returns an
// error wrapping store.ErrNotFound for a debate without records, and the
// projection's error, with nothing changed, when a record still cannot be
// projected.
func (s *Store) Rebuild(ctx context.Context, debateID string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		recs, err := s.readRecords(ctx, tx, debateID)
		if err != nil {
			return err
		}
		if len(recs) == 0 {
			return fmt.Errorf("%w: debate %q", store.ErrNotFound, debateID)
		}
		if err := s.proj.clear(ctx, tx, debateID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM projection_faults WHERE debate_id = ?`, debateID); err != nil {
			return err
		}
		for _, rec := range recs {
			if err := s.proj.project(ctx, tx, rec); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil || errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrCorrupt) {
		return err
	}
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	return s.dbError(fmt.Sprintf("rebuild debate %q", debateID), err)
}
