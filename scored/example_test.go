package scored_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/scored"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/storetest"
)

// A scored debate of an evaluated idea on the offline stub model: three
// rounds, each judged, each verdict moving its category's score.
func Example() {
	cfg := scored.Config{
		Evaluations: map[string]scored.Evaluation{
			"problem":  {Score: 6.5, Evidence: []string{"12 of 15 interviewed clinic managers spend over 5 hours a week on scheduling"}},
			"solution": {Score: 5, Evidence: []string{"A prototype cut scheduling time by 40% in a one-week pilot"}},
			"market":   {Score: 4, Evidence: []string{"About 9,000 small clinics in the region"}},
		},
		Challenges: []scored.Challenge{
			{Category: "market", Text: "Incumbent EHR vendors bundle scheduling for free", Severity: "high"},
		},
	}
	f, err := scored.New(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	idea := engine.Debate{
		ID:          "clinic-scheduler",
		Proposition: "A scheduling assistant for small clinics",
	}
	at := func() time.Time { return time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC) } // the same output on any day
	res, err := engine.Run(context.Background(), llm.NewStub(1), f, idea, engine.WithClock(at))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res.Detail.Rounds {
		fmt.Printf("%-18s %-10s %.2f -> %.2f\n", r.Category.Name, r.Verdict.Winner, r.PreScore, r.PostScore)
	}
	fmt.Printf("total change %+.2f, %d utterances\n", res.Detail.Scores.Total, len(res.Transcript))
	fmt.Println(res.Detail.Verdict().Summary)
	// Output:
	// Problem Validity   advocate   6.50 -> 7.38
	// Solution Fit       advocate   5.00 -> 5.80
	// Market Opportunity advocate   4.00 -> 4.65
	// total change +2.33, 15 utterances
	// advocate wins: total score 15.5 → 17.83 (+2.33) over 3 rounds (advocate 3, challenger 0, draw 0)
}

// The one way to play any format: open it by name with its configuration
// as JSON (fields left out take the defaults), run it, and when it stops —
// here its store fails partway — finish it with engine.ResumeStored, which
// reads the format and its configuration from the store.
func Example_openRunResume() {
	ctx := context.Background()
	f, err := engine.Open(scored.FormatName, json.RawMessage(`{"maxAdjustment": 2}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	st := store.NewMemory()
	diskFull := errors.New("disk full")
	idea := engine.Debate{ID: "meal-planner", Proposition: "A meal-planning app for busy families"}
	res, err := engine.Run(ctx, llm.NewStub(2), f, idea, engine.WithStore(storetest.FailAfter(st, 12, diskFull)))
	fmt.Println("stopped:", errors.Is(err, diskFull), res.DebateID, res.Format)

	res, err = engine.ResumeStored(ctx, llm.NewStub(2), res.DebateID, engine.WithStore(st))
	if err != nil {
		fmt.Println(err)
		return
	}
	v := res.Detail.Verdict()
	fmt.Printf("winner %q: %s\n", v.Winner, v.Summary)
	for _, d := range res.Detail.Documents() {
		fmt.Println(d.Name, "-", d.Title)
	}
	// Output:
	// stopped: true meal-planner scored
	// winner "advocate": advocate wins: total score 16.5 → 18.22 (+1.72) over 3 rounds (advocate 2, challenger 1, draw 0)
	// debate.md - Scored debate
}

// The score rule: a win moves the score by MaxAdjustment × confidence towards
// the winner, a draw not at all, and the score never leaves the scale.
func ExampleAdjust() {
	scale := scored.Scale{Min: 1, Max: 10}
	for _, v := range []scored.Verdict{
		{Winner: scored.WinnerAdvocate, Confidence: 0.8},
		{Winner: scored.WinnerChallenger, Confidence: 0.5},
		{Winner: scored.WinnerDraw, Confidence: 0.9},
	} {
		post, delta := scored.Adjust(6, v, 1, scale)
		fmt.Printf("%-10s 6 -> %.2f (%+.2f)\n", v.Winner, post, delta)
	}
	post, delta := scored.Adjust(9.7, scored.Verdict{Winner: scored.WinnerAdvocate, Confidence: 0.9}, 1, scale)
	fmt.Printf("clamped    9.7 -> %.2f (%+.2f)\n", post, delta)
	// Output:
	// advocate   6 -> 6.80 (+0.80)
	// challenger 6 -> 5.50 (-0.50)
	// draw       6 -> 6.00 (+0.00)
	// clamped    9.7 -> 10.00 (+0.30)
}

// An evidence file read and applied to the default configuration: the
// category it leaves out starts from a neutral default, and a mistake in it
// is named by its JSON path.
func ExampleParseEvidence() {
	ev, err := scored.ParseEvidence([]byte(`{
  "evaluations": {"problem": {"score": 7, "evidence": ["40% of clinics double-book weekly"]},
                  "market": {"score": 4.5}},
  "challenges": [{"category": "market", "text": "Incumbents bundle scheduling for free", "severity": "high"}]
}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg, err := ev.Apply(scored.DefaultConfig())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range cfg.Categories {
		e := cfg.Evaluations[c.ID]
		fmt.Printf("%-8s %.1f neutral=%v\n", c.ID, e.Score, e.Neutral)
	}
	_, err = scored.ParseEvidence([]byte(`{"evaluations": {"problem": {"score": "high"}}}`))
	fmt.Println(err)
	// Output:
	// problem  7.0 neutral=false
	// solution 5.5 neutral=true
	// market   4.5 neutral=false
	// scored: invalid evidence: evaluations["problem"].score: want a number, got a string
}
