package llm_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/duelogic/duelogic/llm"
	"github.com/google/go-cmp/cmp"
)

// flaky fails its first calls with the given errors, then answers "ok". It
// records when each call started.
type flaky struct {
	fails []error
	// before[i] deltas are streamed before call i fails (Stream only).
	before []int

	mu    sync.Mutex
	times []time.Time
}

func (f *flaky) start() (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	i := len(f.times)
	f.times = append(f.times, time.Now())
	if i < len(f.fails) {
		return i, f.fails[i]
	}
	return i, nil
}

func (f *flaky) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.times)
}

// waits returns the pauses between consecutive calls.
func (f *flaky) waits() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	var w []time.Duration
	for i := 1; i < len(f.times); i++ {
		w = append(w, f.times[i].Sub(f.times[i-1]))
	}
	return w
}

func (f *flaky) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if _, err := f.start(); err != nil {
		return llm.Response{}, err
	}
	return llm.Response{Content: "ok", Model: req.Model, Usage: llm.Usage{PromptTokens: 3, CompletionTokens: 1}}, nil
}

// flakyStreamer is a flaky that can stream.
type flakyStreamer struct{ *flaky }

func (f flakyStreamer) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	i, err := f.start()
	if err != nil {
		for k := 0; i < len(f.before) && k < f.before[i]; k++ {
			if err := onDelta(fmt.Sprintf("partial%d ", k)); err != nil {
				return llm.Response{}, err
			}
		}
		return llm.Response{}, err
	}
	for _, d := range []string{"o", "k"} {
		if err := onDelta(d); err != nil {
			return llm.Response{}, err
		}
	}
	return llm.Response{Content: "ok", Model: req.Model}, nil
}

var (
	errRateLimit = errors.New("429 too many requests")
	errBadReq    = errors.New("400 bad request")
)

func repeat(err error, n int) []error {
	errs := make([]error, n)
	for i := range errs {
		errs[i] = err
	}
	return errs
}

func constRand(r float64) func() float64 { return func() float64 { return r } }

func TestRetryAttemptsBounded(t *testing.T) {
	tests := []struct {
		maxRetries int
		wantCalls  int
	}{
		{maxRetries: 0, wantCalls: 3}, // default: 2 retries
		{maxRetries: 1, wantCalls: 2},
		{maxRetries: 4, wantCalls: 5},
		{maxRetries: -1, wantCalls: 1}, // no retries
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.maxRetries), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cause := llm.Temporary(errRateLimit, 0)
				f := &flaky{fails: repeat(cause, 100)}
				c := llm.Retry(f, llm.RetryPolicy{MaxRetries: tt.maxRetries})
				_, err := c.Complete(context.Background(), llm.Request{})
				if got := f.calls(); got != tt.wantCalls {
					t.Errorf("calls = %d, want %d", got, tt.wantCalls)
				}
				if tt.wantCalls == 1 {
					if err != cause {
						t.Errorf("err = %v, want the cause as is", err)
					}
					return
				}
				if !errors.Is(err, errRateLimit) {
					t.Errorf("err = %v, does not wrap the cause", err)
				}
				if want := fmt.Sprintf("after %d attempts", tt.wantCalls); !strings.Contains(err.Error(), want) {
					t.Errorf("err = %q, does not say %q", err, want)
				}
				if llm.IsRetryable(err) {
					t.Errorf("IsRetryable(%v) = true after the retries are spent", err)
				}
			})
		})
	}
}

func TestRetryBackoff(t *testing.T) {
	s := time.Second
	tests := []struct {
		name   string
		policy llm.RetryPolicy
		want   []time.Duration
	}{
		{
			name:   "low jitter: half the ceiling, doubling up to Max",
			policy: llm.RetryPolicy{MaxRetries: 5, Base: s, Max: 5 * s, Rand: constRand(0)},
			want:   []time.Duration{s / 2, s, 2 * s, 5 * s / 2, 5 * s / 2},
		},
		{
			name:   "mid jitter",
			policy: llm.RetryPolicy{MaxRetries: 5, Base: s, Max: 5 * s, Rand: constRand(0.5)},
			want:   []time.Duration{3 * s / 4, 3 * s / 2, 3 * s, 15 * s / 4, 15 * s / 4},
		},
		{
			name:   "out-of-range jitter is clamped to the ceiling",
			policy: llm.RetryPolicy{MaxRetries: 4, Base: s, Max: 3 * s, Rand: constRand(7)},
			want:   []time.Duration{s, 2 * s, 3 * s, 3 * s},
		},
		{
			name:   "defaults: base 1s",
			policy: llm.RetryPolicy{Rand: constRand(0)},
			want:   []time.Duration{s / 2, s},
		},
		{
			name:   "default max 30s",
			policy: llm.RetryPolicy{MaxRetries: 8, Rand: constRand(0.999999)},
			want:   []time.Duration{s, 2 * s, 4 * s, 8 * s, 16 * s, 30 * s, 30 * s, 30 * s},
		},
		{
			name:   "many retries do not overflow",
			policy: llm.RetryPolicy{MaxRetries: 70, Base: s, Max: time.Duration(1<<63 - 1), Rand: constRand(0)},
			want:   nil, // checked below: waits never decrease
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := &flaky{fails: repeat(llm.Temporary(errRateLimit, 0), 100)}
				ctx, cancel := context.WithTimeout(context.Background(), 1000*time.Hour)
				defer cancel()
				llm.Retry(f, tt.policy).Complete(ctx, llm.Request{})
				got := f.waits()
				if tt.want == nil {
					for i := 1; i < len(got); i++ {
						if got[i] < got[i-1] {
							t.Fatalf("wait %d = %v < wait %d = %v", i, got[i], i-1, got[i-1])
						}
					}
					return
				}
				// Jitter of 0.999999 gives a wait a hair below the ceiling.
				got = roundWaits(got)
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("waits (-want +got):\n%s", diff)
				}
			})
		})
	}
}

func roundWaits(w []time.Duration) []time.Duration {
	for i := range w {
		w[i] = w[i].Round(time.Millisecond)
	}
	return w
}

func TestRetryAfterHint(t *testing.T) {
	tests := []struct {
		name   string
		after  time.Duration
		policy llm.RetryPolicy
		want   time.Duration
	}{
		{name: "honoured", after: 7 * time.Second, want: 7 * time.Second},
		{name: "longer than the backoff cap", after: 45 * time.Second, policy: llm.RetryPolicy{Max: 2 * time.Second}, want: 45 * time.Second},
		{name: "capped by MaxDelay", after: 2 * time.Minute, policy: llm.RetryPolicy{MaxDelay: 30 * time.Second}, want: 30 * time.Second},
		{name: "capped by the default MaxDelay", after: time.Hour, want: time.Minute},
		{name: "no hint: backoff", after: 0, policy: llm.RetryPolicy{Base: 4 * time.Second}, want: 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := &flaky{fails: []error{fmt.Errorf("calling: %w", llm.Temporary(errRateLimit, tt.after))}}
				p := tt.policy
				p.Rand = constRand(0)
				resp, err := llm.Retry(f, p).Complete(context.Background(), llm.Request{})
				if err != nil || resp.Content != "ok" {
					t.Fatalf("Complete = %q, %v", resp.Content, err)
				}
				if diff := cmp.Diff([]time.Duration{tt.want}, f.waits()); diff != "" {
					t.Errorf("waits (-want +got):\n%s", diff)
				}
			})
		})
	}
}

func TestRetryWhichErrors(t *testing.T) {
	temp := llm.Temporary(errRateLimit, 0)
	// A client that marks every 4xx temporary still does not get an
	// overflowing prompt retried.
	overflow := llm.Temporary(fmt.Errorf("prompt of 9000 tokens: %w", llm.ErrContextOverflow), 0)
	tests := []struct {
		name        string
		fails       []error
		shouldRetry func(error) bool
		wantCalls   int
		wantAsIs    bool   // the error returned is the failure itself
		wantText    string // else the error says this
		wantIs      error
	}{
		{name: "success", wantCalls: 1},
		{name: "non-retryable returned at once", fails: []error{errBadReq}, wantCalls: 1, wantAsIs: true, wantIs: errBadReq},
		{name: "context error not retried", fails: []error{context.DeadlineExceeded}, wantCalls: 1, wantAsIs: true, wantIs: context.DeadlineExceeded},
		{name: "retryable then success", fails: []error{temp, temp}, wantCalls: 3},
		{name: "retryable then non-retryable", fails: []error{temp, errBadReq}, wantCalls: 2, wantText: "after 2 attempts", wantIs: errBadReq},
		{name: "custom policy retries plain errors", fails: []error{errBadReq}, shouldRetry: func(error) bool { return true }, wantCalls: 2},
		{name: "custom policy refuses retryable ones", fails: []error{temp}, shouldRetry: func(error) bool { return false }, wantCalls: 1, wantAsIs: true, wantIs: errRateLimit},
		{name: "context overflow not retried", fails: []error{overflow}, wantCalls: 1, wantAsIs: true, wantIs: llm.ErrContextOverflow},
		{name: "context overflow not retried whatever the policy", fails: []error{overflow}, shouldRetry: func(error) bool { return true }, wantCalls: 1, wantAsIs: true, wantIs: llm.ErrContextOverflow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := &flaky{fails: tt.fails}
				resp, err := llm.Retry(f, llm.RetryPolicy{ShouldRetry: tt.shouldRetry}).Complete(context.Background(), llm.Request{Model: "m"})
				if got := f.calls(); got != tt.wantCalls {
					t.Errorf("calls = %d, want %d", got, tt.wantCalls)
				}
				switch {
				case tt.wantIs == nil:
					want := llm.Response{Content: "ok", Model: "m", Usage: llm.Usage{PromptTokens: 3, CompletionTokens: 1}}
					if diff := cmp.Diff(want, resp); err != nil || diff != "" {
						t.Errorf("err = %v, response (-want +got):\n%s", err, diff)
					}
				case tt.wantAsIs:
					if err != tt.fails[len(tt.fails)-1] {
						t.Errorf("err = %v, want the failure as is", err)
					}
				default:
					if !errors.Is(err, tt.wantIs) || !strings.Contains(err.Error(), tt.wantText) {
						t.Errorf("err = %v, want one wrapping %v and saying %q", err, tt.wantIs, tt.wantText)
					}
				}
			})
		})
	}
}

func TestRetryStream(t *testing.T) {
	temp := llm.Temporary(errRateLimit, 0)
	tests := []struct {
		name       string
		client     func(*flaky) llm.Client
		fails      []error
		before     []int
		wantCalls  int
		wantDeltas []string
		wantErr    error // returned as is
	}{
		{
			name:       "failures before the first delta are retried",
			client:     func(f *flaky) llm.Client { return flakyStreamer{f} },
			fails:      []error{temp, temp},
			wantCalls:  3,
			wantDeltas: []string{"o", "k"},
		},
		{
			name:       "a failure after the first delta is not retried",
			client:     func(f *flaky) llm.Client { return flakyStreamer{f} },
			fails:      []error{temp},
			before:     []int{1},
			wantCalls:  1,
			wantDeltas: []string{"partial0 "},
			wantErr:    temp,
		},
		{
			name:       "a failure late in the stream is not retried",
			client:     func(f *flaky) llm.Client { return flakyStreamer{f} },
			fails:      []error{temp, temp},
			before:     []int{0, 3},
			wantCalls:  2,
			wantDeltas: []string{"partial0 ", "partial1 ", "partial2 "},
			wantErr:    temp,
		},
		{
			name:       "a client that cannot stream is retried and streamed as one delta",
			client:     func(f *flaky) llm.Client { return f },
			fails:      []error{temp},
			wantCalls:  2,
			wantDeltas: []string{"ok"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := &flaky{fails: tt.fails, before: tt.before}
				var got []string
				resp, err := llm.Stream(context.Background(), llm.Retry(tt.client(f), llm.RetryPolicy{}), llm.Request{}, func(d string) error {
					got = append(got, d)
					return nil
				})
				if f.calls() != tt.wantCalls {
					t.Errorf("calls = %d, want %d", f.calls(), tt.wantCalls)
				}
				if diff := cmp.Diff(tt.wantDeltas, got); diff != "" {
					t.Errorf("deltas (-want +got):\n%s", diff)
				}
				if err != tt.wantErr {
					t.Errorf("err = %v, want %v as is", err, tt.wantErr)
				}
				if err == nil && resp.Content != "ok" {
					t.Errorf("Content = %q, want ok", resp.Content)
				}
			})
		})
	}
}

func TestRetryStreamOnDeltaError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &flaky{}
		c := llm.Retry(flakyStreamer{f}, llm.RetryPolicy{ShouldRetry: func(error) bool { return true }})
		if _, ok := c.(llm.Streamer); !ok {
			t.Fatal("the client Retry returns is not a Streamer")
		}
		_, err := llm.Stream(context.Background(), c, llm.Request{}, func(string) error { return errStop })
		if err != errStop || f.calls() != 1 {
			t.Errorf("err = %v after %d calls; want errStop after 1", err, f.calls())
		}
	})
}

func TestRetryContextCancel(t *testing.T) {
	tests := []struct {
		name    string
		ctx     func() (context.Context, context.CancelFunc)
		wantErr error
		wantAt  time.Duration
	}{
		{
			name: "cancelled mid-wait",
			ctx: func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				go func() {
					time.Sleep(time.Second)
					cancel()
				}()
				return ctx, cancel
			},
			wantErr: context.Canceled,
			wantAt:  time.Second,
		},
		{
			name: "deadline mid-wait",
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 3*time.Second)
			},
			wantErr: context.DeadlineExceeded,
			wantAt:  3 * time.Second,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := tt.ctx()
				defer cancel()
				f := &flaky{fails: repeat(llm.Temporary(errRateLimit, 0), 10)}
				start := time.Now()
				_, err := llm.Retry(f, llm.RetryPolicy{Base: 20 * time.Second}).Complete(ctx, llm.Request{})
				if got := time.Since(start); got != tt.wantAt {
					t.Errorf("returned after %v, want %v", got, tt.wantAt)
				}
				if !errors.Is(err, tt.wantErr) || !errors.Is(err, errRateLimit) {
					t.Errorf("err = %v, want one wrapping %v and the last failure", err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), "after 1 attempt") {
					t.Errorf("err = %q, does not count the attempts", err)
				}
				if f.calls() != 1 {
					t.Errorf("calls = %d, want 1", f.calls())
				}
			})
		})
	}
}

func TestRetryContextDoneBeforeWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		calls := 0
		c := llm.ClientFunc(func(context.Context, llm.Request) (llm.Response, error) {
			calls++
			cancel() // the context ends while the call fails
			return llm.Response{}, llm.Temporary(errRateLimit, time.Hour)
		})
		start := time.Now()
		_, err := llm.Retry(c, llm.RetryPolicy{}).Complete(ctx, llm.Request{})
		if time.Since(start) != 0 || calls != 1 || !errors.Is(err, context.Canceled) {
			t.Errorf("after %v and %d calls: err = %v; want context.Canceled at once", time.Since(start), calls, err)
		}
	})
}

func TestRetryNilClientPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Retry(nil) did not panic")
		}
	}()
	llm.Retry(nil, llm.RetryPolicy{})
}
