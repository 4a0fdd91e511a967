package riverjobs_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/duelogic/duelogic/jobs/riverjobs"
	"github.com/duelogic/duelogic/llm"
)

// starts is a model that notes when each of its calls begins.
type starts struct {
	llm.Client
	mu sync.Mutex
	at []time.Time
}

func (m *starts) note() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.at = append(m.at, time.Now())
}

func (m *starts) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	m.note()
	return m.Client.Complete(ctx, req)
}

func (m *starts) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	m.note()
	return llm.Stream(ctx, m.Client, req, onDelta)
}

// A rate of 4 calls per window of a second across four limiters (four
// workers) making 12 calls at once, alone or with 2 calls in flight: no 5
// calls the model sees begin within a window, and no more than 2 are ever
// in flight when that is the limit.
func TestProviderRateAcrossWorkers(t *testing.T) {
	d := newDB(t)
	d.queue(t, riverjobs.Config{}) // migrates
	const (
		rate   = 4
		window = time.Second
		// slack is the most a call's start may trail its stamp in the
		// database (a commit, a goroutine's wake-up, on a loaded machine).
		slack = 400 * time.Millisecond
	)
	tests := []struct {
		name  string
		slots int // calls in flight (0: no limit)
	}{
		{"rate alone", 0},
		{"rate and slots", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			provider := strings.ReplaceAll(tt.name, " ", "-")
			counted := &inFlight{Client: stub(100 * time.Millisecond)}
			model := &starts{Client: counted}
			ctx := context.Background()
			var wg sync.WaitGroup
			errs := make(chan error, 12)
			for i := range 4 {
				lim := riverjobs.NewLimiter(d.pool, riverjobs.LimiterConfig{Holder: "w" + strconv.Itoa(i), RateWindow: window, Logger: slog.New(slog.DiscardHandler)})
				c := lim.LimitProvider(provider, riverjobs.Limits{InFlight: tt.slots, Rate: rate}, model)
				for range 3 {
					wg.Go(func() {
						if _, err := c.Complete(ctx, llm.Request{Purpose: "x"}); err != nil {
							errs <- err
						}
					})
				}
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			at := slices.SortedFunc(slices.Values(model.at), time.Time.Compare)
			if len(at) != 12 {
				t.Fatalf("%d calls began; want 12", len(at))
			}
			least := time.Hour
			for i := range len(at) - rate {
				gap := at[i+rate].Sub(at[i])
				least = min(least, gap)
				if gap < window-slack {
					t.Errorf("calls %d to %d began within %v; want at most %d in any %v", i, i+rate, gap, rate, window)
				}
			}
			t.Logf("the shortest time in which %d calls began: %v", rate+1, least)
			if most := counted.most.Load(); tt.slots > 0 && most > int64(tt.slots) {
				t.Errorf("%d calls in flight; want at most %d", most, tt.slots)
			}
		})
	}
}

// A worker that died consumes the rate for its window and no longer: the
// calls it began keep a call waiting (and the wait is logged) while they
// are within the window, and not once they have left it.
func TestProviderRateWindow(t *testing.T) {
	d := newDB(t)
	d.queue(t, riverjobs.Config{}) // migrates
	ctx := context.Background()
	tests := []struct {
		name    string
		started string // of the dead worker's 2 calls
		timeout time.Duration
		wait    bool // the call waits for the rate
		ok      bool // the call is made before the timeout
	}{
		{"within the window", "now()", 300 * time.Millisecond, true, false},
		{"leaving the window", "clock_timestamp() - interval '700 milliseconds'", 5 * time.Second, true, true},
		{"out of the window", "now() - interval '2 seconds'", 300 * time.Millisecond, false, true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			provider := "p" + strconv.Itoa(i)
			var logs syncBuffer
			lim := riverjobs.NewLimiter(d.pool, riverjobs.LimiterConfig{Holder: "live", RateWindow: time.Second, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			c := lim.LimitProvider(provider, riverjobs.Limits{Rate: 2}, llm.NewStub(1))
			if _, err := d.pool.Exec(ctx, `INSERT INTO duelogic_provider_calls (provider, started, holder)
				SELECT $1, `+tt.started+`, 'dead' FROM generate_series(1, 2)`, provider); err != nil {
				t.Fatal(err)
			}
			cctx, cancel := context.WithTimeout(ctx, tt.timeout)
			defer cancel()
			_, err := c.Complete(cctx, llm.Request{Purpose: "x"})
			waited := strings.Contains(logs.String(), "waiting for the rate")
			if waited != tt.wait {
				t.Errorf("logged a wait for the rate: %t; want %t (log: %s)", waited, tt.wait, logs.String())
			}
			switch {
			case tt.ok && err != nil:
				t.Errorf("the call: %v; want it made", err)
			case !tt.ok && !errors.Is(err, context.DeadlineExceeded):
				t.Errorf("the call: %v; want it still waiting at its deadline", err)
			}
		})
	}
}

// Wrong limits fail the calls; no limit is the client itself.
func TestLimitProviderLimits(t *testing.T) {
	lim := riverjobs.NewLimiter(nil, riverjobs.LimiterConfig{})
	c := llm.NewStub(1)
	if got := lim.LimitProvider("p", riverjobs.Limits{}, c); got != llm.Client(c) {
		t.Errorf("no limits: %T; want the client itself", got)
	}
	for _, l := range []riverjobs.Limits{{InFlight: -1}, {Rate: -1}, {InFlight: 2, Rate: -3}} {
		if _, err := lim.LimitProvider("p", l, c).Complete(context.Background(), llm.Request{Purpose: "x"}); err == nil {
			t.Errorf("%+v: a call made; want an error", l)
		}
	}
}
