package persuasion

import (
	"fmt"
	"strings"
)

// Bounds of what ParseModeration keeps.
const (
	maxConditions   = 10
	maxConditionLen = 500 // runes
)

// ParseModeration reads the moderator's reply: a JSON object
//
//	{"rationale": "…", "consensus": "…", "conditions": ["…", …]}
//
// ("consensusSolution" and "conditionsForRevisiting" are accepted too, keys
// in any case or with '_'), with code fences or prose around it. Conditions
// are kept one line each, at most 10. Any other field — a "winner" above
// all — is ignored: the verdict is computed, not the model's. An error wraps
// [ErrInvalidModeration] and names every problem: no JSON object, an empty
// rationale or consensus, no conditions.
func ParseModeration(reply string) (Moderation, error) {
	obj, err := jsonObject(reply)
	if err != nil {
		return Moderation{}, fmt.Errorf("%w: %v", ErrInvalidModeration, err)
	}
	first := func(keys ...string) any {
		for _, k := range keys {
			if v, ok := lookup(obj, k); ok {
				return v
			}
		}
		return nil
	}
	m := Moderation{
		Rationale: textOf(first("rationale")),
		Consensus: textOf(first("consensus", "consensusSolution")),
	}
	for _, c := range stringsOf(first("conditions", "conditionsForRevisiting", "revisit")) {
		if c = oneLine(c); c != "" && len(m.Conditions) < maxConditions {
			m.Conditions = append(m.Conditions, cut(c, maxConditionLen))
		}
	}
	var probs []string
	if m.Rationale == "" {
		probs = append(probs, "rationale is empty")
	}
	if m.Consensus == "" {
		probs = append(probs, "consensus is empty")
	}
	if len(m.Conditions) == 0 {
		probs = append(probs, "conditions is empty")
	}
	if len(probs) > 0 {
		return Moderation{}, fmt.Errorf("%w: %s", ErrInvalidModeration, strings.Join(probs, "; "))
	}
	return m, nil
}
