package moderated

import (
	"github.com/duelogic/duelogic/engine"
)

// Verdict is how the debate ended, as [engine.Outcome] tells it: a
// moderated debate names no winner (Winner is "", Draw and Void are
// false); its Summary is the recommendation, in one line, with the
// people's review when they approved or rejected it —
// "recommendation (approved): Start with PostgreSQL." —, or "no
// recommendation" when the moderator's synthesis could not be read.
func (o *Outcome) Verdict() engine.Verdict {
	syn := o.Synthesis
	rec := cut(oneLine(syn.Recommendation), 200)
	switch {
	case syn.Fallback:
		return engine.Verdict{Summary: "no recommendation: the moderator's synthesis could not be read"}
	case rec == "":
		return engine.Verdict{Summary: "no recommendation"}
	}
	label := "recommendation"
	if a := syn.Approval; a != nil && (a.Status == Approved || a.Status == Rejected) {
		label += " (" + string(a.Status) + ")"
	}
	return engine.Verdict{Summary: label + ": " + rec}
}

// Documents returns, as [engine.Outcome] asks, the decision document —
// "decision.md", [Synthesis.DecisionMarkdown]: what goes to
// docs/decisions/<date>-<slug>.md, with a Status line whatever the review —
// and the synthesis as reviewed — "synthesis.md", [Synthesis.Markdown].
func (o *Outcome) Documents() []engine.Document {
	return []engine.Document{
		{Name: "decision.md", Title: "Decision", Markdown: o.Synthesis.DecisionMarkdown()},
		{Name: "synthesis.md", Title: "Synthesis", Markdown: o.Synthesis.Markdown()},
	}
}
