package cliapp

import (
	"flag"
	"fmt"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/examples/internal/render"
	"github.com/duelogic/duelogic/formal"
)

var formalFormat = define(adapter[*formal.Outcome]{
	name:  "formal",
	about: "a formal debate: chair, promoter and detractor, sources verified, an audience verdict",
	flags: []string{"max-rounds", "exchanges"},
	format: func(e *env) (engine.Format[*formal.Outcome], error) {
		cfg := formal.DefaultConfig()
		if n := e.opt.rounds; n > 0 {
			cfg.MaxRounds, cfg.MinRounds = n, min(cfg.MinRounds, n)
		}
		if m := e.opt.model; m != "" {
			cfg.ChairModel, cfg.PromoterModel, cfg.DetractorModel, cfg.VerifierModel = m, m, m, m
			cfg.AudienceModel, cfg.ReporterModel, cfg.AssessorModel = m, m, m
		}
		// The cited pages are fetched only when a real model cites them:
		// the stub's are made up.
		var opts []formal.Option
		if e.opt.baseURL != "" {
			opts = append(opts, formal.WithVerifier(formal.FetchThenJudge(formal.HTTPOptions{})))
		}
		return formal.New(cfg, opts...)
	},
	summary: func(r *render.Renderer, res *engine.Result[*formal.Outcome]) {
		o := res.Detail
		r.Println(fmt.Sprintf("\n══════ OUTCOME ══════\n%s after %d rounds (%s)\n%s", o.Verdict, o.Rounds, o.EndedBy, o.Reason))
	},
	docs: func(res *engine.Result[*formal.Outcome]) (map[string]string, error) {
		d := res.Detail.Documents
		return map[string]string{
			"md":                 d.Transcript,
			"summary.md":         d.Summary,
			"blog-post.md":       d.BlogPost,
			"assessor-report.md": d.AssessorReport,
		}, nil
	},
})

// formalOptions are the flags only the formal format reads (list them in its adapter's
// flags too, so that other formats reject them).
type formalOptions struct{}

// register declares o's flags on fs.
func (o *formalOptions) register(fs *flag.FlagSet) {}
