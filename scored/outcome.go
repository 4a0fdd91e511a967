package scored

import (
	"fmt"
	"math"

	"github.com/duelogic/duelogic/engine"
)

// FileDebate is the name of the document [Outcome.Documents] gives: the
// seed's debate.md.
const FileDebate = "debate.md"

// Verdict says how the debate ended, for [engine.Outcome]. The side the
// score integration favours wins: the sum of the rounds' score changes (the
// score card's Total), rounded to two decimals as reports show it, names
// the advocate ([SpeakerAdvocate]) when it is positive and the challenger
// ([SpeakerChallenger]) when it is negative. When it is zero — every round
// drawn, or the wins cancelling out — no side won and the debate is a Draw.
// An Outcome of no rounds (made by hand: a debate has at least one) names
// no winner and is no draw. A scored debate is never Void: a round whose
// arbiter gave no valid verdict counts as a draw, as the score rule has it.
//
// Summary is one line: the result, the total of the categories' scores
// before and after with its change, and the rounds each side won, e.g.
// "advocate wins: total score 15.5 → 15.59 (+0.09) over 3 rounds
// (advocate 1, challenger 1, draw 1)".
func (o *Outcome) Verdict() engine.Verdict {
	if len(o.Rounds) == 0 {
		return engine.Verdict{Summary: "no winner: no round was played"}
	}
	var pre, post, change float64
	won := map[Winner]int{}
	defaulted := 0
	for _, r := range o.Rounds {
		pre, post, change = pre+r.PreScore, post+r.PostScore, change+r.Delta
		won[r.Verdict.Winner]++
		if r.Verdict.Defaulted {
			defaulted++
		}
	}
	var v engine.Verdict
	result := "draw"
	switch c := math.Round(change*100) / 100; {
	case c > 0:
		v.Winner, result = SpeakerAdvocate, "advocate wins"
	case c < 0:
		v.Winner, result = SpeakerChallenger, "challenger wins"
	default:
		v.Draw = true
	}
	rounds := "rounds"
	if len(o.Rounds) == 1 {
		rounds = "round"
	}
	v.Summary = fmt.Sprintf("%s: total score %s → %s (%s) over %d %s (advocate %d, challenger %d, draw %d",
		result, score(pre), score(post), signed(change), len(o.Rounds), rounds,
		won[WinnerAdvocate], won[WinnerChallenger], won[WinnerDraw])
	if defaulted > 0 {
		v.Summary += fmt.Sprintf("; %d defaulted", defaulted)
	}
	v.Summary += ")"
	return v
}

// Documents returns the debate's documents, for [engine.Outcome]: one,
// [FileDebate] ("Scored debate"), the seed's debate.md as
// [Outcome.Markdown] renders it for the debate the Outcome holds (its
// DebateID and Proposition).
func (o *Outcome) Documents() []engine.Document {
	return []engine.Document{{Name: FileDebate, Title: "Scored debate", Markdown: o.Markdown(engine.Debate{})}}
}

var _ engine.Outcome = (*Outcome)(nil)
