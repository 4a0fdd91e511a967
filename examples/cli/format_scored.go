package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/scored"
)

var scoredFormat = &format{
	name:  "scored",
	about: "a scored debate: advocate and challenger argue each category, the arbiter's verdicts move its score",
	run: func(ctx context.Context, e *env, d duelogic.Debate) (*outcome, error) {
		cfg := scored.DefaultConfig()
		// The CLI has no prior evaluation of the idea: every category
		// starts in the middle of the scale.
		cfg.Evaluations = map[string]scored.Evaluation{}
		for _, c := range cfg.Categories {
			cfg.Evaluations[c.ID] = scored.Evaluation{Score: (cfg.Scale.Min + cfg.Scale.Max) / 2}
		}
		if m := e.opt.model; m != "" {
			cfg.AdvocateModel, cfg.ChallengerModel, cfg.ArbiterModel = m, m, m
		}
		res, err := scored.Run(ctx, e.client, cfg, d, duelogic.WithStore(e.store), duelogic.WithSink(e.sink))
		if errors.Is(err, scored.ErrInvalidConfig) {
			return nil, usageError{err.Error()}
		}
		if err != nil {
			return nil, configError(err)
		}
		return scoredOutcome(res), nil
	},
	resume: func(ctx context.Context, e *env, id string) (*outcome, error) {
		res, err := scored.Resume(ctx, e.client, id, duelogic.WithStore(e.store), duelogic.WithSink(e.sink))
		if err != nil {
			return nil, err
		}
		return scoredOutcome(res), nil
	},
	summary: func(o *outcome) string {
		res := o.full.(*scored.Result)
		var b strings.Builder
		b.WriteString("\n══════ SCORES ══════")
		for _, r := range res.Rounds {
			fmt.Fprintf(&b, "\n%-20s %4.1f → %4.1f (%+.1f)", r.Category.Name, r.PreScore, r.PostScore, r.Delta)
		}
		fmt.Fprintf(&b, "\ntotal adjustment %+.1f", res.Scores.Total)
		return b.String()
	},
}

func scoredOutcome(res *scored.Result) *outcome {
	return &outcome{id: res.DebateID, result: res.Result, full: res, docs: map[string]string{"md": res.Markdown()}}
}
