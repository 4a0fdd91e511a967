package duelogic

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/duelogic/duelogic/llm"
)

// noSelfCritique is an evaluation that finds the self-critique missing and
// asks for an interjection for it.
const noSelfCritique = `{"critiquesOpponent": true, "substantive": true, "adherenceScore": 60,
 "steelManning": {"attempted": true, "quality": "strong"}, "selfCritique": {"attempted": false, "quality": "absent"},
 "frameworkConsistency": {"consistent": true}, "intellectualHonesty": {"score": "high"},
 "requiresInterjection": true, "interjectionReason": "Self-critique absent: no weakness of its own framework acknowledged."}`

// TestCutResponseIsJudgedAsCut: a chair cut off by an interruption is
// judged on what it said, knowing it was cut. The evaluation is told the
// response was cut off, and by whom; a self-critique it could only have
// made in what it never said is no violation: the arbiter does not
// interject for it (at moderate or strict accountability, even when the
// evaluation asks it to), while an uncut response lacking one is called
// out. In the metrics a cut response counts toward steel-manning but is
// left out of the self-critique rate (CutResponses counts it).
func TestCutResponseIsJudgedAsCut(t *testing.T) {
	for _, level := range []AccountabilityLevel{Moderate, Strict} {
		t.Run(string(level), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cfg := shortConfig()
				cfg.Arbiter.AccountabilityLevel = level
				c := newLiveClient(func(r llm.Request) (string, error) {
					if strings.Contains(r.Messages[len(r.Messages)-1].Content, "- chair_2:") {
						return interruptBy("chair_2", 0.9)(r) // chair_2 cuts chair_1 off
					}
					return noInterrupt, nil
				})
				c.tc.on(PurposeEvaluation, always(noSelfCritique))
				res, err := mustNew(t, cfg, c).Run(context.Background(), prop)
				if err != nil {
					t.Fatal(err)
				}
				cut := 0
				for _, u := range res.Transcript {
					if u.Kind == KindResponse && u.Speaker == "chair_1" && u.Segment == SegmentExchange {
						if !u.Cut {
							t.Fatalf("chair_1's response is not cut: %+v", u)
						}
						cut++
					}
					if u.Kind == KindInterjection && u.Violation == ViolationMissingSelfCritique && u.Target == "chair_1" {
						t.Errorf("the arbiter calls out a missing self-critique in a cut response (exchange %d): %q", u.Exchange, u.Content)
					}
				}
				against := map[string]int{}
				for _, u := range res.Transcript {
					if u.Kind == KindInterjection {
						against[u.Target]++
					}
				}
				if against["chair_2"] != cfg.Flow.MaxExchanges {
					t.Errorf("%d interjections at chair_2, whose whole responses lack a self-critique; want %d", against["chair_2"], cfg.Flow.MaxExchanges)
				}
				told := 0
				note := fmt.Sprintf(CutNote, "Grok 3 (Virtue Ethics Chair)")
				for _, r := range c.tc.requests() {
					if r.Purpose != PurposeEvaluation {
						continue
					}
					user := r.Messages[len(r.Messages)-1].Content
					switch {
					case strings.Contains(user, note):
						told++
						if !strings.Contains(user, "—\n</response>") {
							t.Errorf("the evaluation told of a cut is not of a cut response:\n%s", user)
						}
					case strings.Contains(user, "cut off"):
						t.Errorf("an evaluation of a whole response speaks of a cut:\n%s", user)
					}
				}
				if told != cut {
					t.Errorf("%d evaluations told of the cut, want %d (one per cut response)", told, cut)
				}
				m := res.Detail.Metrics
				c1, c2 := m.ByChair["chair_1"], m.ByChair["chair_2"]
				if m.CutResponses != cut || c1.CutResponses != cut || c1.SubstantiveResponses != 0 || c1.CritiqueResponses != cut {
					t.Errorf("chair_1: %d cut, %d substantive, %d critique responses counted; want %d cut, none substantive, %d critique",
						c1.CutResponses, c1.SubstantiveResponses, c1.CritiqueResponses, cut, cut)
				}
				if c2.SubstantiveResponses != cfg.Flow.MaxExchanges || m.SubstantiveResponses != cfg.Flow.MaxExchanges || m.SelfCritiqueRate != 0 {
					t.Errorf("self-critique over %d substantive responses (chair_2: %d), rate %.2f; want chair_2's %d, rate 0",
						m.SubstantiveResponses, c2.SubstantiveResponses, m.SelfCritiqueRate, cfg.Flow.MaxExchanges)
				}
			})
		})
	}
}

// TestCutResponseOnTheStub: on the offline stub, whose chairs admit a
// weakness near the end of what they say, a chair cut off before its
// admission is not called out for a missing self-critique.
func TestCutResponseOnTheStub(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := shortConfig()
		cfg.Flow.MaxExchanges = 8
		c := newLiveClient(func(r llm.Request) (string, error) {
			if strings.Contains(r.Messages[len(r.Messages)-1].Content, "- chair_2:") {
				return interruptBy("chair_2", 0.9)(r)
			}
			return interruptBy("chair_1", 0.9)(r)
		})
		res, err := mustNew(t, cfg, c).Run(context.Background(), prop)
		if err != nil {
			t.Fatal(err)
		}
		cut := 0
		for _, u := range res.Transcript {
			if u.Cut {
				cut++
				if ev := u.Evaluation; ev == nil || ev.RequiresInterjection && strings.Contains(ev.InterjectionReason, "Self-critique") {
					t.Errorf("the cut response of %s in exchange %d is evaluated %+v", u.Speaker, u.Exchange, ev)
				}
			}
			if u.Kind == KindInterjection && u.Violation == ViolationMissingSelfCritique {
				for _, v := range res.Transcript {
					if v.Seq == u.ReplyTo && v.Cut {
						t.Errorf("an interjection calls out a missing self-critique in a cut response: %q", v.Content)
					}
				}
			}
		}
		if cut < cfg.Flow.MaxExchanges {
			t.Fatalf("%d cut responses: the test wants many", cut)
		}
	})
}
