package llmtest

import (
	"context"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/duelogic/duelogic/internal/sleep"
	"github.com/duelogic/duelogic/llm"
)

// Paced is an [llm.Client] and [llm.Streamer] that answers as Client does
// and takes time as a model does: Stream waits Latency before the first
// sentence of the reply and PerSentence before each next one, delivering
// one sentence (with the white space after it) per delta; Complete returns
// after as long as streaming the whole reply would take. Its waits run on
// the time package's clock, so inside a testing/synctest bubble they take
// no real time and the order of events is exact.
//
// Paced records each Stream call ([Paced.Streams]): what it delivered and
// whether its context was done before the reply was delivered whole, so a
// test can see that a stream was cut. It is safe for concurrent use; set
// its fields before the first call.
type Paced struct {
	// Client answers every request; nil: [New]'s Fake.
	Client llm.Client
	// Latency is the time to the first sentence.
	Latency time.Duration
	// PerSentence is the time each sentence after the first takes.
	PerSentence time.Duration

	once    sync.Once
	mu      sync.Mutex
	streams []StreamLog
}

// StreamLog is what one [Paced.Stream] call did.
type StreamLog struct {
	Request llm.Request
	// Delivered is the text given to onDelta.
	Delivered string
	// Cancelled reports that the call's context was done before the whole
	// reply was delivered.
	Cancelled bool
}

var (
	_ llm.Client   = (*Paced)(nil)
	_ llm.Streamer = (*Paced)(nil)
)

func (p *Paced) client() llm.Client {
	p.once.Do(func() {
		if p.Client == nil {
			p.Client = New()
		}
	})
	return p.Client
}

// Complete answers req after Latency plus PerSentence for each sentence of
// the reply after the first.
func (p *Paced) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	resp, err := p.client().Complete(ctx, req)
	if err != nil {
		return resp, err
	}
	wait := p.Latency
	if n := len(Sentences(resp.Content)); n > 1 {
		wait += time.Duration(n-1) * p.PerSentence
	}
	if err := sleep.For(ctx, wait); err != nil {
		return llm.Response{}, err
	}
	return resp, nil
}

// Stream delivers the reply one sentence at a time; see [Paced].
func (p *Paced) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	p.mu.Lock()
	i := len(p.streams)
	p.streams = append(p.streams, StreamLog{Request: clone(req)})
	p.mu.Unlock()
	var b strings.Builder
	cancelled := false
	defer func() {
		p.mu.Lock()
		p.streams[i].Delivered, p.streams[i].Cancelled = b.String(), cancelled
		p.mu.Unlock()
	}()
	resp, err := p.client().Complete(ctx, req)
	if err != nil {
		return resp, err
	}
	for j, s := range Sentences(resp.Content) {
		wait := p.PerSentence
		if j == 0 {
			wait = p.Latency
		}
		if err := sleep.For(ctx, wait); err != nil {
			cancelled = true
			return llm.Response{}, err
		}
		if err := onDelta(s); err != nil {
			cancelled = ctx.Err() != nil
			return llm.Response{}, err
		}
		b.WriteString(s)
	}
	return resp, nil
}

// Streams returns what each Stream call did so far, in the order the calls
// began.
func (p *Paced) Streams() []StreamLog {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]StreamLog(nil), p.streams...)
}

// Sentences splits s into sentences, each with the white space after it,
// whose concatenation is s: a sentence ends with '.', '!', '?' or '…' (and
// any closing quotes or brackets) followed by white space.
func Sentences(s string) []string {
	var out []string
	start, i := 0, 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if !strings.ContainsRune(".!?…", r) {
			continue
		}
		j := skip(s, i, func(r rune) bool { return strings.ContainsRune(".!?…\"'”’»)]", r) })
		k := skip(s, j, unicode.IsSpace)
		i = k
		if k > j {
			out = append(out, s[start:k])
			start = k
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// skip returns the offset of the first rune of s from i on that is not in.
func skip(s string, i int, in func(rune) bool) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !in(r) {
			break
		}
		i += n
	}
	return i
}
