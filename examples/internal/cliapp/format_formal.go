package cliapp

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/formal"
)

func init() {
	addFormat(formal.FormatName, &formatCLI{
		about: "a formal debate: chair, promoter and detractor, sources verified, an audience verdict;\n" +
			"              --out writes the seed's <out>/<timestamp>-<slug>/ as the debate goes (debate-log.jsonl, then the documents);\n" +
			"              with no question: --topic-prompt, else the topic is asked for",
		flags: []string{"max-rounds", "exchanges", "min-rounds", "time-budget", "topic-prompt", "config"},
		fields: map[string]string{"maxRounds": "max-rounds", "minRounds": "min-rounds", "timeBudget": "time-budget",
			"topicPrompt": "topic-prompt"},
		declare: func(fs *flag.FlagSet) any {
			o := new(formalFlags)
			fs.IntVar(&o.minRounds, "min-rounds", 0, "formal: the rounds played before the chair may end the debate (the seed's min_rounds); 0: the format's default, 3")
			fs.DurationVar(&o.timeBudget, "time-budget", formal.DefaultConfig().TimeBudget, "formal: after --min-rounds, the chair ends the rounds once this much time has passed since the start; 0: no budget")
			fs.StringVar(&o.topicPrompt, "topic-prompt", "", "formal: the topic debated when no question is given (the seed's topic_prompt); without either, the topic is asked for")
			fs.StringVar(&o.config, "config", "", "formal: the seed's configuration file (its "+formal.SeedConfigPath+"): its topic, topic_prompt, min_rounds and max_rounds are read (the command line's win), and the topic debated and the output directory created are written back to it; the output directory is made in --out, else in ./"+formal.SeedOutputParent)
			return o
		},
		// The seed's Step B: the topic of the --config file when no
		// question is given; without one, the format takes its topic
		// prompt or asks the person (formal.Format.Propose).
		question: func(o *options) (string, error) {
			own := ownFlags[formalFlags](o, formal.FormatName)
			if own.config == "" {
				return "", nil
			}
			sc, err := formal.LoadSeedConfig(own.config)
			if err != nil {
				return "", fmt.Errorf("--config: %w", err)
			}
			own.seed = sc
			return strings.TrimSpace(sc.Topic), nil
		},
		asks:       true,
		noQuestion: formal.ErrNoTopic,
		observe:    writeBack,
		config:     formalConfig,
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
	// recorded start. A fresh debate given --out writes it itself as it
	// goes (its configuration's outputDir); a stored one without it, or
	// shown into another directory, has it written when it has finished.
	addView(view[*formal.Outcome]{
		write: func(res *engine.Result[engine.Outcome], o *formal.Outcome, dir string) ([]string, error) {
			if o.Dir != "" && sameDir(filepath.Dir(o.Dir), dir) {
				return o.Files, nil
			}
			_, files, err := formal.WriteOutput(dir, res.Debate.Proposition, o)
			return files, err
		},
	})
}

// sameDir reports whether paths a and b name the same directory.
func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// writeBack writes the topic debated (the seed's Step B) and the output
// directory created (Step C) back to the --config file, once the debate's
// setup announces them. A failure is reported, and the debate goes on.
func writeBack(e *env, ev engine.Event) {
	own := ownFlags[formalFlags](e.opt, formal.FormatName)
	if ev.Type != formal.EventSetup || own.seed == nil {
		return
	}
	s, err := engine.DataAs[formal.Setup](ev)
	if err == nil {
		own.seed.Topic, own.seed.OutputDir = s.Topic, s.Dir
		err = formal.SaveSeedConfig(own.config, own.seed)
	}
	if err != nil {
		fmt.Fprintln(e.stderr, "debate: --config:", safeError(err))
	}
}

// formalFlags are the flags only the formal format reads.
type formalFlags struct {
	minRounds   int
	timeBudget  time.Duration
	topicPrompt string
	config      string
	// seed is the --config file, read by the question.
	seed *formal.SeedConfig
}

// formalConfig sets the formal debate's fields the flags given change: the
// rounds (--max-rounds, --min-rounds; one given alone moves the other as
// far as it must), the time budget, the topic prompt, the model (--model
// seats it everywhere) and the output directory (--out; with --config,
// ./output when --out is not given). What the --config file sets comes
// first; the flags given win.
func formalConfig(e *env, p patch) error {
	o, own := e.opt, ownFlags[formalFlags](e.opt, formal.FormatName)
	if sc := own.seed; sc != nil {
		def := formal.DefaultConfig()
		from := sc.Apply(def)
		if from.MinRounds != def.MinRounds || from.MaxRounds != def.MaxRounds {
			if err := p.set("minRounds", from.MinRounds); err != nil {
				return err
			}
			if err := p.set("maxRounds", from.MaxRounds); err != nil {
				return err
			}
		}
		if from.TopicPrompt != "" {
			if err := p.set("topicPrompt", from.TopicPrompt); err != nil {
				return err
			}
		}
		if err := p.set("outputDir", formal.SeedOutputParent); err != nil {
			return err
		}
	}
	if o.out != "" {
		if err := p.set("outputDir", o.out); err != nil {
			return err
		}
	}
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
