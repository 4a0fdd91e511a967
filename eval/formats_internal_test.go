package eval

import (
	"testing"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/persuasion"
)

// TestReadOutcome: how the yes/no arms read a persuasion outcome.
func TestReadOutcome(t *testing.T) {
	thesis := argumentation.Move{ID: "P1", Speaker: persuasion.SidePro, Proposition: "the answer is yes"}
	withThesis := func(args ...argumentation.ScoredArgument) *persuasion.Outcome {
		return &persuasion.Outcome{Turns: []persuasion.Turn{{Side: persuasion.SidePro, Moves: []argumentation.Move{thesis}}}, Arguments: args}
	}
	arg := func(move, side, text string, score float64) argumentation.ScoredArgument {
		return argumentation.ScoredArgument{Argument: argumentation.Argument{ID: "A" + move, Move: move, Side: side, Text: text}, Score: score}
	}
	for _, tc := range []struct {
		name, arm string
		o         *persuasion.Outcome
		want      string
	}{
		{"pro wins", ArmPersuasion, &persuasion.Outcome{Computed: argumentation.Verdict{Winner: persuasion.SidePro}}, "yes"},
		{"opp wins", ArmPersuasion, &persuasion.Outcome{Computed: argumentation.Verdict{Winner: persuasion.SideOpp}}, "no"},
		{"draw", ArmPersuasion, &persuasion.Outcome{Computed: argumentation.Verdict{Draw: true}}, ""},
		{"no verdict", ArmPersuasion, &persuasion.Outcome{}, ""},
		{"strong thesis", ArmClaimStrength, withThesis(arg("P1", persuasion.SidePro, thesis.Proposition, 0.7)), "yes"},
		{"at the threshold", ArmClaimStrength, withThesis(arg("P1", persuasion.SidePro, thesis.Proposition, ClaimStrengthThreshold)), "yes"},
		{"weak thesis", ArmClaimStrength, withThesis(arg("P1", persuasion.SidePro, thesis.Proposition, 0.2), arg("O1", persuasion.SideOpp, "¬"+thesis.Proposition, 0.9)), "no"},
		{"claimed again", ArmClaimStrength, withThesis(arg("P7", persuasion.SidePro, thesis.Proposition, 0.8)), "yes"},
		{"retracted", ArmClaimStrength, withThesis(arg("O1", persuasion.SideOpp, "¬"+thesis.Proposition, 1)), "no"},
		{"no thesis", ArmClaimStrength, &persuasion.Outcome{}, ""},
	} {
		got, _, err := readOutcome(tc.arm, tc.o)
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}
