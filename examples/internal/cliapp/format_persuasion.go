package cliapp

import (
	"fmt"
	"strings"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/examples/internal/render"
	"github.com/duelogic/duelogic/persuasion"
)

var persuasionFormat = define(adapter[*persuasion.Outcome]{
	name:   "persuasion",
	about:  "a persuasion dialogue: PRO and OPP make protocol-checked moves, the verdict is computed from the argument graph",
	flags:  []string{"max-rounds", "exchanges", "rounds", "perspective"},
	fields: map[string]string{"rounds": "max-rounds", "perspective": "perspective"},
	format: func(e *env) (engine.Format[*persuasion.Outcome], error) {
		cfg := persuasion.DefaultConfig()
		if n := e.opt.rounds; n > 0 {
			cfg.Rounds = n
		}
		if m := e.opt.model; m != "" {
			cfg.Pro.Model, cfg.Opp.Model, cfg.Mod.Model = m, m, m
		}
		cfg.Perspective = e.opt.perspective
		return persuasion.New(cfg)
	},
	summary: func(r *render.Renderer, res *engine.Result[*persuasion.Outcome]) {
		o := res.Detail
		var scores []string
		for _, s := range o.Computed.Sides {
			scores = append(scores, fmt.Sprintf("%s %.2f", s.Side, s.Score))
		}
		winner := o.Computed.Winner + " wins"
		if o.Computed.Draw {
			winner = "a draw"
		}
		r.Println(fmt.Sprintf("\n══════ VERDICT ══════\n%s (%s; %s semantics)\n%s",
			winner, strings.Join(scores, " vs "), o.Config.Semantics, strings.TrimSpace(o.Moderation.Consensus)))
	},
	docs: func(res *engine.Result[*persuasion.Outcome]) (map[string]string, error) {
		var dot strings.Builder
		if err := res.Detail.Report.WriteDOT(&dot); err != nil {
			return nil, err
		}
		return map[string]string{"md": res.Detail.Markdown, "dot": dot.String()}, nil
	},
})
