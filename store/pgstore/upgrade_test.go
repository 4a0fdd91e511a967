package pgstore_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/store"
)

// A database of schema version 2 (pgstore before the shared projections),
// holding a podcast debate projected the old way, is upgraded by Open: its
// config column is still there and readable, the new columns and tables
// are filled from the log (Rebuild of every debate), and appends go on.
func TestUpgradeFromVersion2(t *testing.T) {
	ctx := context.Background()
	dsn := schemaDSN(t)
	c := connect(t, dsn)
	if _, err := c.Exec(ctx, `CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"0001_records", "0002_projections"} {
		body, err := os.ReadFile("migrations/" + name + ".sql")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Exec(ctx, string(body)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, i+1, name); err != nil {
			t.Fatal(err)
		}
	}
	// A podcast debate as version 2 kept it: its records, and its debates
	// row with the configuration in config.
	mem := store.NewMemory()
	f, err := engine.Open("duelogic", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(ctx, stubClient(), f, engine.Debate{ID: "old-1", Proposition: "Should cities ban private cars?", Unattended: true},
		engine.WithStore(mem), engine.WithClock(clock()))
	if err != nil {
		t.Fatal(err)
	}
	recs, _ := mem.Records(ctx, "old-1")
	for _, r := range recs {
		if _, err := c.Exec(ctx, `INSERT INTO records (debate_id, seq, type, time, data) VALUES ($1, $2, $3, $4, $5::text::json)`,
			r.DebateID, r.Seq, r.Type, r.Time.Format(time.RFC3339Nano), string(r.Data)); err != nil {
			t.Fatal(err)
		}
	}
	sum, _ := engine.Summarize(recs)
	if _, err := c.Exec(ctx, `INSERT INTO debates (id, debate_mode, config, proposition, context, status, records, created_at, updated_at)
		VALUES ('old-1', 'duelogic', $1::text::jsonb, $2, '', 'finished', $3, $4, $4)`,
		string(sum.Spec), sum.Debate.Proposition, len(recs), recs[0].Time); err != nil {
		t.Fatal(err)
	}

	pg := open(t, dsn)
	var format, status string
	var same bool
	if err := c.QueryRow(ctx, `SELECT format, status, config = duelogic_config AND config = $2::text::jsonb FROM debates WHERE id = $1`,
		"old-1", string(sum.Spec)).Scan(&format, &status, &same); err != nil {
		t.Fatal(err)
	}
	if format != "duelogic" || status != "finished" || !same {
		t.Errorf("upgraded debates row: format %q status %q, config kept and duelogic_config set: %v", format, status, same)
	}
	if n := count(t, c, `SELECT count(*) FROM utterances WHERE debate_id = 'old-1'`); n != len(res.Transcript) {
		t.Errorf("%d utterances, transcript %d", n, len(res.Transcript))
	}
	if n := count(t, c, `SELECT count(*) FROM judgments WHERE debate_id = 'old-1'`); n == 0 {
		t.Error("no judgments after the upgrade: the debate was not rebuilt")
	}
	// Appends go on: a second debate on the upgraded database.
	f, _ = engine.Open("duelogic", nil)
	if _, err := engine.Run(ctx, stubClient(), f, engine.Debate{ID: "new-1", Proposition: "Should cities ban private cars?", Unattended: true},
		engine.WithStore(pg), engine.WithClock(clock())); err != nil {
		t.Fatal(err)
	}
	if n := count(t, c, `SELECT count(*) FROM debates WHERE status = 'finished'`); n != 2 {
		t.Errorf("%d finished debates, want 2", n)
	}
}

// A projection the database refuses does not lose the record: the debate
// plays on, the record is stored, the fault is kept; Rebuild fails while
// the cause stands, changing nothing, and repairs the tables and clears
// the fault once it is gone.
func TestProjectionFault(t *testing.T) {
	ctx := context.Background()
	dsn := schemaDSN(t)
	pg := open(t, dsn)
	c := connect(t, dsn)
	if _, err := c.Exec(ctx, `ALTER TABLE scored_rounds ADD CONSTRAINT no_market CHECK (category <> 'market')`); err != nil {
		t.Fatal(err)
	}
	f, _ := engine.Open("scored", nil)
	res, err := engine.Run(ctx, stubClient(), f, engine.Debate{ID: "s-1", Proposition: "Should cities ban private cars?", Unattended: true},
		engine.WithStore(pg), engine.WithClock(clock()))
	if err != nil {
		t.Fatalf("the debate stopped on a projection fault: %v", err)
	}
	recs, _ := pg.Records(ctx, "s-1")
	faults, err := pg.ProjectionFaults(ctx)
	if err != nil || len(faults) != 1 || faults[0].DebateID != "s-1" || recs[faults[0].Seq-1].Type != "scored_round" {
		t.Fatalf("faults: %+v, %v", faults, err)
	}
	if n := count(t, c, `SELECT count(*) FROM scored_rounds WHERE debate_id = 's-1'`); n != 2 {
		t.Errorf("%d scored_rounds with the fault, want 2", n)
	}
	if n := count(t, c, `SELECT count(*) FROM utterances WHERE debate_id = 's-1'`); n != len(res.Transcript) {
		t.Errorf("%d utterances, want %d", n, len(res.Transcript))
	}
	if err := pg.Rebuild(ctx, "s-1"); err == nil {
		t.Error("Rebuild succeeded while the projection still fails")
	}
	if n := count(t, c, `SELECT count(*) FROM projection_faults`); n != 1 {
		t.Errorf("%d faults after the failed Rebuild, want 1", n)
	}
	if _, err := c.Exec(ctx, `ALTER TABLE scored_rounds DROP CONSTRAINT no_market`); err != nil {
		t.Fatal(err)
	}
	if err := pg.Rebuild(ctx, "s-1"); err != nil {
		t.Fatal(err)
	}
	if n := count(t, c, `SELECT count(*) FROM scored_rounds WHERE debate_id = 's-1'`); n != 3 {
		t.Errorf("%d scored_rounds after Rebuild, want 3", n)
	}
	if faults, _ := pg.ProjectionFaults(ctx); len(faults) != 0 {
		t.Errorf("faults after Rebuild: %+v", faults)
	}
}
