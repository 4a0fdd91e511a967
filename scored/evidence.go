package scored

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/duelogic/duelogic/engine"
)

// ErrInvalidEvidence is matched (errors.Is) by every error of
// [ParseEvidence] and [Evidence.Apply]; errors.As gives the
// [*EvidenceError] that names each problem.
var ErrInvalidEvidence = errors.New("scored: invalid evidence")

// Evidence is what a host knows of an idea before it is debated: the seed's
// evaluation (a score and the evidence behind it, by category) and the red
// team's challenges. It is the content of an evidence file:
//
//	{
//	  "evaluations": {
//	    "problem":  {"score": 7, "evidence": ["40% of surveyed clinics report the problem weekly"]},
//	    "market":   {"score": 4.5}
//	  },
//	  "challenges": [
//	    {"category": "market", "text": "Two incumbents bundle this for free", "severity": "high"},
//	    {"text": "The founders have never sold to hospitals"}
//	  ]
//	}
//
// A category the file leaves out keeps its neutral default (see
// [NeutralEvaluations]); a challenge without a category bears on every
// round.
type Evidence struct {
	// Evaluations holds the score and evidence of the categories it names,
	// by category ID.
	Evaluations map[string]Evaluation `json:"evaluations,omitempty"`
	// Challenges are the red team's challenges.
	Challenges []Challenge `json:"challenges,omitempty"`
}

// EvidenceError lists every problem of an evidence document, each named by
// its JSON path (`evaluations["market"].score`, "challenges[1].text").
type EvidenceError struct {
	Violations []engine.Violation
}

// Error lists the problems as "path: problem" separated by "; ".
func (e *EvidenceError) Error() string {
	var b strings.Builder
	b.WriteString(ErrInvalidEvidence.Error())
	for i, v := range e.Violations {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		if v.Field != "" {
			b.WriteString(v.Field + ": ")
		}
		b.WriteString(v.Problem)
	}
	return b.String()
}

// Unwrap makes errors.Is(err, ErrInvalidEvidence) hold.
func (e *EvidenceError) Unwrap() error { return ErrInvalidEvidence }

func (e *EvidenceError) add(field, problem string, args ...any) {
	e.Violations = append(e.Violations, engine.Violation{Field: field, Problem: fmt.Sprintf(problem, args...)})
}

func (e *EvidenceError) err() error {
	if len(e.Violations) == 0 {
		return nil
	}
	return e
}

// ParseEvidence reads an [Evidence] JSON document strictly: a field it does
// not know, a value of the wrong type, a category's evaluation without a
// score, an empty evidence line or challenge text, or a document that
// holds neither evaluations nor challenges is an error. The error is an
// [*EvidenceError] naming every problem by its JSON path, or, for text that
// is not JSON, the line and column where it stops being JSON. Whether the
// categories it names exist and its scores fit the scale is checked by
// [Evidence.Apply], which knows the configuration.
func ParseEvidence(data []byte) (Evidence, error) {
	var ev Evidence
	p := &EvidenceError{}
	if err := json.Unmarshal(data, new(json.RawMessage)); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := lineCol(data, se.Offset)
			p.add("", "not JSON: line %d, column %d: %v", line, col, err)
		} else {
			p.add("", "not JSON: %v", err)
		}
		return ev, p
	}
	top, ok := object(p, "", bytes.TrimSpace(data))
	if !ok {
		return ev, p
	}
	if raw, ok := top["evaluations"]; ok {
		ev.Evaluations = parseEvaluations(p, raw)
	}
	if raw, ok := top["challenges"]; ok {
		ev.Challenges = parseChallenges(p, raw)
	}
	for _, k := range slices.Sorted(maps.Keys(top)) {
		if k != "evaluations" && k != "challenges" {
			p.add(k, "unknown field; an evidence file has evaluations and challenges")
		}
	}
	if len(p.Violations) == 0 && len(ev.Evaluations) == 0 && len(ev.Challenges) == 0 {
		p.add("", "no evaluations and no challenges: the file holds no evidence")
	}
	if err := p.err(); err != nil {
		return Evidence{}, err
	}
	return ev, nil
}

func parseEvaluations(p *EvidenceError, raw json.RawMessage) map[string]Evaluation {
	m, ok := object(p, "evaluations", raw)
	if !ok || len(m) == 0 {
		return nil
	}
	out := make(map[string]Evaluation, len(m))
	for _, id := range slices.Sorted(maps.Keys(m)) {
		path := fmt.Sprintf("evaluations[%q]", id)
		fields, ok := object(p, path, m[id])
		if !ok {
			continue
		}
		var ev Evaluation
		if _, has := fields["score"]; !has {
			p.add(path+".score", "missing: give the category's score going into the debate")
		}
		for _, k := range slices.Sorted(maps.Keys(fields)) {
			switch f, fp := fields[k], path+"."+k; k {
			case "score":
				if n, ok := number(p, fp, f); ok {
					ev.Score = n
				}
			case "evidence":
				ev.Evidence = texts(p, fp, f)
			default:
				p.add(fp, "unknown field; an evaluation has score and evidence")
			}
		}
		out[id] = ev
	}
	return out
}

func parseChallenges(p *EvidenceError, raw json.RawMessage) []Challenge {
	var items []json.RawMessage
	if !decode(p, "challenges", raw, "an array", &items) || len(items) == 0 {
		return nil
	}
	out := make([]Challenge, 0, len(items))
	for i, item := range items {
		path := fmt.Sprintf("challenges[%d]", i)
		fields, ok := object(p, path, item)
		if !ok {
			continue
		}
		var ch Challenge
		if _, has := fields["text"]; !has {
			p.add(path+".text", "missing: say what the challenge is")
		}
		for _, k := range slices.Sorted(maps.Keys(fields)) {
			switch f, fp := fields[k], path+"."+k; k {
			case "text":
				if s, ok := text(p, fp, f); ok {
					ch.Text = s
				}
			case "category":
				decode(p, fp, f, "a string (a category ID)", &ch.Category)
			case "severity":
				decode(p, fp, f, "a string", &ch.Severity)
			default:
				p.add(fp, "unknown field; a challenge has category, text and severity")
			}
		}
		out = append(out, ch)
	}
	return out
}

// object reads a JSON object's fields.
func object(p *EvidenceError, path string, raw json.RawMessage) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if !decode(p, path, raw, "an object", &m) {
		return nil, false
	}
	return m, true
}

// number reads a finite JSON number.
func number(p *EvidenceError, path string, raw json.RawMessage) (float64, bool) {
	var n float64
	if !decode(p, path, raw, "a number", &n) {
		return 0, false
	}
	return n, true
}

// text reads a JSON string that is not blank.
func text(p *EvidenceError, path string, raw json.RawMessage) (string, bool) {
	var s string
	if !decode(p, path, raw, "a string", &s) {
		return "", false
	}
	if strings.TrimSpace(s) == "" {
		p.add(path, "empty")
		return "", false
	}
	return s, true
}

// texts reads an array of strings that are not blank.
func texts(p *EvidenceError, path string, raw json.RawMessage) []string {
	var items []json.RawMessage
	if !decode(p, path, raw, "an array of strings", &items) {
		return nil
	}
	var out []string
	for i, item := range items {
		if s, ok := text(p, fmt.Sprintf("%s[%d]", path, i), item); ok {
			out = append(out, s)
		}
	}
	return out
}

// decode unmarshals raw into v; a null or a value of another JSON type is
// a problem at path saying what was wanted and what was found.
func decode(p *EvidenceError, path string, raw json.RawMessage, want string, v any) bool {
	raw = bytes.TrimSpace(raw)
	kind := kindOf(raw)
	if kind != "null" && json.Unmarshal(raw, v) == nil {
		return true
	}
	if strings.HasPrefix(kind, "the number") && want == "a number" {
		p.add(path, "%s is out of range", raw)
	} else {
		p.add(path, "want %s, got %s", want, kind)
	}
	return false
}

// kindOf names the JSON type of a valid value.
func kindOf(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "the number " + string(raw)
}

// lineCol is the line and column (from 1, in bytes) of the byte a
// [json.SyntaxError] with offset stopped at (its offset counts that byte).
func lineCol(data []byte, offset int64) (line, col int) {
	at := min(max(offset-1, 0), int64(len(data)))
	before := data[:at]
	line = 1 + bytes.Count(before, []byte("\n"))
	col = 1 + len(before) - (bytes.LastIndexByte(before, '\n') + 1)
	return line, col
}

// Apply returns cfg (its zero fields filled as [New] fills them) with e's
// evaluations in place of cfg's for the categories e names, a neutral one
// ([NeutralEvaluations]) for a category neither names, and e's challenges
// after cfg's. The error is an [*EvidenceError] naming every
// evaluation or challenge of e that names no category of cfg, and every
// score outside cfg's scale; cfg itself is validated by [New].
func (e Evidence) Apply(cfg Config) (Config, error) {
	cfg = cfg.withDefaults()
	p := &EvidenceError{}
	known := make(map[string]bool, len(cfg.Categories))
	var ids []string
	for _, c := range cfg.Categories {
		known[c.ID] = true
		ids = append(ids, c.ID)
	}
	have := strings.Join(ids, ", ")
	if cfg.Evaluations == nil {
		cfg.Evaluations = map[string]Evaluation{}
	}
	for _, id := range slices.Sorted(maps.Keys(e.Evaluations)) {
		ev, path := e.Evaluations[id], fmt.Sprintf("evaluations[%q]", id)
		switch {
		case !known[id]:
			p.add(path, "names no category; the categories are %s", have)
		case math.IsNaN(ev.Score) || ev.Score < cfg.Scale.Min || ev.Score > cfg.Scale.Max:
			p.add(path+".score", "%v is outside the scale %v..%v", ev.Score, cfg.Scale.Min, cfg.Scale.Max)
		default:
			ev.Evidence, ev.Neutral = slices.Clone(ev.Evidence), false
			cfg.Evaluations[id] = ev
		}
	}
	for _, c := range cfg.Categories {
		if _, ok := cfg.Evaluations[c.ID]; !ok {
			cfg.Evaluations[c.ID] = NeutralEvaluations([]Category{c}, cfg.Scale)[c.ID]
		}
	}
	for i, ch := range e.Challenges {
		if ch.Category != "" && !known[ch.Category] {
			p.add(fmt.Sprintf("challenges[%d].category", i), "%q names no category; the categories are %s", ch.Category, have)
			continue
		}
		cfg.Challenges = append(cfg.Challenges, ch)
	}
	return cfg, p.err()
}
