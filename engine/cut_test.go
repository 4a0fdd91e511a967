package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/engine/enginetest"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
)

// speech is what "pro" says each turn: five sentences of 20 runes.
const speech = "First claim is here. Second one is here. Third claim is here. Fourth one is here. Fifth claim is here."

// watchy is a format of Turns turns by "pro", each watched: the check asks
// the model (purpose "check") and cuts when it answers "cut"; "con" then
// records a reply naming where it cut in.
type watchy struct {
	Turns     int `json:"turns"`
	MinRunes  int `json:"minRunes"`
	MaxChecks int `json:"maxChecks"`

	mu   sync.Mutex
	saw  []string // what the checks saw
	outs []engine.Watched
}

type cutValue struct {
	Trigger string `json:"trigger"`
}

func (*watchy) Name() string { return "watchy" }

func (w *watchy) Play(ctx context.Context, s *engine.Session) (int, error) {
	n := 0
	err := s.Segment(ctx, "talk", func(ctx context.Context) error {
		for t := 1; t <= w.Turns; t++ {
			key := fmt.Sprintf("t%d", t)
			req := llm.Request{Purpose: "turn", Messages: []llm.Message{{Role: llm.User, Content: key}}}
			u, wd, err := s.SayWatched(ctx, key, engine.Utterance{Speaker: "pro", Segment: "talk", Kind: engine.KindResponse, Exchange: t}, req, engine.Watch{
				Speaker: engine.SpeakerArbiter, MinRunes: w.MinRunes, MaxChecks: w.MaxChecks,
				Check: func(ctx context.Context, said string) (*engine.Cut, llm.Usage, error) {
					w.mu.Lock()
					w.saw = append(w.saw, said)
					w.mu.Unlock()
					resp, err := s.Call(ctx, llm.Request{Purpose: "check", Messages: []llm.Message{{Role: llm.User, Content: said}}}, "talk", engine.SpeakerArbiter)
					if err != nil {
						return nil, llm.Usage{}, err
					}
					if resp.Content != "cut" {
						return nil, resp.Usage, nil
					}
					last := said[strings.LastIndex(strings.TrimSuffix(said, "."), ".")+1:]
					return &engine.Cut{By: "con", Value: cutValue{Trigger: strings.TrimSpace(last)}}, resp.Usage, nil
				},
			})
			if err != nil {
				return err
			}
			w.mu.Lock()
			w.outs = append(w.outs, wd)
			w.mu.Unlock()
			n++
			if wd.Cut == nil {
				continue
			}
			var v cutValue
			if err := json.Unmarshal(wd.Cut, &v); err != nil {
				return err
			}
			if !u.Cut || u.InterruptedBy != "con" {
				return fmt.Errorf("turn %d: cut value %s but utterance %+v", t, wd.Cut, u)
			}
			if _, err := s.Record(ctx, key+":reply", engine.Utterance{Speaker: "con", Segment: "talk", Kind: engine.KindInterruption, Exchange: t, ReplyTo: u.Seq, Content: "On " + v.Trigger}); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}

// cutsAt returns a fake that says speech and answers "cut" to the checks
// whose text ends with one of the sentences given.
func cutsAt(sentences ...string) *llmtest.Fake { return says(speech, sentences...) }

// says is cutsAt saying reply.
func says(reply string, sentences ...string) *llmtest.Fake {
	f := llmtest.New()
	f.OnPurpose("turn").Reply(reply)
	f.On(func(r llm.Request) bool {
		if r.Purpose != "check" {
			return false
		}
		for _, s := range sentences {
			if strings.HasSuffix(r.Messages[0].Content, s) {
				return true
			}
		}
		return false
	}).Reply("cut")
	f.OnPurpose("check").Reply("go on")
	return f
}

// sinkLog keeps the events and when (on the bubble's clock) each came.
type sinkLog struct {
	mu     sync.Mutex
	events []engine.Event
	at     []time.Time
}

func (l *sinkLog) Emit(_ context.Context, e engine.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
	l.at = append(l.at, time.Now())
}

func (l *sinkLog) tokens() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	for _, e := range l.events {
		if e.Type == engine.EventToken && e.Speaker == "pro" {
			b.WriteString(e.Delta)
		}
	}
	return b.String()
}

var clock = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

// TestSayWatchedCutsAtASentenceBoundary: a check that cuts stops the
// speaker at the end of the sentence under way, whatever the check's
// latency; the stream's context is cancelled; the check saw only a prefix;
// the utterance is stored cut, and the format gets the cut's value back.
func TestSayWatchedCutsAtASentenceBoundary(t *testing.T) {
	const sentence = 10 * time.Millisecond
	want := "First claim is here. Second one is here. Third claim is here—"
	for _, tt := range []struct {
		name         string
		checkLatency time.Duration
		cancelled    bool // the stream was still going when cut
		tokens       string
	}{
		{"fast check", sentence / 2, true, "First claim is here. Second one is here. Third claim is here. "},
		// The sink is shown what is stored: the sentences past the one
		// the check would cut at wait for its verdict.
		{"slow check: cut after the stream", 10 * sentence, false, "First claim is here. Second one is here. Third claim is here."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fake := cutsAt("Second one is here.")
				turn := &llmtest.Paced{Client: fake, Latency: sentence, PerSentence: sentence}
				check := &llmtest.Paced{Client: fake, Latency: tt.checkLatency}
				f := &watchy{Turns: 1, MinRunes: 1, MaxChecks: 5}
				sink := &sinkLog{}
				mem := store.NewMemory()
				res, err := engine.Run(context.Background(), byPurpose{"turn": turn, "check": check}, f, engine.Debate{ID: "w", Proposition: "p"},
					engine.WithStore(mem), engine.WithSink(sink), engine.WithClock(clock))
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Transcript) != 2 {
					t.Fatalf("transcript %+v, want the cut turn and the reply", res.Transcript)
				}
				u := res.Transcript[0]
				if u.Content != want || !u.Cut || !u.Interrupted || u.InterruptedBy != "con" {
					t.Errorf("cut utterance %+v, want content %q, cut by con", u, want)
				}
				if got := res.Transcript[1].Content; got != "On Second one is here." {
					t.Errorf("reply %q: the cut's value did not come back", got)
				}
				for _, s := range f.saw {
					if !strings.HasPrefix(speech, s) || !strings.HasSuffix(s, ".") {
						t.Errorf("a check saw %q, not a prefix of the reply ending a sentence", s)
					}
				}
				if len(f.saw) != 2 || f.outs[0].Checks != 2 {
					t.Errorf("checks saw %q and counted %d, want the first two sentences", f.saw, f.outs[0].Checks)
				}
				st := turn.Streams()
				if len(st) != 1 || st[0].Cancelled != tt.cancelled {
					t.Errorf("stream %+v, want cancelled=%v", st, tt.cancelled)
				}
				if got := sink.tokens(); got != tt.tokens {
					t.Errorf("tokens %q, want %q", got, tt.tokens)
				}
				// The log replays as cut.
				again, err := engine.Resume(context.Background(), byPurpose{}, &watchy{Turns: 1, MinRunes: 1, MaxChecks: 5}, "w", engine.WithStore(mem), engine.WithClock(clock))
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(res.Transcript, again.Transcript); diff != "" {
					t.Errorf("resumed transcript differs (-run +resume):\n%s", diff)
				}
				if res.Usage != again.Usage || res.UsageBySpeaker[engine.SpeakerArbiter] == (llm.Usage{}) {
					t.Errorf("usage %+v, resumed %+v: the checks' usage is stored with the utterance", res.UsageBySpeaker, again.UsageBySpeaker)
				}
			})
		})
	}
}

// byPurpose routes requests to a client by purpose; an unknown purpose
// fails.
type byPurpose map[string]llm.Client

func (b byPurpose) client(p string) (llm.Client, error) {
	c, ok := b[p]
	if !ok {
		return nil, fmt.Errorf("no client for %q", p)
	}
	return c, nil
}

func (b byPurpose) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	c, err := b.client(req.Purpose)
	if err != nil {
		return llm.Response{}, err
	}
	return c.Complete(ctx, req)
}

func (b byPurpose) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	c, err := b.client(req.Purpose)
	if err != nil {
		return llm.Response{}, err
	}
	return llm.Stream(ctx, c, req, onDelta)
}

// TestWatchedFormatKeepsTheContract runs enginetest on a format whose turns
// are cut, or checked and said whole: a store failing after every record,
// cancellation and replay give the log of an uninterrupted run.
func TestWatchedFormatKeepsTheContract(t *testing.T) {
	enginetest.Run(t, func() engine.Format[int] { return &watchy{Turns: 3, MinRunes: 30, MaxChecks: 2} },
		enginetest.Config{Client: func() llm.Client {
			f := cutsAt("Second one is here.")
			f.On(func(r llm.Request) bool { return r.Purpose == "turn" && r.Messages[0].Content == "t2" }).
				Reply("First claim is here. Second one differs. Third claim is here. Fourth one is here.")
			return f
		}})
}

// TestSayWatchedBounds: the checks run at the boundaries MinRunes and
// MaxChecks allow; a check whose text ends in the reply's last sentence
// cuts nothing and does not count; a client that cannot stream gets no
// check; a failing check stops the turn; a check delays no token before
// the end of the sentence after its checkpoint (where it would cut), and a
// slow one holds those past it until it decides.
func TestSayWatchedBounds(t *testing.T) {
	const sentence = 10 * time.Millisecond
	boom := errors.New("check failed")
	for _, tt := range []struct {
		name         string
		minRunes     int
		maxChecks    int
		cutAt        string // the check cuts when the text ends with it
		fail         bool
		noStream     bool
		checkLatency time.Duration
		saw          int // checks made, at most
		counted      int
		content      string
		// held is how long the tokens past the sentence after the first
		// checkpoint wait for a slow check; early is what the sink was
		// shown before they came.
		held  time.Duration
		early string
	}{
		// The boundary after the fourth sentence is known when the
		// fifth, the last, begins: its check is moot.
		{"every sentence", 1, 5, "", false, false, sentence / 2, 4, 3, speech, 0, ""},
		{"spaced by MinRunes", 21, 5, "", false, false, sentence / 2, 2, 2, speech, 0, ""},
		{"at most MaxChecks", 1, 2, "", false, false, sentence / 2, 2, 2, speech, 0, ""},
		{"a cut in the last sentence is none", 1, 5, "Fourth one is here.", false, false, sentence / 2, 4, 3, speech + " and so on", 0, ""},
		{"no streaming, no check", 1, 5, "Second one is here.", false, true, 0, 0, 0, speech, 0, ""},
		// Its checkpoint is the first sentence's end, known at 20 ms;
		// its verdict comes an hour later.
		{"a slow check holds the tokens past the sentence it would cut at", 1, 1, "", false, false, time.Hour, 1, 1, speech,
			time.Hour + 2*sentence - 5*sentence, "First claim is here. Second one is here. "},
		{"a failing check stops the turn", 1, 5, "", true, false, sentence / 2, 1, 0, "", 0, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var cuts []string
				if tt.cutAt != "" {
					cuts = append(cuts, tt.cutAt)
				}
				fake := says(tt.content, cuts...)
				if tt.fail {
					fake = llmtest.New()
					fake.OnPurpose("turn").Reply(speech)
					fake.OnPurpose("check").Fail(boom)
				}
				turn := &llmtest.Paced{Client: fake, Latency: sentence, PerSentence: sentence}
				check := &llmtest.Paced{Client: fake, Latency: tt.checkLatency}
				var client llm.Client = byPurpose{"turn": turn, "check": check}
				if tt.noStream {
					client = completeOnly{client}
				}
				f := &watchy{Turns: 1, MinRunes: tt.minRunes, MaxChecks: tt.maxChecks}
				sink := &sinkLog{}
				start := time.Now()
				res, err := engine.Run(context.Background(), client, f, engine.Debate{ID: "w", Proposition: "p"}, engine.WithSink(sink), engine.WithClock(clock))
				if tt.fail {
					if !errors.Is(err, boom) {
						t.Fatalf("Run = %v, want the check's error", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if got := res.Transcript[0]; got.Content != tt.content || got.Cut {
					t.Errorf("said %q (cut %v), want %q whole", got.Content, got.Cut, tt.content)
				}
				// A check whose checkpoint turns out to be in the last
				// sentence may or may not have begun before the reply
				// ended; it never counts.
				if len(f.saw) < tt.counted || len(f.saw) > tt.saw || f.outs[0].Checks != tt.counted || f.outs[0].Live == tt.noStream {
					t.Errorf("checks saw %q, %d counted (live %v); want at most %d made, %d counted", f.saw, f.outs[0].Checks, f.outs[0].Live, tt.saw, tt.counted)
				}
				if tt.noStream {
					return
				}
				// The last token came when the stream delivered it, a
				// sentence every 10 ms, when the checks decide in time; a
				// check too slow for that holds what it might cut.
				streamed := time.Duration(len(llmtest.Sentences(tt.content))) * sentence
				want := streamed + tt.held
				var last time.Time
				var early strings.Builder
				for i, e := range sink.events {
					if e.Type == engine.EventToken {
						last = sink.at[i]
						if sink.at[i].Sub(start) <= streamed {
							early.WriteString(e.Delta)
						}
					}
				}
				if got := last.Sub(start); got != want {
					t.Errorf("the last token came after %v, want %v", got, want)
				}
				if tt.held > 0 && early.String() != tt.early {
					t.Errorf("shown before the check decided: %q, want %q", early.String(), tt.early)
				}
				if got := sink.tokens(); got != tt.content {
					t.Errorf("tokens %q, want the whole reply %q", got, tt.content)
				}
			})
		})
	}
}

// completeOnly hides a client's streaming.
type completeOnly struct{ c llm.Client }

func (c completeOnly) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	return c.c.Complete(ctx, req)
}

// TestSayWatchedShowsWhatIsStored: the sink is shown what is stored. Were
// the tokens past a pending check's sentence end shown as they came, a
// check slower than a sentence would leave the sink showing sentences the
// cut takes back; they are held until the check decides. Whatever the
// checks' latency, the tokens given to the sink are the utterance stored:
// all of it when no check cuts, and up to the cut (its full stop where the
// stored text has CutMark) when one does, then nothing more.
func TestSayWatchedShowsWhatIsStored(t *testing.T) {
	const sentence = 10 * time.Millisecond
	for _, latency := range []time.Duration{sentence / 2, sentence, 3 * sentence / 2, 2 * sentence, 5 * sentence, time.Minute} {
		for _, cutAt := range []string{"", "First claim is here.", "Second one is here.", "Third claim is here."} {
			t.Run(fmt.Sprintf("%v/%q", latency, cutAt), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					var cuts []string
					if cutAt != "" {
						cuts = append(cuts, cutAt)
					}
					fake := says(speech, cuts...)
					turn := &llmtest.Paced{Client: fake, Latency: sentence, PerSentence: sentence}
					check := &llmtest.Paced{Client: fake, Latency: latency}
					sink := &sinkLog{}
					res, err := engine.Run(context.Background(), byPurpose{"turn": turn, "check": check}, &watchy{Turns: 1, MinRunes: 1, MaxChecks: 5},
						engine.Debate{ID: "w", Proposition: "p"}, engine.WithSink(sink), engine.WithClock(clock))
					if err != nil {
						t.Fatal(err)
					}
					u := res.Transcript[0]
					want := u.Content
					if u.Cut {
						want = strings.TrimSuffix(u.Content, engine.CutMark) + "."
					}
					if got := strings.TrimSpace(sink.tokens()); got != want {
						t.Errorf("the sink was shown %q; stored %q (cut %v)", got, u.Content, u.Cut)
					}
					if cutAt != "" && !u.Cut {
						t.Errorf("no cut at %q: %q", cutAt, u.Content)
					}
				})
			})
		}
	}
}

// TestCutUtteranceCostsItsUsage: a cut utterance is priced by the usage
// stored for it (estimated from what it kept), not by what its stream
// reported, which depends on when the stream stopped: the debate costs
// what its stored usage does, cut early or late.
func TestCutUtteranceCostsItsUsage(t *testing.T) {
	const sentence = 10 * time.Millisecond
	price := engine.Price{Input: 1e6 / 100, Output: 1e6 / 10}
	for _, tt := range []struct {
		name         string
		checkLatency time.Duration
	}{
		{"cut while streaming", sentence / 2},
		{"cut after the stream", 10 * sentence},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fake := cutsAt("Second one is here.")
				turn := &llmtest.Paced{Client: fake, Latency: sentence, PerSentence: sentence}
				check := &llmtest.Paced{Client: fake, Latency: tt.checkLatency}
				res, err := engine.Run(context.Background(), byPurpose{"turn": turn, "check": check}, &watchy{Turns: 1, MinRunes: 1, MaxChecks: 5},
					engine.Debate{ID: "w", Proposition: "p"}, engine.WithClock(clock), engine.WithPrices(map[string]engine.Price{"": price}))
				if err != nil {
					t.Fatal(err)
				}
				if !res.Transcript[0].Cut {
					t.Fatalf("not cut: %+v", res.Transcript[0])
				}
				if want := price.Cost(res.Usage); math.Abs(res.Cost-want) > 1e-9 {
					t.Errorf("cost %v, want %v: the price of the usage stored, %+v", res.Cost, want, res.Usage)
				}
			})
		})
	}
}
