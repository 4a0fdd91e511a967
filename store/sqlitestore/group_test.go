package sqlitestore

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/duelogic/duelogic/store"
	"github.com/google/go-cmp/cmp"
)

// queueAppends starts an Append of the first record while the store's
// writing connection is held and waits until it leads (it has taken its
// batch, itself alone, and waits for the connection); then it starts an
// Append of each other record and waits until all are queued behind it,
// releases the connection and returns each Append's verdict: the queued
// ones make one batch.
func queueAppends(t *testing.T, s *Store, recs []store.Record) []error {
	t.Helper()
	conn, err := s.w.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	errs := make([]error, len(recs))
	var wg sync.WaitGroup
	// A bound for a broken queue only, far above what a loaded machine
	// takes to start the goroutines.
	deadline := time.Now().Add(time.Minute)
	waitFor := func(what string, ok func(queued int, leading bool) bool) {
		for {
			s.group.mu.Lock()
			n, leading := len(s.group.queue), s.group.leading
			s.group.mu.Unlock()
			if ok(n, leading) {
				return
			}
			if time.Now().After(deadline) {
				conn.Close()
				wg.Wait()
				t.Fatalf("%s: %d Appends queued (leading %t)", what, n, leading)
			}
			runtime.Gosched()
		}
	}
	wg.Go(func() { errs[0] = s.Append(context.Background(), recs[0]) })
	waitFor("the first Append leads", func(n int, leading bool) bool { return leading && n == 0 })
	for i, r := range recs[1:] {
		wg.Go(func() { errs[i+1] = s.Append(context.Background(), r) })
	}
	waitFor(fmt.Sprintf("the other %d Appends queue while the connection is held", len(recs)-1),
		func(n int, _ bool) bool { return n == len(recs)-1 })
	conn.Close()
	wg.Wait()
	return errs
}

// Appends that wait while another commits are committed together, in one
// transaction, and each gets its own verdict: a conflict refuses that
// record alone, a failed projection keeps its record and a fault, rolling
// back that projection alone; of two Appends of one Seq, one wins; the
// projections stay equal to the log.
func TestGroupCommit(t *testing.T) {
	ctx := t.Context()
	s, err := open(ctx, filepath.Join(t.TempDir(), "g.db"), config{proj: testProjection})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec := func(id string, seq int64, typ string) store.Record {
		return store.Record{DebateID: id, Seq: seq, Type: typ, Time: when, Data: []byte(`{}`)}
	}
	var recs []store.Record
	want := map[int]string{} // index -> "", "conflict" or "fault"
	for i := range 30 {
		recs = append(recs, rec(fmt.Sprintf("ok-%02d", i), 1, "t"))
		want[len(recs)-1] = ""
	}
	for i := range 5 {
		recs = append(recs, rec(fmt.Sprintf("boom-%d", i), 1, "boom"))
		want[len(recs)-1] = "fault"
		recs = append(recs, rec(fmt.Sprintf("gap-%d", i), 2, "t"))
		want[len(recs)-1] = "conflict"
	}
	recs = append(recs, rec("dup", 1, "t"), rec("dup", 1, "t"))

	errs := queueAppends(t, s, recs)
	dupWins := 0
	for i, err := range errs {
		switch w, ok := want[i]; {
		case !ok: // dup
			if err == nil {
				dupWins++
			} else if !errors.Is(err, store.ErrConflict) {
				t.Errorf("dup: %v", err)
			}
		case (w == "" || w == "fault") && err != nil:
			t.Errorf("Append of %s: %v", recs[i].DebateID, err)
		case w == "conflict" && !errors.Is(err, store.ErrConflict):
			t.Errorf("Append of %s seq 2: %v, want ErrConflict", recs[i].DebateID, err)
		}
	}
	if dupWins != 1 {
		t.Errorf("%d of 2 Appends of dup seq 1 won, want 1", dupWins)
	}
	ids, err := s.Debates(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var wantIDs, wantRows []string
	for i := range 30 {
		wantIDs = append(wantIDs, fmt.Sprintf("ok-%02d", i))
	}
	for _, id := range wantIDs {
		wantRows = append(wantRows, id+"/1/t")
	}
	wantRows = append([]string{"dup/1/t"}, wantRows...)
	wantIDs = append([]string{"boom-0", "boom-1", "boom-2", "boom-3", "boom-4", "dup"}, wantIDs...)
	if diff := cmp.Diff(wantIDs, ids); diff != "" {
		t.Errorf("debates stored (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantRows, projected(t, s)); diff != "" {
		t.Errorf("projected rows (-want +got):\n%s", diff)
	}
	faults, err := s.ProjectionFaults(ctx)
	if err != nil || len(faults) != 5 {
		t.Errorf("projection faults %+v (%v), want the 5 booms'", faults, err)
	}
	if s.group.batches != 1 {
		t.Errorf("%d batches committed, want 1: the %d queued Appends together", s.group.batches, len(recs)-1)
	}
}

// When a batch fails as a whole (here a record that does not fit in a
// full database), it is rolled back and each record is appended alone:
// the ones that fit are stored, and only the one that does not fails.
func TestGroupCommitFallback(t *testing.T) {
	ctx := t.Context()
	probe := openTest(t)
	limit := pageCount(t, probe) + 16 // room for the small records only
	s := openAt(t, filepath.Join(t.TempDir(), "f.db"), fmt.Sprintf("max_page_count(%d)", limit))
	var recs []store.Record
	for i := range 10 {
		recs = append(recs, store.Record{DebateID: fmt.Sprintf("small-%d", i), Seq: 1, Type: "t", Time: when, Data: []byte(`{}`)})
	}
	big := store.Record{DebateID: "big", Seq: 1, Type: "t", Time: when, Data: []byte(`"` + strings.Repeat("x", 1<<20) + `"`)}
	recs = append(recs[:5], append([]store.Record{big}, recs[5:]...)...)
	errs := queueAppends(t, s, recs)
	for i, err := range errs {
		if recs[i].DebateID == "big" {
			if err == nil || !strings.Contains(err.Error(), "is full") {
				t.Errorf("Append of the big record: %v, want the database full", err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Append of %s: %v", recs[i].DebateID, err)
		}
	}
	ids, err := s.Debates(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 10 {
		t.Errorf("debates stored: %v, want the 10 small ones", ids)
	}
}
