package riverjobs

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// schema is the tables of this package, beside River's: the slots of the
// provider limits (see [Limiter]), a slot free when its holder is null or
// its lease has run out; and the starts of the calls within the providers'
// rate windows.
const schema = `CREATE TABLE IF NOT EXISTS duelogic_provider_slots (
	provider text NOT NULL,
	slot integer NOT NULL CHECK (slot >= 0),
	holder text,
	lease_until timestamptz NOT NULL DEFAULT '-infinity',
	PRIMARY KEY (provider, slot)
);
CREATE TABLE IF NOT EXISTS duelogic_provider_calls (
	provider text NOT NULL,
	started timestamptz NOT NULL,
	holder text NOT NULL
);
CREATE INDEX IF NOT EXISTS duelogic_provider_calls_provider_started ON duelogic_provider_calls (provider, started)`

// migrateLock is the advisory lock that serializes migrations.
const migrateLock = `hashtextextended('duelogic/riverjobs/migrate/' || current_schema(), 0)`

// Migrate brings the database pool connects to up to date for the jobs:
// River's own migrations (each version in a transaction of its own, as
// River applies them), then this package's table, under an advisory lock, so
// that processes starting at once migrate once. The tables live in the
// connection's current schema (search_path). pgstore's tables are
// pgstore.Open's.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	if err := migrate(ctx, pool); err != nil {
		return fmt.Errorf("riverjobs: migrate: %w", err)
	}
	return nil
}

func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	m, err := rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return err
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(`+migrateLock+`)`); err != nil {
		return err
	}
	defer func() {
		if _, err := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(`+migrateLock+`)`); err != nil {
			conn.Conn().Close(context.WithoutCancel(ctx)) // frees the lock
		}
	}()
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river: %w", err)
	}
	_, err = conn.Exec(ctx, schema)
	return err
}
