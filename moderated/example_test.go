package moderated_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/moderated"
	"github.com/duelogic/duelogic/store"
)

// A moderated debate on the offline stub model: its person, an
// engine.Human, guides the second round, approves the synthesis and wants a
// workflow, to which the decision is handed.
func Example() {
	cfg := moderated.DefaultConfig()
	cfg.MaxRounds = 3
	person := engine.HumanFunc(func(ctx context.Context, q engine.Question) (engine.Answer, error) {
		switch q.Kind {
		case engine.QuestionCheckpoint: // q.Text says how the round went
			if strings.HasPrefix(q.Text, "Round 1 ") {
				return engine.Answer{Choice: string(moderated.Guide), Text: "Focus on our team's PostgreSQL experience."}, nil
			}
			return engine.Answer{Choice: string(moderated.Continue)}, nil
		case engine.QuestionApproval: // q.Text is the synthesis
			return engine.Answer{Choice: moderated.ChoiceApprove, Text: "Agreed."}, nil
		}
		return engine.Answer{Choice: q.Choices[0]}, nil // the workflow: yes
	})
	followUp := func(ctx context.Context, s moderated.Synthesis) error {
		fmt.Printf("follow-up: %q (%s confidence, %s)\n", s.Title, s.Confidence, s.Approval.Status)
		return nil
	}
	f, err := moderated.New(cfg, moderated.WithFollowUp(followUp))
	if err != nil {
		fmt.Println(err)
		return
	}
	q := engine.Debate{ID: "DEB-cache", Proposition: "Should we use Redis or PostgreSQL for caching? We need to ship fast."}
	// The clock is pinned so the example prints the same on any day.
	at := func() time.Time { return time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC) }
	res, err := engine.Run(context.Background(), llm.NewStub(3), f, q, engine.WithHuman(person), engine.WithClock(at))
	if err != nil {
		fmt.Println(err)
		return
	}
	out := res.Detail
	for _, p := range out.Perspectives {
		fmt.Println("perspective:", p.Name)
	}
	for _, r := range out.Rounds {
		fmt.Printf("round %d: %d arguments, %d rebuttals, guidance %q\n", r.Number, len(r.Arguments), len(r.Rebuttals), r.Guidance)
	}
	fmt.Println("ended:", out.EndReason)
	for _, doc := range out.Documents() {
		fmt.Println("document:", doc.Name)
	}
	for _, line := range strings.Split(out.Documents()[0].Markdown, "\n") {
		if strings.HasPrefix(line, "## ") || strings.HasPrefix(line, "**Confidence") || strings.HasPrefix(line, "**Date") || strings.HasPrefix(line, "**Status") {
			fmt.Println(line)
		}
	}
	// Output:
	// follow-up: "Should we use Redis or PostgreSQL for caching? We need to ship fast" (Low confidence, approved)
	// perspective: Performance Advocate
	// perspective: Operational Simplicity
	// round 1: 2 arguments, 2 rebuttals, guidance ""
	// round 2: 2 arguments, 2 rebuttals, guidance "Focus on our team's PostgreSQL experience."
	// round 3: 2 arguments, 2 rebuttals, guidance ""
	// ended: max_rounds
	// document: decision.md
	// document: synthesis.md
	// **Date:** 2026-03-02
	// **Status:** Approved — Agreed.
	// ## Question
	// ## Perspectives Considered
	// ## Points of Agreement
	// ## Key Tensions
	// ## Recommendation
	// **Confidence:** Low
	// ## Dissenting View
}

// The one way to play a moderated debate by name: engine.Open with its
// configuration as JSON, engine.Run, and engine.ResumeStored for a debate
// that stopped — here, paused at the checkpoint after round 1 by a person
// who will answer later, whose question engine.Pending reads from the
// store.
func Example_open() {
	ctx := context.Background()
	st := store.NewMemory()
	at := engine.WithClock(func() time.Time { return time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC) })
	f, err := engine.Open("moderated", json.RawMessage(`{"maxRounds": 2}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	later := engine.HumanFunc(func(context.Context, engine.Question) (engine.Answer, error) {
		return engine.Answer{}, engine.ErrPaused
	})
	q := engine.Debate{ID: "DEB-auth", Proposition: "Should sign-in use passkeys or passwords?"}
	res, err := engine.Run(ctx, llm.NewStub(2), f, q, engine.WithStore(st), engine.WithHuman(later), at)
	fmt.Println(errors.Is(err, engine.ErrPaused), res.DebateID, len(res.Transcript), "utterances so far")

	recs, _ := st.Records(ctx, "DEB-auth")
	if pending, ok := engine.Pending(recs); ok {
		fmt.Println("pending:", pending.Kind, pending.Choices)
	}
	list, _ := moderated.List(ctx, st)
	fmt.Println(list[0].Status, "after round", list[0].Round)

	end := engine.HumanFunc(func(_ context.Context, q engine.Question) (engine.Answer, error) {
		if q.Kind == engine.QuestionCheckpoint {
			return engine.Answer{Choice: string(moderated.End)}, nil
		}
		return engine.Answer{Choice: q.Choices[0]}, nil
	})
	res, err = engine.ResumeStored(ctx, llm.NewStub(2), "DEB-auth", engine.WithStore(st), engine.WithHuman(end), at)
	if err != nil {
		fmt.Println(err)
		return
	}
	out := res.Detail.(*moderated.Outcome)
	fmt.Println(len(out.Rounds), "round of at most", out.Config.MaxRounds, "ended by", out.EndReason)
	v := res.Detail.Verdict()
	fmt.Printf("winner %q, summary %.40s…\n", v.Winner, v.Summary)
	// Output:
	// true DEB-auth 7 utterances so far
	// pending: checkpoint [continue guide end]
	// paused after round 1
	// 1 round of at most 2 ended by human
	// winner "", summary recommendation: Take the path the Perfor…
}

// Repetition measures how much of an argument repeats the previous round's.
func ExampleRepetition() {
	prev := "Redis keeps hot keys in memory, so reads stay under a millisecond at peak load."
	same := "Redis keeps hot keys in memory, so reads stay under a millisecond at peak load. I stand by that."
	fresh := "PostgreSQL already runs here; one fewer service means one fewer pager alert."
	fmt.Printf("%.2f %v\n", moderated.Repetition(prev, same), moderated.Repeats(prev, same))
	fmt.Printf("%.2f %v\n", moderated.Repetition(prev, fresh), moderated.Repeats(prev, fresh))
	// Output:
	// 0.76 true
	// 0.00 false
}
