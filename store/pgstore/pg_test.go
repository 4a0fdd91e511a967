package pgstore_test

import (
	"context"
	"errors"
	"testing"

	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/pgstore"
	"github.com/duelogic/duelogic/store/pgstore/pgtest"
	"github.com/duelogic/duelogic/store/storetest"
	"github.com/jackc/pgx/v5"
)

// baseDSN is the database the tests use (pgtest.BaseDSN).
func baseDSN(t testing.TB) string { return pgtest.BaseDSN(t) }

// connect opens a plain connection to dsn for the test.
func connect(t testing.TB, dsn string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// schemaDSN returns a DSN on an empty schema of its own, dropped after the
// test: each test gets a database of its own.
func schemaDSN(t testing.TB) string { return pgtest.SchemaDSN(t, "pgstore_test") }

// open opens a store on dsn, closed after the test.
func open(t testing.TB, dsn string) *pgstore.Store {
	t.Helper()
	s, err := pgstore.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func TestStoreContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return open(t, schemaDSN(t)) })
}

func errorsIs(err, target error) bool { return errors.Is(err, target) }

type pgxRows = pgx.Rows

// stubClient is the model of the tests' debates: the stub with a seed whose
// podcast has interruptions (the projection tests need some).
func stubClient() llm.Client { return llm.NewStub(5) }
