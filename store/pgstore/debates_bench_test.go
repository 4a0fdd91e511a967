package pgstore_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// The load of BenchmarkManyDebates: 500 podcast debates (podcastConfig: 3
// exchanges, strict evaluations, interruptions), at most 50 playing at a
// time, with a model that takes 5 ms per call.
const (
	manyDebates  = 500
	manyAtOnce   = 50
	modelLatency = 5 * time.Millisecond
)

// slowModel is the stub model taking a fixed latency per call, streamed or
// not (the podcast streams its turns, and cuts them at interruptions).
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
// time, with a 5 ms model, on pgstore and on the JSONL store in one run,
// and reports the wall time of the 500 debates, debates/s and the store's
// appends/s. The engine takes pgstore's lock for each debate (a connection
// of its own); appends share the pool, of pgxpool's default size unless
// PGSTORE_BENCH_DSN_EXTRA adds to the DSN (e.g. &pool_max_conns=50).
//
//	go test -run '^$' -bench ManyDebates -benchtime 1x
func BenchmarkManyDebates(b *testing.B) {
	stores := []struct {
		name string
		open func(b *testing.B) store.Store
	}{
		{"store=pgstore", func(b *testing.B) store.Store {
			return open(b, schemaDSN(b)+os.Getenv("PGSTORE_BENCH_DSN_EXTRA"))
		}},
		{"store=jsonl", func(b *testing.B) store.Store {
			st, err := store.OpenJSONL(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { st.Close() })
			return st
		}},
	}
	for _, s := range stores {
		b.Run(s.name, func(b *testing.B) {
			st := s.open(b)
			client := slowModel{stub: llm.NewStub(1), delay: modelLatency}
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
			o, err := duelogic.New(podcastConfig(), client, duelogic.WithStore(st), duelogic.WithClock(pinned),
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
