package sqlitestore

import (
	"encoding/json"
	"strconv"
	"sync"
	"testing"
	"time"
)

// when is the time of the records the concurrency tests append.
var when = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// Several processes, and several goroutines in each, plus two Stores in
// this process, append to the same debates of one file at once: every
// append lands exactly once, each debate's log stays whole (Seq 1..n, no
// gap), and no writer sees anything but success or ErrConflict (no
// SQLITE_BUSY: writers wait for the write lock).
func TestConcurrentProcesses(t *testing.T) {
	const procs = 3
	st := openTest(t)
	second := openAt(t, st.Path())
	var cmds []func() error
	for p := range procs {
		cmd, _, _ := startChild(t, "append", st.Path(), "SQLITESTORE_WRITER=p"+strconv.Itoa(p))
		cmds = append(cmds, cmd.Wait)
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, s := range []*Store{st, second} {
		wg.Go(func() { errs[i] = appendSharedFrom(t.Context(), s, "here"+strconv.Itoa(i)) })
	}
	for i, wait := range cmds {
		if err := wait(); err != nil {
			t.Errorf("child %d: %v", i, err)
		}
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	type key struct {
		W    string `json:"w"`
		G, I int
	}
	seen := map[key]int{}
	total := 0
	for d := range sharedDebates {
		recs, err := st.Records(t.Context(), "shared-"+strconv.Itoa(d))
		if err != nil {
			t.Fatal(err)
		}
		total += len(recs)
		for _, r := range recs {
			var k key
			if err := json.Unmarshal(r.Data, &k); err != nil {
				t.Fatal(err)
			}
			seen[k]++
		}
	}
	writers := procs + 2
	if want := writers * sharedGoroutines * sharedRecords; total != want || len(seen) != want {
		t.Fatalf("%d records, %d distinct; want %d of each", total, len(seen), want)
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("record %+v stored %d times", k, n)
		}
	}
	t.Logf("%d writers (%d processes) x %d goroutines appended %d records to %d debates", writers, procs+1, sharedGoroutines, total, sharedDebates)
}
