package duelogic

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/duelogic/duelogic/argumentation"
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
	return &recorder{id: "d", st: st, sink: sink, now: func() time.Time { return time.Unix(0, 0) }, logger: slog.New(slog.DiscardHandler)}
}

// TestTokensDoNotWaitForTheStore: while the store is busy with a record, a
// streamed token still reaches the sink.
func TestTokensDoNotWaitForTheStore(t *testing.T) {
	st := &blockingStore{Store: store.NewMemory(), entered: make(chan struct{}), release: make(chan struct{})}
	sink := tokenSink{tokens: make(chan string, 8)}
	r := newTestRecorder(st, sink)
	ctx := context.Background()
	r.start(ctx)
	if _, err := r.append(ctx, "utterance", map[string]string{"key": "a"}); err != nil {
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
			if _, err := r.call(ctx, client, llm.Request{Purpose: "p"}, SegmentExchange, "chair_1", false); err != nil {
				return err
			}
			_, err := r.append(ctx, "utterance", map[string]string{"key": key})
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

func (panicking) Play(ctx context.Context, s *Session) error {
	if _, err := s.Record(ctx, "hello", Utterance{Speaker: "host", Content: "hello"}); err != nil {
		return err
	}
	panic("format bug")
}

// TestPanicInPlayLeaksNothing: when a format's Play panics, the panic
// reaches the caller and no goroutine of the debate survives it (synctest
// fails the test if one is left blocked in the bubble).
func TestPanicInPlayLeaksNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := store.NewMemory()
		func() {
			defer func() {
				if p := recover(); p != "format bug" {
					t.Errorf("recovered %v, want the format's panic", p)
				}
			}()
			RunFormat(context.Background(), llm.NewStub(1), panicking{}, Debate{ID: "p", Proposition: "x"}, WithStore(st))
		}()
		recs, err := st.Records(context.Background(), "p")
		if err != nil || len(recs) != 2 {
			t.Errorf("%d records (err %v), want the debate and the utterance stored before the panic", len(recs), err)
		}
	})
}

// TestFormatsRefuseOptionsTheyCannotHonour: RunFormat and ResumeFormat fail
// before any model call with an option only the podcast reads.
func TestFormatsRefuseOptionsTheyCannotHonour(t *testing.T) {
	for _, tt := range []struct {
		name string
		opt  Option
	}{
		{"WithCatalog", WithCatalog(DefaultCatalog())},
		{"WithArgumentMap", WithArgumentMap(argumentation.Additive)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			client := llm.ClientFunc(func(context.Context, llm.Request) (llm.Response, error) {
				calls++
				return llm.Response{Content: "x"}, nil
			})
			_, err := RunFormat(context.Background(), client, panicking{}, Debate{Proposition: "x"}, tt.opt)
			if !errors.Is(err, ErrUnsupportedOption) || !strings.Contains(err.Error(), tt.name) {
				t.Errorf("RunFormat: err %v, want ErrUnsupportedOption naming %s", err, tt.name)
			}
			_, err = ResumeFormat(context.Background(), client, panicking{}, "any", tt.opt)
			if !errors.Is(err, ErrUnsupportedOption) {
				t.Errorf("ResumeFormat: err %v, want ErrUnsupportedOption", err)
			}
			if calls != 0 {
				t.Errorf("%d model calls", calls)
			}
		})
	}
}
