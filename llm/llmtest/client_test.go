package llmtest

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/duelogic/duelogic/llm"
)

// streamer is a Client and Streamer made of functions, for broken clients.
type streamer struct {
	llm.ClientFunc
	stream func(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error)
}

func (s streamer) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	return s.stream(ctx, req, onDelta)
}

// good answers "hello world", checking ctx, and streams it word by word.
func good(ctx context.Context, _ llm.Request) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	return llm.Response{Content: "hello world"}, nil
}

func goodStream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	resp, err := good(ctx, req)
	if err != nil {
		return resp, err
	}
	for _, w := range words(resp.Content) {
		if err := onDelta(w); err != nil {
			return llm.Response{}, err
		}
	}
	return resp, nil
}

func TestClientChecksCatchBugs(t *testing.T) {
	var calls atomic.Int32
	tests := []struct {
		name   string
		client llm.Client
		fail   []string
	}{
		{"always fails", llm.ClientFunc(func(context.Context, llm.Request) (llm.Response, error) {
			return llm.Response{}, errors.New("down")
		}), []string{"Complete", "Concurrent"}},
		{"ignores ctx", llm.ClientFunc(func(context.Context, llm.Request) (llm.Response, error) {
			return llm.Response{Content: "hi"}, nil
		}), []string{"CanceledContext", "ExpiredDeadline"}},
		{"wrong ctx error", llm.ClientFunc(func(ctx context.Context, _ llm.Request) (llm.Response, error) {
			if ctx.Err() != nil {
				return llm.Response{}, errors.New("canceled")
			}
			return llm.Response{}, nil
		}), []string{"CanceledContext", "ExpiredDeadline"}},
		{"single use", llm.ClientFunc(func(context.Context, llm.Request) (llm.Response, error) {
			if calls.Add(1) > 1 {
				return llm.Response{}, errors.New("used")
			}
			return llm.Response{}, nil
		}), []string{"Concurrent"}},
		{"streams before checking ctx", streamer{good, func(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
			onDelta("hello ")
			return goodStream(ctx, req, onDelta)
		}}, []string{"CanceledContext"}},
		{"deltas differ from content", streamer{good, func(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
			resp, err := goodStream(ctx, req, onDelta)
			resp.Content = strings.ToUpper(resp.Content)
			return resp, err
		}}, []string{"Stream"}},
		{"ignores onDelta error", streamer{good, func(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
			return goodStream(ctx, req, func(d string) error { onDelta(d); return nil })
		}}, []string{"StreamStops"}},
		{"wraps away onDelta error", streamer{good, func(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
			resp, err := goodStream(ctx, req, onDelta)
			if err != nil {
				err = errors.New(err.Error())
			}
			return resp, err
		}}, []string{"StreamStops"}},
	}
	checks := make(map[string]func(context.Context, llm.Client) error)
	for _, c := range clientChecks {
		checks[c.name] = c.check
	}
	for _, tc := range tests {
		for _, name := range tc.fail {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				err := checks[name](t.Context(), tc.client)
				if err == nil || errors.Is(err, errSkip) {
					t.Fatalf("check %s passed (%v)", name, err)
				}
				t.Logf("reported: %v", err)
			})
		}
	}
}

func TestClientChecksPassGood(t *testing.T) {
	TestClient(t, streamer{good, goodStream})
}
