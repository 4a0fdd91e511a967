package persuasion_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/persuasion"
	"github.com/duelogic/duelogic/store"
)

// A persuasion debate on the offline stub model, with the seed's personas,
// two argumentation rounds and a shared fact, played by the engine with a
// pinned clock. The winner and scores are computed from the argumentation
// framework; the moderator's model only explains them.
func Example() {
	f, err := persuasion.New(persuasion.Config{
		Facts:       []string{"The billing service is 40k lines of Python 2"},
		Perspective: "on-call load",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	d := engine.Debate{ID: "billing-in-go", Proposition: "Should we rewrite the billing service in Go?"}
	at := func() time.Time { return time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC) } // the same output on any day
	res, err := engine.Run(context.Background(), llm.NewStub(1), f, d, engine.WithClock(at))
	if err != nil {
		fmt.Println(err)
		return
	}
	out := res.Detail
	moves, asked := 0, 0
	for _, t := range out.Turns {
		moves += len(t.Moves)
		asked += len(t.Rejected)
	}
	fmt.Printf("%d turns, %d moves, %d replies asked for again, %d utterances\n", len(out.Turns), moves, asked, len(res.Transcript))
	for _, s := range out.Computed.Sides {
		fmt.Printf("%s %.2f (%d of %d arguments survive)\n", s.Side, s.Score, s.Surviving, s.Arguments)
	}
	fmt.Println(out.Verdict().Summary)
	for _, line := range strings.Split(out.Markdown, "\n") {
		if strings.HasPrefix(line, "### Round") || strings.HasPrefix(line, "### Winner") {
			fmt.Println(line)
		}
	}
	// Output:
	// 12 turns, 21 moves, 4 replies asked for again, 13 utterances
	// OPP 2.95 (5 of 11 arguments survive)
	// PRO 1.00 (1 of 8 arguments survive)
	// OPP wins (OPP 2.95 vs PRO 1.00; additive semantics)
	// ### Round 0: Opening
	// ### Round 1: Argumentation
	// ### Round 2: Argumentation
	// ### Round 3: Closing
	// ### Winner: **OPP** (Score: 2.95 vs 1.00)
}

// Any debate the one way: the format opened by name with a JSON
// configuration (the fields left out keep their defaults), played by
// engine.Run into a store, and resumed from the store by its ID alone —
// here a finished debate, which gives back its outcome without a model
// call; a stopped one would be finished. The outcome is an engine.Outcome:
// a verdict and documents, as every format's.
func Example_open() {
	f, err := engine.Open("persuasion", json.RawMessage(`{"maxRounds": 1, "exchanges": 1, "perspective": "on-call load"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, st := context.Background(), store.NewMemory()
	at := func() time.Time { return time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC) }
	d := engine.Debate{ID: "billing-in-go", Proposition: "Should we rewrite the billing service in Go?"}
	res, err := engine.Run(ctx, llm.NewStub(1), f, d, engine.WithStore(st), engine.WithClock(at))
	if err != nil {
		// res, when not nil, holds the debate so far: engine.ResumeStored finishes it.
		fmt.Println(err)
		return
	}
	v := res.Detail.Verdict()
	fmt.Println(res.Format, res.DebateID, len(res.Transcript), "utterances:", v.Summary)
	fmt.Printf("winner %q; the first turn by %q\n", v.Winner, res.Transcript[0].Speaker)

	again, err := engine.ResumeStored(ctx, llm.NewStub(1), "billing-in-go", engine.WithStore(st), engine.WithClock(at))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("resumed:", again.Detail.Verdict().Summary)
	for _, doc := range again.Detail.Documents() {
		fmt.Printf("%s (%s): %s\n", doc.Name, doc.Title, strings.SplitN(doc.Markdown, "\n", 2)[0])
	}
	// Output:
	// persuasion billing-in-go 7 utterances: a draw (PRO 0.60 vs OPP 0.60; additive semantics)
	// winner ""; the first turn by "pro"
	// resumed: a draw (PRO 0.60 vs OPP 0.60; additive semantics)
	// dialogue.md (Persuasion dialogue): # Debate: "Should we rewrite the billing service in Go?"
}

// The debaters speak as "pro" and "opp", the moderator as the engine's
// arbiter; Label names each by the seed's side label and persona, and names
// the side labels that the debaters of earlier versions spoke as the same
// way.
func ExampleFormat_Label() {
	f, err := persuasion.New(persuasion.Config{Pro: persuasion.Persona{Description: "Site reliability engineer"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, speaker := range append(f.Participants(), engine.SpeakerArbiter, persuasion.SidePro) {
		fmt.Printf("%s → %s\n", speaker, f.Label(speaker))
	}
	fmt.Println(persuasion.SpeakerID(persuasion.SideOpp), persuasion.SideOf(persuasion.SpeakerOpp))
	// Output:
	// pro → PRO, the proponent: Site reliability engineer
	// opp → OPP, the opponent: Cautious architect focused on quality and long-term health. Bias: Prefers solutions that minimize risk and technical debt
	// arbiter → MOD, the moderator: Senior staff engineer balancing trade-offs. Bias: None — evaluates argument strength, not rhetoric
	// PRO → PRO, the proponent: Site reliability engineer
	// opp OPP
}

// A debater's reply: JSON moves and the text that makes them.
func ExampleParseTurn() {
	t, err := persuasion.ParseTurn(`{"text": "Builds are cached, so compile speed is beside the point.",
	  "moves": [{"act": "since", "proposition": "Compile speed is irrelevant", "reasons": ["Builds are cached"],
	             "target": "P2", "attack": "undercut"}]}`)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := t.Moves[0]
	fmt.Printf("%s %q %q -> %s (%s)\n", m.Act, m.Proposition, m.Reasons, m.Target, m.Attack)
	fmt.Println(t.Text)
	// Output:
	// since "Compile speed is irrelevant" ["Builds are cached"] -> P2 (undercut)
	// Builds are cached, so compile speed is beside the point.
}
