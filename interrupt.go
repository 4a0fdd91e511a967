package duelogic

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
)

// interruptCheckSchema is the JSON Schema of the interrupt check's answer,
// with the seed's field names, as [ParseInterruptDecision] reads it: the
// chair, reason, trigger and opener are null when no chair should
// interrupt. Its texts have bounds, so that a server that keeps replies in
// shape always closes one within its cap.
const interruptCheckSchema = `{"type": "object", "additionalProperties": false,
 "required": ["shouldInterrupt", "interruptingChairPosition", "reason", "triggerContent", "urgency", "suggestedOpener"],
 "properties": {
  "shouldInterrupt": {"type": "boolean"},
  "interruptingChairPosition": {"type": ["string", "null"], "maxLength": 40},
  "reason": {"anyOf": [{"type": "string", "enum": ["factual_correction", "straw_man_detected", "direct_challenge",
   "clarification_needed", "strong_agreement", "pivotal_point"]}, {"type": "null"}]},
  "triggerContent": {"type": ["string", "null"], "maxLength": 300},
  "urgency": {"type": "number"},
  "suggestedOpener": {"type": ["string", "null"], "maxLength": 200}}}`

// interruptCheck asks whether another chair should interrupt speaker, who
// has said content (a judgment, asked again once when unreadable: see
// [engine.Judge]). A reply still unreadable means no interruption: the
// decision is nil and problem says why.
func (r *play) interruptCheck(ctx context.Context, speaker, content string) (d *InterruptDecision, problem string, usage llm.Usage, err error) {
	req := r.request(PurposeInterruptCheck, SpeakerArbiter, InterruptCheckPrompt(r.cfg, r.cat, r.d, speaker, content))
	req.Schema, req.Temperature = json.RawMessage(interruptCheckSchema), ptr(0.3)
	got, res, usage, err := engine.Judge(ctx, r.s, req, SegmentExchange, SpeakerArbiter, ParseInterruptDecision)
	if err != nil || res.Defaulted {
		return nil, res.Problem, usage, err
	}
	return &got, "", usage, nil
}

// InterruptCheckPrompt builds the seed's interrupt check: who is speaking and
// what they just said (fenced; while a response streams, what was said so
// far), the other chairs who could interrupt (with their positions) when
// chair interruptions are allowed, the arbiter when arbiter interruptions
// are, the six valid reasons, and the JSON to return.
//
// It is laid out for a provider's prompt cache: the instructions, the same
// for every check of a debate, are the system message; the user message
// ends with what changes, the speech, whose text grows from one check of
// a streaming response to the next.
func InterruptCheckPrompt(cfg Config, cat *Catalog, d Debate, speaker, content string) Prompt {
	cur, _ := cfg.chair(speaker)
	var sys strings.Builder
	sys.WriteString("You are evaluating whether any chair should interrupt the current speaker of a Duelogic debate.\n")
	if cfg.Interruptions.AllowArbiterInterruptions {
		fmt.Fprintf(&sys, "\nThe arbiter (interruptingChairPosition %q) may cut in instead, only on a flagrant violation: "+
			"a straw man, a factual error about a framework, or evading a direct challenge.\n", SpeakerArbiter)
	}
	sys.WriteString(`
Should any chair interrupt? Valid reasons:
- factual_correction: Speaker made an error about philosophical frameworks
- straw_man_detected: Speaker is attacking a weakened version of a position
- direct_challenge: A point demands immediate pushback
- clarification_needed: Something crucial is unclear
- strong_agreement: A point is so good it deserves amplification
- pivotal_point: This is the core disagreement being crystallized

Respond in JSON:
{
  "shouldInterrupt": boolean,
  "interruptingChairPosition": "chair_1" | "chair_2" | etc or null,
  "reason": "factual_correction" | "straw_man_detected" | etc,
  "triggerContent": "the specific phrase or claim that triggered this",
  "urgency": 0.0-1.0,
  "suggestedOpener": "How the interruption should start (2-8 words)"
}

Only recommend interrupting for genuinely significant moments.

`)
	sys.WriteString("**DATA:** " + dataNote)
	var b strings.Builder
	b.WriteString("Topic:\n" + fence("proposition", d.Proposition) + "\n\n")
	if cfg.Interruptions.AllowChairInterruptions {
		b.WriteString("Other chairs who could interrupt:\n")
		for _, c := range cfg.Chairs {
			if c.Position != speaker {
				fmt.Fprintf(&b, "- %s: %s (%s)\n", c.Position, c.DisplayName(), cat.Info(c.Framework).Name)
			}
		}
	} else {
		b.WriteString("No chair may interrupt.\n")
	}
	fmt.Fprintf(&b, "\nCurrent speaker: %s (%s)\n\n", cur.DisplayName(), cat.Info(cur.Framework).Name)
	b.WriteString("What they just said:\n" + fence("response", content))
	return Prompt{System: sys.String(), User: b.String()}
}

// InterruptDecision is the interrupt check's answer, as parsed.
type InterruptDecision struct {
	ShouldInterrupt bool            `json:"shouldInterrupt"`
	Position        string          `json:"interruptingChairPosition,omitempty"`
	Reason          InterruptReason `json:"reason,omitempty"`
	TriggerContent  string          `json:"triggerContent,omitempty"`
	Urgency         float64         `json:"urgency"`
	SuggestedOpener string          `json:"suggestedOpener,omitempty"`
}

// ParseInterruptDecision reads the interrupt check's JSON from a model's reply
// with the same tolerance as [ParseEvaluation]; urgency is clamped to 0..1.
func ParseInterruptDecision(reply string) (InterruptDecision, error) {
	m, err := extractJSONObject(reply)
	if err != nil {
		return InterruptDecision{}, fmt.Errorf("duelogic: parse interrupt check: %w", err)
	}
	var d InterruptDecision
	v, ok := field(m, "shouldInterrupt")
	if !ok {
		return InterruptDecision{}, fmt.Errorf("duelogic: parse interrupt check: no shouldInterrupt")
	}
	d.ShouldInterrupt, _ = asBool(v)
	if v, ok := field(m, "interruptingChairPosition"); ok {
		d.Position = asString(v)
	}
	if v, ok := field(m, "reason"); ok {
		d.Reason = InterruptReason(strings.ToLower(asString(v)))
	}
	if v, ok := field(m, "triggerContent"); ok {
		d.TriggerContent = truncateRunes(asString(v), 300)
	}
	if v, ok := field(m, "urgency"); ok {
		if f, ok := asNumber(v); ok {
			d.Urgency = clamp(f, 0, 1)
		}
	}
	if v, ok := field(m, "suggestedOpener"); ok {
		d.SuggestedOpener = truncateRunes(asString(v), 120)
	}
	return d, nil
}

// interruptRejection says why a decision does not become an interruption.
type interruptRejection string

// candidate turns a decision into an interruption of speaker, or says why
// not: it must want to interrupt, reach the urgency threshold of the
// aggressiveness, give a known reason, and name another chair of this
// debate while chair interruptions are allowed, or the arbiter (for a
// violation: factual correction, straw man, direct challenge) while arbiter
// interruptions are; and the interrupter's cooldown must have passed at now
// (last holds each interrupter's last interruption). An arbiter's
// InterruptingChair has Position SpeakerArbiter and the arbiter's model.
func candidate(cfg Config, speaker string, d InterruptDecision, now time.Time, last map[string]time.Time, salt string) (*InterruptCandidate, interruptRejection) {
	switch {
	case !d.ShouldInterrupt:
		return nil, "not wanted"
	case d.Urgency < urgencyThreshold(cfg.Interruptions.Aggressiveness):
		return nil, "urgency below threshold"
	case d.Position == speaker:
		return nil, "speaker cannot interrupt itself"
	case !slices.Contains(InterruptReasons(), d.Reason):
		return nil, "unknown reason"
	}
	var by Chair
	if d.Position == SpeakerArbiter {
		switch {
		case !cfg.Interruptions.AllowArbiterInterruptions:
			return nil, "arbiter interruptions are off"
		case arbiterViolation(d.Reason) == "":
			return nil, "the arbiter cuts in only on a violation"
		}
		by = Chair{Position: SpeakerArbiter, ModelID: cfg.Arbiter.ModelID, ModelDisplayName: cfg.Arbiter.ModelDisplayName}
	} else {
		if !cfg.Interruptions.AllowChairInterruptions {
			return nil, "chair interruptions are off"
		}
		var ok bool
		if by, ok = cfg.chair(d.Position); !ok {
			return nil, "no such chair"
		}
	}
	if t, ok := last[by.Position]; ok {
		if now.Sub(t) < time.Duration(cfg.Interruptions.CooldownSeconds)*time.Second {
			return nil, "cooldown"
		}
	}
	cur, _ := cfg.chair(speaker)
	opener := strings.TrimSpace(d.SuggestedOpener)
	if opener == "" {
		openers := interruptOpeners[d.Reason]
		h := fnv.New32a()
		h.Write([]byte(salt))
		opener = openers[int(h.Sum32()%uint32(len(openers)))]
	}
	return &InterruptCandidate{
		InterruptingChair: by,
		InterruptedChair:  cur,
		TriggerReason:     d.Reason,
		TriggerContent:    d.TriggerContent,
		Urgency:           d.Urgency,
		SuggestedOpener:   opener,
	}, ""
}

// arbiterViolation is the interjection the arbiter makes when it cuts in for
// reason, "" for a reason that is no violation.
func arbiterViolation(reason InterruptReason) ViolationType {
	switch reason {
	case ReasonStrawManDetected:
		return ViolationStrawManning
	case ReasonFactualCorrection:
		return ViolationFrameworkInconsistency
	case ReasonDirectChallenge:
		return ViolationRhetoricalEvasion
	}
	return ""
}
