package argumentation

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// threeSides has one claim per side (A1 by X, A2 by Y, A3 by Z), a fourth
// by X (A4), and a why by Z on A1 that X never answers.
func threeSides(t *testing.T) (*Dialogue, *Graph) {
	d := NewDialogue("X", "Y", "Z", "W")
	for _, m := range []Move{
		{Speaker: "X", Act: Claim, Proposition: "p"},
		{Speaker: "Y", Act: Claim, Proposition: "¬p", Target: "M1"},
		{Speaker: "Z", Act: Claim, Proposition: "r"},
		{Speaker: "X", Act: Claim, Proposition: "s"},
		{Speaker: "Z", Act: Why, Proposition: "p", Target: "M1"},
		{Speaker: "Y", Act: Concede, Proposition: "s", Target: "M4"},
	} {
		if err := d.Apply(m); err != nil {
			t.Fatal(err)
		}
	}
	return d, d.Graph()
}

func TestVerdictWinnerRule(t *testing.T) {
	d, g := threeSides(t)
	tests := []struct {
		name     string
		scores   map[string]float64
		opt      VerdictOptions
		winner   string
		draw     bool
		sides    []SideScore
		survived []string
	}{
		{
			name:   "sum of surviving strengths",
			scores: map[string]float64{"A1": 0.6, "A2": 0.9, "A3": 0.5, "A4": 0.55},
			winner: "X", // 0.6 + 0.55 = 1.15 > 0.9; A3 at 0.5 does not survive
			sides: []SideScore{
				{Side: "X", Score: 1.15, Surviving: 2, Arguments: 2},
				{Side: "Y", Score: 0.9, Surviving: 1, Arguments: 1},
				{Side: "Z", Score: 0, Surviving: 0, Arguments: 1},
				{Side: "W"},
			},
			survived: []string{"A2", "A1", "A4"},
		},
		{
			name:   "draw within the default margin",
			scores: map[string]float64{"A1": 0.6, "A2": 0.605, "A4": 0},
			draw:   true,
			sides: []SideScore{
				{Side: "Y", Score: 0.605, Surviving: 1, Arguments: 1},
				{Side: "X", Score: 0.6, Surviving: 1, Arguments: 2},
				{Side: "Z", Arguments: 1},
				{Side: "W"},
			},
			survived: []string{"A2", "A1"},
		},
		{
			name:   "exact ties only",
			scores: map[string]float64{"A1": 0.6, "A2": 0.605},
			opt:    VerdictOptions{DrawMargin: -1},
			winner: "Y",
			sides: []SideScore{
				{Side: "Y", Score: 0.605, Surviving: 1, Arguments: 1},
				{Side: "X", Score: 0.6, Surviving: 1, Arguments: 2},
				{Side: "Z", Arguments: 1},
				{Side: "W"},
			},
			survived: []string{"A2", "A1"},
		},
		{
			name:     "nothing survives",
			scores:   map[string]float64{},
			draw:     true,
			sides:    []SideScore{{Side: "X", Arguments: 2}, {Side: "Y", Arguments: 1}, {Side: "Z", Arguments: 1}, {Side: "W"}},
			survived: []string{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := d.Verdict(g, Scores{Strength: tc.scores, Converged: true}, tc.opt)
			if v.Winner != tc.winner || v.Draw != tc.draw {
				t.Errorf("winner %q draw %v, want %q %v", v.Winner, v.Draw, tc.winner, tc.draw)
			}
			if diff := cmp.Diff(tc.sides, v.Sides, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("Sides (-want +got):\n%s", diff)
			}
			var ids []string
			for _, a := range v.Surviving {
				ids = append(ids, a.ID)
			}
			if diff := cmp.Diff(tc.survived, ids, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Surviving (-want +got):\n%s", diff)
			}
		})
	}
}

func TestVerdictDetails(t *testing.T) {
	d, g := threeSides(t)
	v := d.Verdict(g, Scores{Strength: map[string]float64{"A1": 0.7, "A2": 0.2, "A3": 0.6, "A4": 0.4}, Converged: true}, VerdictOptions{})
	if v.Winner != "X" {
		t.Fatalf("winner %q, want X (0.7 vs Z's 0.6)", v.Winner)
	}
	ids := func(as []ScoredArgument) []string {
		out := []string{}
		for _, a := range as {
			out = append(out, a.ID)
		}
		return out
	}
	if diff := cmp.Diff([]string{"A1"}, ids(v.Strongest)); diff != "" {
		t.Errorf("Strongest (-want +got):\n%s", diff)
	}
	// Z's surviving A3; X's A4 is the winner's, so not a losing point even
	// though Y conceded it.
	if diff := cmp.Diff([]string{"A3"}, ids(v.ValidPoints)); diff != "" {
		t.Errorf("ValidPoints (-want +got):\n%s", diff)
	}
	want := []Challenge{{Move: "M5", Speaker: "Z", Challenged: "X", Proposition: "p", Argument: "A1"}}
	if diff := cmp.Diff(want, v.Unaddressed); diff != "" {
		t.Errorf("Unaddressed (-want +got):\n%s", diff)
	}
	wantMetrics := Metrics{Moves: 6, Arguments: 4, Attacks: 2, Rebuts: 2, Challenges: 1, Unanswered: 1, Concessions: 1}
	if diff := cmp.Diff(wantMetrics, v.Metrics); diff != "" {
		t.Errorf("Metrics (-want +got):\n%s", diff)
	}
	if len(v.Commitments) != 4 || v.Commitments[3].Participant != "W" || len(v.Commitments[3].Commitments) != 0 {
		t.Errorf("Commitments = %+v, want four stores, W's empty", v.Commitments)
	}
	// A1 was challenged and never defended: its base is lowered.
	if a, _ := g.Argument("A1"); a.Base != ChallengedBase {
		t.Errorf("A1 base %v, want ChallengedBase", a.Base)
	}
	if a, _ := g.Argument("A4"); a.Base != ConcededBase {
		t.Errorf("A4 base %v, want ConcededBase", a.Base)
	}
}

func TestJudgeSample(t *testing.T) {
	r := sampleReport(t)
	v := r.Verdict
	if !r.Scores.Converged || v.Winner != "OPP" || v.Draw {
		t.Fatalf("verdict %+v on scores %+v", v, r.Scores)
	}
	if diff := cmp.Diff([]string{"A6", "A4"}, []string{v.Surviving[0].ID, v.Surviving[1].ID}); diff != "" {
		t.Errorf("Surviving (-want +got):\n%s", diff)
	}
	if _, err := NewDialogue().Judge(Semantics{}, VerdictOptions{}); err == nil {
		t.Error("Judge with the zero Semantics: no error")
	}
}
