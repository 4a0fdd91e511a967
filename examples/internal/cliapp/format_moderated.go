package cliapp

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/examples/internal/render"
	"github.com/duelogic/duelogic/moderated"
)

var moderatedFormat = define(adapter[*moderated.Outcome]{
	name: "moderated",
	about: "a moderated debate: the moderator asks you to clarify a vague question, engineering perspectives argue rounds, " +
		"you steer at checkpoints, the moderator synthesizes, you approve or reject it; the decision goes to docs/decisions/",
	flags: []string{"perspectives", "max-rounds", "exchanges", "round-timeout", "total-timeout", "settings"},
	fields: map[string]string{"maxRounds": "max-rounds", "debaters": "perspectives", "roundTimeout": "round-timeout",
		"totalTimeout": "total-timeout"},
	// After the moderator opens a round the debaters write their arguments
	// at once: those are printed whole, in seat order, with their
	// utterances; the rebuttals, one after another, are printed live.
	live: func(after *engine.Utterance) bool { return after == nil || after.Kind != moderated.KindOpening },
	format: func(e *env) (engine.Format[*moderated.Outcome], error) {
		cfg, err := moderatedConfig(e.opt)
		if err != nil {
			return nil, err
		}
		var opts []moderated.Option
		if !e.opt.noCheckpoints {
			opts = append(opts,
				moderated.WithCheckpointer(checkpointer(e)),
				moderated.WithClarifier(clarifier(e)),
				moderated.WithApprover(approver(e)),
				moderated.WithFollowUp(followUp(e)))
		}
		return moderated.New(cfg, opts...)
	},
	summary: func(r *render.Renderer, res *engine.Result[*moderated.Outcome]) {
		o := res.Detail
		line := fmt.Sprintf("\n══════ SYNTHESIS ══════\nended: %s after %s", o.EndReason, rounds(len(o.Rounds)))
		if a := o.Synthesis.Approval; a != nil && a.Status != moderated.Unreviewed {
			line += "; synthesis " + string(a.Status)
		}
		r.Println(line)
	},
	docs: func(res *engine.Result[*moderated.Outcome]) (map[string]string, error) {
		return map[string]string{"synthesis.md": decisionMarkdown(res.Detail.Synthesis)}, nil
	},
	finish: func(e *env, res *engine.Result[*moderated.Outcome]) ([]string, error) {
		p, err := writeDecision(decisionsDir(e.opt), res.DebateID, res.Detail.Synthesis)
		if err != nil {
			return nil, err
		}
		return []string{p}, nil
	},
})

// moderatedConfig is the default configuration, changed by the settings
// file and then by the flags given (a flag wins over the file). A resumed
// debate keeps its stored configuration, so the file is not read then.
func moderatedConfig(o *options) (moderated.Config, error) {
	cfg := moderated.DefaultConfig()
	if path := o.moderatedOpt.settings; path != "" && o.resume == "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return cfg, usagef("--settings: %v", err)
		}
		if cfg, err = moderated.ParseSettings(data, cfg); err != nil {
			var ve *engine.ValidationError
			if !errors.As(err, &ve) {
				return cfg, usagef("--settings %s: %v", path, err)
			}
			var b strings.Builder
			fmt.Fprintf(&b, "--settings %s:", path)
			for _, v := range ve.Violations {
				fmt.Fprintf(&b, "\n  %s: %s", v.Field, v.Problem)
			}
			return cfg, usageError{b.String()}
		}
	}
	if o.set["perspectives"] {
		cfg.Debaters = o.perspectives // 0: the moderator's choice
	}
	if o.rounds > 0 {
		cfg.MaxRounds = o.rounds
	}
	if t := o.roundTimeout; t > 0 {
		cfg.RoundTimeout = t
	}
	if t := o.totalTimeout; t > 0 {
		cfg.TotalTimeout = t
	}
	if m := o.model; m != "" {
		cfg.ModeratorModel, cfg.DebaterModels = m, []string{m}
	}
	return cfg, nil
}

// checkpointer asks the person at the terminal after each round, once the
// round is shown down to the moderator's judgment; the end of input pauses
// the debate (moderated.ErrPaused).
func checkpointer(e *env) moderated.Checkpointer {
	return moderated.CheckpointFunc(func(ctx context.Context, st moderated.State) (moderated.Decision, error) {
		summary := ""
		if n := len(st.Rounds); n > 0 {
			summary = strings.TrimSpace(st.Rounds[n-1].Judgment.Summary)
		}
		type answer struct {
			act      checkpointAction
			guidance string
		}
		a := ask(ctx, e, said(moderated.KindJudgment, st.Round), func(p prompter) answer {
			act, guidance := askCheckpoint(ctx, e.stdin, p, fmt.Sprintf("Round %d Complete", st.Round), summary)
			return answer{act, guidance}
		})
		switch a.act {
		case actGuide:
			return moderated.Decision{Action: moderated.Guide, Guidance: a.guidance}, nil
		case actEnd:
			return moderated.Decision{Action: moderated.End}, nil
		case actPause:
			return moderated.Decision{}, fmt.Errorf("%w: no answer at the checkpoint", moderated.ErrPaused)
		}
		return moderated.Decision{Action: moderated.Continue}, nil
	})
}

// clarifier asks the person the moderator's clarifying question, once the
// analysis segment has begun. An empty answer, the end of input, or no
// answer within the checkpoint timeout lets the moderator's assumption
// stand (the question does not pause the debate): nothing has been debated
// yet, and the first checkpoint is where a debate whose input ended pauses.
func clarifier(e *env) moderated.Clarifier {
	return moderated.ClarifyFunc(func(ctx context.Context, c moderated.Clarification) (string, error) {
		return ask(ctx, e, segmentStarted(moderated.SegmentAnalysis), func(p prompter) string {
			return askClarification(ctx, e.stdin, p, c.Question, c.Assumption)
		}), nil
	})
}

// approver asks the person to approve or reject the synthesis, once its
// document is shown; an empty answer, the end of input or no answer within
// the checkpoint timeout leaves it unreviewed (the debate still finishes).
func approver(e *env) moderated.Approver {
	return moderated.ApproveFunc(func(ctx context.Context, s moderated.Synthesis) (moderated.Approval, error) {
		type answer struct {
			act  approvalAction
			note string
		}
		a := ask(ctx, e, said(moderated.KindSynthesis, 0), func(p prompter) answer {
			act, note := askApproval(ctx, e.stdin, p)
			return answer{act, note}
		})
		switch a.act {
		case actApprove:
			return moderated.Approval{Status: moderated.Approved, Note: a.note}, nil
		case actReject:
			return moderated.Approval{Status: moderated.Rejected, Note: a.note}, nil
		}
		return moderated.Approval{Status: moderated.Unreviewed}, nil
	})
}

// followUp asks the seed's "Would you like me to create a workflow from
// this decision?", once the approval is shown; yes writes the workflow's
// issue to docs/workflows/<date>-<slug>.md beside the decision.
func followUp(e *env) func(context.Context, moderated.Synthesis) error {
	return func(ctx context.Context, s moderated.Synthesis) error {
		yes := ask(ctx, e, approved, func(p prompter) bool {
			return askYes(ctx, e.stdin, p, "Would you like me to create a workflow from this decision?")
		})
		if !yes {
			return moderated.ErrDeclined
		}
		p, err := writeWorkflow(decisionsDir(e.opt), s)
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stderr, "wrote", p)
		return nil
	}
}

// said matches the utterance of kind that a question follows: of round
// exchange, or of any when exchange is 0.
func said(kind engine.UtteranceKind, exchange int) func(engine.Event) bool {
	return func(ev engine.Event) bool {
		u := ev.Utterance
		return ev.Type == engine.EventUtterance && u != nil && u.Kind == kind && (exchange == 0 || u.Exchange == exchange)
	}
}

// segmentStarted matches the start of seg.
func segmentStarted(seg engine.Segment) func(engine.Event) bool {
	return func(ev engine.Event) bool { return ev.Type == engine.EventSegmentStarted && ev.Segment == seg }
}

// approved matches the approval of the synthesis (reviewed or not); not a
// pause, after which the approval is asked again.
func approved(ev engine.Event) bool {
	if ev.Type != moderated.EventApproval {
		return false
	}
	a, err := engine.DataAs[moderated.ApprovalOutcome](ev)
	return err == nil && !a.Paused
}

// decisionsDir is where docs/decisions/ and docs/workflows/ go: under
// --out, or the working directory when --out is not set (the seed commits
// decisions to the repository the command runs in).
func decisionsDir(o *options) string {
	if o.out != "" {
		return o.out
	}
	return "."
}

// decisionName is the file name of a decision: its recorded date (the
// synthesis's, on the debate's clock, so that it is the same whenever it is
// written) and a slug of its title.
func decisionName(s moderated.Synthesis) string {
	return s.Date.Format(time.DateOnly) + "-" + slug(s.Title, s.DebateID) + ".md"
}

// slug is title in lower-case ASCII words joined by '-', at most 60 bytes;
// fallback when nothing is left.
func slug(title, fallback string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
		if b.Len() >= 60 {
			break
		}
	}
	if b.Len() == 0 {
		return fallback
	}
	return b.String()
}

// writeDecision writes the synthesis document of debate id to
// <dir>/docs/decisions/<date>-<slug>.md, or, when that file holds another
// debate's decision, to <date>-<slug>-<id>.md. Writing it again (a resumed
// finished debate) gives the same file.
func writeDecision(dir, id string, s moderated.Synthesis) (string, error) {
	return writeUnder(filepath.Join(dir, "docs", "decisions"), decisionName(s), id, decisionMarkdown(s))
}

// decisionMarkdown is the synthesis's document with a Status line whatever
// its review: Synthesis.Markdown writes one for an approved or rejected
// synthesis, and this adds "**Status:** Unreviewed" after the header lines
// of one nobody reviewed (--no-checkpoints, the end of input, no answer).
func decisionMarkdown(s moderated.Synthesis) string {
	md := s.Markdown()
	if a := s.Approval; a != nil && (a.Status == moderated.Approved || a.Status == moderated.Rejected) {
		return md
	}
	const last = "\n**Perspectives:** " // the last header line before Status
	i := strings.Index(md, last)
	if i < 0 {
		return md
	}
	end := i + len(last) + strings.IndexByte(md[i+len(last):], '\n') + 1
	if end <= i+len(last) {
		return md
	}
	return md[:end] + "**Status:** Unreviewed\n" + md[end:]
}

// writeWorkflow writes the issue that hands the decision to a workflow.
func writeWorkflow(dir string, s moderated.Synthesis) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# Workflow: %s\n\n", oneLine(s.Title))
	fmt.Fprintf(&b, "**From decision:** docs/decisions/%s\n**Debate ID:** %s\n**Date:** %s\n\n",
		decisionName(s), s.DebateID, s.Date.Format(time.DateOnly))
	fmt.Fprintf(&b, "## Goal\n\n%s\n\n", strings.TrimSpace(s.Recommendation))
	if len(s.Caveats) > 0 {
		b.WriteString("## Constraints\n\n")
		for _, c := range s.Caveats {
			fmt.Fprintf(&b, "- %s\n", oneLine(c))
		}
		b.WriteString("\n")
	}
	if len(s.Tensions) > 0 {
		b.WriteString("## Open questions\n\n")
		for _, t := range s.Tensions {
			fmt.Fprintf(&b, "- %s\n", oneLine(t))
		}
		b.WriteString("\n")
	}
	return writeUnder(filepath.Join(dir, "docs", "workflows"), decisionName(s), s.DebateID, b.String())
}

// writeUnder writes text to dir/name, unless that file exists and does not
// name debate id: then to the name with "-<id>" before its extension.
func writeUnder(dir, name, id, text string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("write decision: %w", err)
	}
	p := filepath.Join(dir, name)
	if old, err := os.ReadFile(p); err == nil && !strings.Contains(string(old), "**Debate ID:** "+id+"\n") {
		p = filepath.Join(dir, strings.TrimSuffix(name, ".md")+"-"+id+".md")
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		return "", fmt.Errorf("write decision: %w", err)
	}
	return p, nil
}

// moderatedOptions are the flags only the moderated format reads (list them in its adapter's
// flags too, so that other formats reject them).
type moderatedOptions struct {
	settings string
}

// register declares o's flags on fs.
func (o *moderatedOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&o.settings, "settings", "", "moderated: a settings file, JSON with the seed's debate settings "+
		`({"debate": {"max_rounds", "default_perspectives" (2; "auto": the moderator's choice), "token_budget_per_round" (or "unlimited"), `+
		`"round_timeout_seconds", "checkpoint_timeout_seconds", "total_timeout_seconds", "custom_perspectives": [{"name", "priorities", "trade_offs"}]}}); `+
		"flags given win over it; a resumed debate keeps its stored settings")
}
