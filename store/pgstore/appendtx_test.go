package pgstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/duelogic/duelogic/store"
	"github.com/jackc/pgx/v5"
)

// AppendTx stores a record, and its projection, with the caller's
// transaction: nothing is seen before the commit, nothing stays after a
// rollback, and a taken Seq is store.ErrConflict as with Append.
func TestAppendTx(t *testing.T) {
	dsn := schemaDSN(t)
	st := open(t, dsn)
	ctx := context.Background()
	head := func(id string) store.Record {
		return store.Record{DebateID: id, Seq: 1, Type: "debate", Time: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC),
			Data: json.RawMessage(`{"key":"debate","value":{"version":2,"format":"toy","debate":{"id":"` + id + `","proposition":"p"}}}`)}
	}
	conn := connect(t, dsn)
	debates := func(id string) int {
		t.Helper()
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM debates WHERE id = $1`, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	tests := []struct {
		name   string
		commit bool
		want   int
	}{
		{"committed", true, 1},
		{"rolled back", false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := "tx-" + map[bool]string{true: "commit", false: "rollback"}[tt.commit]
			tx, err := conn.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(ctx)
			if err := st.AppendTx(ctx, tx, head(id)); err != nil {
				t.Fatal(err)
			}
			if _, err := st.Records(ctx, id); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("before the end of the transaction: %v; want ErrNotFound", err)
			}
			var n int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM debates WHERE id = $1`, id).Scan(&n); err != nil || n != 1 {
				t.Fatalf("the projection within the transaction: %d rows, %v; want 1", n, err)
			}
			if tt.commit {
				err = tx.Commit(ctx)
			} else {
				err = tx.Rollback(ctx)
			}
			if err != nil {
				t.Fatal(err)
			}
			recs, err := st.Records(ctx, id)
			if got := len(recs); got != tt.want || tt.want == 0 && !errors.Is(err, store.ErrNotFound) {
				t.Errorf("after: %d records, %v; want %d", got, err, tt.want)
			}
			if got := debates(id); got != tt.want {
				t.Errorf("after: %d debates rows; want %d", got, tt.want)
			}
		})
	}

	// A Seq already taken: ErrConflict, and the transaction is aborted.
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error { return st.AppendTx(ctx, tx, head("tx-commit")) })
	if !errors.Is(err, store.ErrConflict) {
		t.Errorf("a taken Seq: %v; want ErrConflict", err)
	}
	// A record refused before the database sees it.
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error { return st.AppendTx(ctx, tx, head("")) })
	if !errors.Is(err, store.ErrInvalidID) {
		t.Errorf("an empty ID: %v; want ErrInvalidID", err)
	}
}
