package openai

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// readEvents reads every event of input, returning them as "name|data"
// strings, and the error that ended the stream.
func readEvents(r io.Reader, max int) ([]string, error) {
	s := newSSEReader(r, max)
	var out []string
	for {
		ev, err := s.next()
		if err != nil {
			return out, err
		}
		out = append(out, ev.name+"|"+string(ev.data))
	}
}

func TestSSEReader(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []string
		wantErr error
	}{
		{"data with a space", "data: a\n\ndata: b\n\n", []string{"|a", "|b"}, io.EOF},
		{"data without the space", "data:a\n\ndata:{\"x\":1}\n\n", []string{"|a", `|{"x":1}`}, io.EOF},
		{"only one space is removed", "data:  two\n\n", []string{"| two"}, io.EOF},
		{"CRLF line endings", "data: a\r\n\r\ndata: b\r\n\r\n", []string{"|a", "|b"}, io.EOF},
		{"CR line endings", "data: a\r\rdata: b\r\r", []string{"|a", "|b"}, io.EOF},
		{"mixed line endings", "data: a\r\n\ndata: b\n\r\n", []string{"|a", "|b"}, io.EOF},
		{"multi-line data is joined by newlines", "data: {\"a\":\ndata: 1}\n\n", []string{"|{\"a\":\n1}"}, io.EOF},
		{"empty data lines count", "data\ndata:\ndata: x\n\n", []string{"|\n\nx"}, io.EOF},
		{"comment lines are skipped", ": OPENROUTER PROCESSING\n\n: keep-alive\ndata: a\n: inside\n\n", []string{"|a"}, io.EOF},
		{"event names", "event: error\ndata: {}\n\ndata: b\n\n", []string{"error|{}", "|b"}, io.EOF},
		{"an event name alone is not dispatched", "event: ping\n\ndata: b\n\n", []string{"|b"}, io.EOF},
		{"llama.cpp error field", "error: {\"code\":500}\n\ndata: [DONE]\n\n", []string{"error|{\"code\":500}", "|[DONE]"}, io.EOF},
		{"id and retry are ignored", "id: 7\nretry: 100\ndata: a\n\n", []string{"|a"}, io.EOF},
		{"unknown fields are ignored", "foo: bar\ndata: a\n\n", []string{"|a"}, io.EOF},
		{"blank lines alone", "\n\n\r\n", nil, io.EOF},
		{"empty stream", "", nil, io.EOF},
		{"complete last event without the blank line", "data: a\n\ndata: [DONE]\n", []string{"|a", "|[DONE]"}, io.EOF},
		{"cut inside a line", "data: a\n\ndata: {\"cho", []string{"|a"}, io.ErrUnexpectedEOF},
		{"cut inside a comment", "data: a\n\n: OPENROUT", []string{"|a"}, io.ErrUnexpectedEOF},
		{"a final CR ends the line", "data: a\r", []string{"|a"}, io.EOF},
		{"colon in the value", "data: {\"t\":\"a:b\"}\n\n", []string{`|{"t":"a:b"}`}, io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, r := range []struct {
				name string
				r    io.Reader
			}{
				{"whole", strings.NewReader(tt.in)},
				{"byte by byte", iotest.OneByteReader(strings.NewReader(tt.in))},
			} {
				got, err := readEvents(r.r, 1<<20)
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("%s: events (-want +got):\n%s", r.name, diff)
				}
				if err != tt.wantErr {
					t.Errorf("%s: error = %v, want %v", r.name, err, tt.wantErr)
				}
			}
		})
	}
}

func TestSSEReaderLongLines(t *testing.T) {
	big := strings.Repeat("x", 5<<20) // 5 MiB: far past bufio.Scanner's 64 KiB
	in := "data: " + big + "\n\n" + ": " + strings.Repeat("c", 9<<20) + "\n" + "data: end\n\n"
	got, err := readEvents(strings.NewReader(in), 8<<20)
	if err != io.EOF {
		t.Fatalf("error = %v, want EOF", err)
	}
	if len(got) != 2 || got[0] != "|"+big || got[1] != "|end" {
		t.Errorf("got %d events (first %d bytes), want the 5 MiB event and \"end\"", len(got), len(got[0]))
	}
}

func TestSSEReaderLimits(t *testing.T) {
	tests := []struct{ name, in string }{
		{"one long line", "data: " + strings.Repeat("x", 2000) + "\n\n"},
		{"an event of many lines", strings.Repeat("data: "+strings.Repeat("x", 100)+"\n", 30) + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readEvents(strings.NewReader(tt.in), 1000)
			if !errors.Is(err, ErrTooLarge) {
				t.Errorf("error = %v, want ErrTooLarge", err)
			}
		})
	}
}

func TestSSEReaderReadError(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom))
	got, err := readEvents(r, 1<<20)
	if diff := cmp.Diff([]string{"|a"}, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if err != boom {
		t.Errorf("error = %v, want %v", err, boom)
	}
}

func BenchmarkSSEReader(b *testing.B) {
	chunk := `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"token "},"finish_reason":null}]}` + "\n\n"
	in := strings.Repeat(chunk, 1000)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := readEvents(strings.NewReader(in), 8<<20); err != io.EOF {
			b.Fatal(err)
		}
	}
}
