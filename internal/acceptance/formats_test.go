package acceptance

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/formal"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/moderated"
	"github.com/duelogic/duelogic/persuasion"
	"github.com/duelogic/duelogic/scored"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/storetest"
)

// env is what one play of a debate gets: the model, the store, the sink and
// the clock.
type env struct {
	client llm.Client
	store  store.Store
	sink   duelogic.EventSink
	now    func() time.Time
}

func (e env) opts() []duelogic.Option {
	return []duelogic.Option{duelogic.WithStore(e.store), duelogic.WithSink(e.sink), duelogic.WithClock(e.now)}
}

// format plays one format's deterministic debate from the start and resumes
// it.
type format struct {
	name   string
	run    func(ctx context.Context, e env, d duelogic.Debate) error
	resume func(ctx context.Context, e env, id string) error
}

var debate = duelogic.Debate{ID: "acceptance-1", Proposition: "Cities should ban private cars from their centres."}

func formats() []format {
	return []format{
		{
			name: "duelogic",
			run: func(ctx context.Context, e env, d duelogic.Debate) error {
				cfg := duelogic.DefaultConfig()
				cfg.Flow.MaxExchanges = 3
				o, err := duelogic.New(cfg, e.client, e.opts()...)
				if err != nil {
					return err
				}
				_, err = o.Run(ctx, d)
				return err
			},
			resume: func(ctx context.Context, e env, id string) error {
				o, err := duelogic.New(duelogic.DefaultConfig(), e.client, e.opts()...)
				if err != nil {
					return err
				}
				_, err = o.Resume(ctx, id)
				return err
			},
		},
		{
			name: "formal",
			run: func(ctx context.Context, e env, d duelogic.Debate) error {
				cfg := formal.DefaultConfig()
				cfg.MinRounds, cfg.MaxRounds = 1, 2
				_, err := formal.Run(ctx, e.client, cfg, d, formalOpts(e)...)
				return err
			},
			resume: func(ctx context.Context, e env, id string) error {
				_, err := formal.Resume(ctx, e.client, id, formalOpts(e)...)
				return err
			},
		},
		{
			name: "scored",
			run: func(ctx context.Context, e env, d duelogic.Debate) error {
				_, err := scored.Run(ctx, e.client, scored.DefaultConfig(), d, e.opts()...)
				return err
			},
			resume: func(ctx context.Context, e env, id string) error {
				_, err := scored.Resume(ctx, e.client, id, e.opts()...)
				return err
			},
		},
		{
			name: "moderated",
			run: func(ctx context.Context, e env, d duelogic.Debate) error {
				cfg := moderated.DefaultConfig()
				cfg.MaxRounds = 2
				_, err := moderated.Run(ctx, e.client, cfg, d, moderated.Hooks{}, e.opts()...)
				return err
			},
			resume: func(ctx context.Context, e env, id string) error {
				_, err := moderated.Resume(ctx, e.client, id, moderated.Hooks{}, e.opts()...)
				return err
			},
		},
		{
			name: "persuasion",
			run: func(ctx context.Context, e env, d duelogic.Debate) error {
				cfg := persuasion.DefaultConfig()
				cfg.Rounds = 2
				_, err := persuasion.Run(ctx, e.client, cfg, d, e.opts()...)
				return err
			},
			resume: func(ctx context.Context, e env, id string) error {
				_, err := persuasion.Resume(ctx, e.client, id, e.opts()...)
				return err
			},
		},
	}
}

func formalOpts(e env) []formal.Option {
	return []formal.Option{formal.WithStore(e.store), formal.WithSink(e.sink), formal.WithClock(e.now), formal.WithVerifier(formal.JudgeOnly)}
}

// counting counts the model calls it passes on, keeping the client's
// ability to stream.
type counting struct {
	llm.Client
	n atomic.Int64
}

func (c *counting) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	c.n.Add(1)
	return c.Client.Complete(ctx, req)
}

func (c *counting) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	c.n.Add(1)
	return llm.Stream(ctx, c.Client, req, onDelta)
}

type discard struct{}

func (discard) Emit(context.Context, duelogic.Event) {}

// collect keeps the non-token events.
type collect struct{ events []duelogic.Event }

func (c *collect) Emit(_ context.Context, e duelogic.Event) {
	if e.Type != duelogic.EventToken {
		c.events = append(c.events, e)
	}
}

func fixedClock(t time.Time) func() time.Time { return func() time.Time { return t } }

var clockA = time.Date(2026, 11, 23, 9, 30, 0, 0, time.UTC)

// records returns the stored records of the debate as comparable strings:
// the type and data, in log order for the main flow; side records (whose
// place depends on timing) sorted after them.
func records(t *testing.T, st store.Store, id string) []string {
	t.Helper()
	recs, err := st.Records(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var main, side []string
	for _, r := range recs {
		var k struct {
			Side bool `json:"side"`
		}
		_ = json.Unmarshal(r.Data, &k)
		s := r.Type + " " + string(r.Data)
		if k.Side {
			side = append(side, s)
		} else {
			main = append(main, s)
		}
	}
	sort.Strings(side)
	return append(main, side...)
}

// TestStoreFailureCostsLittle: a store that fails after k records, for
// every k, stops the debate; resuming it gives the uninterrupted debate's
// records, and the failed run plus the resume cost at most maxExtraCalls
// model calls more than the uninterrupted run.
func TestStoreFailureCostsLittle(t *testing.T) {
	const maxExtraCalls = 3
	for _, f := range formats() {
		t.Run(f.name, func(t *testing.T) {
			clean := store.NewMemory()
			cc := &counting{Client: llm.NewStub(7)}
			if err := f.run(context.Background(), env{cc, clean, discard{}, fixedClock(clockA)}, debate); err != nil {
				t.Fatal(err)
			}
			want := records(t, clean, debate.ID)
			base := cc.n.Load()
			worst := int64(0)
			for k := 0; k < len(want); k++ {
				mem := store.NewMemory()
				c := &counting{Client: llm.NewStub(7)}
				boom := errors.New("disk full")
				e := env{c, storetest.FailAfter(mem, k, boom), discard{}, fixedClock(clockA)}
				if err := f.run(context.Background(), e, debate); !errors.Is(err, boom) {
					t.Fatalf("k=%d: run error %v, want the store's", k, err)
				}
				e.store = mem
				if k == 0 {
					if err := f.run(context.Background(), e, debate); err != nil {
						t.Fatalf("k=0: run again: %v", err)
					}
				} else if err := f.resume(context.Background(), e, debate.ID); err != nil {
					t.Fatalf("k=%d: resume: %v", k, err)
				}
				if diff := cmp.Diff(want, records(t, mem, debate.ID)); diff != "" {
					t.Fatalf("k=%d: resumed log differs from an uninterrupted run (-want +got):\n%s", k, diff)
				}
				worst = max(worst, c.n.Load()-base)
			}
			t.Logf("%s: %d records, %d calls clean, at most %d extra calls after a store failure", f.name, len(want), base, worst)
			if worst > maxExtraCalls {
				t.Errorf("a store failure cost up to %d extra model calls, want at most %d", worst, maxExtraCalls)
			}
		})
	}
}

var dates = regexp.MustCompile(`\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2})?(\.\d+)?(Z|[+-]\d{2}:?\d{2})?)?|\b(January|February|March|April|May|June|July|August|September|October|November|December) \d{1,2}, \d{4}\b`)

// TestSameDebateOnAnyDate: the same debate played with clocks years apart
// gives the same events, except for the dates they print.
func TestSameDebateOnAnyDate(t *testing.T) {
	clocks := []time.Time{time.Date(2019, 3, 4, 5, 6, 7, 0, time.UTC), time.Date(2031, 8, 9, 22, 11, 12, 0, time.UTC)}
	for _, f := range formats() {
		t.Run(f.name, func(t *testing.T) {
			var got [2]string
			for i, at := range clocks {
				sink := &collect{}
				if err := f.run(context.Background(), env{llm.NewStub(3), store.NewMemory(), sink, fixedClock(at)}, debate); err != nil {
					t.Fatal(err)
				}
				// Formats that run steps side by side (scored's rounds,
				// formal's verifications) store them in an order that
				// depends on timing: compare the events as a sorted set,
				// without their Seq.
				var lines []string
				for _, e := range sink.events {
					e.Time, e.Seq = time.Time{}, 0
					if e.Utterance != nil {
						u := *e.Utterance
						u.Seq, u.ReplyTo = 0, 0
						e.Utterance = &u
					}
					j, err := json.Marshal(e)
					if err != nil {
						t.Fatal(err)
					}
					lines = append(lines, dates.ReplaceAllString(string(j), "<date>"))
				}
				sort.Strings(lines)
				got[i] = strings.Join(lines, "\n")
			}
			if got[0] == "" {
				t.Fatal("no events")
			}
			if diff := cmp.Diff(got[0], got[1]); diff != "" {
				t.Errorf("the debate differs between %s and %s (-first +second):\n%s", clocks[0].Format(time.DateOnly), clocks[1].Format(time.DateOnly), diff)
			}
		})
	}
}
