package cliapp

import (
	"flag"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/formal"
)

func init() {
	addFormat(formal.FormatName, &formatCLI{
		about: "a formal debate: chair, promoter and detractor, sources verified, an audience verdict;\n" +
			"              --out writes the seed's <out>/<timestamp>-<slug>/ (documents and debate-log.jsonl)",
		flags: []string{"max-rounds", "exchanges", "min-rounds", "time-budget", "topic-prompt"},
		fields: map[string]string{"maxRounds": "max-rounds", "minRounds": "min-rounds", "timeBudget": "time-budget",
			"topicPrompt": "topic-prompt"},
		declare: func(fs *flag.FlagSet) any {
			o := new(formalFlags)
			fs.IntVar(&o.minRounds, "min-rounds", 0, "formal: the rounds played before the chair may end the debate (the seed's min_rounds); 0: the format's default, 3")
			fs.DurationVar(&o.timeBudget, "time-budget", formal.DefaultConfig().TimeBudget, "formal: after --min-rounds, the chair ends the rounds once this much time has passed since the start; 0: no budget")
			fs.StringVar(&o.topicPrompt, "topic-prompt", "", "formal: the topic debated when no question is given (the seed's topic_prompt)")
			return o
		},
		// The seed's Step B: without a question, the topic prompt.
		question: func(o *options) string {
			t, err := formal.Config{TopicPrompt: ownFlags[formalFlags](o, formal.FormatName).topicPrompt}.Topic("")
			if err != nil {
				return ""
			}
			return t
		},
		config: formalConfig,
		// The cited pages are fetched only when a real model cites them
		// (the stub's are made up).
		prepare: func(e *env, f any) error {
			if ff, ok := f.(*formal.Format); ok && e.opt.baseURL != "" {
				formal.WithVerifier(formal.FetchThenJudge(formal.HTTPOptions{}))(ff)
			}
			return nil
		},
	})
	// The seed's layout: <out>/<timestamp>-<slug>/ named by the debate's
	// recorded start, so a resumed or replayed debate writes the same
	// directory; its documents are the outcome's, beside its log.
	addView(view[*formal.Outcome]{
		write: func(res *engine.Result[engine.Outcome], o *formal.Outcome, dir string) ([]string, error) {
			_, files, err := formal.WriteOutput(dir, res.Debate.Proposition, o)
			return files, err
		},
	})
}

// formalFlags are the flags only the formal format reads.
type formalFlags struct {
	minRounds   int
	timeBudget  time.Duration
	topicPrompt string
}

// formalConfig sets the formal debate's fields the flags given change: the
// rounds (--max-rounds, --min-rounds; one given alone moves the other as
// far as it must), the time budget, the topic prompt and the model
// (--model seats it everywhere).
func formalConfig(e *env, p patch) error {
	o, own := e.opt, ownFlags[formalFlags](e.opt, formal.FormatName)
	// --min-rounds alone moves the maximum with it: name it, not the
	// maximum, when it is out of range.
	switch n := own.minRounds; {
	case n < 0:
		return usagef("--min-rounds %d: must not be negative", n)
	case n > formal.MaxRoundsLimit:
		return usagef("--min-rounds %d: must be at most %d", n, formal.MaxRoundsLimit)
	}
	def := formal.DefaultConfig()
	set := map[string]any{}
	if n := o.rounds; n > 0 {
		set["maxRounds"], set["minRounds"] = n, min(def.MinRounds, n)
	}
	if n := own.minRounds; n > 0 {
		set["minRounds"] = n
		if o.rounds == 0 {
			set["maxRounds"] = max(def.MaxRounds, n)
		}
	}
	if o.set["time-budget"] {
		set["timeBudget"] = own.timeBudget.String()
	}
	if own.topicPrompt != "" {
		set["topicPrompt"] = own.topicPrompt
	}
	if m := o.model; m != "" {
		for _, f := range []string{"chairModel", "promoterModel", "detractorModel", "verifierModel", "audienceModel", "reporterModel", "assessorModel"} {
			set[f] = m
		}
	}
	for k, v := range set {
		if err := p.set(k, v); err != nil {
			return err
		}
	}
	return nil
}
