package cliapp

import (
	"flag"
	"fmt"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/examples/internal/render"
	"github.com/duelogic/duelogic/formal"
)

var formalFormat = define(adapter[*formal.Outcome]{
	name: "formal",
	about: "a formal debate: chair, promoter and detractor, sources verified, an audience verdict;\n" +
		"              --out writes the seed's <out>/<timestamp>-<slug>/ (documents and debate-log.jsonl)",
	flags: []string{"max-rounds", "exchanges", "min-rounds", "time-budget", "topic-prompt"},
	fields: map[string]string{"maxRounds": "max-rounds", "minRounds": "min-rounds", "timeBudget": "time-budget",
		"topicPrompt": "topic-prompt"},
	format: func(e *env) (engine.Format[*formal.Outcome], error) {
		// --min-rounds alone moves the maximum with it: name it, not
		// the maximum, when it is out of range.
		switch n := e.opt.formalOpt.minRounds; {
		case n < 0:
			return nil, usagef("--min-rounds %d: must not be negative", n)
		case n > formal.MaxRoundsLimit:
			return nil, usagef("--min-rounds %d: must be at most %d", n, formal.MaxRoundsLimit)
		}
		return formal.New(e.opt.formalOpt.config(e), formalHooks(e)...)
	},
	summary: func(r *render.Renderer, res *engine.Result[*formal.Outcome]) {
		o := res.Detail
		r.Println(fmt.Sprintf("\n══════ OUTCOME ══════\n%s after %s (%s)\n%s", o.Decision, rounds(o.Rounds), o.EndedBy, o.Reason))
	},
	docs: func(res *engine.Result[*formal.Outcome]) (map[string]string, error) {
		d := res.Detail.Docs
		return map[string]string{
			"md":                 d.Transcript,
			"summary.md":         d.Summary,
			"blog-post.md":       d.BlogPost,
			"assessor-report.md": d.AssessorReport,
		}, nil
	},
	// The seed's layout: <out>/<timestamp>-<slug>/ named by the debate's
	// recorded start, so a resumed or replayed debate writes the same
	// directory.
	write: func(res *engine.Result[*formal.Outcome], dir string) ([]string, error) {
		_, files, err := formal.WriteOutput(dir, res.Debate.Proposition, res.Detail)
		return files, err
	},
})

// formalHooks are the format's options: the cited pages are fetched only
// when a real model cites them (the stub's are made up).
func formalHooks(e *env) []formal.Option {
	if e.opt.baseURL == "" {
		return nil
	}
	return []formal.Option{formal.WithVerifier(formal.FetchThenJudge(formal.HTTPOptions{}))}
}

// formalOptions are the flags only the formal format reads (list them in its adapter's
// flags too, so that other formats reject them).
type formalOptions struct {
	minRounds   int
	timeBudget  time.Duration
	topicPrompt string
}

// register declares o's flags on fs.
func (o *formalOptions) register(fs *flag.FlagSet) {
	fs.IntVar(&o.minRounds, "min-rounds", 0, "formal: the rounds played before the chair may end the debate (the seed's min_rounds); 0: the format's default, 3")
	fs.DurationVar(&o.timeBudget, "time-budget", formal.DefaultConfig().TimeBudget, "formal: after --min-rounds, the chair ends the rounds once this much time has passed since the start; 0: no budget")
	fs.StringVar(&o.topicPrompt, "topic-prompt", "", "formal: the topic debated when no question is given (the seed's topic_prompt)")
}

// topic is the question to debate: question, or the topic prompt when
// question is empty (the seed's Step B); "" when both are.
func (o *formalOptions) topic(question string) string {
	t, err := formal.Config{TopicPrompt: o.topicPrompt}.Topic(question)
	if err != nil {
		return ""
	}
	return t
}

// config is the formal debate's configuration from the command line: the
// format's defaults, the rounds (--max-rounds, --min-rounds; one given
// alone moves the other as far as it must), the time budget, the topic
// prompt and the model (--model seats it everywhere).
func (o *formalOptions) config(e *env) formal.Config {
	cfg := formal.DefaultConfig()
	if n := e.opt.rounds; n > 0 {
		cfg.MaxRounds, cfg.MinRounds = n, min(cfg.MinRounds, n)
	}
	if n := o.minRounds; n > 0 {
		cfg.MinRounds = n
		if e.opt.rounds == 0 {
			cfg.MaxRounds = max(cfg.MaxRounds, n)
		}
	}
	cfg.TimeBudget = o.timeBudget
	cfg.TopicPrompt = o.topicPrompt
	if m := e.opt.model; m != "" {
		cfg.ChairModel, cfg.PromoterModel, cfg.DetractorModel, cfg.VerifierModel = m, m, m, m
		cfg.AudienceModel, cfg.ReporterModel, cfg.AssessorModel = m, m, m
	}
	return cfg
}
