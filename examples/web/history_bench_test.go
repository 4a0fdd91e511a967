package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/pgstore"
	"github.com/duelogic/duelogic/store/pgstore/pgtest"
)

// historyDebates is how many finished debates BenchmarkHistory stores.
const historyDebates = 500

// fillHistory appends n copies of recs to st, as debates h0000, h0001, ...
// started a minute apart.
func fillHistory(tb testing.TB, st store.Store, recs []store.Record, n int) {
	tb.Helper()
	var g errgroup.Group
	g.SetLimit(8)
	for i := range n {
		g.Go(func() error {
			id := fmt.Sprintf("h%04d", i)
			for _, r := range recs {
				r.DebateID, r.Time = id, r.Time.Add(time.Duration(i)*time.Minute)
				if err := st.Append(context.Background(), r); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkHistory times GET /api/debates over 500 finished small debates
// in a JSONL store and, when DUELOGIC_PG_DSN is set, in pgstore: "cold" is
// a new server's first listing, "warm" a server's later listings.
//
//	go test -run '^$' -bench History -benchtime 20x
func BenchmarkHistory(b *testing.B) {
	recs := smallDebate(b)
	stores := []struct {
		name string
		open func(b *testing.B) store.Store
	}{
		{"store=jsonl", func(b *testing.B) store.Store {
			st, err := store.OpenJSONL(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { st.Close() })
			return st
		}},
		{"store=pgstore", func(b *testing.B) store.Store {
			pg, err := pgstore.Open(context.Background(), pgtest.SchemaDSN(b, "web_bench"))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(pg.Close)
			return pg
		}},
	}
	for _, sc := range stores {
		b.Run(sc.name, func(b *testing.B) {
			st := sc.open(b)
			fillHistory(b, st, recs, historyDebates)
			list := func(s *server) {
				w := httptest.NewRecorder()
				s.routes().ServeHTTP(w, httptest.NewRequest("GET", "/api/debates", nil))
				if w.Code != http.StatusOK {
					b.Fatalf("GET /api/debates: %d %s", w.Code, w.Body)
				}
			}
			for _, warm := range []bool{false, true} {
				name := "cold"
				if warm {
					name = "warm"
				}
				b.Run(name, func(b *testing.B) {
					s := newServer(llm.NewStub(1), st, nil)
					defer func() { s.shutdown(0) }()
					if warm {
						list(s)
					}
					var total time.Duration
					for b.Loop() {
						if !warm {
							s.shutdown(0)
							s = newServer(llm.NewStub(1), st, nil)
						}
						start := time.Now()
						list(s)
						total += time.Since(start)
					}
					b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/request")
				})
			}
		})
	}
}
