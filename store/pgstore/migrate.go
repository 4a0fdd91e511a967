package pgstore

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/duelogic/duelogic/store/sqlproj"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one file of migrations/: NNNN_name.sql, applied in order of
// version.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the embedded migrations, sorted by version.
func migrations() ([]migration, error) {
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, n := range names {
		base := path.Base(n)
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v < 1 {
			return nil, fmt.Errorf("pgstore: migration %s: name is not NNNN_name.sql", base)
		}
		body, err := migrationFiles.ReadFile(n)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: strings.TrimSuffix(base, ".sql"), sql: string(body)})
	}
	slices.SortFunc(ms, func(a, b migration) int { return a.version - b.version })
	for i := 1; i < len(ms); i++ {
		if ms[i].version == ms[i-1].version {
			return nil, fmt.Errorf("pgstore: two migrations of version %d", ms[i].version)
		}
	}
	return ms, nil
}

// SchemaVersion is the version of the newest migration this package holds.
func SchemaVersion() int {
	ms, err := migrations()
	if err != nil || len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].version
}

// rebuildFrom is the version of the migration after which every debate's
// projections are rebuilt: the one that brought in the shared projections
// of every format.
const rebuildFrom = 4

// migrate applies the migrations the database lacks, all in one transaction
// that holds an advisory lock, so that processes opening one database at
// once apply each migration once, and then brings the projected tables up
// to the shared definition (see ensureProjections). It refuses a database
// whose schema is newer than this package's. It reports whether the
// projections of the debates already stored must be rebuilt: the
// migration rebuildFrom was applied to a database that had debates.
func migrate(ctx context.Context, pool *pgxpool.Pool) (rebuild bool, err error) {
	ms, err := migrations()
	if err != nil {
		return false, err
	}
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('duelogic/pgstore/migrate/' || current_schema(), 0))`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version integer PRIMARY KEY,
			name text NOT NULL,
			applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT version FROM schema_migrations`)
		if err != nil {
			return err
		}
		applied, err := pgx.CollectRows(rows, pgx.RowTo[int32])
		if err != nil {
			return err
		}
		if n := len(ms); n > 0 && len(applied) > 0 && int(slices.Max(applied)) > ms[n-1].version {
			return fmt.Errorf("the database's schema is at version %d; this pgstore knows versions up to %d: upgrade it",
				slices.Max(applied), ms[n-1].version)
		}
		for _, m := range ms {
			if slices.Contains(applied, int32(m.version)) {
				continue
			}
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return fmt.Errorf("migration %s: %w", m.name, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, m.version, m.name); err != nil {
				return fmt.Errorf("migration %s: %w", m.name, err)
			}
			if m.version == rebuildFrom && len(applied) > 0 {
				rebuild = true
			}
		}
		return ensureProjections(ctx, tx)
	})
	if err != nil {
		return false, fmt.Errorf("pgstore: migrate: %w", err)
	}
	return rebuild, nil
}

// ensureProjections creates the projected tables of the shared definition
// (sqlproj.Tables: the common tables and those of every format registered
// in this process) that do not exist, and adds the columns missing from
// those that do.
func ensureProjections(ctx context.Context, tx pgx.Tx) error {
	rows, err := tx.Query(ctx, `SELECT table_name::text, column_name::text FROM information_schema.columns
		WHERE table_schema = current_schema()`)
	if err != nil {
		return err
	}
	have := map[string][]string{}
	var table, column string
	_, err = pgx.ForEachRow(rows, []any{&table, &column}, func() error {
		have[table] = append(have[table], column)
		return nil
	})
	if err != nil {
		return err
	}
	d := sqlproj.Postgres
	for _, t := range sqlproj.Tables() {
		var stmts []string
		if cols, ok := have[t.Name]; ok {
			stmts = d.AddColumns(t, cols)
		} else {
			stmts = d.CreateTable(t)
		}
		for _, q := range stmts {
			if _, err := tx.Exec(ctx, q); err != nil {
				return fmt.Errorf("projected table %s: %w", t.Name, err)
			}
		}
	}
	return nil
}
