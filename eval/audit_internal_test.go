package eval

import (
	"context"
	"errors"
	"testing"

	"github.com/duelogic/duelogic/llm"
)

// sentinel answers every request, whatever its context, and counts them.
type sentinel struct{ n int }

func (s *sentinel) Complete(context.Context, llm.Request) (llm.Response, error) {
	s.n++
	return llm.Response{Content: "yes"}, nil
}

type sentinelStreamer struct{ sentinel }

func (s *sentinelStreamer) Stream(ctx context.Context, req llm.Request, _ func(string) error) (llm.Response, error) {
	return s.Complete(ctx, req)
}

// TestLiveOnly: a request whose context is done never reaches the client,
// a live one does, and a streaming client still streams.
func TestLiveOnly(t *testing.T) {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	var plain sentinel
	var streaming sentinelStreamer
	for _, tc := range []struct {
		name   string
		c      llm.Client
		n      *int
		stream bool
	}{
		{"plain", &plain, &plain.n, false},
		{"streaming", &streaming, &streaming.n, true},
	} {
		c := liveOnly(tc.c)
		if _, ok := c.(llm.Streamer); ok != tc.stream {
			t.Errorf("%s: streams %v, want %v", tc.name, ok, tc.stream)
		}
		if _, err := c.Complete(done, llm.Request{}); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: a request on a done context: %v", tc.name, err)
		}
		if _, err := llm.Stream(done, c, llm.Request{}, func(string) error { return nil }); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: a stream on a done context: %v", tc.name, err)
		}
		if *tc.n != 0 {
			t.Errorf("%s: the client was sent %d requests on a done context", tc.name, *tc.n)
		}
		if _, err := llm.Stream(context.Background(), c, llm.Request{}, nil); err != nil || *tc.n != 1 {
			t.Errorf("%s: a live request: %v, %d sent", tc.name, err, *tc.n)
		}
	}
}
