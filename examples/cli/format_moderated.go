package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/moderated"
)

var moderatedFormat = &format{
	name:  "moderated",
	about: "a moderated debate: engineering perspectives argue rounds, you steer at checkpoints, a moderator synthesizes",
	flags: []string{"perspectives", "max-rounds", "exchanges"},
	run: func(ctx context.Context, e *env, d duelogic.Debate) (*outcome, error) {
		cfg := moderated.DefaultConfig()
		cfg.Debaters = e.opt.perspectives
		if e.opt.rounds > 0 {
			cfg.MaxRounds = e.opt.rounds
		}
		if m := e.opt.model; m != "" {
			cfg.ModeratorModel, cfg.DebaterModels = m, []string{m}
		}
		res, err := moderated.Run(ctx, e.client, cfg, d, moderatedHooks(e), duelogic.WithStore(e.store), duelogic.WithSink(e.sink))
		if errors.Is(err, moderated.ErrInvalidConfig) {
			return nil, usageError{err.Error()}
		}
		return moderatedOutcome(d.ID, res, err)
	},
	resume: func(ctx context.Context, e *env, id string) (*outcome, error) {
		res, err := moderated.Resume(ctx, e.client, id, moderatedHooks(e), duelogic.WithStore(e.store), duelogic.WithSink(e.sink))
		return moderatedOutcome(id, res, err)
	},
	summary: func(o *outcome) string {
		res := o.full.(*moderated.Result)
		return fmt.Sprintf("\n══════ SYNTHESIS ══════\nended: %s after %d rounds", res.EndReason, len(res.Rounds))
	},
}

// moderatedHooks asks a person at each checkpoint, unless --no-checkpoints.
func moderatedHooks(e *env) moderated.Hooks {
	if e.opt.noCheckpoints {
		return moderated.Hooks{}
	}
	return moderated.Hooks{Checkpointer: moderated.CheckpointFunc(func(ctx context.Context, st moderated.State) (moderated.Decision, error) {
		// Show the round, down to the moderator's judgment, before asking.
		e.shown.wait(ctx, moderated.KindJudgment, st.Round, 5*time.Second)
		e.render.Clear()
		summary := ""
		if n := len(st.Rounds); n > 0 {
			summary = strings.TrimSpace(st.Rounds[n-1].Judgment.Summary)
		}
		act, guidance := askCheckpoint(ctx, e.stdin, e.stdout, fmt.Sprintf("Round %d Complete", st.Round), summary)
		switch act {
		case actGuide:
			return moderated.Decision{Action: moderated.Guide, Guidance: guidance}, nil
		case actEnd:
			return moderated.Decision{Action: moderated.End}, nil
		case actPause:
			return moderated.Decision{}, fmt.Errorf("%w: no answer at the checkpoint", moderated.ErrPaused)
		}
		return moderated.Decision{Action: moderated.Continue}, nil
	})}
}

func moderatedOutcome(id string, res *moderated.Result, err error) (*outcome, error) {
	if errors.Is(err, moderated.ErrPaused) {
		return &outcome{id: id, paused: true}, nil
	}
	if err != nil {
		return nil, err
	}
	return &outcome{id: res.DebateID, result: res.Result, full: res, docs: map[string]string{"synthesis.md": res.Synthesis.Markdown()}}, nil
}
