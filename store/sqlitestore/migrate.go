package sqlitestore

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ApplicationID is the application_id of the databases this package
// creates (the bytes "Dulg"), in the SQLite header of the file: what tells
// a duelogic store from another application's database.
const ApplicationID = 0x44756c67

// migrations are the schema's versions: migrations[v-1] brings a database
// from version v-1 to v. The version is kept in the file's user_version.
var migrations = []string{
	// 1: the log. records is the source of truth: one row per record,
	// keyed by (debate_id, seq).
	`CREATE TABLE records (
		debate_id TEXT NOT NULL,
		seq INTEGER NOT NULL CHECK (seq >= 1),
		type TEXT NOT NULL,
		time TEXT NOT NULL,
		data TEXT NOT NULL,
		PRIMARY KEY (debate_id, seq)
	) WITHOUT ROWID;
	CREATE INDEX records_heads ON records (debate_id) WHERE seq = 1;
	CREATE INDEX records_ends ON records (debate_id) WHERE type = 'debate_ended';`,
	// 2: the records whose projection failed (see Store.Append), until a
	// Rebuild of their debate repairs them.
	`CREATE TABLE projection_faults (
		debate_id TEXT NOT NULL,
		seq INTEGER NOT NULL,
		error TEXT NOT NULL,
		at TEXT NOT NULL,
		PRIMARY KEY (debate_id, seq)
	) WITHOUT ROWID;`,
}

// SchemaVersion is the version of the newest schema this package knows.
func SchemaVersion() int { return len(migrations) }

// sqliteMagic starts every SQLite database file.
const sqliteMagic = "SQLite format 3\x00"

// checkFile refuses, before SQLite opens it, a file at abs that is not a
// SQLite database (random bytes, a text file): SQLite would call it
// damaged. Whether a SQLite database is another application's is for
// migrate to say, in the transaction that would make it a store. A missing
// or empty file is a new store.
func checkFile(abs string) error {
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("sqlitestore: open %s: %w", abs, err)
	case fi.IsDir():
		return fmt.Errorf("%w: %s is a directory", ErrForeign, abs)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%w: %s is not a regular file", ErrForeign, abs)
	case fi.Size() == 0:
		return nil
	}
	f, err := os.Open(abs)
	if err != nil {
		return fmt.Errorf("sqlitestore: open %s: %w", abs, err)
	}
	head := make([]byte, 100) // the size of a SQLite header
	n, err := io.ReadFull(f, head)
	f.Close()
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("sqlitestore: open %s: %w", abs, err)
	}
	if n < len(head) || !bytes.HasPrefix(head, []byte(sqliteMagic)) {
		return fmt.Errorf("%w: %s is not a SQLite database (it does not start with SQLite's header): damaged, or another kind of file", ErrForeign, abs)
	}
	return nil
}

// unreadable is the error of a database file SQLite cannot read.
func unreadable(abs string, err error) error {
	return fmt.Errorf("%w: %s cannot be read as a SQLite database (damaged?): %v", ErrForeign, abs, err)
}

// schemaQuerier is a connection or a transaction.
type schemaQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// checkSchema reports whether the database q reads is this package's (or
// empty) at a version it knows; it returns the errors Open does.
func checkSchema(ctx context.Context, q schemaQuerier, abs string) error {
	app, version, tables, err := inspect(ctx, q)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		return unreadable(abs, err)
	}
	switch {
	case app == ApplicationID && version > SchemaVersion():
		return fmt.Errorf("sqlitestore: open %s: the database's schema is at version %d; this sqlitestore knows versions up to %d: upgrade it",
			abs, version, SchemaVersion())
	case app == ApplicationID:
		return nil
	case app == 0 && len(tables) == 0:
		return nil // an empty database: this package makes it a store
	case app == 0:
		return fmt.Errorf("%w: %s is the SQLite database of another application (its tables: %s)", ErrForeign, abs, strings.Join(tables, ", "))
	default:
		return fmt.Errorf("%w: %s is the SQLite database of another application (application_id %#x, not duelogic's %#x)", ErrForeign, abs, app, ApplicationID)
	}
}

// inspect reads the database's application_id, user_version and the names
// of its tables, indexes, views and triggers.
func inspect(ctx context.Context, q schemaQuerier) (app uint32, version int, tables []string, err error) {
	var appID int64
	if err := q.QueryRowContext(ctx, `PRAGMA application_id`).Scan(&appID); err != nil {
		return 0, 0, nil, err
	}
	if err := q.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return 0, 0, nil, err
	}
	rows, err := q.QueryContext(ctx, `SELECT name FROM sqlite_schema ORDER BY name`)
	if err != nil {
		return 0, 0, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return 0, 0, nil, err
		}
		tables = append(tables, name)
	}
	return uint32(appID), version, tables, rows.Err()
}

// migrate brings the database's schema up to date, in one transaction that
// holds the write lock (so that processes opening one new file at once
// create its schema once), and then puts the database in WAL mode. A new
// database gets its application_id and tables in rollback-journal mode,
// written to the file itself, so that its header names duelogic even if
// the process dies right after.
func (s *Store) migrate(ctx context.Context) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := checkSchema(ctx, tx, s.path); err != nil {
			return err
		}
		var version int
		if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
			return err
		}
		for v := version + 1; v <= SchemaVersion(); v++ {
			if _, err := tx.ExecContext(ctx, migrations[v-1]); err != nil {
				return fmt.Errorf("migration %d: %w", v, err)
			}
		}
		if version == 0 {
			if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA application_id = %d`, ApplicationID)); err != nil {
				return err
			}
		}
		if version != SchemaVersion() {
			if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, SchemaVersion())); err != nil {
				return err
			}
		}
		if err := s.proj.schema(ctx, tx); err != nil {
			return fmt.Errorf("projection schema: %w", err)
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, ErrForeign) {
			return err
		}
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		var se *sqlite.Error
		if errors.As(err, &se) && (se.Code()&0xff == sqlite3.SQLITE_NOTADB || se.Code()&0xff == sqlite3.SQLITE_CORRUPT) {
			return unreadable(s.path, err)
		}
		return s.dbError("open", err)
	}
	var mode string
	if err := s.w.QueryRowContext(ctx, `PRAGMA journal_mode = WAL`).Scan(&mode); err != nil {
		return s.dbError("open: set WAL mode", err)
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("sqlitestore: open %s: the database stays in journal mode %q, not WAL", s.path, mode)
	}
	return nil
}
