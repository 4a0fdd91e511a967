package riverjobs_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/duelogic/duelogic/jobs/riverjobs"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store/pgstore"
	"github.com/jackc/pgx/v5/pgxpool"
)

// blocking is a model whose calls wait for their context to end.
type blocking struct {
	llm.Client
	started chan struct{}
}

func (b *blocking) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	select {
	case b.started <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return llm.Response{}, ctx.Err()
}

// onLine is a writer that sends on seen (without blocking) when a line
// written to it contains want.
type onLine struct {
	want string
	seen chan struct{}
}

func (w *onLine) Write(p []byte) (int, error) {
	if strings.Contains(string(p), w.want) {
		select {
		case w.seen <- struct{}{}:
		default:
		}
	}
	return len(p), nil
}

// Shutdown stops a worker within its bound and loses nothing: debates
// stop at their next step and their jobs go back to the queue (snoozed,
// or, for a call that outlasts the bound, cancelled by River's hard stop),
// and another worker finishes each equal to an uninterrupted run.
func TestShutdown(t *testing.T) {
	tests := []struct {
		name    string
		model   func(pool *pgxpool.Pool, started chan struct{}) llm.Client
		outcome string
		only    bool // every attempt ends with outcome
	}{
		{"at the next step", func(_ *pgxpool.Pool, started chan struct{}) llm.Client {
			s := stub(20 * time.Millisecond)
			s.onCall = func(llm.Request) {
				select {
				case started <- struct{}{}:
				default:
				}
			}
			return s
		}, riverjobs.OutcomeSnoozed, false},
		{"a call outlasts the bound", func(_ *pgxpool.Pool, started chan struct{}) llm.Client {
			return &blocking{Client: llm.NewStub(1), started: started}
		}, riverjobs.OutcomeCancelled, false},
		// A call waiting for the provider's rate (one call an hour) stops
		// waiting: its debate snoozes rather than outlasting the bound.
		{"a call waits for the rate", func(pool *pgxpool.Pool, started chan struct{}) llm.Client {
			logs := slog.New(slog.NewTextHandler(&onLine{want: "waiting for the rate", seen: started}, nil))
			lim := riverjobs.NewLimiter(pool, riverjobs.LimiterConfig{Holder: "stopping", RateWindow: time.Hour, Logger: logs})
			return lim.LimitProvider("hourly", riverjobs.Limits{Rate: 1}, stub(0))
		}, riverjobs.OutcomeSnoozed, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDB(t)
			q := d.queue(t, riverjobs.Config{})
			specs := mixed(2, "stop")
			ids := map[string]bool{}
			for _, s := range specs {
				if _, err := q.Enqueue(context.Background(), s.format, s.config, s.debate); err != nil {
					t.Fatal(err)
				}
				ids[s.debate.ID] = true
			}
			started := make(chan struct{}, 1)
			rep := newReports()
			ctx := context.Background()
			st, err := pgstore.Open(ctx, d.dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			pool, err := pgxpool.New(ctx, d.dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			w := (&db{dsn: d.dsn, pool: pool, st: st}).queue(t, riverjobs.Config{ID: "stopping", Model: tt.model(pool, started), Report: rep.add})
			if err := w.Start(ctx); err != nil {
				t.Fatal(err)
			}
			<-started
			const bound = 500 * time.Millisecond
			began := time.Now()
			if err := w.Shutdown(bound); err != nil {
				t.Fatal(err)
			}
			if took := time.Since(began); took > bound+2*time.Second {
				t.Errorf("Shutdown took %v; want about its bound, %v", took, bound)
			}
			// Each attempt stopped at a step (a debate that had not
			// called yet stops at its first), or was cancelled by the
			// hard stop; the one under way when the stop began as tt says.
			seen := map[string]int{}
			for len(rep.ch) > 0 {
				r := <-rep.ch
				seen[r.Outcome]++
				if r.Outcome != riverjobs.OutcomeSnoozed && r.Outcome != riverjobs.OutcomeCancelled || tt.only && r.Outcome != tt.outcome {
					t.Errorf("%s: %s (%v); want snoozed or cancelled (only %s: %t)", r.DebateID, r.Outcome, r.Err, tt.outcome, tt.only)
				}
			}
			if seen[tt.outcome] == 0 {
				t.Errorf("outcomes %v; want one %s", seen, tt.outcome)
			}
			list, err := q.List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range list {
				if s.Status != riverjobs.StatusQueued {
					t.Errorf("%s: %s after the shutdown; want queued", s.DebateID, s.Status)
				}
			}
			rest := newReports()
			d.worker(t, riverjobs.Config{ID: "next", Model: stub(0), Report: rest.add})
			rest.waitFinished(t, ids)
			for _, s := range specs {
				checkDebate(t, d.st, s)
			}
		})
	}
}
