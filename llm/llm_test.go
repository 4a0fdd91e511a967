package llm_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/duelogic/duelogic/llm"
	"github.com/google/go-cmp/cmp"
)

// completer is a Client that cannot stream.
type completer struct {
	content string
	err     error
}

func (c completer) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	return llm.Response{Content: c.content, Model: req.Model}, c.err
}

// streamer is a Client that streams the given deltas.
type streamer struct {
	deltas []string
}

func (s streamer) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	panic("streamer.Complete called; Stream should have been used")
}

func (s streamer) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	var all string
	for _, d := range s.deltas {
		if err := onDelta(d); err != nil {
			return llm.Response{}, err
		}
		all += d
	}
	return llm.Response{Content: all, Model: req.Model}, nil
}

func TestStream(t *testing.T) {
	errBoom := errors.New("boom")
	tests := []struct {
		name       string
		client     llm.Client
		want       []string
		wantResp   string
		wantErr    error
		failOnCall bool // onDelta returns errStop
	}{
		{name: "streamer", client: streamer{deltas: []string{"a", " b", " c"}}, want: []string{"a", " b", " c"}, wantResp: "a b c"},
		{name: "fallback to Complete", client: completer{content: "whole"}, want: []string{"whole"}, wantResp: "whole"},
		{name: "empty content gives no delta", client: completer{}, want: nil},
		{name: "Complete error", client: completer{err: errBoom}, want: nil, wantErr: errBoom},
		{name: "onDelta error stops a streamer", client: streamer{deltas: []string{"a", "b"}}, want: []string{"a"}, wantErr: errStop, failOnCall: true},
		{name: "onDelta error from fallback", client: completer{content: "x"}, want: []string{"x"}, wantErr: errStop, failOnCall: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			resp, err := llm.Stream(context.Background(), tt.client, llm.Request{Model: "m"}, func(d string) error {
				got = append(got, d)
				if tt.failOnCall {
					return errStop
				}
				return nil
			})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("deltas (-want +got):\n%s", diff)
			}
			if err == nil && resp.Content != tt.wantResp {
				t.Errorf("Content = %q, want %q", resp.Content, tt.wantResp)
			}
		})
	}
}

var errStop = errors.New("stop")

func TestStreamNilOnDelta(t *testing.T) {
	for _, c := range []llm.Client{streamer{deltas: []string{"a", "b"}}, completer{content: "ab"}} {
		resp, err := llm.Stream(context.Background(), c, llm.Request{}, nil)
		if err != nil || resp.Content != "ab" {
			t.Errorf("Stream(%T, nil) = %q, %v; want \"ab\", nil", c, resp.Content, err)
		}
	}
}

func TestClientFunc(t *testing.T) {
	var c llm.Client = llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		return llm.Response{Content: req.Purpose + "@" + req.Model}, nil
	})
	resp, err := c.Complete(context.Background(), llm.Request{Model: "m", Purpose: "p"})
	if err != nil || resp.Content != "p@m" {
		t.Errorf("Complete = %q, %v; want \"p@m\", nil", resp.Content, err)
	}
}

func TestUsage(t *testing.T) {
	u := llm.Usage{PromptTokens: 1, CompletionTokens: 2}.Add(llm.Usage{PromptTokens: 10, CompletionTokens: 20})
	if diff := cmp.Diff(llm.Usage{PromptTokens: 11, CompletionTokens: 22}, u); diff != "" {
		t.Errorf("Add (-want +got):\n%s", diff)
	}
	if u.Total() != 33 {
		t.Errorf("Total = %d, want 33", u.Total())
	}
}

func TestIsRetryableAndRetryDelay(t *testing.T) {
	base := errors.New("rate limited")
	tests := []struct {
		name      string
		err       error
		retryable bool
		delay     time.Duration
	}{
		{name: "nil", err: nil},
		{name: "plain", err: base},
		{name: "temporary", err: llm.Temporary(base, 0), retryable: true},
		{name: "temporary with delay", err: llm.Temporary(base, 3*time.Second), retryable: true, delay: 3 * time.Second},
		{name: "wrapped temporary", err: fmt.Errorf("calling model: %w", llm.Temporary(base, time.Second)), retryable: true, delay: time.Second},
		{name: "canceled", err: context.Canceled},
		{name: "temporary around canceled", err: llm.Temporary(context.Canceled, time.Second), delay: time.Second},
		{name: "joined with deadline", err: errors.Join(llm.Temporary(base, 0), context.DeadlineExceeded)},
		{name: "context overflow", err: llm.Temporary(fmt.Errorf("9000 tokens: %w", llm.ErrContextOverflow), 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := llm.IsRetryable(tt.err); got != tt.retryable {
				t.Errorf("IsRetryable = %v, want %v", got, tt.retryable)
			}
			if got := llm.RetryDelay(tt.err); got != tt.delay {
				t.Errorf("RetryDelay = %v, want %v", got, tt.delay)
			}
		})
	}
}

func TestTemporary(t *testing.T) {
	base := errors.New("503 unavailable")
	tests := []struct {
		err  error
		want string
	}{
		{llm.Temporary(base, 0), "503 unavailable"},
		{llm.Temporary(base, 2*time.Second), "503 unavailable (retry after 2s)"},
	}
	if err := llm.Temporary(nil, time.Second); err != nil {
		t.Errorf("Temporary(nil) = %v, want nil", err)
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
		if !errors.Is(tt.err, base) {
			t.Errorf("errors.Is(%v, base) = false", tt.err)
		}
	}
}
