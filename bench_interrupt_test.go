package duelogic

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/duelogic/duelogic/internal/sleep"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
)

// cleanEval calls for no interjection, so only responses and checks vary.
const cleanEval = `{"adherenceScore": 90, "steelManning": {"attempted": true, "quality": "strong"}, "selfCritique": {"attempted": true, "quality": "strong"}, "frameworkConsistency": {"consistent": true}, "intellectualHonesty": {"score": "high"}, "requiresInterjection": false}`

// benchSpeech is a response of twelve sentences, about 1,100 characters.
var benchSpeech = strings.Repeat("The argument rests on what each policy does to the people it reaches. ", 12)

// cannedClient answers at once: responses with benchSpeech, evaluations
// clean, interrupt checks never interrupting; it counts the checks.
type cannedClient struct{ checks atomic.Int64 }

func (c *cannedClient) Complete(_ context.Context, req llm.Request) (llm.Response, error) {
	content := "A short turn. It ends here."
	switch req.Purpose {
	case PurposeResponse:
		content = benchSpeech
	case PurposeEvaluation:
		content = cleanEval
	case PurposeInterruptCheck:
		c.checks.Add(1)
		content = noInterrupt
	}
	return llm.Response{Content: content, Usage: llm.Usage{PromptTokens: 100, CompletionTokens: 20}}, nil
}

// BenchmarkMidStreamChecks measures what the interrupt checks made while
// responses stream add to a debate's wall time, with a client of fixed
// latency (every call waits latency before its first sentence, and a stream
// per sentence after it): the same debate with interruptions off and on
// (checks that never cut), run back to back each iteration. It reports the
// added wall time per response and in all, and the checks per response.
func BenchmarkMidStreamChecks(b *testing.B) {
	const latency = 20 * time.Millisecond
	for _, tc := range []struct {
		name        string
		perSentence time.Duration
		minChars    int
		maxChecks   int
	}{
		{"defaults/sentence=latency", latency, 0, 0},
		{"defaults/sentence=latency÷4", latency / 4, 0, 0},
		{"3checks/sentence=latency", latency, 300, 3},
		{"3checks/sentence=latency÷4", latency / 4, 300, 3},
	} {
		b.Run(tc.name, func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Flow.MaxExchanges = 3
			cfg.Interruptions.CheckMinChars, cfg.Interruptions.MaxChecksPerTurn = tc.minChars, tc.maxChecks
			off := cfg
			off.Interruptions.Enabled = false
			run := func(cfg Config, cc *cannedClient) (time.Duration, int) {
				c := &llmtest.Paced{Client: cc, Latency: latency, PerSentence: tc.perSentence}
				o := mustNew(b, cfg, c, WithStore(store.NewMemory()))
				start := time.Now()
				res, err := o.Run(context.Background(), prop)
				if err != nil {
					b.Fatal(err)
				}
				return time.Since(start), res.Detail.Metrics.Responses
			}
			var onWall, offWall time.Duration
			var checks, responses int64
			for b.Loop() {
				w, _ := run(off, &cannedClient{})
				offWall += w
				cc := &cannedClient{}
				w, n := run(cfg, cc)
				onWall += w
				checks += cc.checks.Load()
				responses += int64(n)
			}
			added := onWall - offWall
			b.ReportMetric(float64(added.Microseconds())/1000/float64(responses), "added-ms/response")
			b.ReportMetric(float64(onWall)/float64(offWall), "wall-on/off")
			b.ReportMetric(float64(offWall.Milliseconds())/float64(b.N), "ms/debate-off")
			b.ReportMetric(float64(checks)/float64(responses), "checks/response")
		})
	}
}

// heldClock answers like cannedClient, paced: a stream delivers a sentence
// every perSentence after latency, an interrupt check comes after check,
// any other call after latency. It notes when each delta of each stream
// is delivered.
type heldClock struct {
	canned                      cannedClient
	latency, perSentence, check time.Duration

	mu      sync.Mutex
	streams []heldStream
}

// heldStream is one stream: its purpose and, per delta delivered, the
// length of the text delivered so far and when.
type heldStream struct {
	purpose string
	ends    []int
	at      []time.Time
}

func (c *heldClock) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	resp, err := c.canned.Complete(ctx, req)
	wait := c.latency
	if req.Purpose == PurposeInterruptCheck {
		wait = c.check
	}
	if err == nil {
		err = sleep.For(ctx, wait)
	}
	return resp, err
}

func (c *heldClock) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	resp, _ := c.canned.Complete(ctx, req)
	c.mu.Lock()
	i := len(c.streams)
	c.streams = append(c.streams, heldStream{purpose: req.Purpose})
	c.mu.Unlock()
	n := 0
	for j, s := range llmtest.Sentences(resp.Content) {
		wait := c.perSentence
		if j == 0 {
			wait = c.latency
		}
		if err := sleep.For(ctx, wait); err != nil {
			return llm.Response{}, err
		}
		n += len(s)
		c.mu.Lock()
		c.streams[i].ends = append(c.streams[i].ends, n)
		c.streams[i].at = append(c.streams[i].at, time.Now())
		c.mu.Unlock()
		if err := onDelta(s); err != nil {
			return llm.Response{}, err
		}
	}
	return resp, nil
}

// shownLog is a sink that notes, per utterance, how much of its text the
// tokens had shown and when.
type shownLog struct {
	mu     sync.Mutex
	shown  int
	groups []heldStream // per utterance, in order: the token events
	cur    heldStream
}

func (l *shownLog) Emit(_ context.Context, e Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch e.Type {
	case EventToken:
		l.shown += len(e.Delta)
		l.cur.ends = append(l.cur.ends, l.shown)
		l.cur.at = append(l.cur.at, time.Now())
	case EventUtterance:
		l.groups = append(l.groups, l.cur)
		l.cur, l.shown = heldStream{}, 0
	}
}

// BenchmarkHeldTokens measures what holding the tokens past a pending
// interrupt check's sentence end (so that the sink shows what is stored)
// costs the live display: with the default checks (one, once 500
// characters are said) that never cut, a client that streams a sentence
// every perSentence and answers a check in check, it reports per exchange
// response the longest time a delivered token waited before the sink got
// it (held-ms/response, the mean over responses; 0 when the check decides
// before the sentence after its checkpoint ends), and the 99th percentile
// of that wait over every token of the responses (p99-wait-ms).
func BenchmarkHeldTokens(b *testing.B) {
	for _, tc := range []struct {
		name               string
		perSentence, check time.Duration
	}{
		{"check=sentence/2", 20 * time.Millisecond, 10 * time.Millisecond},
		{"check=sentence", 20 * time.Millisecond, 20 * time.Millisecond},
		{"check=2×sentence", 20 * time.Millisecond, 40 * time.Millisecond},
		{"check=4×sentence", 10 * time.Millisecond, 40 * time.Millisecond},
	} {
		b.Run(tc.name, func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Flow.MaxExchanges, cfg.Flow.TargetDurationMinutes = 3, 0
			cfg.Mandates.ArbiterCanInterject = false
			var held, waits []time.Duration
			for b.Loop() {
				c := &heldClock{latency: 5 * time.Millisecond, perSentence: tc.perSentence, check: tc.check}
				sink := &shownLog{}
				if _, err := mustNew(b, cfg, c, WithStore(store.NewMemory()), WithSink(sink)).Run(context.Background(), prop); err != nil {
					b.Fatal(err)
				}
				longest, all := tokenWaits(b, c.streams, sink.groups, PurposeResponse)
				held, waits = append(held, longest...), append(waits, all...)
			}
			var sum time.Duration
			for _, h := range held {
				sum += h
			}
			slices.Sort(waits)
			b.ReportMetric(float64(sum.Microseconds())/1000/float64(len(held)), "held-ms/response")
			b.ReportMetric(float64(waits[len(waits)*99/100].Microseconds())/1000, "p99-wait-ms")
		})
	}
}

// tokenWaits pairs the deltas each stream delivered with the token events
// that showed them (the utterance events split the tokens by stream, in
// order) and returns, for the streams of purpose ("": every stream), the
// longest time a delta waited to be shown in each, and every delta's wait.
// A delta never shown (past a cut) has no wait.
func tokenWaits(tb testing.TB, streams, shown []heldStream, purpose string) (longest, waits []time.Duration) {
	tb.Helper()
	if len(shown) != len(streams) {
		tb.Fatalf("%d utterances shown for %d streams", len(shown), len(streams))
	}
	for i, st := range streams {
		if purpose != "" && st.purpose != purpose {
			continue
		}
		g := shown[i]
		most, j := time.Duration(0), 0
		for k, end := range st.ends {
			for j < len(g.ends) && g.ends[j] < end {
				j++
			}
			if j == len(g.ends) {
				break // cut: the rest was not shown
			}
			w := g.at[j].Sub(st.at[k])
			waits = append(waits, w)
			most = max(most, w)
		}
		longest = append(longest, most)
	}
	return longest, waits
}
