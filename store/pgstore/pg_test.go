package pgstore_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/pgstore"
	"github.com/duelogic/duelogic/store/storetest"
	"github.com/jackc/pgx/v5"
)

// baseDSN is the database the tests use, from DUELOGIC_PG_DSN; without it
// they skip, unless DUELOGIC_REQUIRE_PG=1 (CI, which starts one with
// .ci/postgres.sh), when they fail.
func baseDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("DUELOGIC_PG_DSN")
	if dsn == "" {
		if os.Getenv("DUELOGIC_REQUIRE_PG") == "1" {
			t.Fatal("DUELOGIC_REQUIRE_PG=1 but DUELOGIC_PG_DSN is not set: start PostgreSQL with .ci/postgres.sh")
		}
		t.Skip("DUELOGIC_PG_DSN is not set: no PostgreSQL to test against (source .ci/postgres.sh to start one)")
	}
	return dsn
}

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

// schemaDSN creates an empty schema, dropped after the test, and returns a
// DSN whose connections use it: each test gets a database of its own.
func schemaDSN(t testing.TB) string {
	t.Helper()
	base := baseDSN(t)
	var b [6]byte
	rand.Read(b[:])
	name := "pgstore_test_" + hex.EncodeToString(b[:])
	admin := connect(t, base)
	if _, err := admin.Exec(context.Background(), `CREATE SCHEMA `+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), base)
		if err != nil {
			t.Errorf("drop schema %s: %v", name, err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(context.Background(), `DROP SCHEMA `+name+` CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", name, err)
		}
	})
	if strings.HasPrefix(base, "postgres://") || strings.HasPrefix(base, "postgresql://") {
		u, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		q.Set("search_path", name)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return base + " search_path=" + name
}

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

// stubClient is the offline model every debate of these tests talks to.
func stubClient() llm.Client { return llm.NewStub(1) }
