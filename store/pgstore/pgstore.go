package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/sqlproj"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Store is a [store.Store] and [store.Locker] in a PostgreSQL database. It is
// safe for concurrent use, and any number of processes may share the
// database.
type Store struct {
	pool    *pgxpool.Pool
	cfg     *pgxpool.Config
	debates debates
}

var (
	_ store.Store  = (*Store)(nil)
	_ store.Locker = (*Store)(nil)
)

// MaxIDLen is the longest debate ID the store takes, in bytes.
const MaxIDLen = sqlproj.MaxIDLen

// Open connects to the database dsn names (a URL, postgres://user@host/db,
// or key=value pairs, as pgx parses them; pool_max_conns and the other pgxpool
// settings apply, and other parameters, such as search_path, are set on every
// connection), brings its schema up to date and returns the store. The
// schema's migrations are versioned in the table schema_migrations and
// applied in one transaction under an advisory lock, so several processes
// may Open one database at once. Call Close when done.
func Open(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("pgstore: open: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: open: %w", err)
	}
	rebuild, err := migrate(ctx, pool)
	if err != nil {
		pool.Close()
		return nil, err
	}
	s := &Store{pool: pool, cfg: cfg}
	if rebuild {
		if err := s.RebuildAll(ctx); err != nil {
			pool.Close()
			return nil, fmt.Errorf("pgstore: open: rebuild the projections after the upgrade: %w", err)
		}
	}
	return s, nil
}

// Close closes the store's connections. Locks taken with Lock stay held
// until they are unlocked.
func (s *Store) Close() { s.pool.Close() }

// insertRecord appends one record; the database rejects a Seq that is taken
// (records_pkey) or that does not follow the debate's last (records_prev_fkey).
const insertRecord = `INSERT INTO records (debate_id, seq, type, time, data) VALUES ($1, $2, $3, $4, $5::text::json)`

// Append stores rec and its projections in one transaction. It returns an
// error wrapping store.ErrConflict unless rec.Seq is the debate's last Seq +
// 1: the database's keys decide, so of concurrent Appends of one Seq, in this
// process or any other, one wins. A record it cannot store faithfully (see
// [sqlproj.CheckRecord]) is refused with an error wrapping store.ErrInvalidID or
// store.ErrInvalidRecord.
func (s *Store) Append(ctx context.Context, rec store.Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := sqlproj.CheckRecord(rec); err != nil {
		return err
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return s.appendTx(ctx, tx, rec) })
	return appendError(ctx, rec, err)
}

// AppendTx is [Store.Append] within the caller's transaction tx, on the
// store's database: the record and its projections are stored when tx
// commits, and not at all when it rolls back, so a host can commit a debate's
// record with rows of its own (a job that will play the debate, say). It
// returns the errors Append returns; after an error, tx is aborted and must be
// rolled back.
func (s *Store) AppendTx(ctx context.Context, tx pgx.Tx, rec store.Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := sqlproj.CheckRecord(rec); err != nil {
		return err
	}
	return appendError(ctx, rec, s.appendTx(ctx, tx, rec))
}

// appendError is the error of an append of rec that failed with err (nil
// for none): store.ErrConflict when the database's keys refused its Seq.
func appendError(ctx context.Context, rec store.Record, err error) error {
	if err == nil {
		return nil
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && (pe.Code == "23505" && pe.ConstraintName == "records_pkey" ||
		pe.Code == "23503" && pe.ConstraintName == "records_prev_fkey") {
		return fmt.Errorf("%w: debate %q: seq %d is not the one after the last", store.ErrConflict, rec.DebateID, rec.Seq)
	}
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	return fmt.Errorf("pgstore: append to debate %q, seq %d: %w", rec.DebateID, rec.Seq, err)
}

// runBatch sends b on tx and returns the first error of its statements.
func runBatch(ctx context.Context, tx pgx.Tx, b *pgx.Batch) error {
	_, err := runBatchAt(ctx, tx, b)
	return err
}

// runBatchAt sends b on tx and returns the first error of its statements
// and the index of the statement that failed.
func runBatchAt(ctx context.Context, tx pgx.Tx, b *pgx.Batch) (int, error) {
	br := tx.SendBatch(ctx, b)
	for i := range b.Len() {
		if _, err := br.Exec(); err != nil {
			br.Close()
			return i, err
		}
	}
	return b.Len(), br.Close()
}

// Records returns the debate's records in Seq order, or an error wrapping
// store.ErrNotFound when there are none.
func (s *Store) Records(ctx context.Context, debateID string) ([]store.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	recs, err := readRecords(ctx, s.pool, debateID)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%w: debate %q", store.ErrNotFound, debateID)
	}
	return recs, nil
}

// querier is a pool, a connection or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

func readRecords(ctx context.Context, q querier, debateID string) ([]store.Record, error) {
	rows, err := q.Query(ctx, `SELECT seq, type, time, data::text FROM records WHERE debate_id = $1 ORDER BY seq`, debateID)
	if err != nil {
		return nil, readError(ctx, debateID, err)
	}
	var recs []store.Record
	for rows.Next() {
		var (
			r        = store.Record{DebateID: debateID}
			at, data string
		)
		if err := rows.Scan(&r.Seq, &r.Type, &at, &data); err != nil {
			rows.Close()
			return nil, readError(ctx, debateID, err)
		}
		t, err := time.Parse(time.RFC3339Nano, at)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("pgstore: debate %q seq %d: stored time %q: %w", debateID, r.Seq, at, err)
		}
		r.Time, r.Data = t, json.RawMessage(data)
		recs = append(recs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, readError(ctx, debateID, err)
	}
	return recs, nil
}

func readError(ctx context.Context, debateID string, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	return fmt.Errorf("pgstore: read debate %q: %w", debateID, err)
}

// Debates returns the IDs of the debates that have records, sorted by byte
// value.
func (s *Store) Debates(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.ids(ctx, `SELECT debate_id FROM records WHERE seq = 1 ORDER BY debate_id COLLATE "C"`)
}

// Unfinished returns the IDs of the debates played by the engine (their
// first record is the engine's debate record) that have not ended, oldest
// first: the ones a worker resumes.
func (s *Store) Unfinished(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.ids(ctx, `SELECT id FROM debates WHERE status <> 'finished' ORDER BY created_at, id COLLATE "C"`)
}

func (s *Store) ids(ctx context.Context, sql string) ([]string, error) {
	rows, err := s.pool.Query(ctx, sql)
	if err != nil {
		return nil, listError(ctx, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, listError(ctx, err)
	}
	return ids, nil
}

func listError(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	return fmt.Errorf("pgstore: list debates: %w", err)
}

// lockKey is the advisory lock key of a debate: a hash of the schema and the
// ID, computed by the database.
const lockKey = `hashtextextended(current_schema() || '/' || $1, 0)`

// Lock takes the debate's lock (see store.Locker): a session-level advisory
// lock, pg_try_advisory_lock, on a connection of its own that it keeps until
// unlock. It does not wait: when another session holds the lock — another
// process, or another Lock of this one — it returns an error wrapping
// store.ErrLocked. If the process dies or its connection is lost, the
// database frees the lock. Two IDs may hash to one key, in which case they
// exclude each other.
func (s *Store) Lock(ctx context.Context, debateID string) (unlock func() error, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := sqlproj.CheckID(debateID); err != nil {
		return nil, err
	}
	conn, err := pgx.ConnectConfig(ctx, s.cfg.ConnConfig.Copy())
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, fmt.Errorf("pgstore: lock debate %q: %w", debateID, err)
	}
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock(`+lockKey+`)`, debateID).Scan(&ok); err != nil || !ok {
		closeConn(conn)
		if err == nil {
			return nil, fmt.Errorf("%w: debate %q: by another session of the database", store.ErrLocked, debateID)
		}
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, fmt.Errorf("pgstore: lock debate %q: %w", debateID, err)
	}
	var once sync.Once
	return func() error {
		var err error
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var held bool
			err = conn.QueryRow(ctx, `SELECT pg_advisory_unlock(`+lockKey+`)`, debateID).Scan(&held)
			if err == nil && !held {
				err = errors.New("the lock was not held")
			}
			closeConn(conn) // frees the lock if the unlock did not
			if err != nil {
				err = fmt.Errorf("pgstore: unlock debate %q: %w", debateID, err)
			}
		})
		return err
	}, nil
}

func closeConn(c *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c.Close(ctx)
}
