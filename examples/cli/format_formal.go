package main

import (
	"context"
	"fmt"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/formal"
)

var formalFormat = &format{
	name:  "formal",
	about: "a formal debate: chair, promoter and detractor, sources verified, an audience verdict",
	flags: []string{"max-rounds", "exchanges"},
	run: func(ctx context.Context, e *env, d duelogic.Debate) (*outcome, error) {
		cfg := formal.DefaultConfig()
		if n := e.opt.rounds; n > 0 {
			cfg.MaxRounds, cfg.MinRounds = n, min(cfg.MinRounds, n)
		}
		if m := e.opt.model; m != "" {
			cfg.ChairModel, cfg.PromoterModel, cfg.DetractorModel, cfg.VerifierModel = m, m, m, m
			cfg.AudienceModel, cfg.ReporterModel, cfg.AssessorModel = m, m, m
		}
		res, err := formal.Run(ctx, e.client, cfg, d, formalOptions(e)...)
		if err != nil {
			return nil, configError(err)
		}
		return formalOutcome(res), nil
	},
	resume: func(ctx context.Context, e *env, id string) (*outcome, error) {
		res, err := formal.Resume(ctx, e.client, id, formalOptions(e)...)
		if err != nil {
			return nil, err
		}
		return formalOutcome(res), nil
	},
	summary: func(o *outcome) string {
		res := o.full.(*formal.Result)
		return fmt.Sprintf("\n══════ OUTCOME ══════\n%s after %d rounds (%s)\n%s", res.Outcome, res.Rounds, res.EndedBy, res.Reason)
	},
}

// formalOptions are the store and sink, and a verifier that fetches the
// cited pages only when a real model is in use (the stub cites made-up
// ones).
func formalOptions(e *env) []formal.Option {
	opts := []formal.Option{formal.WithStore(e.store), formal.WithSink(e.sink)}
	if e.opt.baseURL == "" {
		opts = append(opts, formal.WithVerifier(formal.JudgeOnly))
	}
	return opts
}

func formalOutcome(res *formal.Result) *outcome {
	return &outcome{id: res.DebateID, full: res, docs: map[string]string{
		"md":                 res.Documents.Transcript,
		"summary.md":         res.Documents.Summary,
		"blog-post.md":       res.Documents.BlogPost,
		"assessor-report.md": res.Documents.AssessorReport,
	}}
}
