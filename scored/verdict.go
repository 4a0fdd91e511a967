package scored

import (
	"fmt"
	"math"
	"strings"
)

// Winner is the side an arbiter's verdict favours.
type Winner string

// The verdicts' winners.
const (
	WinnerAdvocate   Winner = "advocate"
	WinnerChallenger Winner = "challenger"
	WinnerDraw       Winner = "draw"
)

// Verdict is the arbiter's judgment of a round, with the seed's field names.
type Verdict struct {
	Winner    Winner   `json:"winner"`
	Reasoning string   `json:"reasoning"`
	KeyPoints []string `json:"keyPoints"`
	// Confidence is how sure the arbiter is, in [0, 1].
	Confidence float64 `json:"confidence"`
	// Defaulted marks the default verdict of a round whose arbiter gave
	// no valid one, even when asked again: a draw at confidence 0, which
	// leaves the score as it was.
	Defaulted bool `json:"defaulted,omitempty"`
}

// ParseVerdict reads a verdict from an arbiter's reply: the first JSON object
// in it, whose "winner" must be advocate, challenger or draw (any case),
// "reasoning" a non-empty string, "keyPoints" at least one non-empty string,
// and "confidence" a number in [0, 1]. Keys match ignoring case, '_' and '-'.
// The error wraps [ErrInvalidVerdict] and names every problem.
func ParseVerdict(reply string) (Verdict, error) {
	m, err := jsonObject(reply)
	if err != nil {
		return Verdict{}, fmt.Errorf("%w: %v", ErrInvalidVerdict, err)
	}
	var v Verdict
	var probs []string
	w, _ := lookup(m, "winner")
	switch ws := Winner(strings.ToLower(stringOf(w))); ws {
	case WinnerAdvocate, WinnerChallenger, WinnerDraw:
		v.Winner = ws
	case "":
		probs = append(probs, "winner is missing")
	default:
		probs = append(probs, fmt.Sprintf("unknown winner %q (want advocate, challenger or draw)", cut(string(ws), 40)))
	}
	r, _ := lookup(m, "reasoning")
	if v.Reasoning = stringOf(r); v.Reasoning == "" {
		probs = append(probs, "reasoning is empty")
	}
	k, _ := lookup(m, "keyPoints")
	if v.KeyPoints = stringsOf(k); len(v.KeyPoints) == 0 {
		probs = append(probs, "keyPoints is empty")
	}
	c, ok := lookup(m, "confidence")
	switch f, num := numberOf(c); {
	case !ok:
		probs = append(probs, "confidence is missing")
	case !num:
		probs = append(probs, "confidence is not a number")
	case f < 0 || f > 1:
		probs = append(probs, fmt.Sprintf("confidence %v is outside 0..1", f))
	default:
		v.Confidence = f
	}
	if len(probs) > 0 {
		return Verdict{}, fmt.Errorf("%w: %s", ErrInvalidVerdict, strings.Join(probs, "; "))
	}
	return v, nil
}

// Adjust applies the score rule to one verdict: the raw adjustment is
// +maxAdjustment·confidence when the advocate wins, −maxAdjustment·confidence
// when the challenger wins and 0 for a draw, rounded to two decimals (and kept
// within ±maxAdjustment); the new score is pre plus that, clamped to the
// scale, and delta is post − pre, both without the binary noise of adding
// decimals (see tidy). So
// |delta| ≤ maxAdjustment and post stays within the scale.
func Adjust(pre float64, v Verdict, maxAdjustment float64, s Scale) (post, delta float64) {
	var raw float64
	switch v.Winner {
	case WinnerAdvocate:
		raw = maxAdjustment * v.Confidence
	case WinnerChallenger:
		raw = -maxAdjustment * v.Confidence
	}
	raw = math.Max(-maxAdjustment, math.Min(maxAdjustment, math.Round(raw*100)/100))
	post = tidy(math.Max(s.Min, math.Min(s.Max, pre+raw)))
	return post, tidy(post - pre)
}

// tidy rounds f to nine decimals: far below a score's precision, enough to
// drop the binary noise of adding decimal scores (0.72, not
// 0.7199999999999998).
func tidy(f float64) float64 { return math.Round(f*1e9) / 1e9 }
