// Package pgtest gives a test a PostgreSQL database of its own: a new
// schema on the server that DUELOGIC_PG_DSN names, dropped when the test
// ends. Without DUELOGIC_PG_DSN a test skips with a message, unless
// DUELOGIC_REQUIRE_PG=1 (CI, which starts a server with .ci/postgres.sh),
// when it fails. The pgstore suite, examples/pgcli, examples/worker and the
// web example share it.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// BaseDSN returns DUELOGIC_PG_DSN, or skips (fails with
// DUELOGIC_REQUIRE_PG=1) without it.
func BaseDSN(t testing.TB) string {
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

// Schema creates an empty schema named prefix and a random suffix, dropped
// with everything in it after the test, and returns the server's DSN and
// the schema's name.
func Schema(t testing.TB, prefix string) (base, schema string) {
	t.Helper()
	base = BaseDSN(t)
	var b [6]byte
	rand.Read(b[:])
	schema = prefix + "_" + hex.EncodeToString(b[:])
	if err := exec(base, `CREATE SCHEMA `+schema); err != nil {
		t.Fatalf("create schema %s: %v", schema, err)
	}
	t.Cleanup(func() {
		if err := exec(base, `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	return base, schema
}

// SchemaDSN is [Schema] as a DSN whose connections use the new schema.
func SchemaDSN(t testing.TB, prefix string) string {
	t.Helper()
	base, schema := Schema(t, prefix)
	dsn, err := WithSchema(base, schema)
	if err != nil {
		t.Fatal(err)
	}
	return dsn
}

// WithSchema returns dsn (a URL or a key=value string) with its
// connections' search_path set to schema.
func WithSchema(dsn, schema string) (string, error) {
	if !strings.HasPrefix(dsn, "postgres://") && !strings.HasPrefix(dsn, "postgresql://") {
		return dsn + " search_path=" + schema, nil
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "", fmt.Errorf("pgtest: DSN: %w", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// exec runs one statement on a connection of its own.
func exec(dsn, sql string) error {
	ctx := context.Background()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	_, err = c.Exec(ctx, sql)
	return err
}
