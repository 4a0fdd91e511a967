package argumentation

import (
	"cmp"
	"math"
	"slices"
)

// SurvivalThreshold is the score an argument must exceed to survive (the
// seed's "score > 0.5").
const SurvivalThreshold = 0.5

// DefaultDrawMargin is VerdictOptions.DrawMargin's default.
const DefaultDrawMargin = 0.01

// VerdictOptions tune Dialogue.Verdict.
type VerdictOptions struct {
	// DrawMargin: when the best two side scores differ by at most this,
	// the verdict is a draw. 0 means DefaultDrawMargin; a negative value
	// means exact ties only.
	DrawMargin float64
}

// Verdict is the moderator's judgment of a dialogue (the seed's step 5).
//
// The winner rule: a side's score is the sum of the strengths of its
// surviving arguments (strength > SurvivalThreshold), an argument belonging
// to the participant who first put it forward. The side with the highest
// score wins; if the best two are within the draw margin, the verdict is a
// draw and Winner is "". Summing rewards a side for each argument that
// survives scrutiny, not for arguments raised: an argument at or below 0.5
// adds nothing.
type Verdict struct {
	Winner string `json:"winner"` // "" on a draw
	Draw   bool   `json:"draw"`
	// Sides lists every participant (and any other side owning an
	// argument) with its score, best first; ties keep participant order.
	Sides []SideScore `json:"sides"`
	// Surviving are all arguments with strength > SurvivalThreshold, by
	// strength, strongest first (ties by ID).
	Surviving []ScoredArgument `json:"surviving"`
	// Strongest are the winner's surviving arguments, strongest first; on a
	// draw, all surviving arguments.
	Strongest []ScoredArgument `json:"strongest"`
	// ValidPoints are the losing sides' arguments that survived or that
	// another participant conceded (and still holds), strongest first
	// (empty on a draw).
	ValidPoints []ScoredArgument `json:"validPoints"`
	// Unaddressed are the why-challenges that no since or retract answered.
	Unaddressed []Challenge `json:"unaddressed"`
	// Concessions and Retractions are the concede and retract moves, in
	// order.
	Concessions []Move `json:"concessions"`
	Retractions []Move `json:"retractions"`
	// Commitments are the final commitment stores, in participant order.
	Commitments []CommitmentStore `json:"commitments"`
	Metrics     Metrics           `json:"metrics"`
	// Converged and Method echo the evaluation the verdict rests on: a
	// verdict on scores that did not converge is provisional.
	Converged bool   `json:"converged"`
	Method    Method `json:"method"`
}

// SideScore is one side's result.
type SideScore struct {
	Side      string  `json:"side"`
	Score     float64 `json:"score"`     // sum of its surviving arguments' strengths
	Surviving int     `json:"surviving"` // number of its surviving arguments
	Arguments int     `json:"arguments"` // number of its arguments in the graph
}

// ScoredArgument is an argument with its strength.
type ScoredArgument struct {
	Argument
	Score float64 `json:"score"`
}

// Challenge is an unanswered why move.
type Challenge struct {
	Move        string `json:"move"`       // ID of the why move
	Speaker     string `json:"speaker"`    // who asked
	Challenged  string `json:"challenged"` // who was asked
	Proposition string `json:"proposition"`
	Argument    string `json:"argument"` // ID of the challenged argument ("" if removed)
}

// CommitmentStore is one participant's final commitments and retractions.
type CommitmentStore struct {
	Participant string   `json:"participant"`
	Commitments []string `json:"commitments"`
	Retracted   []string `json:"retracted"`
}

// Metrics are the seed's debate quality metrics.
type Metrics struct {
	Moves int `json:"moves"`
	// Arguments counts every proposition put forward, retracted ones
	// included.
	Arguments int `json:"arguments"`
	// Attacks, Rebuts, Undercuts and Supports count the direct relations
	// of the graph the verdict was given.
	Attacks     int `json:"attacks"`
	Rebuts      int `json:"rebuts"`
	Undercuts   int `json:"undercuts"`
	Supports    int `json:"supports"`
	Challenges  int `json:"challenges"` // why moves
	Unanswered  int `json:"unanswered"` // why moves never answered
	Concessions int `json:"concessions"`
	Retractions int `json:"retractions"`
}

// Verdict judges the dialogue from g, which should be d.Graph() (with no
// move applied since), and scores, an evaluation of g. An argument missing
// from scores counts as strength 0.
func (d *Dialogue) Verdict(g *Graph, scores Scores, opt VerdictOptions) Verdict {
	margin := opt.DrawMargin
	switch {
	case margin == 0:
		margin = DefaultDrawMargin
	case margin < 0:
		margin = 0
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	v := Verdict{Converged: scores.Converged, Method: scores.Method}

	var all []ScoredArgument
	if g != nil {
		for _, a := range g.Arguments() {
			all = append(all, ScoredArgument{a, scores.Strength[a.ID]})
		}
	}
	byScore := compareScored
	sides := slices.Clone(d.participants)
	for _, a := range all {
		if !slices.Contains(sides, a.Side) {
			sides = append(sides, a.Side)
		}
	}
	v.Sides = make([]SideScore, len(sides))
	for i, s := range sides {
		v.Sides[i].Side = s
	}
	v.Surviving = []ScoredArgument{}
	for _, a := range all {
		i := slices.Index(sides, a.Side)
		v.Sides[i].Arguments++
		if a.Score > SurvivalThreshold {
			v.Sides[i].Surviving++
			v.Sides[i].Score += a.Score
			v.Surviving = append(v.Surviving, a)
		}
	}
	slices.SortFunc(v.Surviving, byScore)
	slices.SortStableFunc(v.Sides, func(a, b SideScore) int { return cmp.Compare(b.Score, a.Score) })

	switch {
	case len(v.Sides) == 0:
		v.Draw = true
	case len(v.Sides) > 1 && math.Abs(v.Sides[0].Score-v.Sides[1].Score) <= margin:
		v.Draw = true
	default:
		v.Winner = v.Sides[0].Side
	}

	conceded := map[string]bool{} // argument IDs conceded by a non-owner
	for _, m := range d.moves {
		switch m.Act {
		case Concede:
			v.Concessions = append(v.Concessions, m)
			if k, ok := d.propIdx[m.Proposition]; ok && d.owner[k] != m.Speaker && d.committed(m.Speaker, m.Proposition) {
				conceded[argID(k)] = true
			}
		case Retract:
			v.Retractions = append(v.Retractions, m)
		}
	}
	v.Strongest = []ScoredArgument{}
	v.ValidPoints = []ScoredArgument{}
	for _, a := range all {
		survives := a.Score > SurvivalThreshold
		switch {
		case v.Draw:
			if survives {
				v.Strongest = append(v.Strongest, a)
			}
		case a.Side == v.Winner:
			if survives {
				v.Strongest = append(v.Strongest, a)
			}
		case survives || conceded[a.ID]:
			v.ValidPoints = append(v.ValidPoints, a)
		}
	}
	slices.SortFunc(v.Strongest, byScore)
	slices.SortFunc(v.ValidPoints, byScore)

	v.Unaddressed = []Challenge{}
	for i, m := range d.moves {
		if m.Act != Why || d.answered(i) {
			continue
		}
		c := Challenge{Move: m.ID, Speaker: m.Speaker, Challenged: d.challenged(&d.moves[i]), Proposition: m.Proposition}
		if k, ok := d.propIdx[m.Proposition]; ok && g != nil && g.Has(argID(k)) {
			c.Argument = argID(k)
		}
		v.Unaddressed = append(v.Unaddressed, c)
	}
	for _, p := range d.participants {
		v.Commitments = append(v.Commitments, CommitmentStore{p, d.commit[p].list(), d.retracted[p].list()})
	}

	v.Metrics = Metrics{
		Moves:       len(d.moves),
		Arguments:   len(d.props),
		Unanswered:  len(v.Unaddressed),
		Concessions: len(v.Concessions),
		Retractions: len(v.Retractions),
	}
	for _, m := range d.moves {
		if m.Act == Why {
			v.Metrics.Challenges++
		}
	}
	if g != nil {
		for _, r := range g.Relations() {
			switch {
			case r.Derivation != Direct:
			case r.Type == Support:
				v.Metrics.Supports++
			case r.Kind == Undercut:
				v.Metrics.Attacks++
				v.Metrics.Undercuts++
			default:
				v.Metrics.Attacks++
				v.Metrics.Rebuts++
			}
		}
	}
	return v
}

// compareScored orders arguments strongest first, then by ID ("A2"
// before "A10").
func compareScored(a, b ScoredArgument) int {
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	return compareIDs(a.ID, b.ID)
}

func compareIDs(a, b string) int {
	if c := cmp.Compare(argOrder(a), argOrder(b)); c != 0 {
		return c
	}
	return cmp.Compare(a, b)
}

// argOrder sorts argument IDs "A2" before "A10"; other IDs after, by text.
func argOrder(id string) int {
	if len(id) < 2 || id[0] != 'A' {
		return math.MaxInt
	}
	n := 0
	for _, c := range id[1:] {
		if c < '0' || c > '9' || n > math.MaxInt/10-10 {
			return math.MaxInt
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// Judge evaluates the dialogue's graph with s (Method Auto: the discrete
// iteration, then the continuous one if it does not converge) and returns
// a Report holding the dialogue, graph, scores and verdict; the caller may
// fill in the topic, participants' personas, context, consensus and
// conditions before rendering it.
func (d *Dialogue) Judge(s Semantics, opt VerdictOptions) (Report, error) {
	g := d.Graph()
	sc, err := EvaluateWith(g, s, Options{Method: Auto})
	if err != nil {
		return Report{}, err
	}
	return Report{
		Dialogue:  d,
		Graph:     g,
		Scores:    sc,
		Semantics: s,
		Verdict:   d.Verdict(g, sc, opt),
	}, nil
}
