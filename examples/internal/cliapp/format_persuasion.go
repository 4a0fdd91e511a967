package cliapp

import (
	"flag"
	"os"
	"strings"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/persuasion"
)

func init() {
	addFormat(persuasion.FormatName, &formatCLI{
		about:  "a persuasion dialogue: PRO and OPP make protocol-checked moves, the verdict is computed from the argument graph",
		flags:  []string{"max-rounds", "exchanges", "rounds", "perspective", "facts"},
		fields: map[string]string{"maxRounds": "max-rounds", "perspective": "perspective", "facts": "facts"},
		declare: func(fs *flag.FlagSet) any {
			o := new(persuasionFlags)
			fs.StringVar(&o.perspective, "perspective", "", "persuasion: a viewpoint every participant focuses on")
			fs.StringVar(&o.facts, "facts", "", "persuasion: a file of facts both sides may use (the seed's shared context K), one per line; blank lines and lines starting with # are skipped")
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
			own := ownFlags[persuasionFlags](e.opt, persuasion.FormatName)
			if v := own.perspective; v != "" {
				set["perspective"] = v
			}
			if path := own.facts; path != "" {
				facts, err := readFacts(path)
				if err != nil {
					return err
				}
				set["facts"] = facts
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
	facts       string // --facts: a file of the shared context K
}

// readFacts reads a --facts file: a fact per line, blank lines and lines
// starting with # skipped. A file without a fact is a usage error; the
// facts themselves are checked as the configuration's (facts[2]: ...).
func readFacts(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usagef("--facts %s: %v", path, err)
	}
	var facts []string
	for line := range strings.Lines(string(data)) {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			facts = append(facts, line)
		}
	}
	if len(facts) == 0 {
		return nil, usagef("--facts %s: no facts: give one per line", path)
	}
	return facts, nil
}
