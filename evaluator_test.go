package duelogic

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/llm/jsonschema"
)

func TestParseEvaluation(t *testing.T) {
	full := &ResponseEvaluation{
		AdherenceScore:       85,
		SteelManning:         MandateCheck{Attempted: true, Quality: QualityStrong, Notes: "fair"},
		SelfCritique:         MandateCheck{Attempted: true, Quality: QualityAdequate},
		FrameworkConsistency: FrameworkConsistency{Consistent: true},
		IntellectualHonesty:  IntellectualHonesty{Score: HonestyHigh},
	}
	absent := MandateCheck{Quality: QualityAbsent}
	const body = `{"adherenceScore": 85, "steelManning": {"attempted": true, "quality": "strong", "notes": "fair"},
 "selfCritique": {"attempted": true, "quality": "adequate"}, "frameworkConsistency": {"consistent": true},
 "intellectualHonesty": {"score": "high"}, "requiresInterjection": false}`
	tests := []struct {
		name  string
		reply string
		want  *ResponseEvaluation
	}{
		{"plain", body, full},
		{"code fence", "```json\n" + body + "\n```", full},
		{"prose around", "Here is my evaluation:\n" + body + "\nHope that helps {not json}.", full},
		{"trailing commas", `{"adherenceScore": 85, "steelManning": {"attempted": true, "quality": "strong", "notes": "fair",},
 "selfCritique": {"attempted": true, "quality": "adequate",}, "frameworkConsistency": {"consistent": true, "violations": [],},
 "intellectualHonesty": {"score": "high",}, "requiresInterjection": false,}`, full},
		{"clamped and coerced", `{"adherence_score": "140", "steel_manning": {"quality": "ABSENT"}, "selfCritique": true,
 "frameworkConsistency": {"consistent": "no", "violations": "argued from duty"}, "intellectualHonesty": {"score": "LOW", "issues": ["dodged"]},
 "requiresInterjection": "yes", "interjectionReason": "dodged the question"}`,
			&ResponseEvaluation{
				AdherenceScore:       100,
				SteelManning:         MandateCheck{Quality: QualityAbsent},
				SelfCritique:         MandateCheck{Attempted: true, Quality: QualityAdequate},
				FrameworkConsistency: FrameworkConsistency{Violations: []string{"argued from duty"}},
				IntellectualHonesty:  IntellectualHonesty{Score: HonestyLow, Issues: []string{"dodged"}},
				RequiresInterjection: true, InterjectionReason: "dodged the question",
			}},
		{"negative score", `{"adherenceScore": -3}`, &ResponseEvaluation{SteelManning: absent, SelfCritique: absent, FrameworkConsistency: FrameworkConsistency{Consistent: true}, IntellectualHonesty: IntellectualHonesty{Score: HonestyHigh}}},
		{"unknown quality keeps attempted", `{"steelManning": {"attempted": true, "quality": "superb"}}`,
			&ResponseEvaluation{SteelManning: MandateCheck{Attempted: true, Quality: QualityAdequate}, SelfCritique: absent, FrameworkConsistency: FrameworkConsistency{Consistent: true}, IntellectualHonesty: IntellectualHonesty{Score: HonestyHigh}}},
		{"second object is the evaluation", `{"note": "x"} {"adherenceScore": 50}`, nil},
		{"no json", "I refuse to evaluate this.", nil},
		{"empty object", "{}", nil},
		{"unbalanced", `{"adherenceScore": 5`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseEvaluation(tt.reply)
			if tt.want == nil {
				if err == nil {
					t.Fatalf("ParseEvaluation = %+v, want error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// The first object parses but holds no evaluation field, so the reply
	// is rejected as a whole rather than guessed at.
	if _, err := ParseEvaluation(`{"note": "x"} {"adherenceScore": 50}`); err == nil {
		t.Error("a reply whose first object is not an evaluation was accepted")
	}
}

func FuzzParseEvaluation(f *testing.F) {
	for _, s := range []string{`{"adherenceScore": 85}`, "```json\n{\"steelManning\":{\"quality\":\"weak\",}}\n```",
		`{"a":"}"} {"requiresInterjection":true}`, `{{{`, `{"adherenceScore": 1e400}`, `"\u0000{"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		ev, err := ParseEvaluation(reply)
		if err != nil {
			if ev != nil {
				t.Fatal("non-nil evaluation with an error")
			}
			return
		}
		if ev.AdherenceScore < 0 || ev.AdherenceScore > 100 {
			t.Fatalf("adherence %d out of range", ev.AdherenceScore)
		}
		for _, q := range []Quality{ev.SteelManning.Quality, ev.SelfCritique.Quality} {
			switch q {
			case QualityStrong, QualityAdequate, QualityWeak, QualityAbsent:
			default:
				t.Fatalf("quality %q", q)
			}
		}
		switch ev.IntellectualHonesty.Score {
		case HonestyHigh, HonestyMedium, HonestyLow:
		default:
			t.Fatalf("honesty %q", ev.IntellectualHonesty.Score)
		}
	})
}

func FuzzParseInterruptDecision(f *testing.F) {
	for _, s := range []string{`{"shouldInterrupt": true, "urgency": 0.8, "reason": "pivotal_point"}`,
		`{"shouldInterrupt": "yes", "urgency": "7"}`, "```{\"shouldInterrupt\":false,}```", `{`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		d, err := ParseInterruptDecision(reply)
		if err != nil {
			return
		}
		if d.Urgency < 0 || d.Urgency > 1 {
			t.Fatalf("urgency %v out of range", d.Urgency)
		}
	})
}

func TestInterjectionFor(t *testing.T) {
	clean := ResponseEvaluation{
		AdherenceScore:       90,
		SteelManning:         MandateCheck{Attempted: true, Quality: QualityStrong},
		SelfCritique:         MandateCheck{Attempted: true, Quality: QualityAdequate},
		FrameworkConsistency: FrameworkConsistency{Consistent: true}, IntellectualHonesty: IntellectualHonesty{Score: HonestyHigh},
	}
	with := func(f func(*ResponseEvaluation)) *ResponseEvaluation { e := clean; f(&e); return &e }
	weakSteel := with(func(e *ResponseEvaluation) { e.SteelManning.Quality = QualityWeak })
	noSelf := with(func(e *ResponseEvaluation) { e.SelfCritique = MandateCheck{Quality: QualityAbsent} })
	incons := with(func(e *ResponseEvaluation) { e.FrameworkConsistency.Consistent = false })
	lowHonesty := with(func(e *ResponseEvaluation) { e.IntellectualHonesty.Score = HonestyLow })
	flagged := with(func(e *ResponseEvaluation) {
		e.RequiresInterjection = true
		e.InterjectionReason = "a straw man of care ethics"
	})
	flaggedSelf := with(func(e *ResponseEvaluation) {
		e.RequiresInterjection = true
		e.SelfCritique.Quality = QualityAbsent
	})
	cfgWith := func(level AccountabilityLevel, f func(*Config)) Config {
		c := DefaultConfig()
		c.Arbiter.AccountabilityLevel = level
		if f != nil {
			f(&c)
		}
		return c
	}
	tests := []struct {
		name string
		cfg  Config
		ev   *ResponseEvaluation
		want ViolationType
	}{
		{"nil evaluation", cfgWith(Strict, nil), nil, ""},
		{"relaxed never", cfgWith(Relaxed, nil), flagged, ""},
		{"moderate clean", cfgWith(Moderate, nil), &clean, ""},
		{"moderate weak steel unflagged", cfgWith(Moderate, nil), weakSteel, ""},
		{"moderate flagged by reason", cfgWith(Moderate, nil), flagged, ViolationStrawManning},
		{"moderate flagged self-critique", cfgWith(Moderate, nil), flaggedSelf, ViolationMissingSelfCritique},
		{"strict weak steel", cfgWith(Strict, nil), weakSteel, ViolationStrawManning},
		{"strict no self-critique", cfgWith(Strict, nil), noSelf, ViolationMissingSelfCritique},
		{"strict inconsistency", cfgWith(Strict, nil), incons, ViolationFrameworkInconsistency},
		{"strict low honesty", cfgWith(Strict, nil), lowHonesty, ViolationRhetoricalEvasion},
		{"strict clean", cfgWith(Strict, nil), &clean, ""},
		{"strict weak steel not mandated", cfgWith(Strict, func(c *Config) { c.Mandates.RequireSteelManning = false }), weakSteel, ""},
		{"cannot interject", cfgWith(Strict, func(c *Config) { c.Mandates.ArbiterCanInterject = false }), flagged, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := InterjectionFor(tt.cfg, tt.ev)
			if got != tt.want || ok != (tt.want != "") {
				t.Errorf("InterjectionFor = %q, %v; want %q", got, ok, tt.want)
			}
		})
	}
}

func TestInterruptCandidate(t *testing.T) {
	cfg, _ := ConfigForPreset("three_way_ethics")
	cfg.Interruptions.CooldownSeconds = 60
	now := time.Date(2026, 1, 3, 12, 0, 0, 0, time.UTC)
	good := InterruptDecision{ShouldInterrupt: true, Position: "chair_2", Reason: ReasonDirectChallenge, TriggerContent: "duty is a heuristic", Urgency: 0.75}
	with := func(f func(*InterruptDecision)) InterruptDecision { d := good; f(&d); return d }
	tests := []struct {
		name   string
		aggr   int
		d      InterruptDecision
		last   map[string]time.Time
		reject interruptRejection
	}{
		{"accepted", 3, good, nil, ""},
		{"not wanted", 3, with(func(d *InterruptDecision) { d.ShouldInterrupt = false }), nil, "not wanted"},
		{"below threshold at 3", 3, with(func(d *InterruptDecision) { d.Urgency = 0.69 }), nil, "urgency below threshold"},
		{"threshold 1 is 0.9", 1, with(func(d *InterruptDecision) { d.Urgency = 0.89 }), nil, "urgency below threshold"},
		{"threshold 5 is 0.5", 5, with(func(d *InterruptDecision) { d.Urgency = 0.5 }), nil, ""},
		{"self", 3, with(func(d *InterruptDecision) { d.Position = "chair_1" }), nil, "speaker cannot interrupt itself"},
		{"stranger", 3, with(func(d *InterruptDecision) { d.Position = "chair_9" }), nil, "no such chair"},
		{"unknown reason", 3, with(func(d *InterruptDecision) { d.Reason = "boredom" }), nil, "unknown reason"},
		{"cooling down", 3, good, map[string]time.Time{"chair_2": now.Add(-59 * time.Second)}, "cooldown"},
		{"cooled down", 3, good, map[string]time.Time{"chair_2": now.Add(-60 * time.Second)}, ""},
		{"other chair's cooldown", 3, good, map[string]time.Time{"chair_3": now}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := cfg
			c.Interruptions.Aggressiveness = tt.aggr
			got, why := candidate(c, "chair_1", tt.d, now, tt.last, "salt")
			if why != tt.reject || (got == nil) != (tt.reject != "") {
				t.Fatalf("candidate = %+v, %q; want rejection %q", got, why, tt.reject)
			}
			if got == nil {
				return
			}
			if got.InterruptingChair.Position != "chair_2" || got.InterruptedChair.Position != "chair_1" {
				t.Errorf("chairs = %s interrupts %s", got.InterruptingChair.Position, got.InterruptedChair.Position)
			}
			// No suggested opener: one of the seed's templates for the reason.
			found := false
			for _, o := range InterruptOpeners(ReasonDirectChallenge) {
				found = found || o == got.SuggestedOpener
			}
			if !found {
				t.Errorf("opener %q is not a direct_challenge template", got.SuggestedOpener)
			}
		})
	}
	sug := with(func(d *InterruptDecision) { d.SuggestedOpener = "Hold on there—" })
	if got, _ := candidate(cfg, "chair_1", sug, now, nil, ""); got == nil || got.SuggestedOpener != "Hold on there—" {
		t.Errorf("suggested opener not used: %+v", got)
	}
}

func TestParseInterruptDecision(t *testing.T) {
	got, err := ParseInterruptDecision("Sure!\n```json\n{\"shouldInterrupt\": true, \"interruptingChairPosition\": \"chair_2\", \"reason\": \"Pivotal_Point\", \"triggerContent\": \"x\", \"urgency\": 1.7, \"suggestedOpener\": \"Wait—\",}\n```")
	if err != nil {
		t.Fatal(err)
	}
	want := InterruptDecision{ShouldInterrupt: true, Position: "chair_2", Reason: ReasonPivotalPoint, TriggerContent: "x", Urgency: 1, SuggestedOpener: "Wait—"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := ParseInterruptDecision(`{"urgency": 0.9}`); err == nil {
		t.Error("decision without shouldInterrupt accepted")
	}
	// The check's schema leaves urgency unbounded, and a server's grammar
	// lets a model write an exponent float64 cannot hold: the reply is in
	// the schema's shape and reads as the most urgent.
	reply := `{"shouldInterrupt": false, "interruptingChairPosition": null, "reason": null, "triggerContent": null, "urgency": 7e9999, "suggestedOpener": null}`
	if err := jsonschema.Check(json.RawMessage(interruptCheckSchema), []byte(reply)); err != nil {
		t.Fatalf("the reply breaks the schema: %v", err)
	}
	if got, err := ParseInterruptDecision(reply); err != nil || got.Urgency != 1 {
		t.Errorf("ParseInterruptDecision(urgency 7e9999) = %+v, %v; want urgency 1", got, err)
	}
}
