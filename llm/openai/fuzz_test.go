package openai

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func FuzzSSE(f *testing.F) {
	for _, seed := range []string{
		"data: a\n\ndata: b\n\n",
		"data:{\"x\":1}\r\n\r\n",
		"data: a\r\rdata: b\r\r",
		": OPENROUTER PROCESSING\n\ndata: [DONE]\n\n",
		"event: error\ndata: {}\n\n",
		"error: {\"code\":500}\n\ndata: [DONE]\n\n",
		"data: {\"a\":\ndata: 1}\n\n",
		"data: cut",
		"\r\n\r\n:\n",
		"data: " + strings.Repeat("x", 300) + "\n\n",
	} {
		f.Add([]byte(seed))
	}
	const max = 256
	f.Fuzz(func(t *testing.T, in []byte) {
		whole, errWhole := readEvents(bytes.NewReader(in), max)
		bytewise, errBytewise := readEvents(iotest.OneByteReader(bytes.NewReader(in)), max)
		// How the input is split into reads must not matter.
		if diff := cmp.Diff(whole, bytewise); diff != "" {
			t.Fatalf("events differ between whole and byte-by-byte reads (-whole +bytewise):\n%s", diff)
		}
		if (errWhole == nil) != (errBytewise == nil) || errors.Is(errWhole, ErrTooLarge) != errors.Is(errBytewise, ErrTooLarge) {
			t.Fatalf("errors differ: %v vs %v", errWhole, errBytewise)
		}
		if errWhole != io.EOF && errWhole != io.ErrUnexpectedEOF && !errors.Is(errWhole, ErrTooLarge) {
			t.Fatalf("unexpected error %v", errWhole)
		}
		for _, ev := range whole {
			if _, data, _ := strings.Cut(ev, "|"); len(data) > max {
				t.Fatalf("event of %d bytes passed the %d-byte limit", len(data), max)
			}
		}
	})
}

// FuzzStream runs Stream over arbitrary event streams: it must not panic,
// the content must be what onDelta saw, and a success needs a finish.
func FuzzStream(f *testing.F) {
	f.Add([]byte(roleChunk + chunk("Hel") + chunk("lo") + stopChunk + usageChunk + doneEvent))
	f.Add([]byte(chunk("a") + `data: {"error":{"message":"x","type":"server_error"}}` + "\n\n"))
	f.Add([]byte(chunk("a") + "error: {\"code\":500}\n\n"))
	f.Add([]byte(`data: {"choices":null,"usage":{"prompt_tokens":1.5,"completion_tokens":null}}` + "\n\n"))
	f.Add([]byte(chunk("cut")))
	f.Fuzz(func(t *testing.T, body []byte) {
		c, _ := testClient(Config{BaseURL: "http://fuzz.test/v1", HTTPClient: &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(bytes.NewReader(body)), Request: r}, nil
		})}})
		c.maxLine, c.maxBody = 4096, 4096
		var seen strings.Builder
		resp, err := c.Stream(t.Context(), userReq("hi"), func(d string) error {
			if d == "" {
				t.Fatal("onDelta called with an empty delta")
			}
			seen.WriteString(d)
			return nil
		})
		if resp.Content != seen.String() {
			t.Fatalf("content %q, deltas %q", resp.Content, seen.String())
		}
		if err == nil && resp.FinishReason == "" && !bytes.Contains(body, []byte("[DONE]")) {
			t.Fatalf("success without a finish_reason or [DONE]")
		}
		var se *StreamError
		if err != nil && errors.As(err, &se) && se.Partial.Content != resp.Content {
			t.Fatalf("StreamError.Partial %q, response %q", se.Partial.Content, resp.Content)
		}
	})
}

func FuzzErrorBody(f *testing.F) {
	const key = "sk-SECRET-KEY-0123"
	for _, seed := range []string{
		`{"error":{"message":"m","type":"t","code":"c","param":null}}`,
		`{"error":{"code":429,"message":"m","metadata":{"provider_name":"p","raw":"r"}}}`,
		`{"object":"error","message":"m","type":"BadRequestError","param":null,"code":400}`,
		`{"detail":[{"loc":["body"],"msg":"field required"}]}`,
		`{"detail":"Not Found"}`,
		`{"error":"model not found"}`,
		`[{"error":{"code":400,"message":"m","status":"INVALID_ARGUMENT"}}]`,
		`<html><title>502 Bad Gateway</title></html>`,
		"Internal Server Error",
		`{"error":{"message":"bad key sk-SECRET-KEY-0123"}}`,
		`{"error":{"message":"\u0073k-SECRET-KEY-0123"}}`,
		"",
	} {
		f.Add([]byte(seed), 500)
	}
	f.Fuzz(func(t *testing.T, body []byte, status int) {
		h := http.Header{"Retry-After": {string(body[:min(len(body), 20)])}}
		for _, e := range []*APIError{
			newAPIError(status, h, body, fixedNow, []string{key}),
			errorFromEvent(body, []string{key}),
		} {
			msg := e.Error()
			if strings.Contains(msg, key) || bytes.Contains(e.Metadata, []byte(key)) {
				t.Fatalf("the key shows: %q", msg)
			}
			if !utf8.ValidString(e.Message) || len(e.Message) > maxMessageLen+len("…") {
				t.Fatalf("message of %d bytes, valid UTF-8 %v", len(e.Message), utf8.ValidString(e.Message))
			}
			if e.RetryAfter < 0 {
				t.Fatalf("negative RetryAfter %v", e.RetryAfter)
			}
			e.Retryable()
		}
	})
}
