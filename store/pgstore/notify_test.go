package pgstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/pgstore"
	"github.com/jackc/pgx/v5"
)

// record is record seq of debate id: a record 1 the projections take, or
// a plain record.
func record(id string, seq int64) store.Record {
	r := store.Record{DebateID: id, Seq: seq, Type: "note", Time: time.Date(2025, 6, 1, 12, 0, 0, int(seq), time.UTC),
		Data: json.RawMessage(fmt.Sprintf(`{"n":%d}`, seq))}
	if seq == 1 {
		r.Type = "debate"
		r.Data = json.RawMessage(`{"key":"debate","value":{"version":2,"format":"toy","debate":{"id":"` + id + `","proposition":"p"}}}`)
	}
	return r
}

// runFeed runs a Feed of st for the test.
func runFeed(t *testing.T, st *pgstore.Store) *pgstore.Feed {
	t.Helper()
	f := pgstore.NewFeed(st)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return f
}

// follower follows a debate in the background and hands over each batch.
type follower struct {
	recs   chan store.Record
	cancel context.CancelFunc
	done   chan error
}

func follow(t *testing.T, f *pgstore.Feed, id string, after int64) *follower {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	fl := &follower{recs: make(chan store.Record, 1000), cancel: cancel, done: make(chan error, 1)}
	go func() {
		fl.done <- f.Follow(ctx, id, after, func(recs []store.Record) error {
			for _, r := range recs {
				fl.recs <- r
			}
			return nil
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-fl.done; !errors.Is(err, context.Canceled) {
			t.Errorf("Follow: %v; want context.Canceled", err)
		}
	})
	return fl
}

// next waits for the follower's next record, which must be seq.
func (fl *follower) next(t *testing.T, seq int64) store.Record {
	t.Helper()
	select {
	case r := <-fl.recs:
		if r.Seq != seq {
			t.Fatalf("followed seq %d; want %d", r.Seq, seq)
		}
		return r
	case <-time.After(10 * time.Second):
		t.Fatalf("seq %d not followed within 10 s", seq)
	}
	return store.Record{}
}

// A Feed hands its followers the records stored before they follow and
// each one appended after, by Append or with AppendTx at the commit (and
// nothing of a rollback); it follows one debate apart from another.
func TestFeedFollow(t *testing.T) {
	dsn := schemaDSN(t)
	st := open(t, dsn)
	ctx := context.Background()
	for seq := int64(1); seq <= 2; seq++ {
		if err := st.Append(ctx, record("a", seq)); err != nil {
			t.Fatal(err)
		}
	}
	f := runFeed(t, st)
	fa := follow(t, f, "a", 1)
	fb := follow(t, f, "b", 0)
	fa.next(t, 2)
	if err := st.Append(ctx, record("a", 3)); err != nil {
		t.Fatal(err)
	}
	got := fa.next(t, 3)
	if string(got.Data) != `{"n":3}` || got.Type != "note" || !got.Time.Equal(record("a", 3).Time) {
		t.Errorf("followed %+v; want %+v", got, record("a", 3))
	}

	conn := connect(t, dsn)
	// A rolled back append is never announced; a committed one is.
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AppendTx(ctx, tx, record("b", 1)); err != nil {
		t.Fatal(err)
	}
	tx.Rollback(ctx)
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		r := record("b", 1)
		r.Data = json.RawMessage(`{"key":"debate","value":{"version":2,"format":"toy","debate":{"id":"b","proposition":"committed"}}}`)
		return st.AppendTx(ctx, tx, r)
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := fb.next(t, 1); string(r.Data) == string(record("b", 1).Data) {
		t.Error("followed the rolled-back record")
	}
	select {
	case r := <-fa.recs:
		t.Errorf("debate a's follower got %s seq %d", r.DebateID, r.Seq)
	default:
	}
}

// A subscriber that does not read blocks no other: its wakes are one,
// and the others follow every append.
func TestFeedSlowSubscriber(t *testing.T) {
	st := open(t, schemaDSN(t))
	ctx := context.Background()
	f := runFeed(t, st)
	slow := f.Subscribe("a")
	defer slow.Close()
	fa := follow(t, f, "a", 0)
	const n = 50
	for seq := int64(1); seq <= n; seq++ {
		if err := st.Append(ctx, record("a", seq)); err != nil {
			t.Fatal(err)
		}
	}
	for seq := int64(1); seq <= n; seq++ {
		fa.next(t, seq)
	}
	if got := len(slow.C()); got != 1 {
		t.Errorf("the slow subscription holds %d wakes; want 1", got)
	}
}

// When the Feed's connection is terminated, it connects again and its
// followers get what was appended meanwhile and after.
func TestFeedReconnects(t *testing.T) {
	dsn := schemaDSN(t)
	st := open(t, dsn)
	ctx := context.Background()
	f := runFeed(t, st)
	fa := follow(t, f, "a", 0)
	if err := st.Append(ctx, record("a", 1)); err != nil {
		t.Fatal(err)
	}
	fa.next(t, 1)
	conn := connect(t, dsn)
	for seq := int64(2); seq <= 4; seq++ {
		// Terminate the feed's connection (listening on the channel of this
		// test's schema), then append.
		var killed int
		err := conn.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
			WHERE query = 'LISTEN "duelogic_records_' || md5(current_schema()) || '"' AND state = 'idle'`).Scan(&killed)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Append(ctx, record("a", seq)); err != nil {
			t.Fatal(err)
		}
		fa.next(t, seq)
		if seq == 2 && killed != 1 {
			t.Fatalf("terminated %d listening connections; want 1", killed)
		}
	}
}

// BenchmarkFeedLatency measures the time from an Append's return to its
// record reaching a follower, with 20 followers of the debate.
func BenchmarkFeedLatency(b *testing.B) {
	st := open(b, schemaDSN(b))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := pgstore.NewFeed(st)
	var wg sync.WaitGroup
	wg.Go(func() { f.Run(ctx) })
	defer wg.Wait()
	defer cancel()
	const followers = 20
	got := make(chan int64, followers*16)
	for range followers {
		wg.Go(func() {
			f.Follow(ctx, "bench", 0, func(recs []store.Record) error {
				for _, r := range recs {
					got <- r.Seq
				}
				return nil
			})
		})
	}
	var total time.Duration
	var worst time.Duration
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		if err := st.Append(ctx, record("bench", int64(i+1))); err != nil {
			b.Fatal(err)
		}
		for range followers {
			<-got
		}
		d := time.Since(start)
		total += d
		worst = max(worst, d)
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs/append-to-all")
	b.ReportMetric(float64(worst.Microseconds()), "µs-worst")
}
