package openai

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/duelogic/duelogic/llm"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func chunk(content string) string {
	return `data: {"id":"c","object":"chat.completion.chunk","model":"m-1","choices":[{"index":0,"delta":{"content":` + jsonString(content) + `},"finish_reason":null}]}` + "\n\n"
}

func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

const (
	roleChunk   = `data: {"id":"c","object":"chat.completion.chunk","model":"m-1","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}],"usage":null}` + "\n\n"
	stopChunk   = `data: {"id":"c","object":"chat.completion.chunk","model":"m-1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}` + "\n\n"
	usageChunk  = `data: {"id":"c","object":"chat.completion.chunk","model":"m-1","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":3,"total_tokens":12}}` + "\n\n"
	doneEvent   = "data: [DONE]\n\n"
	usage9and3  = "9/3"
	noUsage     = "0/0"
	wantPartial = "partial"
)

func TestStream(t *testing.T) {
	tests := []struct {
		name       string
		body       string
		want       llm.Response
		wantDeltas []string
		wantErr    error // matched with errors.Is; nil: success
		wantAPI    *APIError
		estimated  bool // want.Usage is an estimate
	}{
		{
			name:       "OpenAI shape: role-only first delta, usage last",
			body:       roleChunk + chunk("Hel") + chunk("lo") + stopChunk + usageChunk + doneEvent,
			want:       llm.Response{Content: "Hello", Model: "m-1", FinishReason: "stop", Usage: llm.Usage{PromptTokens: 9, CompletionTokens: 3}},
			wantDeltas: []string{"Hel", "lo"},
		},
		{
			name: "null and empty choices, empty contents",
			body: `data: {"choices":null}` + "\n\n" + `data: {"choices":[]}` + "\n\n" + chunk("") + chunk("a") +
				`data: {"choices":[{"index":0,"delta":{"content":null},"finish_reason":"length"}]}` + "\n\n" + doneEvent,
			want:       llm.Response{Content: "a", Model: "m-1", FinishReason: "length"},
			wantDeltas: []string{"a"},
		},
		{
			name: "the last non-null usage counts",
			body: `data: {"choices":[{"index":0,"delta":{"content":"x"}}],"usage":{"prompt_tokens":1,"completion_tokens":1}}` + "\n\n" +
				`data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":7}}` + "\n\n" +
				`data: {"choices":[],"usage":null}` + "\n\n" + doneEvent,
			want:       llm.Response{Content: "x", Model: "test-model", FinishReason: "stop", Usage: llm.Usage{PromptTokens: 5, CompletionTokens: 7}},
			wantDeltas: []string{"x"},
		},
		{
			name: "content as a list of parts",
			body: `data: {"choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"hmm"}]}]}}]}` + "\n\n" +
				`data: {"choices":[{"index":0,"delta":{"content":[{"type":"text","text":"Yes"},{"type":"text","text":"."}]},"finish_reason":"stop"}]}` + "\n\n",
			want:       llm.Response{Content: "Yes.", Model: "test-model", FinishReason: "stop", Usage: llm.Usage{PromptTokens: 1, CompletionTokens: 1}},
			wantDeltas: []string{"Yes."},
			estimated:  true,
		},
		{
			name:       "other choices are ignored",
			body:       `data: {"choices":[{"index":1,"delta":{"content":"other"}},{"index":0,"delta":{"content":"mine"}}]}` + "\n\n" + stopChunk + doneEvent,
			want:       llm.Response{Content: "mine", Model: "m-1", FinishReason: "stop"},
			wantDeltas: []string{"mine"},
		},
		{
			name:       "a finish_reason without [DONE] is complete",
			body:       chunk("a") + stopChunk,
			want:       llm.Response{Content: "a", Model: "m-1", FinishReason: "stop", Usage: llm.Usage{PromptTokens: 1, CompletionTokens: 1}},
			wantDeltas: []string{"a"},
			estimated:  true,
		},
		{
			name:       "[DONE] without a finish_reason is complete",
			body:       chunk("a") + doneEvent + chunk("after done is not read"),
			want:       llm.Response{Content: "a", Model: "m-1"},
			wantDeltas: []string{"a"},
		},
		{
			name:       "a stream that just stops is truncated",
			body:       roleChunk + chunk("par") + chunk("tial"),
			want:       llm.Response{Content: "partial", Model: "m-1"},
			wantDeltas: []string{"par", "tial"},
			wantErr:    ErrTruncated,
		},
		{
			name:    "an empty stream is truncated",
			body:    "",
			want:    llm.Response{Model: "test-model"},
			wantErr: ErrTruncated,
		},
		{
			name:       "a stream cut inside an event is truncated",
			body:       chunk("par") + `data: {"choices":[{"index":0,"delta":{"content":"ti`,
			want:       llm.Response{Content: "par", Model: "m-1"},
			wantDeltas: []string{"par"},
			wantErr:    ErrTruncated,
		},
		{
			name:       "OpenAI error mid-stream keeps the partial text",
			body:       roleChunk + chunk("The") + `data: {"error": {"message": "The server had an error while processing your request. Sorry about that!", "type": "server_error", "param": null, "code": null}}` + "\n\n",
			want:       llm.Response{Content: "The", Model: "m-1"},
			wantDeltas: []string{"The"},
			wantAPI:    &APIError{Type: "server_error", Message: "The server had an error while processing your request. Sorry about that!"},
		},
		{
			name: "OpenRouter error mid-stream with finish_reason error",
			body: ": OPENROUTER PROCESSING\n\n" + chunk("Hal") +
				`data: {"id":"cmpl-abc123","object":"chat.completion.chunk","created":1234567890,"model":"gpt-3.5-turbo","provider":"openai","error":{"code":"server_error","message":"Provider disconnected unexpectedly"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}` + "\n\n",
			want:       llm.Response{Content: "Hal", Model: "gpt-3.5-turbo", FinishReason: "error"},
			wantDeltas: []string{"Hal"},
			wantAPI:    &APIError{Code: "server_error", Message: "Provider disconnected unexpectedly"},
		},
		{
			name:       "finish_reason error without an error object",
			body:       chunk("a") + `data: {"choices":[{"index":0,"delta":{},"finish_reason":"error"}]}` + "\n\n" + doneEvent,
			want:       llm.Response{Content: "a", Model: "m-1", FinishReason: "error"},
			wantDeltas: []string{"a"},
			wantAPI:    &APIError{Message: `the stream ended with finish_reason "error"`},
		},
		{
			name:       "an error event (event: error)",
			body:       chunk("a") + "event: error\ndata: {\"message\":\"overloaded\",\"type\":\"overloaded_error\"}\n\n",
			want:       llm.Response{Content: "a", Model: "m-1"},
			wantDeltas: []string{"a"},
			wantAPI:    &APIError{Type: "overloaded_error", Message: "overloaded"},
		},
		{
			name:       "a malformed event",
			body:       chunk("a") + "data: {not json}\n\n",
			want:       llm.Response{Content: "a", Model: "m-1"},
			wantDeltas: []string{"a"},
			wantErr:    errMalformed,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, sse(tt.body))
			c, _ := testClient(Config{BaseURL: srv.URL})
			var deltas []string
			got, err := c.Stream(t.Context(), userReq("hi"), collect(&deltas))
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(llm.Response{}, "UsageEstimated")); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
			checkEstimated(t, got, tt.estimated)
			if diff := cmp.Diff(tt.wantDeltas, deltas); diff != "" {
				t.Errorf("deltas (-want +got):\n%s", diff)
			}
			checkStreamErr(t, err, tt.want, tt.wantErr, tt.wantAPI)
		})
	}
}

// errMalformed stands for "a malformed event" in TestStream.
var errMalformed = errors.New("malformed")

func checkStreamErr(t *testing.T, err error, partial llm.Response, wantErr error, wantAPI *APIError) {
	t.Helper()
	if wantErr == nil && wantAPI == nil {
		if err != nil {
			t.Fatalf("error = %v, want success", err)
		}
		return
	}
	var se *StreamError
	if !errors.As(err, &se) {
		t.Fatalf("error = %v (%T), want a *StreamError", err, err)
	}
	if diff := cmp.Diff(partial, se.Partial); diff != "" {
		t.Errorf("StreamError.Partial (-want +got):\n%s", diff)
	}
	switch {
	case wantErr == errMalformed:
		if !strings.Contains(err.Error(), "malformed stream event") {
			t.Errorf("error = %v, want a malformed event", err)
		}
	case wantErr != nil:
		if !errors.Is(err, wantErr) {
			t.Errorf("error = %v, want %v", err, wantErr)
		}
	}
	if wantAPI != nil {
		var apiErr *APIError
		if !errors.As(err, &apiErr) {
			t.Fatalf("error = %v, want an *APIError inside", err)
		}
		if diff := cmp.Diff(wantAPI, apiErr, cmp.AllowUnexported(APIError{})); diff != "" {
			t.Errorf("APIError (-want +got):\n%s", diff)
		}
	}
}

func TestStreamUsageEstimate(t *testing.T) {
	req := llm.Request{Model: "test-model", Messages: []llm.Message{
		{Role: llm.System, Content: "You are terse."}, // 14 characters
		{Role: llm.User, Content: "Grüße, Welt? "},    // 13
	}}
	const answer = "Grüße zurück!" // 13 characters
	estimate := llm.Usage{PromptTokens: 7, CompletionTokens: 4}
	body := roleChunk + chunk("Grüße ") + chunk("zurück!")
	tests := []struct {
		name      string
		h         http.HandlerFunc
		want      llm.Usage
		estimated bool
	}{
		{"cut after finish_reason, before usage", sse(body + stopChunk), estimate, true},
		{"connection lost after finish_reason", cutStream(t, body+stopChunk), estimate, true},
		{"cut after zero usage on a chunk", sse(body + stopChunk + `data: {"choices":[],"usage":{"prompt_tokens":0,"completion_tokens":0}}` + "\n\n"), estimate, true},
		{"usage chunk and [DONE]", sse(body + stopChunk + usageChunk + doneEvent), llm.Usage{PromptTokens: 9, CompletionTokens: 3}, false},
		{"usage chunk, cut before [DONE]", sse(body + stopChunk + usageChunk), llm.Usage{PromptTokens: 9, CompletionTokens: 3}, false},
		{"usage with finish_reason, cut", sse(body + `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2}}` + "\n\n"), llm.Usage{PromptTokens: 5, CompletionTokens: 2}, false},
		{"[DONE] without usage: the server reports none", sse(body + stopChunk + doneEvent), llm.Usage{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := testClient(Config{BaseURL: serve(t, tt.h).URL})
			got, err := c.Stream(t.Context(), req, nil)
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			want := llm.Response{Content: answer, Model: "m-1", FinishReason: "stop", Usage: tt.want}
			if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(llm.Response{}, "UsageEstimated")); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
			checkEstimated(t, got, tt.estimated)
		})
	}
}

// cutStream answers with a 200 event stream whose bytes are body and then
// drops the connection, without the chunk that ends the response.
func cutStream(t *testing.T, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
		buf.WriteString(strconvHex(len(body)) + "\r\n" + body + "\r\n")
		buf.Flush()
	}
}

// checkEstimated checks that got's usage is marked as an estimate when want
// says so, and only then.
func checkEstimated(t *testing.T, got llm.Response, want bool) {
	t.Helper()
	if got.UsageEstimated != want {
		t.Errorf("UsageEstimated = %v, want %v", got.UsageEstimated, want)
	}
}

func TestStreamOnDeltaError(t *testing.T) {
	srv := serve(t, sse(chunk("a")+chunk("b")+chunk("c")+stopChunk+doneEvent))
	c, _ := testClient(Config{BaseURL: srv.URL})
	stop := errors.New("sink full")
	var deltas []string
	got, err := c.Stream(t.Context(), userReq("hi"), func(d string) error {
		deltas = append(deltas, d)
		if d == "b" {
			return stop
		}
		return nil
	})
	if err != stop {
		t.Errorf("error = %v, want onDelta's error itself", err)
	}
	if diff := cmp.Diff(llm.Response{Content: "ab", Model: "m-1"}, got); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a", "b"}, deltas); diff != "" {
		t.Errorf("deltas (-want +got):\n%s", diff)
	}
}

func TestStreamNilOnDelta(t *testing.T) {
	srv := serve(t, sse(chunk("a")+stopChunk+doneEvent))
	c, _ := testClient(Config{BaseURL: srv.URL})
	got, err := c.Stream(t.Context(), userReq("hi"), nil)
	if err != nil || got.Content != "a" {
		t.Errorf("Stream = %+v, %v; want content \"a\"", got, err)
	}
}

func TestStreamCancel(t *testing.T) {
	closed := make(chan struct{})
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, chunk("first"))
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the client went away
		close(closed)
	})
	c, _ := testClient(Config{BaseURL: srv.URL})
	ctx, cancel := context.WithCancel(t.Context())
	got, err := c.Stream(ctx, userReq("hi"), func(string) error { cancel(); return nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
	if got.Content != "first" {
		t.Errorf("partial content = %q, want %q", got.Content, "first")
	}
	select {
	case <-closed:
	case <-time.After(10 * time.Second): // a guard against hanging, not a timing assertion
		t.Error("the server never saw the connection close")
	}
}

func TestStreamConnectionCut(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		c := chunk("partial answer")
		buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
		buf.WriteString(strings.ToLower(strconvHex(len(c))) + "\r\n" + c + "\r\n")
		buf.WriteString("40\r\ndata: {\"choi") // a chunk cut short, and no terminating chunk
		buf.Flush()
	})
	c, _ := testClient(Config{BaseURL: srv.URL})
	got, err := c.Stream(t.Context(), userReq("hi"), nil)
	if !errors.Is(err, ErrTruncated) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("error = %v, want ErrTruncated wrapping io.ErrUnexpectedEOF", err)
	}
	if got.Content != "partial answer" {
		t.Errorf("partial content = %q", got.Content)
	}
	if llm.IsRetryable(err) {
		t.Error("a truncated stream reports retryable")
	}
}

func strconvHex(n int) string {
	const digits = "0123456789abcdef"
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 16 {
		b = append([]byte{digits[n%16]}, b...)
	}
	return string(b)
}

func TestStreamJSONAnswer(t *testing.T) {
	// A server that ignores "stream" and answers with a whole completion.
	srv := serve(t, reply(200, "application/json; charset=utf-8", okCompletion))
	c, _ := testClient(Config{BaseURL: srv.URL})
	var deltas []string
	got, err := c.Stream(t.Context(), userReq("hi"), collect(&deltas))
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Response{Content: "ok", Model: "m", FinishReason: "stop", Usage: llm.Usage{PromptTokens: 1, CompletionTokens: 1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"ok"}, deltas); diff != "" {
		t.Errorf("deltas (-want +got):\n%s", diff)
	}
}

func TestStreamSizeLimits(t *testing.T) {
	t.Run("content", func(t *testing.T) {
		srv := serve(t, sse(strings.Repeat(chunk("0123456789"), 20)+stopChunk+doneEvent))
		c, _ := testClient(Config{BaseURL: srv.URL})
		c.maxBody = 100
		got, err := c.Stream(t.Context(), userReq("hi"), nil)
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("error = %v, want ErrTooLarge", err)
		}
		if len(got.Content) != 100 {
			t.Errorf("partial content has %d bytes, want the 100 that fit", len(got.Content))
		}
	})
	t.Run("line", func(t *testing.T) {
		srv := serve(t, sse(chunk(strings.Repeat("x", 5000))+stopChunk+doneEvent))
		c, _ := testClient(Config{BaseURL: srv.URL})
		c.maxLine = 1000
		_, err := c.Stream(t.Context(), userReq("hi"), nil)
		var se *StreamError
		if !errors.Is(err, ErrTooLarge) || !errors.As(err, &se) {
			t.Errorf("error = %v, want a StreamError with ErrTooLarge", err)
		}
	})
	t.Run("a stream line of several MB is fine", func(t *testing.T) {
		big := strings.Repeat("y", 3<<20)
		srv := serve(t, sse(chunk(big)+stopChunk+doneEvent))
		c, _ := testClient(Config{BaseURL: srv.URL})
		got, err := c.Stream(t.Context(), userReq("hi"), nil)
		if err != nil || got.Content != big {
			t.Errorf("Stream: %d bytes, %v; want the 3 MiB content", len(got.Content), err)
		}
	})
}

// pipeServer is an in-memory streaming server for synctest bubbles: each
// request gets a 200 event stream whose body the test writes.
type pipeServer struct {
	w      *io.PipeWriter
	closed chan struct{}
}

func newPipeClient(cfg Config) (*Client, *pipeServer) {
	ps := &pipeServer{closed: make(chan struct{})}
	pr, pw := io.Pipe()
	ps.w = pw
	cfg.BaseURL = "http://pipe.test/v1"
	cfg.HTTPClient = &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{
			StatusCode: 200,
			Header:     http.Header{"Content-Type": {"text/event-stream"}},
			Body:       &closeNotifier{ReadCloser: pr, closed: ps.closed},
			Request:    r,
		}, nil
	})}
	c, _ := testClient(cfg)
	return c, ps
}

// closeNotifier closes its channel when closed; a second Close is an error
// the tests catch as a panic.
type closeNotifier struct {
	io.ReadCloser
	closed chan struct{}
}

func (c *closeNotifier) Close() error {
	err := c.ReadCloser.Close()
	close(c.closed)
	return err
}

func TestStreamIdleTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, ps := newPipeClient(Config{IdleTimeout: time.Minute})
		go func() {
			io.WriteString(ps.w, roleChunk+chunk("thinking"))
			// ...and then nothing: the server hangs.
		}()
		start := time.Now()
		got, err := c.Stream(t.Context(), userReq("hi"), nil)
		if !errors.Is(err, ErrIdleTimeout) {
			t.Fatalf("error = %v, want ErrIdleTimeout", err)
		}
		var se *StreamError
		if !errors.As(err, &se) || se.Partial.Content != "thinking" || got.Content != "thinking" {
			t.Errorf("error %v / response %+v: want the partial content kept", err, got)
		}
		if d := time.Since(start); d != time.Minute {
			t.Errorf("gave up after %v of silence, want %v", d, time.Minute)
		}
		<-ps.closed
	})
}

func TestStreamIdleTimeoutIsNotATotalTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, ps := newPipeClient(Config{IdleTimeout: time.Minute})
		go func() {
			defer ps.w.Close()
			io.WriteString(ps.w, roleChunk)
			for range 30 { // 30 chunks, 50s apart: 25 minutes in all
				time.Sleep(50 * time.Second)
				io.WriteString(ps.w, chunk("."))
			}
			time.Sleep(50 * time.Second)
			io.WriteString(ps.w, ": keep-alive\n\n") // comments keep the stream alive too
			time.Sleep(50 * time.Second)
			io.WriteString(ps.w, stopChunk+doneEvent)
		}()
		start := time.Now()
		got, err := c.Stream(t.Context(), userReq("hi"), nil)
		if err != nil {
			t.Fatalf("a slow but steady stream failed after %v: %v", time.Since(start), err)
		}
		if got.Content != strings.Repeat(".", 30) {
			t.Errorf("content = %q", got.Content)
		}
	})
}

func TestStreamIdleTimeoutBeforeHeaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := Config{BaseURL: "http://pipe.test/v1", IdleTimeout: 30 * time.Second,
			HTTPClient: &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				<-r.Context().Done() // never answers
				return nil, r.Context().Err()
			})}}
		c, sleeps := testClient(cfg)
		_, err := c.Stream(t.Context(), userReq("hi"), nil)
		if !errors.Is(err, ErrIdleTimeout) {
			t.Errorf("error = %v, want ErrIdleTimeout", err)
		}
		if len(sleeps.got()) != 0 {
			t.Errorf("retried %d times: the request was sent and may be running", len(sleeps.got()))
		}
	})
}

func TestStreamNoIdleTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, ps := newPipeClient(Config{IdleTimeout: -1})
		go func() {
			defer ps.w.Close()
			time.Sleep(time.Hour)
			io.WriteString(ps.w, chunk("late")+stopChunk)
		}()
		got, err := c.Stream(t.Context(), userReq("hi"), nil)
		if err != nil || got.Content != "late" {
			t.Errorf("Stream = %q, %v; want \"late\"", got.Content, err)
		}
	})
}

func TestCompleteIdleTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pr, pw := io.Pipe()
		defer pw.Close()
		cfg := Config{BaseURL: "http://pipe.test/v1", IdleTimeout: time.Minute,
			HTTPClient: &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				time.Sleep(10 * time.Minute) // a long generation before the headers is fine
				return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: pr, Request: r}, nil
			})}}
		c, _ := testClient(cfg)
		go io.WriteString(pw, `{"choices":[{"message":`) // then the body stalls
		_, err := c.Complete(t.Context(), userReq("hi"))
		if !errors.Is(err, ErrIdleTimeout) {
			t.Errorf("error = %v, want ErrIdleTimeout", err)
		}
	})
}
