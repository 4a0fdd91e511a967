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
	"github.com/duelogic/duelogic/moderated"
)

func init() {
	addFormat(moderated.FormatName, &formatCLI{
		about: "a moderated debate: the moderator asks you to clarify a vague question, engineering perspectives argue rounds, " +
			"you steer at checkpoints, the moderator synthesizes, you approve or reject it; the decision goes to docs/decisions/",
		flags: []string{"perspectives", "max-rounds", "exchanges", "round-timeout", "checkpoint-timeout", "total-timeout", "settings"},
		fields: map[string]string{"maxRounds": "max-rounds", "debaters": "perspectives", "roundTimeout": "round-timeout",
			"checkpointTimeout": "checkpoint-timeout", "totalTimeout": "total-timeout"},
		declare: func(fs *flag.FlagSet) any {
			o := new(moderatedFlags)
			fs.DurationVar(&o.roundTimeout, "round-timeout", 0, "moderated: the time one round's model calls may take (e.g. 10m for a local CPU server); 0: the format's default")
			fs.DurationVar(&o.checkpointTimeout, "checkpoint-timeout", 0, "moderated: how long each question to you (clarification, checkpoint, approval, workflow) waits for an answer before the debate pauses there (--resume asks it again); 0: the format's default, 30m")
			fs.DurationVar(&o.totalTimeout, "total-timeout", 0, "moderated: the time the whole debate may take, waits for your answers excluded; a round under way when it runs out is cut short; 0: the format's default")
			fs.StringVar(&o.settings, "settings", "", "moderated: a settings file with the seed's debate settings, JSON "+
				`({"debate": {"max_rounds", "default_perspectives" (2-4, or "auto", the default: the moderator's choice), "token_budget_per_round" (or "unlimited"), `+
				`"round_timeout_seconds", "checkpoint_timeout_seconds", "total_timeout_seconds", "custom_perspectives": [{"name", "priorities", "trade_offs"}]}}), `+
				"or, in a build with YAML linked in (examples/pgcli), YAML of the same shape (the seed's settings.amelia.yaml; *.yaml, *.yml); "+
				"flags given win over it; a resumed debate keeps its stored settings")
			return o
		},
		config: moderatedConfig,
		// After the moderator opens a round the debaters write their
		// arguments at once: those are printed whole, in seat order, with
		// their utterances; the rebuttals, one after another, are printed
		// live.
		live: func(after *engine.Utterance) bool { return after == nil || after.Kind != moderated.KindOpening },
		// When a person is asked, a yes to the workflow question writes
		// the workflow's issue beside the decision.
		prepare: func(e *env, f any) error {
			if m, ok := f.(*moderated.Format); ok && e.asks() {
				moderated.WithFollowUp(followUp(e))(m)
			}
			return nil
		},
		follows: moderatedQuestions,
	})
	// Seed 004's "structured markdown document committed to
	// docs/decisions/": the outcome's decision document, written whether
	// or not --out is set.
	addView(view[*moderated.Outcome]{
		finish: func(e *env, res *engine.Result[engine.Outcome], o *moderated.Outcome) ([]string, error) {
			for _, d := range o.Documents() {
				if d.Name == "decision.md" {
					p, err := writeDecision(decisionsDir(e.opt), res.DebateID, o.Synthesis, d.Markdown)
					if err != nil {
						return nil, err
					}
					return []string{p}, nil
				}
			}
			return nil, nil
		},
	})
}

// moderatedFlags are the flags only the moderated format reads.
type moderatedFlags struct {
	roundTimeout, checkpointTimeout, totalTimeout time.Duration
	settings                                      string
}

// moderatedConfig sets the moderated debate's fields that the settings
// file (--settings) and the flags given change; a flag wins over the file.
func moderatedConfig(e *env, p patch) error {
	o, own := e.opt, ownFlags[moderatedFlags](e.opt, moderated.FormatName)
	switch {
	case own.roundTimeout < 0:
		return usagef("--round-timeout %v: must not be negative", own.roundTimeout)
	case own.checkpointTimeout < 0:
		return usagef("--checkpoint-timeout %v: must not be negative", own.checkpointTimeout)
	case own.totalTimeout < 0:
		return usagef("--total-timeout %v: must not be negative", own.totalTimeout)
	}
	if path := own.settings; path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return usagef("--settings: %v", err)
		}
		if ext := strings.ToLower(filepath.Ext(path)); ext == ".yaml" || ext == ".yml" {
			if e.hooks.yaml == nil {
				return usagef("--settings %s: a YAML settings file needs the build with YAML linked in (examples/pgcli); this one reads JSON, "+
					`the same settings as {"debate": {"max_rounds": 4, ...}}`, path)
			}
			if data, err = e.hooks.yaml(data); err != nil {
				return usagef("--settings %s: not YAML settings: %v", path, err)
			}
		}
		// The seed's command asks for "--perspectives 3  # (default:
		// auto)": the moderator's choice, unless the file says otherwise.
		base := moderated.DefaultConfig()
		base.Debaters = 0
		cfg, err := moderated.ParseSettings(data, base)
		if err != nil {
			var ve *engine.ValidationError
			if !errors.As(err, &ve) {
				return usagef("--settings %s: %v", path, err)
			}
			var b strings.Builder
			fmt.Fprintf(&b, "--settings %s:", path)
			for _, v := range ve.Violations {
				fmt.Fprintf(&b, "\n  %s: %s", v.Field, v.Problem)
			}
			return usageError{b.String()}
		}
		if err := p.setAll(cfg); err != nil {
			return err
		}
	}
	set := map[string]any{}
	if o.set["perspectives"] || own.settings == "" {
		set["debaters"] = o.perspectives // 0 (auto, the default): the moderator's choice
	}
	if n := o.rounds; n > 0 {
		set["maxRounds"] = n
	}
	if t := own.roundTimeout; t > 0 {
		set["roundTimeout"] = t.String()
	}
	if t := own.checkpointTimeout; t > 0 {
		set["checkpointTimeout"] = t.String()
	}
	if t := own.totalTimeout; t > 0 {
		set["totalTimeout"] = t.String()
	}
	if m := o.model; m != "" {
		set["moderatorModel"], set["debaterModels"] = m, []string{m}
	}
	for k, v := range set {
		if err := p.set(k, v); err != nil {
			return err
		}
	}
	return nil
}

// moderatedQuestions says which event each question of a moderated debate
// comes after, stored holding the events of the debate so far: the
// clarifying question, the start of the analysis; a checkpoint, the
// moderator's judgment of the round it follows (the rounds whose
// checkpoint was answered are stored); an approval, the synthesis document
// it reviews (the first, or the moderator's revision of a rejected one);
// the workflow question, the last approval.
func moderatedQuestions(stored []engine.Event) func(engine.Question) func(engine.Event) bool {
	round := 0     // the last round whose checkpoint was answered
	approvals := 0 // the approvals answered
	for _, ev := range stored {
		if c, err := engine.DataAs[moderated.CheckpointOutcome](ev); ev.Type == moderated.EventCheckpoint && err == nil && !c.Paused {
			round = max(round, c.Round)
		}
		if approved(ev) {
			approvals++
		}
	}
	return func(q engine.Question) func(engine.Event) bool {
		switch q.Kind {
		case engine.QuestionClarification:
			return func(ev engine.Event) bool {
				return ev.Type == engine.EventSegmentStarted && ev.Segment == moderated.SegmentAnalysis
			}
		case engine.QuestionCheckpoint:
			round++
			return said(moderated.KindJudgment, round)
		case engine.QuestionApproval:
			approvals++
			return nth(approvals, said(moderated.KindSynthesis, 0))
		case engine.QuestionWorkflow:
			return nth(approvals, approved)
		}
		return nil
	}
}

// nth matches the n-th event that match matches, counting from the first
// event it is given.
func nth(n int, match func(engine.Event) bool) func(engine.Event) bool {
	seen := 0
	return func(ev engine.Event) bool {
		if match(ev) {
			seen++
		}
		return seen >= n
	}
}

// followUp is the moderated debate's follow-up when the person says yes to
// the workflow question: it writes the workflow's issue to
// docs/workflows/<date>-<slug>.md beside the decision.
func followUp(e *env) func(context.Context, moderated.Synthesis) error {
	return func(ctx context.Context, s moderated.Synthesis) error {
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

// writeDecision writes the decision document of debate id, whose
// synthesis is s, to <dir>/docs/decisions/<date>-<slug>.md, or, when that
// file holds another debate's decision, to <date>-<slug>-<id>.md. Writing
// it again (a resumed finished debate) gives the same file.
func writeDecision(dir, id string, s moderated.Synthesis, doc string) (string, error) {
	return writeUnder(filepath.Join(dir, "docs", "decisions"), decisionName(s), id, doc)
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
