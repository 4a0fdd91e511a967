package sqlitestore

import (
	"context"
	"database/sql"

	"github.com/duelogic/duelogic/store"
)

// projector keeps the tables derived from the log (the projections that
// the SQL stores share): the seam where they are wired in. Every Append
// runs project in the transaction that inserts the record, after the
// insert, so that the tables are never behind the log nor ahead of it;
// Rebuild runs clear and then project for each of a debate's records, in
// one transaction.
type projector struct {
	// schema is the DDL of the tables, run by Open in the migration's
	// transaction each time a store opens; each statement must be
	// idempotent (CREATE TABLE IF NOT EXISTS ...).
	schema []string
	// project derives the rows of rec, just inserted in tx.
	project func(ctx context.Context, tx *sql.Tx, rec store.Record) error
	// clear deletes the rows of a debate.
	clear func(ctx context.Context, tx *sql.Tx, debateID string) error
}

// projection is the projector of every Store: none yet. The shared
// projection definition is wired in here.
var projection = projector{
	project: func(context.Context, *sql.Tx, store.Record) error { return nil },
	clear:   func(context.Context, *sql.Tx, string) error { return nil },
}
