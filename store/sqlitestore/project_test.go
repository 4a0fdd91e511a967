package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/duelogic/duelogic/store"
	"github.com/google/go-cmp/cmp"
)

// testProjection projects each record to a row of proj_test, and fails on
// a record of type "boom": a stand-in for the shared projections, to show
// the seam keeps them with the log.
var testProjection = projector{
	schema: func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS proj_test (debate_id TEXT, seq INTEGER, type TEXT, PRIMARY KEY (debate_id, seq))`)
		return err
	},
	project: func(ctx context.Context, tx *sql.Tx, rec store.Record) error {
		if rec.Type == "boom" {
			return errors.New("projection failed")
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO proj_test VALUES (?, ?, ?)`, rec.DebateID, rec.Seq, rec.Type)
		return err
	},
	clear: func(ctx context.Context, tx *sql.Tx, id string) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM proj_test WHERE debate_id = ?`, id)
		return err
	},
}

// projected is the rows of proj_test: "debate/seq/type".
func projected(t *testing.T, s *Store) []string {
	t.Helper()
	rows, err := s.r.QueryContext(t.Context(), `SELECT debate_id || '/' || seq || '/' || type FROM proj_test ORDER BY debate_id, seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var r string
		if err := rows.Scan(&r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// Append runs the projection in the transaction that inserts the record;
// a projection that fails keeps the record and a fault; Rebuild derives a
// debate's rows again from its log, and only that debate's.
func TestProjectionSeam(t *testing.T) {
	ctx := t.Context()
	s, err := open(ctx, filepath.Join(t.TempDir(), "p.db"), config{proj: testProjection})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, r := range []store.Record{{DebateID: "a", Seq: 1, Type: "x"}, {DebateID: "a", Seq: 2, Type: "y"}, {DebateID: "b", Seq: 1, Type: "z"}} {
		r.Data, r.Time = []byte(`{}`), when
		if err := s.Append(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"a/1/x", "a/2/y", "b/1/z"}
	if diff := cmp.Diff(want, projected(t, s)); diff != "" {
		t.Fatalf("projected rows (-want +got):\n%s", diff)
	}
	// A projection that fails for what it is keeps the record (the log is
	// the truth) and a fault, until a Rebuild succeeds; Rebuild fails
	// while it still cannot project, changing nothing.
	if err := s.Append(ctx, store.Record{DebateID: "c", Seq: 1, Type: "boom", Time: when, Data: []byte(`{}`)}); err != nil {
		t.Fatalf("Append whose projection fails: %v", err)
	}
	if recs, err := s.Records(ctx, "c"); err != nil || len(recs) != 1 {
		t.Fatalf("after a failed projection: %d records (%v), want 1", len(recs), err)
	}
	faults, err := s.ProjectionFaults(ctx)
	if err != nil || len(faults) != 1 || faults[0].DebateID != "c" || faults[0].Seq != 1 || !strings.Contains(faults[0].Error, "projection failed") {
		t.Fatalf("projection faults %+v (%v), want c/1's", faults, err)
	}
	if err := s.Rebuild(ctx, "c"); err == nil || !strings.Contains(err.Error(), "projection failed") {
		t.Fatalf("Rebuild of a debate still failing: %v", err)
	}
	if faults, _ := s.ProjectionFaults(ctx); len(faults) != 1 {
		t.Fatalf("a failed Rebuild cleared the faults: %+v", faults)
	}

	// Damage the rows of a and b; rebuild a only.
	if _, err := s.w.ExecContext(ctx, `DELETE FROM proj_test WHERE seq = 1; UPDATE proj_test SET type = 'bad'`); err != nil {
		t.Fatal(err)
	}
	if err := s.Rebuild(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a/1/x", "a/2/y"}, projected(t, s)); diff != "" {
		t.Fatalf("after Rebuild(a) (-want +got):\n%s", diff)
	}
	if err := s.Rebuild(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, projected(t, s)); diff != "" {
		t.Fatalf("after Rebuild(b) (-want +got):\n%s", diff)
	}
	if err := s.Rebuild(ctx, "nothing"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Rebuild of a debate without records: %v, want ErrNotFound", err)
	}
}

// A new store is in WAL mode, and its file's header names duelogic
// (application_id) while it is open: the header was written to the file
// itself, before the switch to WAL, not left in the WAL.
func TestWALAndHeader(t *testing.T) {
	s := openTest(t)
	var mode string
	if err := s.r.QueryRowContext(t.Context(), `PRAGMA journal_mode`).Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" {
		t.Errorf("journal_mode %q, want wal", mode)
	}
	b, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 100 || binary.BigEndian.Uint32(b[68:72]) != ApplicationID {
		t.Errorf("the file's header does not name duelogic while the store is open")
	}
	if _, err := os.Stat(s.Path() + "-wal"); err != nil {
		t.Errorf("no WAL beside the database: %v", err)
	}
}

// Unfinished lists the engine's debates that have not ended, by the time
// of their first record (not by its text: the offsets differ), and leaves
// out finished debates and logs the engine did not write.
func TestUnfinished(t *testing.T) {
	ctx := t.Context()
	s := openTest(t)
	if _, err := playPodcast(ctx, s, "finished", false); err != nil {
		t.Fatal(err)
	}
	late := time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)
	early := time.Date(2025, 6, 1, 12, 0, 0, 0, time.FixedZone("", 5*3600)) // 07:00 UTC
	for _, r := range []store.Record{
		{DebateID: "a-late", Seq: 1, Type: "debate", Time: late},
		{DebateID: "b-early", Seq: 1, Type: "debate", Time: early},
		{DebateID: "c-not-the-engine", Seq: 1, Type: "t", Time: early},
	} {
		r.Data = []byte(`{}`)
		if err := s.Append(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Unfinished(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"b-early", "a-late"}; !slices.Equal(got, want) {
		t.Errorf("Unfinished = %q, want %q", got, want)
	}
}
