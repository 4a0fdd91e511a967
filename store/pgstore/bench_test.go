package pgstore_test

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/store"
)

// podcastRecords returns the records of a stub podcast debate: the load the
// benchmarks append (with the projections they make).
func podcastRecords(b *testing.B) []store.Record {
	b.Helper()
	mem := store.NewMemory()
	o, err := duelogic.New(podcastConfig(), stubClient(), duelogic.WithStore(mem), duelogic.WithClock(clock()))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := o.Run(b.Context(), duelogic.Debate{ID: "template", Proposition: "Should cities ban private cars?"}); err != nil {
		b.Fatal(err)
	}
	recs, err := mem.Records(b.Context(), "template")
	if err != nil {
		b.Fatal(err)
	}
	return recs
}

// appendDebates appends n records, as whole copies of recs under fresh
// debate IDs (the last one cut short), from one goroutine.
func appendDebates(b *testing.B, st store.Store, recs []store.Record, prefix string, n int) {
	for i := 0; i < n; i++ {
		r := recs[i%len(recs)]
		r.DebateID = fmt.Sprintf("%s-%d", prefix, i/len(recs))
		if err := st.Append(b.Context(), r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendOneDebate appends the records of podcast debates one after
// the other, from one goroutine: the rate of one debate's log.
func BenchmarkAppendOneDebate(b *testing.B) {
	st := open(b, schemaDSN(b))
	recs := podcastRecords(b)
	b.ResetTimer()
	start := time.Now()
	appendDebates(b, st, recs, "one", b.N)
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "appends/s")
}

// BenchmarkAppend50Debates appends from 50 goroutines, each to debates of
// its own: the rate of the database under 50 concurrent debates.
func BenchmarkAppend50Debates(b *testing.B) {
	const debates = 50
	dsn := schemaDSN(b)
	if extra := os.Getenv("PGSTORE_BENCH_DSN_EXTRA"); extra != "" {
		dsn += extra // e.g. &pool_max_conns=50
	}
	st := open(b, dsn)
	recs := podcastRecords(b)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for g := range debates {
		n := b.N / debates
		if g < b.N%debates {
			n++
		}
		wg.Go(func() { appendDebates(b, st, recs, fmt.Sprintf("g%d", g), n) })
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "appends/s")
}

// The same loads on store.JSONL (fsync per append too), for comparison.
func BenchmarkJSONLAppendOneDebate(b *testing.B) {
	st, err := store.OpenJSONL(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	recs := podcastRecords(b)
	b.ResetTimer()
	start := time.Now()
	appendDebates(b, st, recs, "one", b.N)
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "appends/s")
}

func BenchmarkJSONLAppend50Debates(b *testing.B) {
	const debates = 50
	st, err := store.OpenJSONL(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	recs := podcastRecords(b)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for g := range debates {
		n := b.N / debates
		if g < b.N%debates {
			n++
		}
		wg.Go(func() { appendDebates(b, st, recs, fmt.Sprintf("g%d", g), n) })
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "appends/s")
}
