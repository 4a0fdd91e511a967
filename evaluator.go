package duelogic

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
)

// evaluationSchema is the JSON Schema of an evaluation, with the seed's
// ResponseEvaluation field names, as [ParseEvaluation] reads it, and the
// response's scope (critiquesOpponent, substantive) that the success
// metrics count it under. Every text and list has a bound, so that a server
// that keeps replies in shape (llama.cpp's grammar) always closes one within
// its cap; a longer reply that parses is still used.
const evaluationSchema = `{"type": "object", "additionalProperties": false,
 "required": ["critiquesOpponent", "substantive", "adherenceScore", "steelManning", "selfCritique", "frameworkConsistency", "intellectualHonesty", "requiresInterjection", "interjectionReason"],
 "properties": {
  "critiquesOpponent": {"type": "boolean"},
  "substantive": {"type": "boolean"},
  "adherenceScore": {"type": "integer", "minimum": 0, "maximum": 100},
  "steelManning": ` + mandateSchema + `,
  "selfCritique": ` + mandateSchema + `,
  "frameworkConsistency": {"type": "object", "additionalProperties": false, "required": ["consistent", "violations"],
   "properties": {"consistent": {"type": "boolean"}, "violations": {"type": "array", "maxItems": 3, "items": {"type": "string", "maxLength": 200}}}},
  "intellectualHonesty": {"type": "object", "additionalProperties": false, "required": ["score", "issues"],
   "properties": {"score": {"type": "string", "enum": ["high", "medium", "low"]}, "issues": {"type": "array", "maxItems": 3, "items": {"type": "string", "maxLength": 200}}}},
  "requiresInterjection": {"type": "boolean"},
  "interjectionReason": {"type": "string", "maxLength": 300}}}`

// mandateSchema is the schema of a steel-manning or self-critique check.
const mandateSchema = `{"type": "object", "additionalProperties": false, "required": ["attempted", "quality", "notes"],
   "properties": {"attempted": {"type": "boolean"}, "quality": {"type": "string", "enum": ["strong", "adequate", "weak", "absent"]}, "notes": {"type": "string", "maxLength": 300}}}`

// evaluate asks the arbiter for its evaluation of a chair's response (a
// judgment, asked again once when unreadable: see [engine.Judge]) and the
// response's scope, nil when the reply does not say. A reply still
// unreadable leaves the response unscored: the evaluation is nil and
// problem says why.
// cutBy, when not "", names who cut the response off: the evaluation is
// told so (see [evaluationPrompt]).
func (r *play) evaluate(ctx context.Context, ch Chair, answered, response, cutBy string) (ev *ResponseEvaluation, scope *responseScope, problem string, usage llm.Usage, err error) {
	req := r.request(PurposeEvaluation, SpeakerArbiter, evaluationPrompt(r.cfg, r.cat, ch.Position, answered, response, cutBy))
	req.Schema, req.Temperature = json.RawMessage(evaluationSchema), ptr(0.2)
	reply, res, usage, err := engine.Judge(ctx, r.s, req, SegmentExchange, SpeakerArbiter, parseEvaluationReply)
	if err != nil || res.Defaulted {
		return nil, nil, res.Problem, usage, err
	}
	return reply.ev, reply.scope, "", usage, nil
}

// EvaluationPrompt builds the arbiter's evaluation of one chair response: the
// chair's framework and blind spots, the mandates in force, the turn it
// answers and the response (both fenced), and the JSON shape to return, with
// the seed's ResponseEvaluation field names and, first, what the response is:
// whether it critiques an opponent (the steel-manning mandate applies) and
// whether it is substantive (the self-critique mandate applies), which
// decide what it counts toward in [Metrics]. This is the prompt of a
// response said whole; the debate tells the arbiter when a response was cut
// off by an interruption (see [CutNote]).
//
// It is laid out for a provider's prompt cache: the system message, the
// same for every chair's evaluations in a debate, names no chair; the user
// message says whose response it is and its framework.
func EvaluationPrompt(cfg Config, cat *Catalog, position, answered, response string) Prompt {
	return evaluationPrompt(cfg, cat, position, answered, response, "")
}

// CutNote is what the evaluation of a response cut off by an interruption
// is told after the response, with the interrupter's name in place of %s:
// the chair is judged on what it said, knowing it was cut, so that an
// obligation it could only have met in what it never said — the
// self-critique most responses end with — is no violation.
const CutNote = "This response was cut off where it ends (at the dash) when %s interrupted: the chair could not finish it. " +
	"Judge it only on what it said. An obligation it could still have met in the part it never said is not a violation: " +
	"do not count a missing self-critique against it, and do not ask for an interjection for what the cut prevented. " +
	"Steel-manning is still owed before any critique it did make."

// evaluationPrompt is [EvaluationPrompt] for a response that cutBy (a
// speaker's label) cut off, or said whole when cutBy is "".
func evaluationPrompt(cfg Config, cat *Catalog, position, answered, response, cutBy string) Prompt {
	ch, _ := cfg.chair(position)
	info := cat.Info(ch.Framework)
	var sys strings.Builder
	sys.WriteString(`You are the Arbiter of a Duelogic debate, evaluating one chair's response for adherence to the debate's principles.

First say what the response is:
- critiquesOpponent: does it critique an opponent's position (disagree with it, attack or reject it)?
  A response that only agrees, asks or clarifies does not.
- substantive: does it argue a position of substance? A response cut off after a sentence or
  two, a bare question or a hand-off is not substantive.

Then judge:
- Steel-manning: before critiquing, did the chair state the strongest version of the position it answers? `)
	if cfg.Mandates.RequireSteelManning {
		sys.WriteString("(mandatory in this debate)")
	} else {
		sys.WriteString("(encouraged, not mandatory here)")
	}
	sys.WriteString(`
- Self-critique: did the chair acknowledge a limitation or blind spot of its own framework? `)
	if cfg.Mandates.RequireSelfCritique {
		sys.WriteString("(mandatory in this debate)")
	} else {
		sys.WriteString("(encouraged, not mandatory here)")
	}
	fmt.Fprintf(&sys, `
- Framework consistency: did the chair argue from its own framework (named below)?
- Intellectual honesty: no evasion of direct challenges, no misrepresentation, no overclaiming.

Quality is one of "strong", "adequate", "weak", "absent". Steel-manning is owed only by a response
that critiques an opponent, self-critique only by a substantive one: do not count either against a
response it is not owed by. Set requiresInterjection to true only for a clear violation that the
arbiter should call out now, and say why in interjectionReason.

Respond with one JSON object and nothing else:
{
  "critiquesOpponent": boolean,
  "substantive": boolean,
  "adherenceScore": 0-100,
  "steelManning": {"attempted": boolean, "quality": "strong" | "adequate" | "weak" | "absent", "notes": "..."},
  "selfCritique": {"attempted": boolean, "quality": "strong" | "adequate" | "weak" | "absent", "notes": "..."},
  "frameworkConsistency": {"consistent": boolean, "violations": ["..."]},
  "intellectualHonesty": {"score": "high" | "medium" | "low", "issues": ["..."]},
  "requiresInterjection": boolean,
  "interjectionReason": "..."
}

**DATA:** %s`, dataNote)
	var u strings.Builder
	fmt.Fprintf(&u, "Chair: %s, holding the %s.\n", ch.DisplayName(), info.RoleName())
	fmt.Fprintf(&u, "Its framework: %s.\n", info.Description)
	if len(info.BlindSpots) > 0 {
		u.WriteString("Its framework's known blind spots: " + strings.Join(info.BlindSpots, "; ") + ".\n")
	}
	if answered != "" {
		u.WriteString("\nThe turn it answers:\n" + fence("transcript", answered) + "\n")
	}
	u.WriteString("\nThe response to evaluate:\n" + fence("response", response))
	if cutBy != "" {
		u.WriteString("\n\n" + fmt.Sprintf(CutNote, cutBy))
	}
	return Prompt{System: sys.String(), User: u.String()}
}

// ParseEvaluation reads an evaluation from a model's reply. It tolerates code
// fences and prose around the JSON object, trailing commas, numbers given as
// strings, snake_case keys and unknown quality words; it clamps the adherence
// score to 0..100. It fails when the reply holds no object with at least one
// of the evaluation's fields. (The reply's critiquesOpponent and substantive,
// which decide what the response counts toward in [Metrics], are read by
// the debate itself.)
func ParseEvaluation(reply string) (*ResponseEvaluation, error) {
	r, err := parseEvaluationReply(reply)
	return r.ev, err
}

// evaluationReply is an evaluation and the response's scope, nil when the
// reply gives neither critiquesOpponent nor substantive.
type evaluationReply struct {
	ev    *ResponseEvaluation
	scope *responseScope
}

// parseEvaluationReply reads an evaluation as [ParseEvaluation] does, and
// the scope beside it; a scope field the reply leaves out or gives as no
// boolean counts as true (the mandate applies).
func parseEvaluationReply(reply string) (evaluationReply, error) {
	m, err := extractJSONObject(reply)
	if err != nil {
		return evaluationReply{}, fmt.Errorf("duelogic: parse evaluation: %w", err)
	}
	ev, err := evaluationOf(m)
	if err != nil {
		return evaluationReply{}, err
	}
	out := evaluationReply{ev: ev}
	c, hasC := field(m, "critiquesOpponent")
	sub, hasS := field(m, "substantive")
	if hasC || hasS {
		sc := fullScope
		if b, ok := asBool(c); ok && hasC {
			sc.CritiquesOpponent = b
		}
		if b, ok := asBool(sub); ok && hasS {
			sc.Substantive = b
		}
		out.scope = &sc
	}
	return out, nil
}

// evaluationOf reads the evaluation's fields from a reply's object.
func evaluationOf(m map[string]any) (*ResponseEvaluation, error) {
	// A check the reply leaves out counts as absent.
	ev := ResponseEvaluation{
		SteelManning: MandateCheck{Quality: QualityAbsent},
		SelfCritique: MandateCheck{Quality: QualityAbsent},
	}
	known := 0
	if v, ok := field(m, "adherenceScore"); ok {
		if f, ok := asNumber(v); ok {
			ev.AdherenceScore = int(clamp(f, 0, 100) + 0.5)
			known++
		}
	}
	if v, ok := field(m, "steelManning"); ok {
		ev.SteelManning = parseMandate(v)
		known++
	}
	if v, ok := field(m, "selfCritique"); ok {
		ev.SelfCritique = parseMandate(v)
		known++
	}
	ev.FrameworkConsistency.Consistent = true
	if v, ok := field(m, "frameworkConsistency"); ok {
		known++
		fm := asMap(v)
		if b, ok := asBool(v); ok && fm == nil {
			ev.FrameworkConsistency.Consistent = b
		}
		if c, ok := field(fm, "consistent"); ok {
			if b, ok := asBool(c); ok {
				ev.FrameworkConsistency.Consistent = b
			}
		}
		if vs, ok := field(fm, "violations"); ok {
			ev.FrameworkConsistency.Violations = asStrings(vs)
		}
	}
	ev.IntellectualHonesty.Score = HonestyHigh
	if v, ok := field(m, "intellectualHonesty"); ok {
		known++
		hm := asMap(v)
		score := asString(v)
		if hm != nil {
			s, _ := field(hm, "score")
			score = asString(s)
			if is, ok := field(hm, "issues"); ok {
				ev.IntellectualHonesty.Issues = asStrings(is)
			}
		}
		switch h := Honesty(strings.ToLower(score)); h {
		case HonestyHigh, HonestyMedium, HonestyLow:
			ev.IntellectualHonesty.Score = h
		default:
			if len(ev.IntellectualHonesty.Issues) > 0 {
				ev.IntellectualHonesty.Score = HonestyMedium
			}
		}
	}
	if v, ok := field(m, "requiresInterjection"); ok {
		ev.RequiresInterjection, _ = asBool(v)
		known++
	}
	if v, ok := field(m, "interjectionReason"); ok {
		ev.InterjectionReason = truncateRunes(asString(v), 500)
	}
	if known == 0 {
		return nil, fmt.Errorf("duelogic: parse evaluation: %w", errNoJSON)
	}
	return &ev, nil
}

func parseMandate(v any) MandateCheck {
	m := asMap(v)
	if m == nil {
		if b, ok := asBool(v); ok {
			if b {
				return MandateCheck{Attempted: true, Quality: QualityAdequate}
			}
			return MandateCheck{Quality: QualityAbsent}
		}
		return MandateCheck{Quality: QualityAbsent}
	}
	var mc MandateCheck
	a, hasA := field(m, "attempted")
	if hasA {
		mc.Attempted, _ = asBool(a)
	}
	q, _ := field(m, "quality")
	switch qq := Quality(strings.ToLower(asString(q))); qq {
	case QualityStrong, QualityAdequate, QualityWeak, QualityAbsent:
		mc.Quality = qq
	default:
		if mc.Attempted {
			mc.Quality = QualityAdequate
		} else {
			mc.Quality = QualityAbsent
		}
	}
	if !hasA {
		mc.Attempted = mc.Quality != QualityAbsent
	}
	if n, ok := field(m, "notes"); ok {
		mc.Notes = truncateRunes(asString(n), 500)
	}
	return mc
}

func weakOrAbsent(q Quality) bool { return q == QualityWeak || q == QualityAbsent }

// InterjectionFor decides whether the arbiter interjects on an evaluated
// response, and on which violation, as the accountability level says:
// relaxed never; moderate when the evaluation requires an interjection;
// strict on any violation (requiresInterjection, steel-manning or
// self-critique weak or absent while mandated, framework inconsistency, low
// honesty). Mandates.ArbiterCanInterject=false means never. The violation
// named is the first that applies in the seed's order: straw-manning, missing
// self-critique, framework inconsistency, rhetorical evasion.
func InterjectionFor(cfg Config, ev *ResponseEvaluation) (ViolationType, bool) {
	return interjectionFor(cfg, ev, fullScope, false)
}

// interjectionFor is [InterjectionFor] for a response of scope sc: a
// response that critiques no opponent owes no steel-man, one that is not
// substantive owes no self-critique, so strict accountability does not call
// their absence out. A response cut off by an interruption (cut) owes no
// self-critique either, which it might have made in what it never said: the
// arbiter does not interject for a missing one, whatever the evaluation
// asks.
func interjectionFor(cfg Config, ev *ResponseEvaluation, sc responseScope, cut bool) (ViolationType, bool) {
	if ev == nil || !cfg.Mandates.ArbiterCanInterject {
		return "", false
	}
	selfOwed := sc.Substantive && !cut
	steel := cfg.Mandates.RequireSteelManning && sc.CritiquesOpponent && weakOrAbsent(ev.SteelManning.Quality)
	self := cfg.Mandates.RequireSelfCritique && selfOwed && weakOrAbsent(ev.SelfCritique.Quality)
	incons := !ev.FrameworkConsistency.Consistent
	evasive := ev.IntellectualHonesty.Score == HonestyLow
	switch cfg.Arbiter.AccountabilityLevel {
	case Moderate:
		if !ev.RequiresInterjection {
			return "", false
		}
	case Strict:
		if !(ev.RequiresInterjection || steel || self || incons || evasive) {
			return "", false
		}
	default:
		return "", false
	}
	switch {
	case steel:
		return ViolationStrawManning, true
	case self:
		return ViolationMissingSelfCritique, true
	case incons:
		return ViolationFrameworkInconsistency, true
	case evasive:
		return ViolationRhetoricalEvasion, true
	}
	r := strings.ToLower(ev.InterjectionReason)
	switch {
	case strings.Contains(r, "straw") || strings.Contains(r, "steel"):
		return ViolationStrawManning, true
	case strings.Contains(r, "self-critique") || strings.Contains(r, "self critique") || strings.Contains(r, "blind spot") || strings.Contains(r, "weakness"):
		if cut {
			return "", false
		}
		return ViolationMissingSelfCritique, true
	case strings.Contains(r, "framework") || strings.Contains(r, "inconsisten"):
		return ViolationFrameworkInconsistency, true
	}
	return ViolationRhetoricalEvasion, true
}
