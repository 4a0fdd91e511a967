package cliapp

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/examples/internal/render"
	"github.com/duelogic/duelogic/moderated"
)

var moderatedFormat = define(adapter[*moderated.Outcome]{
	name:  "moderated",
	about: "a moderated debate: engineering perspectives argue rounds, you steer at checkpoints, a moderator synthesizes",
	flags: []string{"perspectives", "max-rounds", "exchanges", "round-timeout", "total-timeout"},
	format: func(e *env) (engine.Format[*moderated.Outcome], error) {
		cfg := moderated.DefaultConfig()
		cfg.Debaters = e.opt.perspectives
		if e.opt.rounds > 0 {
			cfg.MaxRounds = e.opt.rounds
		}
		if t := e.opt.roundTimeout; t > 0 {
			cfg.RoundTimeout = t
		}
		if t := e.opt.totalTimeout; t > 0 {
			cfg.TotalTimeout = t
		}
		if m := e.opt.model; m != "" {
			cfg.ModeratorModel, cfg.DebaterModels = m, []string{m}
		}
		var opts []moderated.Option
		if !e.opt.noCheckpoints {
			opts = append(opts, moderated.WithCheckpointer(checkpointer(e)))
		}
		return moderated.New(cfg, opts...)
	},
	summary: func(r *render.Renderer, res *engine.Result[*moderated.Outcome]) {
		r.Println(fmt.Sprintf("\n══════ SYNTHESIS ══════\nended: %s after %d rounds", res.Detail.EndReason, len(res.Detail.Rounds)))
	},
	docs: func(res *engine.Result[*moderated.Outcome]) (map[string]string, error) {
		return map[string]string{"synthesis.md": res.Detail.Synthesis.Markdown()}, nil
	},
})

// checkpointer asks the person at the terminal after each round; the end
// of input pauses the debate (moderated.ErrPaused).
func checkpointer(e *env) moderated.Checkpointer {
	return moderated.CheckpointFunc(func(ctx context.Context, st moderated.State) (moderated.Decision, error) {
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
	})
}

// moderatedOptions are the flags only the moderated format reads (list them in its adapter's
// flags too, so that other formats reject them).
type moderatedOptions struct{}

// register declares o's flags on fs.
func (o *moderatedOptions) register(fs *flag.FlagSet) {}
