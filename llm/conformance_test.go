package llm_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
)

// everyOther fails every other call with a retryable error (a 503), so Retry
// has something to do while the contract is checked through it.
type everyOther struct {
	llm.Client
	n atomic.Int64
}

func (f *everyOther) fail(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if f.n.Add(1)%2 == 1 {
		return llm.Temporary(errors.New("llm_test: 503 service unavailable"), 0)
	}
	return nil
}

func (f *everyOther) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := f.fail(ctx); err != nil {
		return llm.Response{}, err
	}
	return f.Client.Complete(ctx, req)
}

func (f *everyOther) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	if err := f.fail(ctx); err != nil {
		return llm.Response{}, err
	}
	return llm.Stream(ctx, f.Client, req, onDelta)
}

// Every Client of this package keeps the contract llmtest.TestClient checks.
func TestClientsKeepTheContract(t *testing.T) {
	// The Router's default fails, so the contract holds only if the
	// request is routed by its model ID.
	unrouted := llm.ClientFunc(func(context.Context, llm.Request) (llm.Response, error) {
		return llm.Response{}, errors.New("llm_test: routed to the default")
	})
	for _, tt := range []struct {
		name string
		c    llm.Client
	}{
		{"Stub", llm.NewStub(1)},
		{"RouterPrefix", llm.NewRouter(unrouted).Handle("llmtest-*", llm.NewStub(1))},
		{"RouterExact", llm.NewRouter(unrouted).Handle("llmtest-model", llm.NewStub(1))},
		{"RouterDefault", llm.NewRouter(llm.NewStub(2))},
		{"Retry", llm.Retry(llm.NewStub(1), llm.RetryPolicy{})},
		{"RetryAfterFailures", llm.Retry(&everyOther{Client: llm.NewStub(1)}, llm.RetryPolicy{MaxRetries: 20, Base: 1, Max: 1})},
	} {
		t.Run(tt.name, func(t *testing.T) { llmtest.TestClient(t, tt.c) })
	}
}
