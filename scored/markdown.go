package scored

import (
	"fmt"
	"strings"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/internal/mdtext"
)

// Markdown renders the debate of idea d (a result's Debate, whose ID it
// shows when set) as the seed's debate.md: a score table, then each round's
// positions, arguments, rebuttals and verdict with its effect on the score.
// d's empty ID and Proposition are the Outcome's own (DebateID and
// Proposition), so o.Markdown(engine.Debate{}) is the document
// [Outcome.Documents] gives. Text from the host and the models is escaped
// so it cannot add headings or table cells of its own.
func (o *Outcome) Markdown(d engine.Debate) string {
	if d.ID == "" {
		d.ID = o.DebateID
	}
	if d.Proposition == "" {
		d.Proposition = o.Proposition
	}
	var b strings.Builder
	title := firstLine(d.Proposition)
	if title == "" {
		title = "the idea"
	}
	fmt.Fprintf(&b, "# Scored debate: %s\n\n", inline(title))
	if d.ID != "" {
		fmt.Fprintf(&b, "- **Debate ID:** %s\n", inline(d.ID))
	}
	fmt.Fprintf(&b, "- **Rounds:** %d\n", len(o.Rounds))
	fmt.Fprintf(&b, "- **Total score change:** %s\n", signed(o.Scores.Total))
	if neutral := o.NeutralCategories(); len(neutral) > 0 {
		names := make([]string, len(neutral))
		for i, c := range neutral {
			names[i] = inline(c.Name)
		}
		fmt.Fprintf(&b, "- **Starting scores:** neutral defaults (the middle of the scale, no evaluation supplied) for %s: "+
			"their scores measure the arguments alone\n", strings.Join(names, ", "))
	}
	b.WriteString("\n")

	b.WriteString("## Scores\n\n")
	b.WriteString("| Category | Before | Change | After | Winner | Confidence |\n")
	b.WriteString("|---|---:|---:|---:|---|---:|\n")
	for _, rd := range o.Rounds {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %.2f |\n", cell(rd.Category.Name), score(rd.PreScore),
			signed(rd.Delta), score(rd.PostScore), rd.Verdict.Winner, rd.Verdict.Confidence)
	}

	for _, rd := range o.Rounds {
		fmt.Fprintf(&b, "\n## Round %d: %s\n\n", rd.Number, inline(rd.Category.Name))
		fmt.Fprintf(&b, "**Advocate's position:** %s  \n", inline(rd.Category.AdvocatePosition))
		fmt.Fprintf(&b, "**Challenger's position:** %s\n", inline(rd.Category.ChallengerPosition))
		args := interleave(rd.Advocate, rd.Challenger)
		for _, a := range args {
			fmt.Fprintf(&b, "\n### %s's %s\n\n%s\n", sideName(a.Side), a.Kind, block(a.Content))
		}
		v := rd.Verdict
		b.WriteString("\n### Verdict\n\n")
		if v.Winner == WinnerDraw {
			fmt.Fprintf(&b, "**Winner:** draw (confidence %.2f)\n\n", v.Confidence)
		} else {
			fmt.Fprintf(&b, "**Winner:** %s (confidence %.2f)\n\n", v.Winner, v.Confidence)
		}
		b.WriteString(block(v.Reasoning) + "\n\n**Key points:**\n\n")
		for _, p := range v.KeyPoints {
			b.WriteString("- " + inline(p) + "\n")
		}
		neutral := ""
		if o.Config.Evaluations[rd.Category.ID].Neutral {
			neutral = " (from a neutral default)"
		}
		fmt.Fprintf(&b, "\n**Score:** %s → %s (%s)%s\n", score(rd.PreScore), score(rd.PostScore), signed(rd.Delta), neutral)
	}
	return b.String()
}

// interleave lists a round's turns in the order they were made: both
// arguments, then both rebuttals.
func interleave(adv, chal []Argument) []Argument {
	var out []Argument
	for i := range max(len(adv), len(chal)) {
		if i < len(adv) {
			out = append(out, adv[i])
		}
		if i < len(chal) {
			out = append(out, chal[i])
		}
	}
	return out
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return cut(s, 120)
}

// inline makes s one line of Markdown text that cannot start a block.
func inline(s string) string { return mdtext.EscapeLead(oneLine(s)) }

// cell makes s a table cell.
func cell(s string) string { return strings.ReplaceAll(inline(s), "|", `\|`) }

// block escapes model text for a Markdown document.
var block = mdtext.Block

// NeutralCategories returns, in round order, the categories whose score
// went into the debate as a neutral default ([Evaluation].Neutral) rather
// than a host's evaluation.
func (o *Outcome) NeutralCategories() []Category {
	var out []Category
	for _, c := range o.Config.Categories {
		if o.Config.Evaluations[c.ID].Neutral {
			out = append(out, c)
		}
	}
	return out
}
