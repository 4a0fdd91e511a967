package cliapp

import (
	"flag"
	"fmt"
	"strings"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/examples/internal/render"
	"github.com/duelogic/duelogic/scored"
)

var scoredFormat = define(adapter[*scored.Outcome]{
	name:  "scored",
	about: "a scored debate: advocate and challenger argue each category, the arbiter's verdicts move its score",
	// The CLI has no prior evaluation of the idea: the default config
	// starts every category in the middle of the scale.
	format: func(e *env) (engine.Format[*scored.Outcome], error) {
		cfg := scored.DefaultConfig()
		if m := e.opt.model; m != "" {
			cfg.AdvocateModel, cfg.ChallengerModel, cfg.ArbiterModel = m, m, m
		}
		return scored.New(cfg)
	},
	summary: func(r *render.Renderer, res *engine.Result[*scored.Outcome]) {
		var b strings.Builder
		b.WriteString("\n══════ SCORES ══════")
		for _, rd := range res.Detail.Rounds {
			fmt.Fprintf(&b, "\n%-20s %4.1f → %4.1f (%+.1f)", rd.Category.Name, rd.PreScore, rd.PostScore, rd.Delta)
		}
		fmt.Fprintf(&b, "\ntotal adjustment %+.1f", res.Detail.Scores.Total)
		r.Println(b.String())
	},
	docs: func(res *engine.Result[*scored.Outcome]) (map[string]string, error) {
		return map[string]string{"md": res.Detail.Markdown(res.Debate)}, nil
	},
})

// scoredOptions are the flags only the scored format reads (list them in its adapter's
// flags too, so that other formats reject them).
type scoredOptions struct{}

// register declares o's flags on fs.
func (o *scoredOptions) register(fs *flag.FlagSet) {}
