package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/persuasion"
)

var persuasionFormat = &format{
	name:  "persuasion",
	about: "a persuasion dialogue: PRO and OPP make protocol-checked moves, the verdict is computed from the argument graph",
	flags: []string{"max-rounds", "exchanges", "rounds", "perspective"},
	run: func(ctx context.Context, e *env, d duelogic.Debate) (*outcome, error) {
		cfg := persuasion.DefaultConfig()
		if n := e.opt.rounds; n > 0 {
			cfg.Rounds = n
		}
		if m := e.opt.model; m != "" {
			cfg.Pro.Model, cfg.Opp.Model, cfg.Mod.Model = m, m, m
		}
		cfg.Perspective = e.opt.perspective
		res, err := persuasion.Run(ctx, e.client, cfg, d, duelogic.WithStore(e.store), duelogic.WithSink(e.sink))
		if errors.Is(err, persuasion.ErrInvalidConfig) {
			return nil, usageError{err.Error()}
		}
		if err != nil {
			return nil, configError(err)
		}
		return persuasionOutcome(res)
	},
	resume: func(ctx context.Context, e *env, id string) (*outcome, error) {
		res, err := persuasion.Resume(ctx, e.client, id, duelogic.WithStore(e.store), duelogic.WithSink(e.sink))
		if err != nil {
			return nil, err
		}
		return persuasionOutcome(res)
	},
	summary: func(o *outcome) string {
		res := o.full.(*persuasion.Result)
		v := res.Verdict
		var scores []string
		for _, s := range v.Sides {
			scores = append(scores, fmt.Sprintf("%s %.2f", s.Side, s.Score))
		}
		winner := v.Winner + " wins"
		if v.Draw {
			winner = "a draw"
		}
		return fmt.Sprintf("\n══════ VERDICT ══════\n%s (%s; %s semantics)\n%s",
			winner, strings.Join(scores, " vs "), res.Config.Semantics, strings.TrimSpace(res.Moderation.Consensus))
	},
}

func persuasionOutcome(res *persuasion.Result) (*outcome, error) {
	var dot strings.Builder
	if err := res.Report.WriteDOT(&dot); err != nil {
		return nil, err
	}
	return &outcome{id: res.DebateID, result: res.Result, full: res, docs: map[string]string{"md": res.Markdown, "dot": dot.String()}}, nil
}
