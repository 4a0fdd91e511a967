package riverjobs_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/jobs/riverjobs"
	"github.com/duelogic/duelogic/llm"
)

// inFlight is a model that counts its calls in flight, and the most ever.
type inFlight struct {
	llm.Client
	now, most atomic.Int64
}

func (m *inFlight) enter() func() {
	n := m.now.Add(1)
	for {
		most := m.most.Load()
		if n <= most || m.most.CompareAndSwap(most, n) {
			break
		}
	}
	return func() { m.now.Add(-1) }
}

func (m *inFlight) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	defer m.enter()()
	return m.Client.Complete(ctx, req)
}

func (m *inFlight) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	defer m.enter()()
	return llm.Stream(ctx, m.Client, req, onDelta)
}

// A limit of 3 calls in flight for a provider, across four workers of 4
// debates each: the most calls ever in flight to it is 3.
func TestProviderLimitAcrossWorkers(t *testing.T) {
	d := newDB(t)
	q := d.queue(t, riverjobs.Config{})
	model := &inFlight{Client: stub(10 * time.Millisecond)}
	rep := newReports()
	specs := mixed(16, "limit")
	ids := map[string]bool{}
	for _, s := range specs {
		if _, err := q.Enqueue(context.Background(), s.format, s.config, s.debate); err != nil {
			t.Fatal(err)
		}
		ids[s.debate.ID] = true
	}
	for i := range 4 {
		// Each worker its own pool and limiter, as in its own process.
		d.worker(t, riverjobs.Config{ID: "w" + strconv.Itoa(i), Concurrency: 4, Report: rep.add,
			Model: riverjobs.NewLimiter(d.pool, riverjobs.LimiterConfig{Holder: "w" + strconv.Itoa(i)}).Limit("stub", 3, model)})
	}
	rep.waitFinished(t, ids)
	if most := model.most.Load(); most != 3 {
		t.Errorf("at most %d calls in flight; want 3, the limit, reached and never passed", most)
	}
	for _, s := range specs {
		checkDebate(t, d.st, s)
	}
}

// syncBuffer is a log destination several goroutines write.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The slot of a worker that died comes back when its lease runs out: a
// call waits (and says so) while the lease holds, and takes the slot once
// it has run out.
func TestProviderSlotLease(t *testing.T) {
	d := newDB(t)
	d.queue(t, riverjobs.Config{}) // migrates
	ctx := context.Background()
	var logs syncBuffer
	lim := riverjobs.NewLimiter(d.pool, riverjobs.LimiterConfig{Holder: "live", Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	c := lim.Limit("p", 1, llm.NewStub(1))
	if _, err := c.Complete(ctx, llm.Request{Purpose: "x"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		lease string // of the dead holder's slot
		wait  bool
	}{
		{"lease held", "now() + interval '1 hour'", true},
		{"lease run out", "now() - interval '1 second'", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := d.pool.Exec(ctx, `UPDATE duelogic_provider_slots SET holder = 'dead', lease_until = `+tt.lease+` WHERE provider = 'p'`); err != nil {
				t.Fatal(err)
			}
			logs.mu.Lock()
			logs.b.Reset()
			logs.mu.Unlock()
			cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			defer cancel()
			_, err := c.Complete(cctx, llm.Request{Purpose: "x"})
			waited := strings.Contains(logs.String(), "waiting for a slot")
			if tt.wait {
				if !errors.Is(err, context.DeadlineExceeded) || !waited {
					t.Errorf("a held slot: %v, logged waiting %t; want it waited for, and logged", err, waited)
				}
				return
			}
			if err != nil || waited {
				t.Errorf("a slot whose lease ran out: %v, waited %t; want it taken at once", err, waited)
			}
		})
	}
}

// oneSpeech is a format of one speech.
type oneSpeech struct{}

func (oneSpeech) Name() string { return "one-speech" }

func (oneSpeech) Play(ctx context.Context, s *engine.Session) (int, error) {
	req := llm.Request{Purpose: "opening", Messages: []llm.Message{{Role: llm.User, Content: s.Debate().Proposition}}}
	_, err := s.Say(ctx, "speech", engine.Utterance{Speaker: "pro", Segment: "only", Kind: engine.KindResponse}, req)
	return 1, err
}

// A debate's call that waits for a provider's slot or rate announces the
// wait to the debate's events, and its end once the slot or the rate lets
// it go on.
func TestProviderWaitIsAnnounced(t *testing.T) {
	d := newDB(t)
	d.queue(t, riverjobs.Config{}) // migrates
	ctx := context.Background()
	tests := []struct {
		name, hold, free, what string
		lim                    riverjobs.Limits
	}{
		{"slot", `INSERT INTO duelogic_provider_slots (provider, slot, holder, lease_until) VALUES ($1, 0, 'dead', now() + interval '1 hour')
			ON CONFLICT (provider, slot) DO UPDATE SET holder = 'dead', lease_until = now() + interval '1 hour'`,
			`UPDATE duelogic_provider_slots SET lease_until = now() - interval '1 second' WHERE provider = $1`,
			"a slot of provider waits-slot", riverjobs.Limits{InFlight: 1}},
		// The dead worker's call leaves the window (of a second) on its own.
		{"rate", `INSERT INTO duelogic_provider_calls (provider, started, holder) VALUES ($1, now(), 'dead')`,
			`SELECT $1::text`,
			"the rate of provider waits-rate", riverjobs.Limits{Rate: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			provider := "waits-" + tt.name
			lim := riverjobs.NewLimiter(d.pool, riverjobs.LimiterConfig{Holder: "live", RateWindow: time.Second, Logger: slog.New(slog.DiscardHandler)})
			c := lim.LimitProvider(provider, tt.lim, llm.NewStub(1))
			if _, err := d.pool.Exec(ctx, tt.hold, provider); err != nil {
				t.Fatal(err)
			}
			var (
				mu    sync.Mutex
				waits []engine.Wait
			)
			waiting := make(chan struct{}, 1)
			sink := sinkFunc(func(_ context.Context, e engine.Event) {
				if e.Type != engine.EventWaiting {
					return
				}
				w, err := engine.DataAs[engine.Wait](e)
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				waits = append(waits, w)
				mu.Unlock()
				select {
				case waiting <- struct{}{}:
				default:
				}
			})
			errs := make(chan error, 1)
			go func() {
				_, err := engine.Run(ctx, c, oneSpeech{}, engine.Debate{Proposition: "x?"}, engine.WithSink(sink))
				errs <- err
			}()
			select {
			case <-waiting:
			case err := <-errs:
				t.Fatalf("the debate ended (%v) without announcing a wait", err)
			}
			if _, err := d.pool.Exec(ctx, tt.free, provider); err != nil {
				t.Fatal(err)
			}
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(waits) != 2 || waits[0] != (engine.Wait{Purpose: "opening", For: tt.what}) ||
				!waits[1].Over || waits[1].For != tt.what || waits[1].Seconds <= 0 {
				t.Errorf("waits %+v; want the wait for %s, then its end", waits, tt.what)
			}
		})
	}
}
