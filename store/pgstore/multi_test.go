package pgstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/pgstore"
	"github.com/google/go-cmp/cmp"
)

// Two Stores (two pools: two processes) append to one debate at once, each
// re-reading the log and retrying on ErrConflict: the log holds every
// record once, in each writer's order, without a gap.
func TestTwoStoresNeverInterleave(t *testing.T) {
	dsn := schemaDSN(t)
	stores := []*pgstore.Store{open(t, dsn), open(t, dsn)}
	const perWriter = 40
	ctx := t.Context()
	var wg sync.WaitGroup
	errs := make([]error, 2*len(stores))
	conflicts := make([]int, len(errs))
	for w := range errs {
		st := stores[w%len(stores)]
		wg.Go(func() {
			for n := 0; n < perWriter; {
				recs, err := st.Records(ctx, "shared")
				if err != nil && !errors.Is(err, store.ErrNotFound) {
					errs[w] = err
					return
				}
				rec := store.Record{DebateID: "shared", Seq: int64(len(recs)) + 1, Time: time.Unix(int64(n), 0), Type: "t",
					Data: json.RawMessage(fmt.Sprintf(`{"writer":%d,"n":%d}`, w, n))}
				switch err := st.Append(ctx, rec); {
				case err == nil:
					n++
				case errors.Is(err, store.ErrConflict):
					conflicts[w]++
				default:
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	recs, err := stores[0].Records(ctx, "shared")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != perWriter*len(errs) {
		t.Fatalf("%d records, want %d", len(recs), perWriter*len(errs))
	}
	next := make([]int, len(errs))
	for i, r := range recs {
		if r.Seq != int64(i+1) {
			t.Fatalf("record %d has seq %d", i, r.Seq)
		}
		var d struct{ Writer, N int }
		if err := json.Unmarshal(r.Data, &d); err != nil {
			t.Fatal(err)
		}
		if d.N != next[d.Writer] {
			t.Fatalf("seq %d: writer %d record %d, want %d", r.Seq, d.Writer, d.N, next[d.Writer])
		}
		next[d.Writer]++
	}
	t.Logf("%d records by %d writers on 2 pools; conflicts per writer %v", len(recs), len(errs), conflicts)
}

// A lock taken through one Store (one pool, one process) excludes the other
// until it is unlocked; the engine refuses to play a debate locked
// elsewhere.
func TestLockAcrossStores(t *testing.T) {
	dsn := schemaDSN(t)
	a, b := open(t, dsn), open(t, dsn)
	ctx := t.Context()
	unlock, err := a.Lock(ctx, "d1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Lock(ctx, "d1"); !errors.Is(err, store.ErrLocked) {
		t.Fatalf("Lock held by another store: got error %v, want ErrLocked", err)
	}
	o, err := duelogic.New(podcastConfig(), stubClient(), duelogic.WithStore(b), duelogic.WithClock(clock()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.Run(ctx, duelogic.Debate{ID: "d1", Proposition: "Locks?"}); !errors.Is(err, store.ErrLocked) {
		t.Fatalf("Run of a debate locked by another process: got error %v, want ErrLocked", err)
	}
	if _, err := b.Records(ctx, "d1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the refused Run stored something: %v", err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	if _, err := o.Run(ctx, duelogic.Debate{ID: "d1", Proposition: "Locks?"}); err != nil {
		t.Fatal(err)
	}
	again, err := a.Lock(ctx, "d1")
	if err != nil {
		t.Fatalf("Lock after Run returned: %v", err)
	}
	again()

	// Stores on other schemas of the database lock apart.
	other := open(t, schemaDSN(t))
	u1, err := a.Lock(ctx, "same-id")
	if err != nil {
		t.Fatal(err)
	}
	defer u1()
	u2, err := other.Lock(ctx, "same-id")
	if err != nil {
		t.Fatalf("Lock of the same ID in another schema: %v", err)
	}
	u2()
}

// Hostile debate IDs, types, data and configurations go to the database as
// parameters: they are stored as they are and the schema survives them.
func TestHostileInput(t *testing.T) {
	dsn := schemaDSN(t)
	st := open(t, dsn)
	ctx := t.Context()
	ids := []string{
		`x'; DROP TABLE records; --`,
		`Robert"); DROP TABLE debates;--`,
		`$1`,
		`back\slash`,
		`%_ LIKE`,
		"ünïcødé ✓",
		strings.Repeat("a", pgstore.MaxIDLen),
	}
	for _, id := range ids {
		rec := store.Record{DebateID: id, Seq: 1, Time: time.Unix(1, 0), Type: `t'); DELETE FROM records; --`,
			Data: json.RawMessage(`{"sql":"'); DROP SCHEMA public CASCADE; --","nul":"\u0000"}`)}
		if err := st.Append(ctx, rec); err != nil {
			t.Fatalf("Append(%q): %v", id, err)
		}
		got, err := st.Records(ctx, id)
		if err != nil {
			t.Fatalf("Records(%q): %v", id, err)
		}
		if len(got) != 1 || got[0].Type != rec.Type || string(got[0].Data) != string(rec.Data) {
			t.Fatalf("Records(%q) = %+v", id, got)
		}
		unlock, err := st.Lock(ctx, id)
		if err != nil {
			t.Fatalf("Lock(%q): %v", id, err)
		}
		unlock()
	}
	listed, err := st.Debates(ctx)
	if err != nil || len(listed) != len(ids) {
		t.Fatalf("Debates = %q, %v; want the %d IDs", listed, err, len(ids))
	}
	for _, bad := range []string{"", "nul\x00id", "bad\xffutf8", strings.Repeat("a", pgstore.MaxIDLen+1)} {
		err := st.Append(ctx, store.Record{DebateID: bad, Seq: 1, Type: "t", Data: json.RawMessage(`1`)})
		if !errors.Is(err, store.ErrInvalidID) {
			t.Errorf("Append with ID %q: got error %v, want ErrInvalidID", bad, err)
		}
	}

	// A debate whose proposition, context and configuration carry SQL, quotes
	// and NUL: the log keeps them, the projections as far as PostgreSQL can.
	d := duelogic.Debate{ID: "hostile-config", Proposition: `'); DROP TABLE utterances; -- "quoted" \ nul:` + "\x00",
		Context: `$$ DROP TABLE debates $$`}
	cfg := podcastConfig()
	cfg.Chairs[0].Persona = `'; DELETE FROM debate_chairs; -- ` + "\x00"
	cfg.Chairs[0].ModelDisplayName = `Mallory'); --`
	cfg.Podcast.ShowName = `"; DROP TABLE chair_interruptions; --`
	o, err := duelogic.New(cfg, stubClient(), duelogic.WithStore(st), duelogic.WithClock(clock()))
	if err != nil {
		t.Fatal(err)
	}
	res, err := o.Run(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, dsn)
	var prop, ctxText, display, persona string
	if err := c.QueryRow(ctx, `SELECT proposition, context, config->'chairs'->0->>'persona' FROM debates WHERE id = $1`, d.ID).
		Scan(&prop, &ctxText, &persona); err != nil {
		t.Fatal(err)
	}
	if want := strings.ReplaceAll(d.Proposition, "\x00", "\uFFFD"); prop != want || ctxText != d.Context {
		t.Errorf("debates row: proposition %q, context %q; want %q, %q", prop, ctxText, want, d.Context)
	}
	if want := strings.ReplaceAll(cfg.Chairs[0].Persona, "\x00", "\uFFFD"); persona != want {
		t.Errorf("config persona %q, want %q", persona, want)
	}
	if err := c.QueryRow(ctx, `SELECT model_display_name FROM debate_chairs WHERE debate_id = $1 AND chair_position = 'chair_1'`, d.ID).
		Scan(&display); err != nil || display != cfg.Chairs[0].ModelDisplayName {
		t.Errorf("chair display name %q, %v; want %q", display, err, cfg.Chairs[0].ModelDisplayName)
	}
	var n int
	if err := c.QueryRow(ctx, `SELECT count(*) FROM utterances WHERE debate_id = $1`, d.ID).Scan(&n); err != nil || n != len(res.Transcript) {
		t.Errorf("%d utterances projected, %v; want %d", n, err, len(res.Transcript))
	}
	// The log keeps everything byte for byte: the debate resumes as it was.
	sum, err := engine.Inspect(ctx, st, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Debate.Proposition != d.Proposition || !sum.Finished {
		t.Errorf("stored debate %+v", sum.Debate)
	}
}

// Several processes opening one fresh database at once apply each
// migration once; opening again changes nothing.
func TestOpenConcurrently(t *testing.T) {
	dsn := schemaDSN(t)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			s, err := pgstore.Open(context.Background(), dsn)
			if err == nil {
				s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	open(t, dsn)
	c := connect(t, dsn)
	rows, _ := c.Query(t.Context(), `SELECT version FROM schema_migrations ORDER BY version`)
	versions := collect(t, rows, func(r pgxRows, v *int) error { return r.Scan(v) })
	var want []int
	files, err := os.ReadDir("migrations")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		v, err := strconv.Atoi(strings.SplitN(f.Name(), "_", 2)[0])
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, v)
	}
	if diff := cmp.Diff(want, versions); diff != "" {
		t.Fatalf("schema_migrations mismatch (-want +got):\n%s", diff)
	}
	// A database newer than the package is refused, not damaged.
	if _, err := c.Exec(t.Context(), `INSERT INTO schema_migrations (version, name) VALUES (9999, 'future')`); err != nil {
		t.Fatal(err)
	}
	if s, err := pgstore.Open(t.Context(), dsn); err == nil || !strings.Contains(err.Error(), "9999") {
		if s != nil {
			s.Close()
		}
		t.Fatalf("Open of a newer schema: got error %v, want one naming version 9999", err)
	}
}
