package persuasion

import (
	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
)

// Outcome is what a persuasion debate gives beside the engine's result
// (debate, transcript, usage): the turns, the computed verdict, the
// moderator's text and the seed's output document. It is the Detail of
// [engine.Result] and, as JSON, of the debate_ended event (without Report).
// It is an [engine.Outcome]: [Outcome.Verdict] says who won in the terms
// every format shares and [Outcome.Documents] returns the document.
type Outcome struct {
	// Config is the configuration the debate ran with.
	Config Config `json:"config"`
	// Turns are the debaters' turns in order; their moves, in order, are
	// the dialogue.
	Turns []Turn `json:"turns"`
	// Computed is the verdict computed from the argumentation framework:
	// winner, side scores, surviving arguments, valid points of the losing
	// side, unanswered challenges, concessions, retractions, the final
	// commitment stores and metrics, every side named by its side label
	// ([SidePro], [SideOpp]) as the seed's report names it; [Outcome.Verdict]
	// names the winner by speaker ID. (It is JSON "verdict", as it always
	// was; the Go field gave its name to [Outcome.Verdict].)
	Computed argumentation.Verdict `json:"verdict"`
	// Arguments are every argument of the final graph with its score, by
	// ID.
	Arguments []argumentation.ScoredArgument `json:"arguments"`
	// Moderation is the moderator's text about the verdict.
	Moderation Moderation `json:"moderation"`
	// Report holds the dialogue, graph and scores behind the verdict, with
	// the topic, personas, context and moderator's text filled in; its
	// WriteMarkdown wrote Markdown and its WriteDOT draws the graph. It is
	// not JSON: Play rebuilds it, also when a finished debate is resumed.
	Report argumentation.Report `json:"-"`
	// Markdown is the seed's output document, also the Markdown of
	// [Outcome.Documents]' "dialogue.md".
	Markdown string `json:"markdown"`
}

// DocumentDialogue is the Name of the document [Outcome.Documents] returns:
// the seed's output document ([Outcome].Markdown).
const DocumentDialogue = "dialogue.md"

var _ engine.Outcome = (*Outcome)(nil)

// Verdict is the computed verdict in the terms every format shares: Winner
// is the winning side's speaker ID ([SpeakerPro] or [SpeakerOpp], where
// Computed has its side label), "" on a draw; Draw is set when the side
// scores are within the draw margin, and a persuasion dialogue is never
// Void. Summary is one line, by side label as the seed's report has it:
// "OPP wins (OPP 4.74 vs PRO 1.30; additive semantics)", "a draw (PRO 1.30
// vs OPP 1.30; additive semantics)", or "no verdict" for an outcome that
// names neither a winner nor a draw.
func (o *Outcome) Verdict() engine.Verdict {
	v := o.Computed
	if v.Winner == "" && !v.Draw {
		return engine.Verdict{Summary: "no verdict"}
	}
	sem := ""
	if s, err := argumentation.ParseSemantics(o.Config.Semantics); err == nil && o.Config.Semantics != "" {
		sem = s.String()
	}
	return engine.Verdict{Winner: SpeakerID(v.Winner), Draw: v.Draw, Summary: verdictLine(v, sem)}
}

// Documents returns the seed's output document, [Outcome].Markdown, as
// [DocumentDialogue]: the participants, shared context, transcript of
// moves, commitment stores, verdict with scores, the moderator's rationale,
// consensus solution and conditions for revisiting. An outcome without
// Markdown (not one a debate returns) gets a heading and its verdict's
// summary.
func (o *Outcome) Documents() []engine.Document {
	md := o.Markdown
	if md == "" {
		md = "# Persuasion dialogue\n\n" + o.Verdict().Summary + "\n"
	}
	return []engine.Document{{Name: DocumentDialogue, Title: "Persuasion dialogue", Markdown: md}}
}
