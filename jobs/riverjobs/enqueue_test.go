package riverjobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/jobs/riverjobs"
	"github.com/duelogic/duelogic/store"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
)

// counts returns the number of records and of jobs of debate id.
func (d *db) counts(t *testing.T, id string) (records, jobs int) {
	t.Helper()
	if strings.IndexByte(id, 0) >= 0 {
		return 0, 0 // PostgreSQL text cannot hold it: nothing can be stored
	}
	ctx := context.Background()
	if err := d.pool.QueryRow(ctx, `SELECT count(*) FROM records WHERE debate_id = $1`, id).Scan(&records); err != nil {
		t.Fatal(err)
	}
	if err := d.pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE args->>'debate_id' = $1`, id).Scan(&jobs); err != nil {
		t.Fatal(err)
	}
	return records, jobs
}

// Enqueue stores a debate's first record — the one engine.Run stores — and
// its job together; it refuses what cannot be played before anything is
// stored.
func TestEnqueue(t *testing.T) {
	d := newDB(t)
	q := d.queue(t, riverjobs.Config{})
	ctx := context.Background()

	s := spec{"duelogic", json.RawMessage(`{"flow":{"maxExchanges":3}}`), engine.Debate{ID: "ok-1", Proposition: proposition, Context: "a town of 50,000"}}
	id, err := q.Enqueue(ctx, s.format, s.config, s.debate)
	if err != nil || id != "ok-1" {
		t.Fatalf("Enqueue: %q, %v", id, err)
	}
	rivertest.RequireInserted(ctx, t, riverpgxv5.New(d.pool), &riverjobs.Args{DebateID: "ok-1"}, &rivertest.RequireInsertedOpts{Queue: riverjobs.QueueName})
	// The first record is the one an uninterrupted run stores (its time
	// aside).
	recs, err := d.st.Records(ctx, id)
	if err != nil || len(recs) != 1 {
		t.Fatalf("records: %d, %v; want the first one", len(recs), err)
	}
	mem := store.NewMemory()
	f, _ := engine.Open(s.format, s.config)
	if _, err := engine.Run(ctx, refusing{}, f, s.debate, engine.WithStore(mem)); err == nil {
		t.Fatal("the refusing model let the debate run")
	}
	want, err := mem.Records(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if string(recs[0].Data) != string(want[0].Data) || recs[0].Type != want[0].Type {
		t.Errorf("first record %s %s; want %s %s", recs[0].Type, recs[0].Data, want[0].Type, want[0].Data)
	}

	// A fresh ID when none is given.
	id, err = q.Enqueue(ctx, "formal", nil, engine.Debate{Proposition: proposition})
	if err != nil || !engine.ValidID(id) {
		t.Fatalf("Enqueue without an ID: %q, %v", id, err)
	}
	if r, j := d.counts(t, id); r != 1 || j != 1 {
		t.Errorf("%s: %d records, %d jobs; want 1 and 1", id, r, j)
	}

	tests := []struct {
		name   string
		format string
		config string
		debate engine.Debate
		want   error
	}{
		{"path in the ID", "duelogic", "", engine.Debate{ID: "../etc/passwd", Proposition: proposition}, engine.ErrInvalidDebate},
		{"SQL in the ID", "duelogic", "", engine.Debate{ID: "x'; DROP TABLE records; --", Proposition: proposition}, engine.ErrInvalidDebate},
		{"NUL in the ID", "duelogic", "", engine.Debate{ID: "a\x00b", Proposition: proposition}, engine.ErrInvalidDebate},
		{"ID too long", "duelogic", "", engine.Debate{ID: strings.Repeat("a", 129), Proposition: proposition}, engine.ErrInvalidDebate},
		{"dot first", "duelogic", "", engine.Debate{ID: ".hidden", Proposition: proposition}, engine.ErrInvalidDebate},
		{"no proposition", "formal", "", engine.Debate{ID: "bad-1"}, engine.ErrInvalidDebate},
		{"proposition not UTF-8", "duelogic", "", engine.Debate{ID: "bad-2", Proposition: "\xff\xfe"}, engine.ErrInvalidDebate},
		{"context too long", "duelogic", "", engine.Debate{ID: "bad-3", Proposition: proposition, Context: strings.Repeat("x", engine.MaxContextRunes+1)}, engine.ErrInvalidDebate},
		{"unknown format", "nope", "", engine.Debate{ID: "bad-4", Proposition: proposition}, engine.ErrUnknownFormat},
		{"unknown field", "duelogic", `{"colour":"red"}`, engine.Debate{ID: "bad-5", Proposition: proposition}, engine.ErrInvalidConfig},
		{"config not an object", "duelogic", `[1]`, engine.Debate{ID: "bad-6", Proposition: proposition}, engine.ErrInvalidConfig},
		{"config not JSON", "duelogic", `{"flow":`, engine.Debate{ID: "bad-7", Proposition: proposition}, engine.ErrInvalidConfig},
		{"config too large", "duelogic", `{"x":"` + strings.Repeat("a", riverjobs.MaxConfigBytes) + `"}`, engine.Debate{ID: "bad-8", Proposition: proposition}, engine.ErrInvalidConfig},
		{"invalid value", "duelogic", `{"flow":{"maxExchanges":-3}}`, engine.Debate{ID: "bad-9", Proposition: proposition}, engine.ErrInvalidConfig},
		{"taken ID", "duelogic", "", engine.Debate{ID: "ok-1", Proposition: proposition}, engine.ErrDebateExists},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cfg json.RawMessage
			if tt.config != "" {
				cfg = json.RawMessage(tt.config)
			}
			_, err := q.Enqueue(ctx, tt.format, cfg, tt.debate)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Enqueue: %v; want %v", err, tt.want)
			}
			wantRecs, wantJobs := 0, 0
			if tt.debate.ID == "ok-1" {
				wantRecs, wantJobs = 1, 1
			}
			if r, j := d.counts(t, tt.debate.ID); r != wantRecs || j != wantJobs {
				t.Errorf("stored %d records and %d jobs; want %d and %d", r, j, wantRecs, wantJobs)
			}
		})
	}
}

// A debate and its job are one transaction: when the job cannot be
// inserted (a job of that debate is already queued), the debate's record
// is not stored either.
func TestEnqueueIsOneTransaction(t *testing.T) {
	d := newDB(t)
	q := d.queue(t, riverjobs.Config{})
	ctx := context.Background()
	if _, err := q.Client().Insert(ctx, riverjobs.Args{DebateID: "orphan"}, nil); err != nil {
		t.Fatal(err)
	}
	_, err := q.Enqueue(ctx, "duelogic", nil, engine.Debate{ID: "orphan", Proposition: proposition})
	if !errors.Is(err, riverjobs.ErrQueued) {
		t.Fatalf("Enqueue: %v; want ErrQueued", err)
	}
	if r, j := d.counts(t, "orphan"); r != 0 || j != 1 {
		t.Errorf("%d records, %d jobs; want no record beside the one job", r, j)
	}
	// And a debate is queued once: Requeue while its job waits is refused.
	if _, err := q.Enqueue(ctx, "duelogic", nil, engine.Debate{ID: "once", Proposition: proposition}); err != nil {
		t.Fatal(err)
	}
	if err := q.Requeue(ctx, "once", nil); !errors.Is(err, riverjobs.ErrQueued) {
		t.Errorf("Requeue of a queued debate: %v; want ErrQueued", err)
	}
	if err := q.Requeue(ctx, "never", nil); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Requeue of no debate: %v; want store.ErrNotFound", err)
	}
	if err := q.Cancel(ctx, "never"); !errors.Is(err, riverjobs.ErrNoJob) {
		t.Errorf("Cancel of no debate: %v; want ErrNoJob", err)
	}
}
