package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// blockingStore holds every Append until release is closed.
type blockingStore struct {
	store.Store
	entered chan struct{}
	release chan struct{}
}

func (s *blockingStore) Append(ctx context.Context, rec store.Record) error {
	s.entered <- struct{}{}
	<-s.release
	return s.Store.Append(ctx, rec)
}

// tokenSink reports each token it is given.
type tokenSink struct{ tokens chan string }

func (s tokenSink) Emit(_ context.Context, e Event) {
	if e.Type == EventToken {
		s.tokens <- e.Delta
	}
}

func newTestRecorder(st store.Store, sink EventSink) *recorder {
	return &recorder{id: "d", st: st, sink: sink, now: func() time.Time { return time.Unix(0, 0) }, logger: slog.New(slog.DiscardHandler), clock: newClock(func() time.Time { return time.Unix(0, 0) })}
}

// TestTokensDoNotWaitForTheStore: while the store is busy with a record, a
// streamed token still reaches the sink.
func TestTokensDoNotWaitForTheStore(t *testing.T) {
	st := &blockingStore{Store: store.NewMemory(), entered: make(chan struct{}), release: make(chan struct{})}
	sink := tokenSink{tokens: make(chan string, 8)}
	r := newTestRecorder(st, sink)
	ctx := context.Background()
	r.start(ctx)
	if _, err := r.appendEntry(ctx, "utterance", entry{Key: "a"}, nil); err != nil {
		t.Fatal(err)
	}
	<-st.entered // the writer is inside Append
	// A side step's stream does not flush first, so it shows the token path
	// on its own: the token arrives while Append is still blocked.
	go r.emit(ctx, Event{Type: EventToken, Delta: "hello"})
	if got := <-sink.tokens; got != "hello" {
		t.Errorf("token %q", got)
	}
	close(st.release)
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
}

// TestCallWaitsForTheStoreOneStepBehind: a model call may start while the
// previous step's record is being stored, but not while an older one is;
// after a store failure, no call is made.
func TestCallWaitsForTheStoreOneStepBehind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := &blockingStore{Store: store.NewMemory(), entered: make(chan struct{}, 8), release: make(chan struct{})}
		r := newTestRecorder(st, discardSink{})
		ctx := context.Background()
		r.start(ctx)
		calls := 0
		client := llm.ClientFunc(func(context.Context, llm.Request) (llm.Response, error) {
			calls++
			return llm.Response{Content: "ok"}, nil
		})
		step := func(key string) error {
			if _, err := r.call(ctx, client, llm.Request{Purpose: "p"}, "exchange", "chair_1", false); err != nil {
				return err
			}
			_, err := r.appendEntry(ctx, "utterance", entry{Key: key}, nil)
			return err
		}
		if err := step("1"); err != nil { // record 1 queued; the store holds it
			t.Fatal(err)
		}
		if err := step("2"); err != nil { // one step ahead: allowed
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- step("3") }() // two steps ahead: waits for record 1
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("the third call ran while the first record was unstored (err %v)", err)
		default:
		}
		r.fail(errors.New("disk full")) // the store fails instead
		close(st.release)
		if err := <-done; err == nil || calls != 2 {
			t.Errorf("after a store failure: err %v, %d calls; want the store's error and 2 calls", err, calls)
		}
		r.stop()
	})
}

// panicking is a format whose Play stores a record, then panics.
type panicking struct{}

func (panicking) Name() string { return "panicking" }

func (panicking) Play(ctx context.Context, s *Session) (int, error) {
	if _, err := s.Record(ctx, "hello", Utterance{Speaker: "host", Content: "hello"}); err != nil {
		return 0, err
	}
	panic("format bug")
}

// TestPanicInPlayLeaksNothing: when a format's Play panics, the panic
// reaches the caller and no goroutine of the debate survives it (synctest
// fails the test if one is left blocked in the bubble), and what Play
// stored before it stays stored.
func TestPanicInPlayLeaksNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := store.NewMemory()
		func() {
			defer func() {
				if p := recover(); p != "format bug" {
					t.Errorf("recovered %v, want the format's panic", p)
				}
			}()
			Run(context.Background(), llm.NewStub(1), Format[int](panicking{}), Debate{ID: "p", Proposition: "x"}, WithStore(st))
		}()
		recs, err := st.Records(context.Background(), "p")
		if err != nil || len(recs) != 2 {
			t.Errorf("%d records (err %v), want the debate and the utterance stored before the panic", len(recs), err)
		}
	})
}

// TestFormatOptionsAFormatCannotHonour: a format option that does not apply
// to the format stops Run and Resume before any model call.
func TestFormatOptionsAFormatCannotHonour(t *testing.T) {
	calls := 0
	client := llm.ClientFunc(func(context.Context, llm.Request) (llm.Response, error) {
		calls++
		return llm.Response{Content: "x"}, nil
	})
	opt := ForFormat(func(f any) error {
		if _, ok := f.(*toyOnly); !ok {
			return fmt.Errorf("%w: WithToy", ErrUnsupportedOption)
		}
		return nil
	})
	st := store.NewMemory()
	if _, err := Run(context.Background(), client, Format[int](panicking{}), Debate{ID: "x", Proposition: "x"}, opt, WithStore(st)); !errors.Is(err, ErrUnsupportedOption) {
		t.Errorf("Run: err %v, want ErrUnsupportedOption", err)
	}
	if _, err := st.Records(context.Background(), "x"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the refused debate was stored (err %v)", err)
	}
	if calls != 0 {
		t.Errorf("%d model calls", calls)
	}
}

type toyOnly struct{}

// withMap is a format whose configuration has a map and a field left out
// of its JSON when empty, as formats' configurations do.
type withMap struct {
	Weights map[string]int `json:"weights,omitempty"`
	Rounds  int            `json:"rounds,omitempty"`
	hook    func()
}

func (*withMap) Name() string { return "with_map" }

func (*withMap) Play(ctx context.Context, s *Session) (int, error) { return 0, nil }

// TestResumeDecodesTheStoredConfigAlone: Resume decodes the stored
// configuration into zeroed exported fields, so nothing of the Format it is
// given leaks in (a map entry, a field the stored JSON leaves out), while
// its unexported hooks stay.
func TestResumeDecodesTheStoredConfigAlone(t *testing.T) {
	st := store.NewMemory()
	ctx := context.Background()
	if _, err := Run(ctx, llm.NewStub(1), Format[int](&withMap{Weights: map[string]int{"a": 1}}), Debate{ID: "w", Proposition: "x"}, WithStore(st)); err != nil {
		t.Fatal(err)
	}
	called := false
	f := &withMap{Weights: map[string]int{"b": 2}, Rounds: 7, hook: func() { called = true }}
	if _, err := Resume(ctx, llm.NewStub(1), Format[int](f), "w", WithStore(st)); err != nil {
		t.Fatal(err)
	}
	if len(f.Weights) != 1 || f.Weights["a"] != 1 || f.Rounds != 0 {
		t.Errorf("resumed with %+v, want only the stored configuration", f)
	}
	if f.hook(); !called {
		t.Error("the hook was lost")
	}
}
