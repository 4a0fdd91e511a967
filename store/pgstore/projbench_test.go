package pgstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/store"
)

// BenchmarkAppendProjected appends the records of a stub debate of each
// format, end to end on PostgreSQL (record and projections in one
// transaction), one debate after another; "log-only" appends the same
// records under a first record that is not the engine's, which projects
// nothing: the difference is what the projections cost per record.
func BenchmarkAppendProjected(b *testing.B) {
	st := open(b, schemaDSN(b))
	ctx := context.Background()
	for _, format := range engine.Formats() {
		mem := store.NewMemory()
		f, err := engine.Open(format, nil)
		if err != nil {
			b.Fatal(err)
		}
		res, err := engine.Run(ctx, stubClient(), f, engine.Debate{Proposition: "Should cities ban private cars?", Unattended: true},
			engine.WithStore(mem), engine.WithClock(clock()))
		if err != nil {
			b.Fatal(err)
		}
		recs, _ := mem.Records(ctx, res.DebateID)
		for _, mode := range []string{"projected", "log-only"} {
			b.Run(format+"/"+mode, func(b *testing.B) {
				i := 0
				start := time.Now()
				for b.Loop() {
					r := recs[i%len(recs)]
					r.DebateID = fmt.Sprintf("%s-%s-%d", format, mode, i/len(recs))
					if mode == "log-only" && r.Seq == 1 {
						r.Type = "note"
					}
					if err := st.Append(ctx, r); err != nil {
						b.Fatal(err)
					}
					i++
				}
				b.ReportMetric(float64(time.Since(start).Microseconds())/float64(i), "µs/record")
			})
		}
	}
}
