package duelogic

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/llm"
)

// interruptByNext has the chair after the speaker (in chair order, the
// last chair's next being the first) cut into every response.
func interruptByNext(cfg Config) func(llm.Request) (string, error) {
	return func(r llm.Request) (string, error) {
		for i, ch := range cfg.Chairs {
			if strings.Contains(r.Messages[len(r.Messages)-1].Content, "Current speaker: "+ch.DisplayName()+" (") {
				return interruptBy(cfg.Chairs[(i+1)%len(cfg.Chairs)].Position, 0.95)(r)
			}
		}
		return noInterrupt, nil
	}
}

// TestEveryChairSpeaksEveryExchange: seed 000's executeExchange plays
// every chair in every exchange —
//
//	while (exchangeCount < this.config.flow.maxExchanges && this.isRunning) {
//	  for (const chair of this.config.chairs) { ... generateWithInterruptEvaluation(chair) ...
//	    if (wasInterrupted && interruptedBy) { await this.executeInterruption(interruptedBy, chair); }
//
// — so an interruption is an utterance added after the response it cuts
// into, not a turn taken from the interrupter: in an 8-exchange debate
// where every response is interrupted, every chair gives exactly
// MaxExchanges responses, one in each exchange, in chair order, and the
// interrupter's own response (right after its interruption when it is
// next) is asked to go on from it. With a client that streams (cut
// mid-response) and with one that does not (marked after the response).
func TestEveryChairSpeaksEveryExchange(t *testing.T) {
	for _, stream := range []bool{false, true} {
		name := "whole"
		if stream {
			name = "streamed"
		}
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cfg, _ := ConfigForPreset("three_way_ethics")
				cfg.Flow.MaxExchanges, cfg.Flow.TargetDurationMinutes = 8, 0 // no pacing: every exchange is played
				cfg.Interruptions.CooldownSeconds = 0
				var client llm.Client
				var tc *testClient
				if stream {
					lc := newLiveClient(interruptByNext(cfg))
					client, tc = lc, lc.tc
				} else {
					tc = newTestClient().on(PurposeInterruptCheck, interruptByNext(cfg))
					client = tc
				}
				res, err := mustNew(t, cfg, client).Run(context.Background(), prop)
				if err != nil {
					t.Fatal(err)
				}
				var got, want [][]string
				for x := 1; x <= cfg.Flow.MaxExchanges; x++ {
					var order []string
					for _, ch := range cfg.Chairs {
						order = append(order, ch.Position)
					}
					want = append(want, order)
					got = append(got, nil)
				}
				for _, u := range res.Transcript {
					if u.Kind == KindResponse && u.Segment == SegmentExchange {
						got[u.Exchange-1] = append(got[u.Exchange-1], u.Speaker)
					}
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("the responses of each exchange (-want +got):\n%s", diff)
				}
				m := res.Detail.Metrics
				if m.Interruptions < 2*cfg.Flow.MaxExchanges {
					t.Errorf("%d interruptions: the test wants interruptions in every exchange", m.Interruptions)
				}
				for _, ch := range cfg.Chairs {
					if n := m.ByChair[ch.Position].Responses; n != cfg.Flow.MaxExchanges {
						t.Errorf("%s gave %d responses, want %d", ch.Position, n, cfg.Flow.MaxExchanges)
					}
				}
				if m.Responses != len(cfg.Chairs)*cfg.Flow.MaxExchanges {
					t.Errorf("%d responses, want %d", m.Responses, len(cfg.Chairs)*cfg.Flow.MaxExchanges)
				}
				goesOn := 0
				for _, r := range tc.requests() {
					if r.Purpose == PurposeResponse && strings.Contains(r.Messages[1].Content, "you have just cut in on ") {
						goesOn++
					}
				}
				if goesOn == 0 {
					t.Error("no interrupter's response is asked to go on from its interruption")
				}
			})
		})
	}
}

// TestShortResponsesAreChecked: the seed evaluates an interrupt for every
// exchange response (generateWithInterruptEvaluation). A response that
// streams but ends before its first checkpoint (CheckMinChars) is checked
// when it ends, as the response of a client that cannot stream is: the
// speaker is then marked, not cut, and the interrupter answers. Every
// response gets exactly one check.
func TestShortResponsesAreChecked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := shortConfig()
		cfg.Mandates.ArbiterCanInterject = false
		c := newLiveClient(func(r llm.Request) (string, error) {
			if strings.Contains(r.Messages[len(r.Messages)-1].Content, "- chair_2:") {
				return interruptBy("chair_2", 0.9)(r)
			}
			return noInterrupt, nil
		})
		short := "That is a short answer. It says little. It ends here."
		c.tc.on(PurposeResponse, always(short))
		res, err := mustNew(t, cfg, c).Run(context.Background(), prop)
		if err != nil {
			t.Fatal(err)
		}
		if n := len([]rune(short)); n >= DefaultCheckMinChars {
			t.Fatalf("the short response has %d runes", n)
		}
		marked := 0
		for i, u := range res.Transcript {
			if u.Kind != KindResponse || u.Segment != SegmentExchange {
				continue
			}
			if u.Content != short || u.Cut {
				t.Errorf("%s's response %q (cut %v), want it whole", u.Speaker, u.Content, u.Cut)
			}
			if u.Speaker != "chair_1" {
				continue
			}
			if !u.Interrupted || u.InterruptedBy != "chair_2" {
				t.Errorf("chair_1's short response of exchange %d is not marked as interrupted by chair_2: %+v", u.Exchange, u)
				continue
			}
			marked++
			if next := res.Transcript[i+1]; next.Kind != KindInterruption || next.Speaker != "chair_2" || next.ReplyTo != u.Seq {
				t.Errorf("after the marked response: %+v, want chair_2's interruption", next)
			}
		}
		if marked != cfg.Flow.MaxExchanges {
			t.Errorf("%d of chair_1's short responses interrupted, want %d", marked, cfg.Flow.MaxExchanges)
		}
		if n := c.tc.count(PurposeInterruptCheck); n != res.Detail.Metrics.Responses {
			t.Errorf("%d interrupt checks for %d responses, want one each", n, res.Detail.Metrics.Responses)
		}
		for _, s := range c.Streams() {
			if s.Request.Purpose == PurposeResponse && s.Cancelled {
				t.Error("a short response's stream was cancelled")
			}
		}
	})
}
