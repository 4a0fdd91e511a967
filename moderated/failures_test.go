package moderated

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/storetest"
)

// tripwire is the stub, until the first call of purpose: then it calls
// trip once, and fails that call with its error.
type tripwire struct {
	llm.Client
	purpose string
	trip    func() error
	tripped atomic.Bool
}

func (c *tripwire) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if req.Purpose == c.purpose && c.trip != nil && c.tripped.CompareAndSwap(false, true) {
		return llm.Response{}, c.trip()
	}
	return c.Client.Complete(ctx, req)
}

// TestFailuresKeepTheirDebate: a debate stopped by a model error, a store
// error or a cancelled context returns its result so far — the debate's
// ID, the format's name, the transcript and usage — and
// engine.ResumeStored on the same store finishes it with the outcome of an
// uninterrupted debate.
func TestFailuresKeepTheirDebate(t *testing.T) {
	at := engine.WithClock(func() time.Time { return time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC) })
	cfg := testConfig()
	play := func(ctx context.Context, client llm.Client, st store.Store) (*engine.Result[*Outcome], error) {
		f, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return engine.Run(ctx, client, f, cachingQuestion, engine.WithStore(st), at)
	}
	want, err := play(t.Context(), &tripwire{Client: llm.NewStub(5)}, store.NewMemory())
	if err != nil {
		t.Fatal(err)
	}
	modelDown := errors.New("model down")
	tests := []struct {
		name string
		// stop makes the context, client and store of a debate that
		// stops with an error matching err.
		stop func(mem store.Store) (ctx context.Context, c llm.Client, st store.Store, err error)
	}{
		{"model error", func(mem store.Store) (context.Context, llm.Client, store.Store, error) {
			return t.Context(), &tripwire{Client: llm.NewStub(5), purpose: PurposeRebuttal, trip: func() error { return modelDown }}, mem, modelDown
		}},
		{"store error", func(mem store.Store) (context.Context, llm.Client, store.Store, error) {
			return t.Context(), &tripwire{Client: llm.NewStub(5)}, storetest.FailAfter(mem, 12, errDisk), errDisk
		}},
		{"cancelled", func(mem store.Store) (context.Context, llm.Client, store.Store, error) {
			ctx, cancel := context.WithCancel(t.Context())
			return ctx, &tripwire{Client: llm.NewStub(5), purpose: PurposeJudgment, trip: func() error { cancel(); return ctx.Err() }}, mem, context.Canceled
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem := store.NewMemory()
			ctx, client, st, wantErr := tt.stop(mem)
			res, err := play(ctx, client, st)
			if !errors.Is(err, wantErr) {
				t.Fatalf("err = %v; want %v", err, wantErr)
			}
			if res == nil || res.DebateID != cachingQuestion.ID || res.Format != FormatName || res.Detail != nil ||
				len(res.Transcript) == 0 || res.Usage.PromptTokens == 0 {
				t.Fatalf("the result so far: %+v", res)
			}
			recs, _ := mem.Records(t.Context(), cachingQuestion.ID)
			if got := len(res.Transcript); got > len(recs) {
				t.Errorf("%d utterances in the result, %d records stored", got, len(recs))
			}
			done, err := engine.ResumeStored(t.Context(), &tripwire{Client: llm.NewStub(5)}, cachingQuestion.ID, engine.WithStore(mem), at)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := done.Detail.(*Outcome)
			if !ok {
				t.Fatalf("detail %T", done.Detail)
			}
			ignore := cmp.Options{cmpopts.IgnoreFields(engine.Utterance{}, "Seq"), cmpopts.IgnoreFields(Argument{}, "Seq"),
				cmpopts.IgnoreFields(Outcome{}, "Elapsed")}
			if diff := cmp.Diff(want.Detail, got, ignore); diff != "" {
				t.Errorf("outcome (-uninterrupted +resumed):\n%s", diff)
			}
			if diff := cmp.Diff(want.Transcript, done.Transcript, ignore); diff != "" {
				t.Errorf("transcript (-uninterrupted +resumed):\n%s", diff)
			}
			if got.Verdict() != want.Detail.Verdict() {
				t.Errorf("verdict %+v; want %+v", got.Verdict(), want.Detail.Verdict())
			}
		})
	}
}
