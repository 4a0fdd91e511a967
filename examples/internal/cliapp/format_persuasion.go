package cliapp

import (
	"flag"
	"strings"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/persuasion"
)

func init() {
	addFormat(persuasion.FormatName, &formatCLI{
		about:  "a persuasion dialogue: PRO and OPP make protocol-checked moves, the verdict is computed from the argument graph",
		flags:  []string{"max-rounds", "exchanges", "rounds", "perspective"},
		fields: map[string]string{"maxRounds": "max-rounds", "perspective": "perspective"},
		declare: func(fs *flag.FlagSet) any {
			o := new(persuasionFlags)
			fs.StringVar(&o.perspective, "perspective", "", "persuasion: a viewpoint every participant focuses on")
			return o
		},
		config: func(e *env, p patch) error {
			set := map[string]any{}
			if n := e.opt.rounds; n > 0 {
				set["maxRounds"] = n
			}
			if m := e.opt.model; m != "" {
				set["pro.modelId"], set["opp.modelId"], set["mod.modelId"] = m, m, m
			}
			if v := ownFlags[persuasionFlags](e.opt, persuasion.FormatName).perspective; v != "" {
				set["perspective"] = v
			}
			for k, v := range set {
				if err := p.set(k, v); err != nil {
					return err
				}
			}
			return nil
		},
	})
	// The seed's argument graph, as Graphviz DOT, beside the dialogue.
	addView(view[*persuasion.Outcome]{
		more: func(res *engine.Result[engine.Outcome], o *persuasion.Outcome) (map[string]string, error) {
			var dot strings.Builder
			if err := o.Report.WriteDOT(&dot); err != nil {
				return nil, err
			}
			return map[string]string{"dot": dot.String()}, nil
		},
	})
}

// persuasionFlags are the flags only the persuasion format reads.
type persuasionFlags struct {
	perspective string
}
