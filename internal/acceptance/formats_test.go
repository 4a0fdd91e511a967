package acceptance

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/formal"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/moderated"
	"github.com/duelogic/duelogic/persuasion"
	"github.com/duelogic/duelogic/scored"
	"github.com/duelogic/duelogic/store"
)

// format is one format as a host drives it: its name, and a check that
// plays it through the engine.
type format struct {
	name string
	// podcast: the only format that reads a catalog.
	podcast bool
	check   func(t *testing.T, podcast bool)
}

func formats() []format {
	return []format{
		{"duelogic", true, func(t *testing.T, p bool) {
			same(t, p, func() (engine.Format[*duelogic.Outcome], error) {
				cfg := duelogic.DefaultConfig()
				cfg.Flow.MaxExchanges = 3
				return duelogic.NewPodcast(cfg)
			})
		}},
		{"formal", false, func(t *testing.T, p bool) {
			same(t, p, func() (engine.Format[*formal.Outcome], error) { return formal.New(formal.DefaultConfig()) })
		}},
		{"scored", false, func(t *testing.T, p bool) {
			same(t, p, func() (engine.Format[*scored.Outcome], error) { return scored.New(scored.DefaultConfig()) })
		}},
		{"moderated", false, func(t *testing.T, p bool) {
			same(t, p, func() (engine.Format[*moderated.Outcome], error) { return moderated.New(moderated.DefaultConfig()) })
		}},
		{"persuasion", false, func(t *testing.T, p bool) {
			same(t, p, func() (engine.Format[*persuasion.Outcome], error) { return persuasion.New(persuasion.DefaultConfig()) })
		}},
	}
}

// TestEveryFormatTheSameWay: each format's DefaultConfig is valid and plays
// offline through engine.Run to one result shape; the store says what was
// played; a second Run of the same ID is refused whether the first is still
// playing or finished; an option the format cannot honour stops it before
// any model call; Resume of the finished debate calls no model.
func TestEveryFormatTheSameWay(t *testing.T) {
	for _, f := range formats() {
		t.Run(f.name, func(t *testing.T) { f.check(t, f.podcast) })
	}
}

var clock = func() time.Time { return time.Date(2026, 11, 23, 9, 30, 0, 0, time.UTC) }

func same[R any](t *testing.T, podcast bool, newFormat func() (engine.Format[R], error)) {
	ctx := context.Background()
	st := store.NewMemory()
	d := engine.Debate{ID: "same-way", Proposition: "Cities should ban private cars from their centres."}
	f, err := newFormat()
	if err != nil {
		t.Fatalf("New(DefaultConfig()): %v", err)
	}
	var events atomic.Int64
	sink := engine.SinkFunc(func(context.Context, engine.Event) { events.Add(1) })
	rec := &purposeRecorder{Client: llm.NewStub(5), seen: map[string]bool{}}
	res, err := engine.Run(ctx, rec, f, d, engine.WithStore(st), engine.WithSink(sink), engine.WithClock(clock),
		engine.WithArgumentMap(argumentation.Additive))
	if err != nil {
		t.Fatal(err)
	}
	// The format names the purposes of its calls (engine.Purposer), and
	// names them all: a cap for any of them is taken, for another is
	// refused before any call.
	p, ok := any(f).(engine.Purposer)
	if !ok {
		t.Fatalf("%T does not name its purposes (engine.Purposer)", f)
	}
	for purpose := range rec.seen {
		if purpose != engine.PurposeArgumentExtraction && !slices.Contains(p.Purposes(), purpose) {
			t.Errorf("a call of purpose %q, which %T.Purposes leaves out", purpose, f)
		}
	}
	for _, caps := range []map[string]int{{"no_such_purpose": 5}, {p.Purposes()[0]: 5, "typo": 9}} {
		calls := 0
		counting := llm.ClientFunc(func(context.Context, llm.Request) (llm.Response, error) {
			calls++
			return llm.Response{}, errors.New("no call expected")
		})
		h, _ := newFormat()
		if _, err := engine.Run(ctx, counting, h, engine.Debate{Proposition: d.Proposition}, engine.WithMaxTokens(caps)); !errors.Is(err, engine.ErrUnsupportedOption) || calls != 0 {
			t.Errorf("WithMaxTokens(%v): err %v after %d calls, want ErrUnsupportedOption before any", caps, err, calls)
		}
	}
	if res.DebateID != d.ID || res.Format != f.Name() || res.Debate != d {
		t.Errorf("result names %q %q %+v", res.DebateID, res.Format, res.Debate)
	}
	if len(res.Transcript) < 4 || res.Usage.PromptTokens == 0 || events.Load() == 0 {
		t.Errorf("%d utterances, usage %+v, %d events: the debate did not play", len(res.Transcript), res.Usage, events.Load())
	}
	var byUsage int
	for _, u := range res.UsageBySpeaker {
		byUsage += u.PromptTokens
	}
	if byUsage != res.Usage.PromptTokens {
		t.Errorf("usage by speaker adds up to %d prompt tokens, the total is %d", byUsage, res.Usage.PromptTokens)
	}
	for i, u := range res.Transcript {
		if u.Seq <= 0 || i > 0 && u.Seq <= res.Transcript[i-1].Seq || strings.TrimSpace(u.Content) == "" || u.Speaker == "" {
			t.Fatalf("utterance %d: %+v", i, u)
		}
	}
	sum, err := engine.Inspect(ctx, st, d.ID)
	if err != nil || sum.Format != f.Name() || !sum.Finished || sum.Debate != d {
		t.Errorf("summary %+v (err %v)", sum, err)
	}

	again, _ := newFormat()
	if _, err := engine.Run(ctx, llm.NewStub(5), again, d, engine.WithStore(st)); !errors.Is(err, engine.ErrDebateExists) {
		t.Errorf("a second Run of a stored ID: err %v, want ErrDebateExists", err)
	}
	// While a debate plays, a second Run or Resume of it is refused.
	started, release := make(chan struct{}), make(chan struct{})
	var once atomic.Bool
	holding := llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		if once.CompareAndSwap(false, true) {
			close(started)
			<-release
		}
		return llm.NewStub(5).Complete(ctx, req)
	})
	d2 := engine.Debate{ID: "same-way-2", Proposition: d.Proposition}
	done := make(chan error, 1)
	go func() {
		g, _ := newFormat()
		_, err := engine.Run(ctx, holding, g, d2, engine.WithStore(st))
		done <- err
	}()
	<-started
	g, _ := newFormat()
	if _, err := engine.Run(ctx, llm.NewStub(5), g, d2, engine.WithStore(st)); !errors.Is(err, engine.ErrAlreadyRunning) {
		t.Errorf("Run of a playing debate: err %v, want ErrAlreadyRunning", err)
	}
	if _, err := engine.Resume(ctx, llm.NewStub(5), g, d2.ID, engine.WithStore(st)); !errors.Is(err, engine.ErrAlreadyRunning) {
		t.Errorf("Resume of a playing debate: err %v, want ErrAlreadyRunning", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	if !podcast {
		calls := 0
		counting := llm.ClientFunc(func(context.Context, llm.Request) (llm.Response, error) {
			calls++
			return llm.Response{}, errors.New("no call expected")
		})
		h, _ := newFormat()
		_, err := engine.Run(ctx, counting, h, engine.Debate{Proposition: d.Proposition}, duelogic.WithCatalog(duelogic.DefaultCatalog()))
		if !errors.Is(err, engine.ErrUnsupportedOption) || calls != 0 {
			t.Errorf("WithCatalog: err %v after %d calls, want ErrUnsupportedOption before any", err, calls)
		}
	}

	calls := 0
	counting := llm.ClientFunc(func(context.Context, llm.Request) (llm.Response, error) {
		calls++
		return llm.Response{}, errors.New("no call expected")
	})
	r, _ := newFormat()
	resumed, err := engine.Resume(ctx, counting, r, d.ID, engine.WithStore(st))
	if err != nil || calls != 0 || len(resumed.Transcript) != len(res.Transcript) || resumed.Usage != res.Usage {
		t.Errorf("Resume of a finished debate: err %v, %d calls, %d utterances (want %d), usage %+v (want %+v)",
			err, calls, len(resumed.Transcript), len(res.Transcript), resumed.Usage, res.Usage)
	}
}

// purposeRecorder notes the purpose of every request it passes on.
type purposeRecorder struct {
	llm.Client
	mu   sync.Mutex
	seen map[string]bool
}

func (r *purposeRecorder) note(req llm.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen[req.Purpose] = true
}

func (r *purposeRecorder) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	r.note(req)
	return r.Client.Complete(ctx, req)
}

func (r *purposeRecorder) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	r.note(req)
	return llm.Stream(ctx, r.Client, req, onDelta)
}
