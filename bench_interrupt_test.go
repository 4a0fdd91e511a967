package duelogic

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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
