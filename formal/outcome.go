package formal

import (
	"strings"

	"github.com/duelogic/duelogic/engine"
)

var _ engine.Outcome = (*Outcome)(nil)

// Verdict says how the debate ended, in the terms every format shares: the
// winner is the debater whose side won ("promoter" for
// [VerdictAffirmativeWins], "detractor" for [VerdictNegativeWins]), a
// [VerdictDraw] is a Draw and a [VerdictVoid] is Void. The summary is one
// line — "promoter wins", "draw" — naming rule 12 when a disqualification
// decided the verdict: "promoter wins (rule 12: detractor disqualified)",
// "void (rule 12: promoter and detractor disqualified)".
func (o *Outcome) Verdict() engine.Verdict {
	var v engine.Verdict
	switch o.Decision {
	case VerdictAffirmativeWins:
		v.Winner = string(SpeakerPromoter)
		v.Summary = v.Winner + " wins"
	case VerdictNegativeWins:
		v.Winner = string(SpeakerDetractor)
		v.Summary = v.Winner + " wins"
	case VerdictDraw:
		v.Draw, v.Summary = true, "draw"
	case VerdictVoid:
		v.Void, v.Summary = true, "void"
	case "":
		v.Summary = "no verdict"
	default:
		v.Summary = strings.ReplaceAll(string(o.Decision), "_", " ")
	}
	if len(o.Disqualified) > 0 {
		names := make([]string, len(o.Disqualified))
		for i, s := range o.Disqualified {
			names[i] = string(s)
		}
		v.Summary += " (rule 12: " + strings.Join(names, " and ") + " disqualified)"
	}
	return v
}

// Documents returns the debate's documents, as the seed's output directory
// holds them ([WriteOutput]): transcript.md, summary.md, blog-post.md (none
// on a void debate, whose Docs.BlogPost is empty) and assessor-report.md.
// The log, debate-log.jsonl, is not Markdown: [ExportLog] writes it.
func (o *Outcome) Documents() []engine.Document { return o.Docs.list() }

// list is d as documents, in the order of the seed's output directory; an
// empty blog post is left out.
func (d Documents) list() []engine.Document {
	docs := []engine.Document{
		{Name: FileTranscript, Title: "Transcript", Markdown: d.Transcript},
		{Name: FileSummary, Title: "Summary", Markdown: d.Summary},
	}
	if d.BlogPost != "" {
		docs = append(docs, engine.Document{Name: FileBlogPost, Title: "Blog post", Markdown: d.BlogPost})
	}
	return append(docs, engine.Document{Name: FileAssessorReport, Title: "Assessor's report", Markdown: d.AssessorReport})
}
