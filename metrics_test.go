package duelogic

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// response is an exchange response of chair pos with an evaluation that
// steel-manned or not and self-critiqued or not (nil evaluation when eval
// is false).
func response(seq int64, pos string, eval, steel, self bool) Utterance {
	u := Utterance{Seq: seq, Speaker: pos, Segment: SegmentExchange, Kind: KindResponse, Content: "one two three"}
	if !eval {
		return u
	}
	check := func(ok bool) MandateCheck {
		if ok {
			return MandateCheck{Attempted: true, Quality: QualityAdequate}
		}
		return MandateCheck{Quality: QualityAbsent}
	}
	u.Evaluation = &ResponseEvaluation{AdherenceScore: 80, SteelManning: check(steel), SelfCritique: check(self),
		FrameworkConsistency: FrameworkConsistency{Consistent: true}}
	return u
}

// TestMetricsHaveTheSeedsDenominators: seed 000's success metrics are
//
//   - Steel-manning attempts in >80% of critique responses
//   - Self-critique present in >70% of substantive responses
//
// so the steel-manning rate counts only the responses that critique an
// opponent and the self-critique rate only the substantive ones, as the
// arbiter judged them; a rate with nothing to count is not measured and
// meets no target.
func TestMetricsHaveTheSeedsDenominators(t *testing.T) {
	cfg := DefaultConfig()
	critique := responseScope{CritiquesOpponent: true, Substantive: true}
	agreeing := responseScope{CritiquesOpponent: false, Substantive: true}
	cutEarly := responseScope{CritiquesOpponent: false, Substantive: false}
	tests := []struct {
		name       string
		transcript []Utterance
		scopes     map[int64]responseScope
		want       Metrics // the fields compared below
	}{
		{"only critiques count toward steel-manning",
			[]Utterance{
				response(1, "chair_1", true, true, true),
				response(2, "chair_2", true, true, true),
				response(3, "chair_1", true, true, true),
				response(4, "chair_2", true, true, true),
				response(5, "chair_1", true, false, true),  // agrees: owes no steel-man
				response(6, "chair_2", true, false, false), // cut early: owes neither
			},
			map[int64]responseScope{1: critique, 2: critique, 3: critique, 4: critique, 5: agreeing, 6: cutEarly},
			Metrics{Responses: 6, Evaluated: 6, CritiqueResponses: 4, SubstantiveResponses: 5,
				SteelManningRate: 1, SelfCritiqueRate: 1, MeetsSteelManning: true, MeetsSelfCritique: true}},
		{"over every evaluated response, 4 of 6 would miss the targets",
			[]Utterance{
				response(1, "chair_1", true, true, true), response(2, "chair_2", true, true, true),
				response(3, "chair_1", true, true, true), response(4, "chair_2", true, true, true),
				response(5, "chair_1", true, false, true), response(6, "chair_2", true, false, false),
			},
			nil, // the evaluations did not say: every response owes both
			Metrics{Responses: 6, Evaluated: 6, CritiqueResponses: 6, SubstantiveResponses: 6,
				SteelManningRate: 4.0 / 6, SelfCritiqueRate: 5.0 / 6, MeetsSelfCritique: true}},
		{"no critique: steel-manning not measured",
			[]Utterance{response(1, "chair_1", true, false, true), response(2, "chair_2", true, false, true)},
			map[int64]responseScope{1: agreeing, 2: agreeing},
			Metrics{Responses: 2, Evaluated: 2, SubstantiveResponses: 2, SelfCritiqueRate: 1, MeetsSelfCritique: true}},
		{"nothing evaluated: neither measured",
			[]Utterance{response(1, "chair_1", false, false, false), response(2, "chair_2", false, false, false)},
			nil,
			Metrics{Responses: 2}},
		{"unevaluated responses are in no denominator",
			[]Utterance{response(1, "chair_1", true, false, false), response(2, "chair_2", false, false, false)},
			map[int64]responseScope{1: critique},
			Metrics{Responses: 2, Evaluated: 1, CritiqueResponses: 1, SubstantiveResponses: 1}},
	}
	pick := func(m Metrics) Metrics {
		return Metrics{Responses: m.Responses, Evaluated: m.Evaluated, CritiqueResponses: m.CritiqueResponses,
			SubstantiveResponses: m.SubstantiveResponses, SteelManningRate: m.SteelManningRate, SelfCritiqueRate: m.SelfCritiqueRate,
			MeetsSteelManning: m.MeetsSteelManning, MeetsSelfCritique: m.MeetsSelfCritique}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := computeMetrics(cfg, tt.transcript, tt.scopes)
			if diff := cmp.Diff(tt.want, pick(m)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if m.SteelManningMeasured() != (tt.want.CritiqueResponses > 0) || m.SelfCritiqueMeasured() != (tt.want.SubstantiveResponses > 0) {
				t.Errorf("measured: steel-manning %v, self-critique %v", m.SteelManningMeasured(), m.SelfCritiqueMeasured())
			}
			crit, subst := 0, 0
			for _, c := range m.ByChair {
				crit += c.CritiqueResponses
				subst += c.SubstantiveResponses
			}
			if crit != m.CritiqueResponses || subst != m.SubstantiveResponses {
				t.Errorf("by chair: %d critiques, %d substantive; overall %d, %d", crit, subst, m.CritiqueResponses, m.SubstantiveResponses)
			}
		})
	}
}

func TestParseEvaluationScope(t *testing.T) {
	const rest = `"adherenceScore": 80, "steelManning": {"attempted": false, "quality": "absent"}`
	tests := []struct {
		reply string
		want  *responseScope
	}{
		{`{` + rest + `}`, nil},
		{`{"critiquesOpponent": false, "substantive": true, ` + rest + `}`, &responseScope{Substantive: true}},
		{`{"critiques_opponent": "no", "substantive": "yes", ` + rest + `}`, &responseScope{Substantive: true}},
		{`{"critiquesOpponent": true, ` + rest + `}`, &responseScope{CritiquesOpponent: true, Substantive: true}},
		{`{"substantive": false, ` + rest + `}`, &responseScope{CritiquesOpponent: true}},
		{`{"critiquesOpponent": ["?"], "substantive": false, ` + rest + `}`, &responseScope{CritiquesOpponent: true}},
	}
	for _, tt := range tests {
		r, err := parseEvaluationReply(tt.reply)
		if err != nil {
			t.Fatalf("%s: %v", tt.reply, err)
		}
		if diff := cmp.Diff(tt.want, r.scope); diff != "" {
			t.Errorf("%s: scope (-want +got):\n%s", tt.reply, diff)
		}
		if r.ev == nil || r.ev.AdherenceScore != 80 {
			t.Errorf("%s: evaluation %+v", tt.reply, r.ev)
		}
	}
	if _, err := parseEvaluationReply(`{"critiquesOpponent": true}`); err == nil {
		t.Error("a scope without an evaluation accepted")
	}
}

// TestScopeInADebate: the arbiter's judgment of what a response is reaches
// the metrics of a played debate, and of a debate resumed after a failure
// (rebuilt from the stored evaluations), and strict accountability does not
// call out a steel-man that was not owed ("Before critiquing any
// opponent's position, you MUST articulate the strongest version of their
// argument").
func TestScopeInADebate(t *testing.T) {
	noSteelAgreeing := `{"critiquesOpponent": false, "substantive": true, "adherenceScore": 85,
 "steelManning": {"attempted": false, "quality": "absent"}, "selfCritique": {"attempted": true, "quality": "strong"},
 "frameworkConsistency": {"consistent": true}, "intellectualHonesty": {"score": "high"}, "requiresInterjection": false}`
	noSteelCritique := strings.Replace(noSteelAgreeing, `"critiquesOpponent": false`, `"critiquesOpponent": true`, 1)
	client := func(failAt int) *testClient {
		var mu sync.Mutex
		responses := 0
		return newTestClient().on(PurposeInterruptCheck, always(noInterrupt)).
			on(PurposeEvaluation, func(req llm.Request) (string, error) {
				if strings.Contains(req.Messages[1].Content, "Chair: Claude Sonnet 4,") {
					return noSteelAgreeing, nil // chair_1 agrees
				}
				return noSteelCritique, nil // chair_2 critiques, without a steel-man
			}).
			on(PurposeResponse, func(req llm.Request) (string, error) {
				mu.Lock()
				defer mu.Unlock()
				if responses++; responses == failAt {
					return "", errors.New("503")
				}
				return "I see it the same way, mostly. " + strings.Repeat("More words follow here. ", 10), nil
			})
	}
	cfg := shortConfig()
	cfg.Arbiter.AccountabilityLevel = Strict
	d := prop
	d.ID = "scopes"
	res, err := mustNew(t, cfg, client(0)).Run(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	m := res.Detail.Metrics
	if m.Evaluated != 6 || m.CritiqueResponses != 3 || m.SubstantiveResponses != 6 || m.SteelManningRate != 0 || m.SelfCritiqueRate != 1 {
		t.Errorf("metrics %+v", m)
	}
	if m.ByChair["chair_1"].CritiqueResponses != 0 || m.ByChair["chair_2"].CritiqueResponses != 3 {
		t.Errorf("by chair %+v", m.ByChair)
	}
	for i, u := range res.Transcript {
		if u.Kind == KindInterjection && res.Transcript[i-1].Speaker != "chair_2" {
			t.Errorf("interjection after %s, whose response critiqued no one", res.Transcript[i-1].Speaker)
		}
	}
	if m.Interjections != 3 {
		t.Errorf("%d interjections, want 3 (chair_2's critiques without a steel-man)", m.Interjections)
	}

	mem := store.NewMemory()
	if _, err := mustNew(t, cfg, client(5), WithStore(mem)).Run(context.Background(), d); err == nil {
		t.Fatal("the failing response did not stop the debate")
	}
	again, err := mustNew(t, cfg, client(0), WithStore(mem)).Resume(context.Background(), "scopes")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m, again.Detail.Metrics); diff != "" {
		t.Errorf("resumed metrics (-run +resume):\n%s", diff)
	}
}
