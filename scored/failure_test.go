package scored

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/storetest"
)

// ignoreSeq leaves out the Seqs of utterances and arguments: side records
// land in the log where timing puts them, which shifts the Seq of the
// records after them.
var ignoreSeq = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Seq" }, cmp.Ignore())

// split sends the requests match picks to to, and the others to rest.
type split struct {
	rest, to llm.Client
	match    func(llm.Request) bool
}

func (c split) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if c.match(req) {
		return c.to.Complete(ctx, req)
	}
	return c.rest.Complete(ctx, req)
}

// cancelAt cancels the debate at its model call number at, which fails
// with context.Canceled.
type cancelAt struct {
	llm.Client
	calls  atomic.Int64
	at     int64
	cancel context.CancelFunc
}

func (c *cancelAt) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if c.calls.Add(1) >= c.at {
		c.cancel()
		return llm.Response{}, context.Canceled
	}
	return c.Client.Complete(ctx, req)
}

// TestFailuresKeepTheirDebate stops a debate, opened by name, by a model
// error (at the second round's verdict), a store error and a cancel: each
// returns its result so far with the error, and engine.ResumeStored on the
// stub finishes it with the outcome of a debate never stopped.
func TestFailuresKeepTheirDebate(t *testing.T) {
	at := func() time.Time { return time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC) }
	stub := llm.NewStub(5)
	play := func(ctx context.Context, client llm.Client, st store.Store) (*engine.Result[engine.Outcome], error) {
		f, err := engine.Open(FormatName, nil)
		if err != nil {
			t.Fatal(err)
		}
		return engine.Run(ctx, client, f, testIdea, engine.WithStore(st), engine.WithClock(at))
	}
	clean := store.NewMemory()
	want, err := play(t.Context(), stub, clean)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := clean.Records(t.Context(), testIdea.ID)
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	tests := []struct {
		name string
		play func(st store.Store) (*engine.Result[engine.Outcome], error)
		err  error
		// said is how many utterances the result holds at least.
		said int
	}{
		{"a model error", func(st store.Store) (*engine.Result[engine.Outcome], error) {
			down := llmtest.New()
			down.OnPurpose(PurposeVerdict).Fail(boom)
			return play(t.Context(), split{rest: stub, to: down, match: func(r llm.Request) bool {
				return r.Purpose == PurposeVerdict && strings.Contains(r.Messages[1].Content, "Solution Fit")
			}}, st)
		}, boom, 5}, // the first round is recorded whole
		{"a store error", func(st store.Store) (*engine.Result[engine.Outcome], error) {
			return play(t.Context(), stub, storetest.FailAfter(st, len(recs)/2, boom))
		}, boom, 1},
		{"a cancel", func(st store.Store) (*engine.Result[engine.Outcome], error) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			return play(ctx, &cancelAt{Client: stub, at: 8, cancel: cancel}, st) // in the second round
		}, context.Canceled, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := store.NewMemory()
			res, err := tt.play(st)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if res == nil {
				t.Fatal("no result with the error")
			}
			if res.DebateID != testIdea.ID || res.Format != FormatName || res.Detail != nil {
				t.Errorf("result of debate %q, format %q, detail %v", res.DebateID, res.Format, res.Detail)
			}
			if n := len(res.Transcript); n < tt.said || n >= len(want.Transcript) {
				t.Errorf("the result holds %d utterances; want from %d to fewer than %d", n, tt.said, len(want.Transcript))
			} else if diff := cmp.Diff(want.Transcript[:n], res.Transcript, ignoreSeq); n > 0 && diff != "" {
				t.Errorf("transcript so far (-uninterrupted +stopped):\n%s", diff)
			}
			again, err := engine.ResumeStored(t.Context(), stub, testIdea.ID, engine.WithStore(st), engine.WithClock(at))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want.Detail, again.Detail, ignoreSeq); diff != "" {
				t.Errorf("outcome (-uninterrupted +resumed):\n%s", diff)
			}
			if diff := cmp.Diff(want.Transcript, again.Transcript, ignoreSeq); diff != "" {
				t.Errorf("transcript (-uninterrupted +resumed):\n%s", diff)
			}
			if diff := cmp.Diff(want.Detail.Verdict(), again.Detail.Verdict()); diff != "" {
				t.Errorf("verdict (-uninterrupted +resumed):\n%s", diff)
			}
		})
	}
}
