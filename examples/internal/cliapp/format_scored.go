package cliapp

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/examples/internal/render"
	"github.com/duelogic/duelogic/scored"
)

func init() {
	addFormat(scored.FormatName, &formatCLI{
		about: "a scored debate: advocate and challenger argue each category, the arbiter's verdicts move its score",
		flags: []string{"evidence"},
		declare: func(fs *flag.FlagSet) any {
			o := new(scoredFlags)
			fs.StringVar(&o.evidence, "evidence", "", `scored: a JSON file of what is known of the idea: {"evaluations": {"problem": {"score": 7, "evidence": ["..."]}, ...}, "challenges": [{"category": "market", "text": "...", "severity": "high"}]}; categories problem, solution, market on a 1-10 scale; without it every score starts at the neutral 5.5`)
			return o
		},
		config: scoredConfig,
		// Both sides argue at once, and rebut at once: each speech is
		// printed whole with its utterance, in the transcript's order.
		live: func(*engine.Utterance) bool { return false },
	})
	// The score of each category, and whether it started from a neutral
	// default: without --evidence the command knows nothing of the idea,
	// and says so beside the scores.
	addView(view[*scored.Outcome]{
		show: func(r *render.Renderer, _ *engine.Result[engine.Outcome], o *scored.Outcome) {
			var b strings.Builder
			b.WriteString("\n══════ SCORES ══════")
			for _, rd := range o.Rounds {
				fmt.Fprintf(&b, "\n%-20s %s → %s (%s)", rd.Category.Name, score(rd.PreScore), score(rd.PostScore), signed(rd.Delta))
				if o.Config.Evaluations[rd.Category.ID].Neutral {
					b.WriteString("  from a neutral default")
				}
			}
			fmt.Fprintf(&b, "\ntotal adjustment %s", signed(o.Scores.Total))
			if n := neutralNote(o.Config); n != "" {
				b.WriteString("\n" + n)
			}
			r.Println(b.String())
		},
	})
}

// scoredFlags are the flags only the scored format reads.
type scoredFlags struct {
	evidence string
}

// scoredConfig sets the scored debate's fields the flags given change: the
// evaluations and challenges of the evidence file (--evidence) and the
// model (--model seats it everywhere). Without evidence every category
// starts at the middle of the scale, marked neutral, and the command says
// so before the debate.
func scoredConfig(e *env, p patch) error {
	cfg := scored.DefaultConfig()
	if path := ownFlags[scoredFlags](e.opt, scored.FormatName).evidence; path != "" {
		ev, err := readEvidence(path)
		if err != nil {
			return err
		}
		if cfg, err = ev.Apply(cfg); err != nil {
			return evidenceError(path, err)
		}
		if err := p.set("evaluations", cfg.Evaluations); err != nil {
			return err
		}
		if err := p.set("challenges", cfg.Challenges); err != nil {
			return err
		}
	}
	if m := e.opt.model; m != "" {
		for _, f := range []string{"advocateModel", "challengerModel", "arbiterModel"} {
			if err := p.set(f, m); err != nil {
				return err
			}
		}
	}
	if n := neutralNote(cfg); n != "" {
		fmt.Fprintln(e.stderr, "debate: "+n)
	}
	return nil
}

// score is a score as the verdict card and the Markdown show it: rounded
// to two decimals, without trailing zeros ("5.5", "6.16").
func score(f float64) string {
	return strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64)
}

// signed is a change of score as the verdict card and the Markdown show
// it: two decimals and a sign ("+0.66", "-0.50", "±0.00").
func signed(f float64) string {
	f = math.Round(f*100) / 100
	if f == 0 {
		return "±0.00"
	}
	return fmt.Sprintf("%+.2f", f)
}

// neutralNote says which categories of cfg start from a neutral default
// score, or "" when none does.
func neutralNote(cfg scored.Config) string {
	var names []string
	var mid float64
	for _, c := range cfg.Categories {
		if ev := cfg.Evaluations[c.ID]; ev.Neutral {
			names = append(names, c.Name)
			mid = ev.Score
		}
	}
	switch {
	case len(names) == 0:
		return ""
	case len(names) == len(cfg.Categories):
		return fmt.Sprintf("no evaluation of the idea (--evidence FILE): every category starts at the neutral default %g, "+
			"so the scores measure the arguments alone", mid)
	}
	return fmt.Sprintf("no evaluation of %s in the evidence: starting from the neutral default %g", strings.Join(names, ", "), mid)
}

// maxEvidenceBytes bounds an evidence file.
const maxEvidenceBytes = 1 << 20

// readEvidence reads and parses the evidence file at path.
func readEvidence(path string) (scored.Evidence, error) {
	f, err := os.Open(path)
	if err != nil {
		return scored.Evidence{}, usagef("--evidence: %v", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxEvidenceBytes+1))
	if err != nil {
		return scored.Evidence{}, usagef("--evidence: read %s: %v", path, err)
	}
	if len(data) > maxEvidenceBytes {
		return scored.Evidence{}, usagef("--evidence %s: larger than %d bytes", path, maxEvidenceBytes)
	}
	ev, err := scored.ParseEvidence(data)
	if err != nil {
		return scored.Evidence{}, evidenceError(path, err)
	}
	return ev, nil
}

// evidenceError is a usage error naming the file and, one a line, each
// problem of its evidence by JSON path.
func evidenceError(path string, err error) error {
	var ee *scored.EvidenceError
	if !errors.As(err, &ee) {
		return usagef("--evidence %s: %v", path, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--evidence %s: invalid evidence file:", path)
	for _, v := range ee.Violations {
		b.WriteString("\n  ")
		if v.Field != "" {
			b.WriteString(v.Field + ": ")
		}
		b.WriteString(v.Problem)
	}
	return usageError{b.String()}
}
