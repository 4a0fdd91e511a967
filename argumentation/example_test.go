package argumentation_test

import (
	"fmt"
	"os"

	"github.com/duelogic/duelogic/argumentation"
)

func ExampleEvaluate() {
	g := argumentation.NewGraph()
	for _, id := range []string{"claim", "evidence", "objection"} {
		if err := g.AddArgument(id, 0.5); err != nil {
			panic(err)
		}
	}
	_ = g.AddSupport("evidence", "claim")
	_ = g.AddAttack("objection", "claim", argumentation.Undercut)

	sc, err := argumentation.Evaluate(g, argumentation.Additive)
	if err != nil {
		panic(err)
	}
	// 0.5 + 0.2·0.5 − 0.4·0.5
	fmt.Printf("claim %.2f, converged %v by %v\n", sc.Strength["claim"], sc.Converged, sc.Method)
	// Output:
	// claim 0.40, converged true by exact
}

func ExampleEvaluateWith() {
	// Two arguments of base 1 attacking each other: the discrete DF-QuAD
	// iteration flips between 1 and 0 for ever; Potyka's continuous model
	// settles at 0.5.
	g := argumentation.NewGraph()
	_ = g.AddArgument("a", 1)
	_ = g.AddArgument("b", 1)
	_ = g.AddAttack("a", "b", argumentation.Rebut)
	_ = g.AddAttack("b", "a", argumentation.Rebut)

	sc, _ := argumentation.Evaluate(g, argumentation.DFQuAD)
	fmt.Println("discrete converged:", sc.Converged)

	sc, _ = argumentation.EvaluateWith(g, argumentation.DFQuAD, argumentation.Options{Method: argumentation.Continuous})
	fmt.Printf("continuous converged: %v, a = %.4f\n", sc.Converged, sc.Strength["a"])
	// Output:
	// discrete converged: false
	// continuous converged: true, a = 0.5000
}

func ExamplePreferred() {
	// q and r attack each other, and r undercuts p: either q (which
	// reinstates p) or r wins.
	g := argumentation.NewGraph()
	for _, id := range []string{"p", "q", "r"} {
		_ = g.AddArgument(id, 1)
	}
	_ = g.AddAttack("q", "r", argumentation.Rebut)
	_ = g.AddAttack("r", "q", argumentation.Rebut)
	_ = g.AddAttack("r", "p", argumentation.Undercut)

	fmt.Println("grounded: ", argumentation.Grounded(g))
	fmt.Println("preferred:", argumentation.Preferred(g))
	fmt.Println("stable:   ", argumentation.Stable(g))
	ok, _ := argumentation.CredulouslyAccepted(g, "p", argumentation.DungPreferred)
	fmt.Println("p credulously accepted:", ok)
	// Output:
	// grounded:  []
	// preferred: [[p q] [r]]
	// stable:    [[p q] [r]]
	// p credulously accepted: true
}

func ExampleParseMoves() {
	reply := "Here are the moves:\n```json\n" +
		`{"moves": [{"speaker": "OPP", "act": "why", "proposition": "Go is fast", "target": 1}]}` +
		"\n```"
	moves, err := argumentation.ParseMoves([]byte(reply))
	if err != nil {
		panic(err)
	}
	fmt.Println(moves[0])
	// Output:
	// OPP why "Go is fast" -> 1
}

func ExampleDialogue() {
	d := argumentation.NewDialogue("PRO", "OPP")
	for _, m := range []argumentation.Move{
		{Speaker: "PRO", Act: argumentation.Claim, Proposition: "Adopt Go"},
		{Speaker: "OPP", Act: argumentation.Why, Proposition: "Adopt Go", Target: "M1"},
		{Speaker: "PRO", Act: argumentation.Since, Proposition: "Adopt Go", Reasons: []string{"Fast builds"}, Target: "M2", Round: 1},
		{Speaker: "OPP", Act: argumentation.Claim, Proposition: "Builds are not the bottleneck", Attack: "undercut", Target: "M3", Round: 1},
		{Speaker: "PRO", Act: argumentation.Concede, Proposition: "Builds are not the bottleneck", Target: "M4", Round: 1},
	} {
		if err := d.Apply(m); err != nil {
			panic(err)
		}
	}
	// An illegal move is refused and changes nothing.
	err := d.Apply(argumentation.Move{Speaker: "OPP", Act: argumentation.Concede, Proposition: "Fast builds", Target: "M5"})
	fmt.Println(err)

	report, err := d.Judge(argumentation.Additive, argumentation.VerdictOptions{})
	if err != nil {
		panic(err)
	}
	report.Topic = "Adopt Go?"
	report.Final = true
	if err := report.WriteMarkdown(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// argumentation: illegal move: concede (OPP): concede M5 admits no reply
	// # Debate: "Adopt Go?"
	//
	// ## Participants
	// - **PRO**
	// - **OPP**
	//
	// ## Shared Context (K)
	// _None recorded._
	//
	// ---
	//
	// ## Transcript
	//
	// ### Round 0: Opening
	//
	// **PRO [M1]** `claim` "Adopt Go"
	//
	// **OPP [M2]** `why` "Adopt Go" — reply to [M1]
	//
	// ---
	//
	// ### Round 1: Closing
	//
	// **PRO [M3]** "Adopt Go" `since` {"Fast builds"} — reply to [M2]
	//
	// **OPP [M4]** `claim` "Builds are not the bottleneck" — undercuts [M3]
	//
	// **PRO [M5]** `concede` "Builds are not the bottleneck" — reply to [M4]
	//
	// ---
	//
	// ## Commitment Stores (Final State)
	//
	// | Agent | Commitments | Retractions |
	// |-------|-------------|-------------|
	// | PRO | {Adopt Go, Fast builds, Builds are not the bottleneck} | {} |
	// | OPP | {Builds are not the bottleneck} | {} |
	//
	// ---
	//
	// ## Argumentation Framework
	//
	// _Scores: additive semantics, exact (acyclic graph, 2 levels)._
	//
	// ### Arguments
	//
	// | ID | Content | Source | Score |
	// |----|---------|--------|-------|
	// | A1 | Adopt Go | PRO | 0.20 |
	// | A2 | Fast builds | PRO | 0.50 |
	// | A3 | Builds are not the bottleneck | OPP | 1.00 |
	//
	// ### Relations
	//
	// | From | To | Type | Classification |
	// |------|----|------|----------------|
	// | A2 | A1 | Support | Direct |
	// | A3 | A1 | Attack | Undercutting |
	//
	// ### Argument Map (ASCII)
	//
	// ```
	// [A1] Adopt Go (PRO, 0.20)
	// ├─support── [A2] Fast builds (PRO, 0.50)
	// └─undercut── [A3] Builds are not the bottleneck (OPP, 1.00)
	// ```
	//
	// ---
	//
	// ## Verdict
	//
	// ### Winner: **OPP** (Score: 1.00 vs 0.00)
	//
	// ### Rationale
	// OPP prevails: OPP scores 1.00 from 1 surviving argument (A3 1.00); PRO has no surviving argument (of 2).
	//
	// ### Strongest Surviving Arguments
	// 1. [A3] Builds are not the bottleneck (OPP, 1.00)
	//
	// ### Valid Points from Losing Side
	// _None._
	//
	// ### Unaddressed Challenges
	// _None._
	//
	// ### Concessions and Retractions
	// - [M5] PRO conceded "Builds are not the bottleneck"
	//
	// ### Consensus Solution
	// _Not provided._
	//
	// ### Conditions for Revisiting
	// _Not provided._
	//
	// ### Debate Quality Metrics
	// - Moves: 5
	// - Arguments raised: 3
	// - Attacks: 1 (0 rebuts, 1 undercuts)
	// - Supports: 1
	// - Challenges: 1 (0 unanswered)
	// - Concessions made: 1
	// - Retractions: 0
}
