// Package enginetest checks that an [engine.Format] keeps the engine's
// contract, the way testing/fstest checks an fs.FS: one subtest per rule.
// Every format of this module runs it, and a host writing its own format
// runs it from one of its tests:
//
//	func TestFormat(t *testing.T) {
//		enginetest.Run(t, func() engine.Format[*myformat.Outcome] {
//			f, err := myformat.New(myformat.DefaultConfig())
//			if err != nil {
//				t.Fatal(err)
//			}
//			return f
//		}, enginetest.Config{})
//	}
//
// The rules:
//   - StoreFailsAfterEveryRecord: a store that fails after k records
//     stops the debate with the store's error; [engine.Resume] then gives
//     the records of an uninterrupted run, and the failed run and the
//     resume cost at most Config.MaxExtraCalls model calls more than it.
//     Once the first record is stored, the failed Run returns the result
//     so far with the error.
//     By default k takes a sample of at most ten positions: the first
//     two, the middle and the last records, and the first record of every
//     type (of six types spread over them, when there are more). With Config.Exhaustive, or the
//     environment variable DUELOGIC_EXHAUSTIVE=1 (CI sets it), k takes
//     every position.
//   - ReplayEqualsLive: [engine.Replay] of the stored records gives exactly
//     the events the sink received, tokens aside.
//   - SameDebateAtTwoClocks: clocks years apart give the same transcript,
//     except for the dates it prints.
//   - ResumeFinished: resuming a finished debate calls no model, stores
//     nothing and gives the same transcript.
//   - CancellationLeaksNothing: cancelling the context during a model call
//     (the middle one by default; the first, middle and last exhaustively)
//     stops the debate with the context's error and the result so far
//     (every utterance stored) and leaves no goroutine behind (checked in
//     a testing/synctest bubble); Resume finishes it.
//   - PanicInPlayLeaksNothing: a panic in Play reaches the caller of Run
//     after the engine's goroutines have ended.
package enginetest

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/storetest"
)

// Config adjusts the suite to a format.
type Config struct {
	// Client returns the model for one play; nil: llm.NewStub(7). It must
	// answer the same request the same way every time.
	Client func() llm.Client
	// Debate is the debate played; zero: a fixed proposition.
	Debate engine.Debate
	// Options are added to every Run and Resume (WithArgumentMap, say).
	Options []engine.Option
	// MaxExtraCalls bounds the model calls a store failure may cost beyond
	// a clean run; 0: 3, the engine's promise.
	MaxExtraCalls int
	// Exhaustive fails the store after every record rather than a sample
	// of positions; DUELOGIC_EXHAUSTIVE=1 in the environment sets it too.
	Exhaustive bool
}

func (c Config) withDefaults() Config {
	if c.Client == nil {
		c.Client = func() llm.Client { return llm.NewStub(7) }
	}
	if c.Debate == (engine.Debate{}) {
		c.Debate = engine.Debate{Proposition: "Cities should ban private cars from their centres."}
	}
	if c.Debate.ID == "" {
		c.Debate.ID = "enginetest-1"
	}
	if c.MaxExtraCalls == 0 {
		c.MaxExtraCalls = 3
	}
	if os.Getenv("DUELOGIC_EXHAUSTIVE") == "1" {
		c.Exhaustive = true
	}
	return c
}

// Run runs every rule on the formats newFormat returns; it must return a
// fresh, configured Format each time.
func Run[R any](t *testing.T, newFormat func() engine.Format[R], c Config) {
	t.Helper()
	c = c.withDefaults()
	s := &suite[R]{newFormat: newFormat, c: c}
	t.Run("StoreFailsAfterEveryRecord", s.storeFails)
	t.Run("ReplayEqualsLive", s.replay)
	t.Run("SameDebateAtTwoClocks", s.clocks)
	t.Run("ResumeFinished", s.resumeFinished)
	t.Run("CancellationLeaksNothing", s.cancellation)
	t.Run("PanicInPlayLeaksNothing", s.panicInPlay)
}

type suite[R any] struct {
	newFormat func() engine.Format[R]
	c         Config

	once  sync.Once
	clean cleanRun[R]
}

// cleanRun is one uninterrupted play at clockA, which several rules compare
// with: its result, log, events and model calls.
type cleanRun[R any] struct {
	res    *engine.Result[R]
	err    error
	store  store.Store
	recs   []string
	events []engine.Event
	calls  int64
}

// cleanRun plays the debate once, uninterrupted, for the rules to share.
func (s *suite[R]) cleanRun(t *testing.T) cleanRun[R] {
	t.Helper()
	s.once.Do(func() {
		mem := store.NewMemory()
		cc := &counting{Client: s.c.Client()}
		sink := &collect{}
		res, err := s.run(context.Background(), env{cc, mem, sink, fixed(clockA)})
		s.clean = cleanRun[R]{res: res, err: err, store: mem, events: sink.events, calls: cc.n.Load()}
		if err == nil {
			s.clean.recs = records(t, mem, s.c.Debate.ID)
		}
	})
	if s.clean.err != nil {
		t.Fatalf("an uninterrupted run: %v", s.clean.err)
	}
	return s.clean
}

// env is what one play gets.
type env struct {
	client llm.Client
	store  store.Store
	sink   engine.EventSink
	now    func() time.Time
}

func (s *suite[R]) opts(e env) []engine.Option {
	o := []engine.Option{engine.WithStore(e.store), engine.WithClock(e.now)}
	if e.sink != nil {
		o = append(o, engine.WithSink(e.sink))
	}
	return append(o, s.c.Options...)
}

func (s *suite[R]) run(ctx context.Context, e env) (*engine.Result[R], error) {
	return engine.Run(ctx, e.client, s.newFormat(), s.c.Debate, s.opts(e)...)
}

func (s *suite[R]) resume(ctx context.Context, e env) (*engine.Result[R], error) {
	return engine.Resume(ctx, e.client, s.newFormat(), s.c.Debate.ID, s.opts(e)...)
}

var clockA = time.Date(2026, 11, 23, 9, 30, 0, 0, time.UTC)

func fixed(t time.Time) func() time.Time { return func() time.Time { return t } }

func (s *suite[R]) storeFails(t *testing.T) {
	clean := s.cleanRun(t)
	want, base := clean.recs, clean.calls
	worst := int64(0)
	points := failurePoints(want, s.c.Exhaustive)
	for _, k := range points {
		mem := store.NewMemory()
		c := &counting{Client: s.c.Client()}
		boom := errors.New("enginetest: disk full")
		e := env{c, storetest.FailAfter(mem, k, boom), nil, fixed(clockA)}
		res, err := s.run(context.Background(), e)
		if !errors.Is(err, boom) {
			t.Fatalf("store failing after %d records: Run returned %v, want the store's error", k, err)
		}
		switch {
		case k == 0 && res != nil:
			t.Fatalf("store failing at the first record: Run returned a result for a debate that does not exist")
		case k > 0 && (res == nil || res.DebateID != s.c.Debate.ID):
			t.Fatalf("store failing after %d records: Run returned %+v, want the result so far of debate %s", k, res, s.c.Debate.ID)
		}
		e.store = mem
		if k == 0 {
			_, err = s.run(context.Background(), e)
		} else {
			_, err = s.resume(context.Background(), e)
		}
		if err != nil {
			t.Fatalf("store failed after %d records: finishing the debate: %v", k, err)
		}
		if diff := cmp.Diff(want, records(t, mem, s.c.Debate.ID)); diff != "" {
			t.Fatalf("store failed after %d records: the resumed log differs from an uninterrupted run (-want +got):\n%s", k, diff)
		}
		worst = max(worst, c.n.Load()-base)
	}
	t.Logf("%d records (store failed after %d of them), %d calls clean, at most %d extra calls after a store failure", len(want), len(points), base, worst)
	if worst > int64(s.c.MaxExtraCalls) {
		t.Errorf("a store failure cost up to %d extra model calls, want at most %d", worst, s.c.MaxExtraCalls)
	}
}

func (s *suite[R]) replay(t *testing.T) {
	clean := s.cleanRun(t)
	sink := &collect{events: clean.events}
	recs, err := clean.store.Records(context.Background(), s.c.Debate.ID)
	if err != nil {
		t.Fatal(err)
	}
	got, err := engine.Replay(recs)
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.events) == 0 {
		t.Fatal("the sink received no event")
	}
	// reflect.DeepEqual first: cmp.Diff is slow on a long debate, and only
	// needed to tell what differs.
	if reflect.DeepEqual(sink.events, got) {
		return
	}
	if diff := cmp.Diff(sink.events, got); diff != "" {
		t.Errorf("Replay differs from the events emitted live (-live +replay):\n%s", diff)
	}
}

var dates = regexp.MustCompile(`\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2})?(\.\d+)?(Z|[+-]\d{2}:?\d{2})?)?|\b(January|February|March|April|May|June|July|August|September|October|November|December) \d{1,2}, \d{4}\b`)

// clocks compares the uninterrupted run, at clockA, with a run at a clock
// years later, played the same way (a counting client, a sink).
func (s *suite[R]) clocks(t *testing.T) {
	clean := s.cleanRun(t)
	later := time.Date(2031, 8, 9, 22, 11, 12, 0, time.UTC)
	res, err := s.run(context.Background(), env{&counting{Client: s.c.Client()}, store.NewMemory(), &collect{}, fixed(later)})
	if err != nil {
		t.Fatal(err)
	}
	first, second := said(clean.res.Transcript), said(res.Transcript)
	if len(first) == 0 {
		t.Fatal("the transcript is empty")
	}
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("the debate differs between %s and %s (-first +second):\n%s", clockA.Format(time.DateOnly), later.Format(time.DateOnly), diff)
	}
}

// said is a transcript as comparable lines: who said what, dates masked.
// Formats that run turns side by side store them in an order that depends
// on timing, so the lines are sorted and carry no Seq.
func said(tr []engine.Utterance) []string {
	var lines []string
	for _, u := range tr {
		u.Seq, u.ReplyTo = 0, 0
		j, _ := json.Marshal(u)
		lines = append(lines, dates.ReplaceAllString(string(j), "<date>"))
	}
	sort.Strings(lines)
	return lines
}

func (s *suite[R]) resumeFinished(t *testing.T) {
	clean := s.cleanRun(t)
	mem, first := clean.store, clean.res
	before := records(t, mem, s.c.Debate.ID)
	c := &counting{Client: s.c.Client()}
	again, err := s.resume(context.Background(), env{c, mem, nil, fixed(clockA.Add(time.Hour))})
	if err != nil {
		t.Fatal(err)
	}
	if n := c.n.Load(); n != 0 {
		t.Errorf("resuming a finished debate made %d model calls", n)
	}
	if diff := cmp.Diff(before, records(t, mem, s.c.Debate.ID)); diff != "" {
		t.Errorf("resuming a finished debate changed its log (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(first.Transcript, again.Transcript); diff != "" {
		t.Errorf("a finished debate resumed gives another transcript (-run +resume):\n%s", diff)
	}
	if first.Usage != again.Usage {
		t.Errorf("a finished debate resumed reports usage %+v, the run %+v", again.Usage, first.Usage)
	}
}

func (s *suite[R]) cancellation(t *testing.T) {
	clean := s.cleanRun(t)
	want, n := clean.recs, clean.calls
	at := []int64{max(1, n/2)}
	if s.c.Exhaustive {
		at = slices.Compact([]int64{1, max(1, n/2), n})
	}
	for _, k := range at {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			mem := store.NewMemory()
			c := &cancelling{Client: s.c.Client(), at: k, cancel: cancel}
			res, err := s.run(ctx, env{c, mem, nil, fixed(clockA)})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled at call %d: Run returned %v, want context.Canceled", k, err)
			}
			if res == nil || res.DebateID != s.c.Debate.ID {
				t.Fatalf("cancelled at call %d: Run returned %+v, want the result so far", k, res)
			}
			stored := 0
			recs, _ := mem.Records(context.Background(), s.c.Debate.ID)
			for _, r := range recs {
				if r.Type == engine.RecordUtterance {
					stored++
				}
			}
			if len(res.Transcript) != stored {
				t.Fatalf("cancelled at call %d: the result holds %d utterances, the store %d", k, len(res.Transcript), stored)
			}
			if _, err := s.resume(context.Background(), env{s.c.Client(), mem, nil, fixed(clockA)}); err != nil {
				t.Fatalf("cancelled at call %d: resume: %v", k, err)
			}
			if diff := cmp.Diff(want, records(t, mem, s.c.Debate.ID)); diff != "" {
				t.Fatalf("cancelled at call %d: the resumed log differs from an uninterrupted run (-want +got):\n%s", k, diff)
			}
		})
	}
}

func (s *suite[R]) panicInPlay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &panicking[R]{Format: s.newFormat()}
		var got any
		func() {
			defer func() { got = recover() }()
			engine.Run(context.Background(), s.c.Client(), engine.Format[R](f), s.c.Debate, s.opts(env{store: store.NewMemory(), now: fixed(clockA)})...)
		}()
		if got != errPlay {
			t.Fatalf("Run recovered %v, want Play's panic to reach its caller", got)
		}
		// synctest.Test fails if a goroutine of the debate is still
		// blocked when this function returns.
	})
}

var errPlay = errors.New("enginetest: Play panics")

// panicking plays its format to the end and then panics.
type panicking[R any] struct{ engine.Format[R] }

func (p *panicking[R]) Play(ctx context.Context, s *engine.Session) (R, error) {
	p.Format.Play(ctx, s)
	panic(errPlay)
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

// cancelling cancels the debate's context during its at-th call.
type cancelling struct {
	llm.Client
	at     int64
	n      atomic.Int64
	cancel context.CancelFunc
}

func (c *cancelling) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if c.n.Add(1) == c.at {
		c.cancel()
		<-ctx.Done()
		return llm.Response{}, ctx.Err()
	}
	return c.Client.Complete(ctx, req)
}

func (c *cancelling) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	if c.n.Load()+1 == c.at {
		return c.Complete(ctx, req)
	}
	c.n.Add(1)
	return llm.Stream(ctx, c.Client, req, onDelta)
}

// collect keeps the events but the transient ones (tokens, waits).
type collect struct {
	mu     sync.Mutex
	events []engine.Event
}

func (c *collect) Emit(_ context.Context, e engine.Event) {
	if !e.Transient() {
		c.mu.Lock()
		c.events = append(c.events, e)
		c.mu.Unlock()
	}
}

// seqKeys are the keys whose numeric value names a record by its Seq
// inside another record.
var seqKeys = []string{`"seq":`, `"utteranceSeq":`, `"replyTo":`, `moves:`}

// maskSeqs replaces the number after every key of seqKeys with "#".
func maskSeqs(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '"' && s[i] != 'm' {
			continue
		}
		for _, k := range seqKeys {
			if !strings.HasPrefix(s[i:], k) {
				continue
			}
			j := i + len(k)
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j > i+len(k) {
				b.WriteString(s[last : i+len(k)])
				b.WriteByte('#')
				last, i = j, j-1
			}
			break
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// failurePoints returns the k at which StoreFailsAfterEveryRecord fails a
// store after k records of a debate whose records are recs (each line
// starting with its record type, as the suite compares them): every k
// when exhaustive, else a deterministic sample of at most ten: the first
// two, the middle and the last record, and the first record of every type
// (of six types spread over them, when there are more).
func failurePoints(recs []string, exhaustive bool) []int {
	n := len(recs)
	var ks []int
	if exhaustive {
		for k := range n {
			ks = append(ks, k)
		}
		return ks
	}
	ks = append(ks, 0, 1, n/2, n-1)
	seen := map[string]bool{}
	var firsts []int
	for k, r := range recs {
		typ, _, _ := strings.Cut(r, " ")
		if !seen[typ] {
			seen[typ] = true
			firsts = append(firsts, k)
		}
	}
	// The first record of every type, or of maxTypes types spread over
	// them when there are more.
	const maxTypes = 6
	if len(firsts) <= maxTypes {
		ks = append(ks, firsts...)
	} else {
		for i := range maxTypes {
			ks = append(ks, firsts[i*(len(firsts)-1)/(maxTypes-1)])
		}
	}
	slices.Sort(ks)
	ks = slices.Compact(ks)
	return slices.DeleteFunc(ks, func(k int) bool { return k < 0 || k >= n })
}

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
		line := r.Type + " " + maskSeqs(string(r.Data))
		if k.Side {
			side = append(side, line)
		} else {
			main = append(main, line)
		}
	}
	sort.Strings(side)
	return append(main, side...)
}
