package moderated_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/moderated"
	"github.com/duelogic/duelogic/store"
)

// A moderated debate on the offline stub model, with a human checkpoint
// that guides the second round, and the decision handed to the host.
func Example() {
	cfg := moderated.DefaultConfig()
	cfg.MaxRounds = 3
	checkpoint := moderated.CheckpointFunc(func(ctx context.Context, st moderated.State) (moderated.Decision, error) {
		if st.Round == 1 {
			return moderated.Decision{Action: moderated.Guide, Guidance: "Focus on our team's PostgreSQL experience."}, nil
		}
		return moderated.Decision{Action: moderated.Continue}, nil
	})
	followUp := func(ctx context.Context, s moderated.Synthesis) error {
		fmt.Printf("follow-up: %q (%s confidence)\n", s.Title, s.Confidence)
		return nil
	}
	f, err := moderated.New(cfg, moderated.WithCheckpointer(checkpoint), moderated.WithFollowUp(followUp))
	if err != nil {
		fmt.Println(err)
		return
	}
	q := engine.Debate{ID: "DEB-cache", Proposition: "Should we use Redis or PostgreSQL for caching? We need to ship fast."}
	// The clock is pinned so the example prints the same on any day.
	at := func() time.Time { return time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC) }
	res, err := engine.Run(context.Background(), llm.NewStub(3), f, q, engine.WithClock(at))
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
	for _, line := range strings.Split(out.Synthesis.Markdown(), "\n") {
		if strings.HasPrefix(line, "## ") || strings.HasPrefix(line, "**Confidence") || strings.HasPrefix(line, "**Date") {
			fmt.Println(line)
		}
	}
	// Output:
	// follow-up: "Should we use Redis or PostgreSQL for caching? We need to ship fast" (High confidence)
	// perspective: Performance Advocate
	// perspective: Operational Simplicity
	// round 1: 2 arguments, 2 rebuttals, guidance ""
	// round 2: 2 arguments, 2 rebuttals, guidance "Focus on our team's PostgreSQL experience."
	// round 3: 2 arguments, 2 rebuttals, guidance ""
	// ended: agreement
	// **Date:** 2026-03-02
	// ## Question
	// ## Perspectives Considered
	// ## Points of Agreement
	// ## Key Tensions
	// ## Recommendation
	// **Confidence:** High
	// ## Dissenting View
}

// Nobody answers the checkpoint, so the debate pauses; List shows it, and
// engine.Resume continues it with a Format whose checkpoint decides.
func ExampleWithCheckpointer() {
	ctx := context.Background()
	st := store.NewMemory()
	at := engine.WithClock(func() time.Time { return time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC) })
	cfg := moderated.DefaultConfig()
	cfg.MaxRounds = 2
	away := moderated.CheckpointFunc(func(context.Context, moderated.State) (moderated.Decision, error) {
		return moderated.Decision{}, moderated.ErrPaused // as when the checkpoint times out
	})
	f, err := moderated.New(cfg, moderated.WithCheckpointer(away))
	if err != nil {
		fmt.Println(err)
		return
	}
	q := engine.Debate{ID: "DEB-auth", Proposition: "Should sign-in use passkeys or passwords?"}
	_, err = engine.Run(ctx, llm.NewStub(3), f, q, engine.WithStore(st), at)
	fmt.Println(err)

	list, _ := moderated.List(ctx, st)
	for _, s := range list {
		fmt.Println(s.DebateID, s.Status, "after round", s.Round)
	}

	end := moderated.CheckpointFunc(func(context.Context, moderated.State) (moderated.Decision, error) {
		return moderated.Decision{Action: moderated.End}, nil
	})
	// The configuration is the stored one; the checkpoint is this one.
	g, _ := moderated.New(moderated.DefaultConfig(), moderated.WithCheckpointer(end))
	res, err := engine.Resume(ctx, llm.NewStub(3), g, "DEB-auth", engine.WithStore(st), at)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(res.Detail.Rounds), "round of at most", res.Detail.Config.MaxRounds, "ended by", res.Detail.EndReason)
	list, _ = moderated.List(ctx, st)
	fmt.Println(list[0].Status)
	// Output:
	// moderated: debate DEB-auth, round 1 checkpoint: engine: debate paused for a person
	// DEB-auth paused after round 1
	// 1 round of at most 2 ended by human
	// complete
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
