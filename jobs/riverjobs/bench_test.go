package riverjobs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/jobs/riverjobs"
)

// benchDebates are n short podcasts.
func benchDebates(n int, prefix string) []spec {
	out := make([]spec, n)
	for i := range out {
		out[i] = spec{"duelogic", json.RawMessage(`{"flow":{"maxExchanges":3}}`),
			engine.Debate{ID: prefix + "-" + strconv.Itoa(i), Proposition: proposition}}
	}
	return out
}

// BenchmarkWorkers plays 48 podcasts with a 50 ms model on 1, 2 and 4
// workers of 4 debates at once (each with a pool of its own, as a process
// would have): debates per minute, and the scale-out against one worker.
//
//	go test -run '^$' -bench Workers -benchtime 1x
func BenchmarkWorkers(b *testing.B) {
	const debates = 48
	var one float64
	for _, workers := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			for range b.N {
				d := newDB(b)
				q := d.queue(b, riverjobs.Config{})
				ids := map[string]bool{}
				for _, s := range benchDebates(debates, "bench") {
					if _, err := q.Enqueue(context.Background(), s.format, s.config, s.debate); err != nil {
						b.Fatal(err)
					}
					ids[s.debate.ID] = true
				}
				rep := newReports()
				began := time.Now()
				for i := range workers {
					d.worker(b, riverjobs.Config{ID: "b" + strconv.Itoa(i), Model: stub(50 * time.Millisecond), Concurrency: 4, Report: rep.add})
				}
				rep.waitFinished(b, ids)
				perMin := debates / time.Since(began).Minutes()
				b.ReportMetric(perMin, "debates/min")
				if workers == 1 {
					one = perMin
				} else if one > 0 {
					b.ReportMetric(perMin/one, "x-one-worker")
				}
			}
		})
	}
}

// BenchmarkOverhead plays podcasts one at a time with an instant model:
// by engine.Run on pgstore, and through the queue (Enqueue, then a worker
// of one debate at a time) — the queue's cost per debate is the
// difference.
func BenchmarkOverhead(b *testing.B) {
	b.Run("direct", func(b *testing.B) {
		d := newDB(b)
		specs := benchDebates(b.N, "direct")
		b.ResetTimer()
		for _, s := range specs {
			f, _ := engine.Open(s.format, s.config)
			if _, err := engine.Run(context.Background(), stub(0), f, s.debate, engine.WithStore(d.st)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("queue", func(b *testing.B) {
		d := newDB(b)
		rep := newReports()
		q := d.queue(b, riverjobs.Config{})
		d.worker(b, riverjobs.Config{Model: stub(0), Concurrency: 1, Report: rep.add})
		specs := benchDebates(b.N, "queue")
		b.ResetTimer()
		for _, s := range specs {
			if _, err := q.Enqueue(context.Background(), s.format, s.config, s.debate); err != nil {
				b.Fatal(err)
			}
			rep.waitFinished(b, map[string]bool{s.debate.ID: true})
		}
	})
}
