package duelogic

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
)

var fencedResponse = regexp.MustCompile(`(?s)<response>\n(.*?)\n</response>`)

// liveClient streams the stub's answers a sentence every 10 ms (time of a
// synctest bubble), answers the interrupt checks with check in 5 ms, and
// keeps what each check saw.
type liveClient struct {
	*llmtest.Paced
	tc *testClient

	mu  sync.Mutex
	saw []string
}

func newLiveClient(check func(llm.Request) (string, error)) *liveClient {
	l := &liveClient{tc: newTestClient()}
	l.tc.on(PurposeInterruptCheck, func(r llm.Request) (string, error) {
		if m := fencedResponse.FindStringSubmatch(r.Messages[len(r.Messages)-1].Content); m != nil {
			l.mu.Lock()
			l.saw = append(l.saw, m[1])
			l.mu.Unlock()
		}
		return check(r)
	})
	// A check (one sentence) takes 5 ms, half a sentence of a stream, so
	// its verdict never comes at the instant a sentence does.
	l.Paced = &llmtest.Paced{Client: l.tc, Latency: 5 * time.Millisecond, PerSentence: 10 * time.Millisecond}
	return l
}

// full is what the stub said, whole, in the stream that said u.
func (l *liveClient) full(t *testing.T, u Utterance) string {
	t.Helper()
	for _, s := range l.Streams() {
		if s.Request.Purpose == PurposeResponse {
			resp, err := llm.NewStub(7).Complete(context.Background(), s.Request)
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(resp.Content, strings.TrimSuffix(u.Content, "—")) {
				return resp.Content
			}
		}
	}
	t.Fatalf("no stream said %q", u.Content)
	return ""
}

// TestLiveInterruptionCutsTheStream: with a streaming client, chair_2 cuts
// chair_1 off mid-response: chair_1's stream is cancelled at a sentence
// boundary after the text the check saw, the utterance is stored cut, and
// chair_2 answers the trigger with its opener, then gives its own response
// of the round.
func TestLiveInterruptionCutsTheStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := shortConfig()
		cfg.Mandates.ArbiterCanInterject = false
		c := newLiveClient(func(r llm.Request) (string, error) {
			if strings.Contains(r.Messages[len(r.Messages)-1].Content, "- chair_2:") {
				return interruptBy("chair_2", 0.9)(r)
			}
			return noInterrupt, nil
		})
		sink := &eventLog{}
		res, err := mustNew(t, cfg, c, WithSink(sink)).Run(context.Background(), prop)
		if err != nil {
			t.Fatal(err)
		}
		cuts := 0
		for i, u := range res.Transcript {
			if u.Kind != KindResponse || u.Speaker != "chair_1" || u.Segment != SegmentExchange {
				continue
			}
			cuts++
			if !u.Cut || !u.Interrupted || u.InterruptedBy != "chair_2" || !strings.HasSuffix(u.Content, "—") {
				t.Fatalf("chair_1's response is not cut by chair_2: %+v", u)
			}
			full := c.full(t, u)
			said := strings.TrimSuffix(u.Content, "—")
			if len(said) >= len(strings.TrimSpace(full)) || !strings.HasPrefix(full, said) {
				t.Errorf("cut %q is not a proper prefix of %q", said, full)
			}
			if rest := full[len(said):]; !regexp.MustCompile(`^[.!?]?["'”’)\]]*\s+\P{Ll}`).MatchString(rest) {
				t.Errorf("the cut does not land on a sentence boundary: %q|%.30q", said[max(0, len(said)-30):], rest)
			}
			next := res.Transcript[i+1]
			if next.Kind != KindInterruption || next.Speaker != "chair_2" || next.ReplyTo != u.Seq || next.Reason != string(ReasonPivotalPoint) {
				t.Errorf("after the cut: %+v, want chair_2's interruption", next)
			}
			if then := res.Transcript[i+2]; then.Kind != KindResponse || then.Speaker != "chair_2" || then.Exchange != u.Exchange {
				t.Errorf("after the interruption: %+v, want chair_2's response of exchange %d", then, u.Exchange)
			}
		}
		if cuts != 3 {
			t.Errorf("%d cut responses of chair_1, want 3", cuts)
		}
		// chair_1's stream was cancelled; the checks saw prefixes ending
		// a sentence, one per response.
		cancelled := 0
		for _, s := range c.Streams() {
			if s.Cancelled {
				cancelled++
			}
		}
		if cancelled != 3 {
			t.Errorf("%d streams cancelled, want chair_1's 3", cancelled)
		}
		if n := c.tc.count(PurposeInterruptCheck); n != res.Metrics.Responses {
			t.Errorf("%d checks for %d responses, want one each", n, res.Metrics.Responses)
		}
		for _, s := range c.saw {
			if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "?") && !strings.HasSuffix(s, "!") {
				t.Errorf("a check saw %q, which ends no sentence", s[max(0, len(s)-40):])
			}
			if n := len([]rune(s)); n < DefaultCheckMinChars {
				t.Errorf("a check saw %d runes, before the minimum", n)
			}
		}
		for _, r := range c.tc.requests() {
			if r.Purpose == PurposeInterruption && !strings.Contains(r.Messages[1].Content, "the crux") {
				t.Errorf("the interrupter does not answer the trigger:\n%s", r.Messages[1].Content)
			}
		}
		n := 0
		for _, e := range sink.events {
			if e.Type == EventInterruption {
				n++
				if e.Utterance == nil || !e.Utterance.Cut {
					t.Errorf("interruption event without the cut utterance: %+v", e)
				}
			}
		}
		if n != 3 {
			t.Errorf("%d interruption events", n)
		}
	})
}

// TestLiveInterruptionRules: the threshold, the cooldown and who may
// interrupt hold for the checks made mid-stream; the arbiter cuts in with an
// interjection on a violation.
func TestLiveInterruptionRules(t *testing.T) {
	arbiterCut := `{"shouldInterrupt": true, "interruptingChairPosition": "arbiter", "reason": "straw_man_detected", "triggerContent": "nobody holds that", "urgency": 0.95}`
	for _, tt := range []struct {
		name  string
		edit  func(*Config)
		reply string
		cuts  int
		by    string
	}{
		{"below threshold", nil, `{"shouldInterrupt": true, "interruptingChairPosition": "chair_2", "reason": "pivotal_point", "triggerContent": "x", "urgency": 0.65}`, 0, ""},
		{"cooldown", func(c *Config) { c.Interruptions.CooldownSeconds = 60 }, "", 1, "chair_2"},
		{"chair interruptions off", func(c *Config) { c.Interruptions.AllowChairInterruptions = false }, "", 0, ""},
		{"arbiter", nil, arbiterCut, 3, SpeakerArbiter},
		{"arbiter interruptions off", func(c *Config) { c.Interruptions.AllowArbiterInterruptions = false }, arbiterCut, 0, ""},
		{"arbiter on no violation", nil, `{"shouldInterrupt": true, "interruptingChairPosition": "arbiter", "reason": "strong_agreement", "triggerContent": "x", "urgency": 0.95}`, 0, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cfg := shortConfig()
				cfg.Arbiter.AccountabilityLevel = Strict
				if tt.edit != nil {
					tt.edit(&cfg)
				}
				c := newLiveClient(func(r llm.Request) (string, error) {
					if !strings.Contains(r.Messages[len(r.Messages)-1].Content, "Current speaker: Claude Sonnet 4") {
						return noInterrupt, nil
					}
					if tt.reply != "" {
						return tt.reply, nil
					}
					return interruptBy("chair_2", 0.9)(r)
				})
				c.tc.on(PurposeEvaluation, always(weakEval))
				res, err := mustNew(t, cfg, c).Run(context.Background(), prop)
				if err != nil {
					t.Fatal(err)
				}
				cuts := 0
				for i, u := range res.Transcript {
					if !u.Cut {
						continue
					}
					cuts++
					if u.InterruptedBy != tt.by {
						t.Errorf("cut by %q, want %q", u.InterruptedBy, tt.by)
					}
					next := res.Transcript[i+1]
					if tt.by == SpeakerArbiter {
						if next.Kind != KindInterjection || next.Violation != ViolationStrawManning || next.Target != "chair_1" || next.ReplyTo != u.Seq {
							t.Errorf("after the arbiter's cut: %+v", next)
						}
						if after := res.Transcript[i+2]; after.Speaker == SpeakerArbiter {
							t.Errorf("the arbiter interjects twice on one response: %+v", after)
						}
					}
				}
				if cuts != tt.cuts || len(res.Detail.Interruptions) != tt.cuts {
					t.Errorf("%d cuts, %d interruptions, want %d", cuts, len(res.Detail.Interruptions), tt.cuts)
				}
			})
		})
	}
}
