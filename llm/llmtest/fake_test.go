package llmtest_test

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
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/google/go-cmp/cmp"
)

// ask calls c and returns the content, or "error: ..." when the call fails.
func ask(t *testing.T, c llm.Client, req llm.Request) string {
	t.Helper()
	resp, err := c.Complete(t.Context(), req)
	if err != nil {
		return "error: " + err.Error()
	}
	return resp.Content
}

func TestRules(t *testing.T) {
	errBoom := errors.New("boom")
	tests := []struct {
		name   string
		script func(f *llmtest.Fake)
		reqs   []llm.Request
		want   []string
	}{{
		name: "no rules",
		reqs: []llm.Request{{Purpose: "opening"}, {}},
		want: []string{"fake reply for opening", "fake reply"},
	}, {
		name: "first matching rule in the order added",
		script: func(f *llmtest.Fake) {
			f.OnPurpose("evaluation").Reply("by purpose")
			f.OnModel("m").Reply("by model")
			f.On(func(r llm.Request) bool { return r.JSON }).Reply("by matcher")
		},
		reqs: []llm.Request{
			{Purpose: "evaluation", Model: "m", JSON: true},
			{Purpose: "opening", Model: "m", JSON: true},
			{Purpose: "opening", JSON: true},
			{Purpose: "opening"},
		},
		want: []string{"by purpose", "by model", "by matcher", "fake reply for opening"},
	}, {
		name:   "replies in order, then the last repeats",
		script: func(f *llmtest.Fake) { f.OnPurpose("p").Reply("a", "b").Reply("c") },
		reqs:   []llm.Request{{Purpose: "p"}, {Purpose: "p"}, {Purpose: "p"}, {Purpose: "p"}, {Purpose: "q"}},
		want:   []string{"a", "b", "c", "c", "fake reply for q"},
	}, {
		name: "a used-up rule falls through",
		script: func(f *llmtest.Fake) {
			f.OnPurpose("p").Reply("a", "b").Times(3)
			f.OnPurpose("p").Reply("second rule").Times(1)
		},
		reqs: []llm.Request{{Purpose: "p"}, {Purpose: "p"}, {Purpose: "p"}, {Purpose: "p"}, {Purpose: "p"}},
		want: []string{"a", "b", "b", "second rule", "fake reply for p"},
	}, {
		name: "errors among replies",
		script: func(f *llmtest.Fake) {
			f.OnPurpose("p").Fail(errBoom).Reply("ok").Fail(errBoom)
		},
		reqs: []llm.Request{{Purpose: "p"}, {Purpose: "p"}, {Purpose: "p"}, {Purpose: "p"}},
		want: []string{"error: boom", "ok", "error: boom", "error: boom"},
	}, {
		name:   "scripted default",
		script: func(f *llmtest.Fake) { f.Default().Reply("x", "y").Times(3); f.OnModel("m").Reply("m") },
		reqs:   []llm.Request{{Model: "m"}, {Purpose: "a"}, {Purpose: "b"}, {Purpose: "c"}, {Purpose: "d"}},
		want:   []string{"m", "x", "y", "y", "fake reply for d"},
	}, {
		name:   "a rule without replies answers like the default",
		script: func(f *llmtest.Fake) { f.OnPurpose("p").Times(1); f.OnPurpose("p").Reply("later") },
		reqs:   []llm.Request{{Purpose: "p"}, {Purpose: "p"}},
		want:   []string{"fake reply for p", "later"},
	}, {
		name: "Times 0 removes the limit",
		script: func(f *llmtest.Fake) {
			f.OnPurpose("p").Reply("a").Times(1).Times(0)
		},
		reqs: []llm.Request{{Purpose: "p"}, {Purpose: "p"}},
		want: []string{"a", "a"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := llmtest.New()
			if tc.script != nil {
				tc.script(f)
			}
			var got []string
			for _, r := range tc.reqs {
				got = append(got, ask(t, f, r))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("replies mismatch (-want +got):\n%s", diff)
			}
			// Reset rewinds: the same requests get the same replies.
			f.Reset()
			var again []string
			for _, r := range tc.reqs {
				again = append(again, ask(t, f, r))
			}
			if diff := cmp.Diff(tc.want, again); diff != "" {
				t.Errorf("replies after Reset mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFailKeepsError(t *testing.T) {
	errRate := llm.Temporary(errors.New("429"), time.Second)
	f := llmtest.New()
	f.OnPurpose("p").Fail(errRate)
	_, err := f.Complete(t.Context(), llm.Request{Purpose: "p"})
	if err != errRate || !llm.IsRetryable(err) || llm.RetryDelay(err) != time.Second {
		t.Errorf("got error %v, want the scripted retryable error", err)
	}
}

// stream calls f.Stream and returns the deltas and the result.
func stream(t *testing.T, s llm.Streamer, req llm.Request) ([]string, llm.Response, error) {
	t.Helper()
	var deltas []string
	resp, err := s.Stream(t.Context(), req, func(d string) error {
		deltas = append(deltas, d)
		return nil
	})
	return deltas, resp, err
}

func TestStreamDeltas(t *testing.T) {
	tests := []struct {
		content string
		want    []string
	}{
		{"", nil},
		{"Hello", []string{"Hello"}},
		{"Hello,  big\nworld!", []string{"Hello,  ", "big\n", "world!"}},
		{"  leading and trailing \n", []string{"  leading ", "and ", "trailing \n"}},
		{"   ", []string{"   "}},
		{"非常 好\u00a0ok", []string{"非常 ", "好\u00a0", "ok"}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%q", tc.content), func(t *testing.T) {
			f := llmtest.New()
			f.Default().Reply(tc.content)
			deltas, resp, err := stream(t, f, llm.Request{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, deltas); diff != "" {
				t.Errorf("deltas mismatch (-want +got):\n%s", diff)
			}
			if resp.Content != tc.content {
				t.Errorf("Content = %q, want %q", resp.Content, tc.content)
			}
		})
	}
}

func TestFailMidStream(t *testing.T) {
	errCut := errors.New("connection reset")
	for _, tc := range []struct {
		n    int
		want []string
	}{
		{-1, nil},
		{0, nil},
		{2, []string{"one ", "two "}},
		{9, []string{"one ", "two ", "three"}},
	} {
		t.Run(fmt.Sprint(tc.n), func(t *testing.T) {
			f := llmtest.New()
			f.Default().FailMidStream("one two three", tc.n, errCut)
			deltas, _, err := stream(t, f, llm.Request{})
			if !errors.Is(err, errCut) {
				t.Errorf("Stream: got error %v, want %v", err, errCut)
			}
			if diff := cmp.Diff(tc.want, deltas); diff != "" {
				t.Errorf("deltas mismatch (-want +got):\n%s", diff)
			}
			if _, err := f.Complete(t.Context(), llm.Request{}); !errors.Is(err, errCut) {
				t.Errorf("Complete: got error %v, want %v", err, errCut)
			}
		})
	}
}

func TestStreamStopsOnDeltaError(t *testing.T) {
	f := llmtest.New()
	f.Default().Reply("one two three")
	errStop := errors.New("sink closed")
	var deltas []string
	_, err := f.Stream(t.Context(), llm.Request{}, func(d string) error {
		deltas = append(deltas, d)
		if len(deltas) == 2 {
			return errStop
		}
		return nil
	})
	if err != errStop {
		t.Errorf("got error %v, want %v", err, errStop)
	}
	if diff := cmp.Diff([]string{"one ", "two "}, deltas); diff != "" {
		t.Errorf("deltas mismatch (-want +got):\n%s", diff)
	}
}

func TestResponseDefaults(t *testing.T) {
	req := llm.Request{
		Model:    "vendor/model",
		Purpose:  "p",
		Messages: []llm.Message{{Role: llm.System, Content: "12345"}, {Role: llm.User, Content: "678"}},
	}
	f := llmtest.New()
	f.OnPurpose("p").
		Reply("abcdefghi").
		Respond(llm.Response{Content: "x", Model: "served/model", FinishReason: "length", Usage: llm.Usage{PromptTokens: 7, CompletionTokens: 9}})
	var got []llm.Response
	for range 2 {
		resp, err := f.Complete(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, resp)
	}
	_, resp, err := stream(t, f, req)
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, resp)
	want := []llm.Response{
		{Content: "abcdefghi", Model: "vendor/model", FinishReason: "stop", Usage: llm.Usage{PromptTokens: 2, CompletionTokens: 3}},
		{Content: "x", Model: "served/model", FinishReason: "length", Usage: llm.Usage{PromptTokens: 7, CompletionTokens: 9}},
		{Content: "x", Model: "served/model", FinishReason: "length", Usage: llm.Usage{PromptTokens: 7, CompletionTokens: 9}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("responses mismatch (-want +got):\n%s", diff)
	}
}

func TestRecording(t *testing.T) {
	temp := 0.5
	req := llm.Request{Model: "m", Purpose: "a", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}, Temperature: &temp, JSON: true}
	f := llmtest.New()
	f.On(func(r llm.Request) bool {
		r.Messages[0].Content = "changed by matcher"
		*r.Temperature = 9
		return false
	})
	f.OnPurpose("b").Fail(errors.New("failed calls count too"))
	for _, p := range []string{"a", "b", "a"} {
		r := req
		r.Purpose = p
		f.Complete(t.Context(), r)
	}
	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	f.Stream(canceled, req, nil)

	req.Messages[0].Content = "changed by caller"
	temp = 7
	want := []llm.Request{
		{Model: "m", Purpose: "a", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}, Temperature: ptr(0.5), JSON: true},
		{Model: "m", Purpose: "b", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}, Temperature: ptr(0.5), JSON: true},
		{Model: "m", Purpose: "a", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}, Temperature: ptr(0.5), JSON: true},
		{Model: "m", Purpose: "a", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}, Temperature: ptr(0.5), JSON: true},
	}
	got := f.Requests()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Requests mismatch (-want +got):\n%s", diff)
	}
	got[0].Messages[0].Content = "changed by reader"
	*got[0].Temperature = 8
	if diff := cmp.Diff(want, f.Requests()); diff != "" {
		t.Errorf("Requests after changing a returned request mismatch (-want +got):\n%s", diff)
	}
	for purpose, n := range map[string]int{"a": 3, "b": 1, "c": 0} {
		if got := f.Calls(purpose); got != n {
			t.Errorf("Calls(%q) = %d, want %d", purpose, got, n)
		}
	}
	f.Reset()
	if got := f.Requests(); len(got) != 0 {
		t.Errorf("Requests after Reset = %v, want none", got)
	}
}

func ptr[T any](v T) *T { return &v }

func TestCanceledContext(t *testing.T) {
	f := llmtest.New()
	f.Default().Reply("first", "second")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := f.Complete(ctx, llm.Request{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Complete: got error %v, want context.Canceled", err)
	}
	deltas := 0
	if _, err := f.Stream(ctx, llm.Request{}, func(string) error { deltas++; return nil }); !errors.Is(err, context.Canceled) || deltas > 0 {
		t.Errorf("Stream: got error %v after %d deltas, want context.Canceled and none", err, deltas)
	}
	// A canceled call uses no reply.
	if got := ask(t, f, llm.Request{}); got != "first" {
		t.Errorf("next reply = %q, want %q", got, "first")
	}
}

func TestCanceledMidStream(t *testing.T) {
	f := llmtest.New()
	f.Default().Reply("one two three")
	ctx, cancel := context.WithCancel(t.Context())
	var deltas []string
	_, err := f.Stream(ctx, llm.Request{}, func(d string) error {
		deltas = append(deltas, d)
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got error %v, want context.Canceled", err)
	}
	if diff := cmp.Diff([]string{"one "}, deltas); diff != "" {
		t.Errorf("deltas mismatch (-want +got):\n%s", diff)
	}
}

func TestDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := llmtest.New()
		f.OnPurpose("slow").Delay(time.Minute).Reply("late")

		start := time.Now()
		if got := ask(t, f, llm.Request{Purpose: "slow"}); got != "late" {
			t.Errorf("reply %q, want %q", got, "late")
		}
		if d := time.Since(start); d != time.Minute {
			t.Errorf("Complete took %v, want 1m", d)
		}

		start = time.Now()
		if _, _, err := stream(t, f, llm.Request{Purpose: "fast"}); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d != 0 {
			t.Errorf("undelayed Stream took %v", d)
		}

		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		start = time.Now()
		_, err := f.Stream(ctx, llm.Request{Purpose: "slow"}, nil)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Stream: got error %v, want context.DeadlineExceeded", err)
		}
		if d := time.Since(start); d != 10*time.Second {
			t.Errorf("Stream gave up after %v, want 10s", d)
		}
		if n := f.Calls("slow"); n != 2 {
			t.Errorf("Calls(slow) = %d, want 2", n)
		}
	})
}

func TestConcurrentUse(t *testing.T) {
	const calls, limit = 60, 40
	f := llmtest.New()
	r := f.OnPurpose("p").Reply("a", "b", "c").Times(limit)
	var (
		mu     sync.Mutex
		counts = make(map[string]int)
		wg     sync.WaitGroup
	)
	for i := range calls {
		wg.Go(func() {
			var resp llm.Response
			var err error
			if i%2 == 0 {
				resp, err = f.Complete(t.Context(), llm.Request{Purpose: "p"})
			} else {
				resp, err = f.Stream(t.Context(), llm.Request{Purpose: "p"}, nil)
			}
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			counts[resp.Content]++
			mu.Unlock()
		})
		if i%10 == 0 {
			wg.Go(func() {
				r.Delay(0)
				f.OnPurpose("never")
				f.Requests()
				f.Calls("p")
			})
		}
	}
	wg.Wait()
	want := map[string]int{"a": 1, "b": 1, "c": limit - 2, "fake reply for p": calls - limit}
	if diff := cmp.Diff(want, counts); diff != "" {
		t.Errorf("replies mismatch (-want +got):\n%s", diff)
	}
	if n := f.Calls("p"); n != calls {
		t.Errorf("Calls(p) = %d, want %d", n, calls)
	}
}

func TestClientOnFake(t *testing.T) {
	f := llmtest.New()
	llmtest.TestClient(t, f)
	if n := f.Calls("llmtest"); n == 0 {
		t.Error("TestClient sent no request")
	}
}

func TestClientOnClientFunc(t *testing.T) {
	llmtest.TestClient(t, llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		if err := ctx.Err(); err != nil {
			return llm.Response{}, err
		}
		return llm.Response{Content: strings.ToUpper(req.Messages[len(req.Messages)-1].Content)}, nil
	}))
}
