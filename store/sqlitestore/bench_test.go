package sqlitestore_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/pgstore"
	"github.com/duelogic/duelogic/store/pgstore/pgtest"
	"github.com/duelogic/duelogic/store/sqlitestore"
)

// The stores every benchmark compares, in one run: sqlitestore, the core's
// JSONL (both fsync each append) and pgstore, on the PostgreSQL server of
// DUELOGIC_PG_DSN (skipped without it, unless DUELOGIC_REQUIRE_PG=1; the
// pool's size is pgxpool's default unless BENCH_PG_DSN_EXTRA adds to the
// DSN, e.g. &pool_max_conns=50).
var benchStores = []struct {
	name string
	open func(b *testing.B) store.Store
}{
	{"store=sqlite", func(b *testing.B) store.Store {
		st, err := sqlitestore.Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		return st
	}},
	{"store=jsonl", func(b *testing.B) store.Store {
		st, err := store.OpenJSONL(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		return st
	}},
	{"store=postgres", func(b *testing.B) store.Store {
		st, err := pgstore.Open(context.Background(), pgtest.SchemaDSN(b, "sqlitestore_bench")+os.Getenv("BENCH_PG_DSN_EXTRA"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(st.Close)
		return st
	}},
}

// benchConfig is the podcast of the benchmarks: 3 exchanges, strict
// evaluations, interruptions.
func benchConfig() duelogic.Config {
	cfg := duelogic.DefaultConfig()
	cfg.Flow.MaxExchanges = 3
	cfg.Interruptions.CooldownSeconds = 0
	cfg.Interruptions.Aggressiveness = 5
	cfg.Arbiter.AccountabilityLevel = duelogic.Strict
	return cfg
}

func pinned() time.Time { return time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC) }

// podcastRecords returns the records of a stub podcast debate: the load
// the append benchmarks append.
func podcastRecords(b *testing.B) []store.Record {
	b.Helper()
	mem := store.NewMemory()
	o, err := duelogic.New(benchConfig(), llm.NewStub(3), duelogic.WithStore(mem), duelogic.WithClock(pinned))
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
	for i := range n {
		r := recs[i%len(recs)]
		r.DebateID = fmt.Sprintf("%s-%d", prefix, i/len(recs))
		if err := st.Append(b.Context(), r); err != nil {
			b.Error(err)
			return
		}
	}
}

// BenchmarkAppendOneDebate appends the records of podcast debates one after
// the other, from one goroutine: the rate of one debate's log.
//
//	go test -run '^$' -bench Append -benchtime 3s
func BenchmarkAppendOneDebate(b *testing.B) {
	for _, s := range benchStores {
		b.Run(s.name, func(b *testing.B) {
			st := s.open(b)
			recs := podcastRecords(b)
			start := time.Now()
			b.ResetTimer()
			appendDebates(b, st, recs, "one", b.N)
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "appends/s")
		})
	}
}

// BenchmarkAppend50Debates appends from 50 goroutines, each to debates of
// its own: the rate of the store under 50 concurrent debates.
func BenchmarkAppend50Debates(b *testing.B) {
	const debates = 50
	for _, s := range benchStores {
		b.Run(s.name, func(b *testing.B) {
			st := s.open(b)
			recs := podcastRecords(b)
			start := time.Now()
			b.ResetTimer()
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
		})
	}
}

// The load of BenchmarkManyDebates: 500 podcast debates, at most 50
// playing at a time, with a model that takes 5 ms per call.
const (
	manyDebates  = 500
	manyAtOnce   = 50
	modelLatency = 5 * time.Millisecond
)

// slowModel is the stub model taking a fixed latency per call, streamed or
// not.
type slowModel struct {
	stub  *llm.Stub
	delay time.Duration
}

func (m slowModel) wait(ctx context.Context) error {
	t := time.NewTimer(m.delay)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (m slowModel) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := m.wait(ctx); err != nil {
		return llm.Response{}, err
	}
	return m.stub.Complete(ctx, req)
}

func (m slowModel) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	if err := m.wait(ctx); err != nil {
		return llm.Response{}, err
	}
	return m.stub.Stream(ctx, req, onDelta)
}

// BenchmarkManyDebates plays 500 podcast debates per iteration, 50 at a
// time, with a 5 ms model, on each store, and reports the wall time of the
// 500 debates, debates/s and the store's appends/s. The engine takes each
// store's lock (a Locker's) for each debate.
//
//	go test -run '^$' -bench ManyDebates -benchtime 1x
func BenchmarkManyDebates(b *testing.B) {
	for _, s := range benchStores {
		b.Run(s.name, func(b *testing.B) {
			st := s.open(b)
			client := slowModel{stub: llm.NewStub(3), delay: modelLatency}
			var wall time.Duration
			var appends int
			for iter := 0; b.Loop(); iter++ {
				ids := make([]string, manyDebates)
				for i := range ids {
					ids[i] = fmt.Sprintf("many-%d-%03d", iter, i)
				}
				start := time.Now()
				if err := playMany(b.Context(), st, client, ids); err != nil {
					b.Fatal(err)
				}
				wall += time.Since(start)
				b.StopTimer()
				for _, id := range ids {
					recs, err := st.Records(b.Context(), id)
					if err != nil {
						b.Fatal(err)
					}
					appends += len(recs)
				}
				b.StartTimer()
			}
			b.ReportMetric(wall.Seconds()/float64(b.N), "s/500debates")
			b.ReportMetric(float64(b.N*manyDebates)/wall.Seconds(), "debates/s")
			b.ReportMetric(float64(appends)/wall.Seconds(), "appends/s")
		})
	}
}

// playMany plays the podcast debates ids on st, at most manyAtOnce at a
// time; it returns the first error.
func playMany(ctx context.Context, st store.Store, client llm.Client, ids []string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
		slots = make(chan struct{}, manyAtOnce)
	)
	for _, id := range ids {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			o, err := duelogic.New(benchConfig(), client, duelogic.WithStore(st), duelogic.WithClock(pinned),
				duelogic.WithLogger(slog.New(slog.DiscardHandler)))
			if err == nil {
				_, err = o.Run(ctx, duelogic.Debate{ID: id, Proposition: "Should cities ban private cars?"})
			}
			if err != nil {
				once.Do(func() { first = fmt.Errorf("debate %s: %w", id, err); cancel() })
			}
		})
	}
	wg.Wait()
	return first
}
