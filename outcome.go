package duelogic

import (
	"fmt"
	"strings"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/internal/mdtext"
)

var _ engine.Outcome = (*Outcome)(nil)

// Verdict is how the debate ended, for [engine.Outcome]. The podcast names
// no winner — the arbiter synthesizes, it does not judge — so Winner is ""
// and Draw and Void are false; Summary is one line of the debate's size
// and its metrics: "2 chairs, 3 exchanges; steel-manning 83%, self-critique
// 67%, 2 interruptions, 1 interjection" ("not measured" for a rate with
// nothing to count); the exchanges are those played (Flow.MaxExchanges for
// an outcome that does not say). A nil Outcome, a debate that did not
// finish, says so.
func (o *Outcome) Verdict() engine.Verdict {
	if o == nil {
		return engine.Verdict{Summary: "the debate did not finish"}
	}
	m := o.Metrics
	exchanges := o.Config.Flow.MaxExchanges
	if m.Exchanges > 0 {
		exchanges = m.Exchanges
	}
	return engine.Verdict{Summary: fmt.Sprintf("%s, %s; %s, %s, %s, %s",
		count(len(o.Config.Chairs), "chair"), count(exchanges, "exchange"),
		percent("steel-manning", m.SteelManningRate, m.SteelManningMeasured()),
		percent("self-critique", m.SelfCritiqueRate, m.SelfCritiqueMeasured()),
		count(m.Interruptions, "interruption"), count(m.Interjections, "interjection"))}
}

// Documents returns the debate's one document, for [engine.Outcome]:
// "transcript.md", the transcript in Markdown — the chairs and the arbiter,
// then who said what, segment by segment, with the arbiter's evaluations,
// interruptions and interjections, ending with the arbiter's synthesis —
// followed by the metrics against the seed's targets. An Outcome decoded
// from JSON has no transcript (see [Outcome].Transcript): its document
// says so and gives the rest. A nil Outcome has no documents.
func (o *Outcome) Documents() []engine.Document {
	if o == nil {
		return nil
	}
	return []engine.Document{{Name: "transcript.md", Title: "Transcript", Markdown: o.markdown()}}
}

// markdown is the transcript document.
func (o *Outcome) markdown() string {
	var b strings.Builder
	heading := inline(o.Debate.Proposition)
	if heading == "" {
		heading = "A Duelogic debate"
	}
	fmt.Fprintf(&b, "# %s\n\n", heading)
	if o.Debate.ID != "" {
		fmt.Fprintf(&b, "Debate `%s`, ", o.Debate.ID)
	}
	fmt.Fprintf(&b, "a Duelogic podcast debate: %s.\n", o.Verdict().Summary)
	if c := strings.TrimSpace(o.Debate.Context); c != "" {
		fmt.Fprintf(&b, "\n> %s\n", strings.ReplaceAll(mdtext.Block(c), "\n", "\n> "))
	}
	label := func(speaker string) string {
		if l, ok := o.Labels[speaker]; ok {
			return inline(l)
		}
		return inline(speakerLabel(o.Config, DefaultCatalog(), speaker))
	}
	b.WriteString("\n## Chairs\n\n")
	for _, ch := range o.Config.Chairs {
		fmt.Fprintf(&b, "- **%s**: %s, %s\n", label(ch.Position), inline(ch.Position), inline(ch.ModelID))
	}
	fmt.Fprintf(&b, "- **%s**: %s, %s accountability\n", label(SpeakerArbiter),
		inline(o.Config.Arbiter.ModelID), inline(string(o.Config.Arbiter.AccountabilityLevel)))
	if len(o.Transcript) == 0 {
		b.WriteString("\n*The transcript is not part of this outcome: it is the debate's result's, and its records'.*\n")
	}
	var seg Segment
	for _, u := range o.Transcript {
		if u.Segment != seg {
			seg = u.Segment
			fmt.Fprintf(&b, "\n## %s\n", title(string(seg)))
		}
		fmt.Fprintf(&b, "\n**%s**", label(u.Speaker))
		if notes := utteranceNotes(u, label); len(notes) > 0 {
			fmt.Fprintf(&b, " — %s", strings.Join(notes, ", "))
		}
		fmt.Fprintf(&b, "\n\n%s\n", mdtext.Block(strings.TrimSpace(u.Content)))
		if ev := u.Evaluation; ev != nil {
			fmt.Fprintf(&b, "\n> Evaluation: adherence %d · steel-man %s · self-critique %s · consistent %t · honesty %s\n",
				ev.AdherenceScore, inline(string(ev.SteelManning.Quality)), inline(string(ev.SelfCritique.Quality)),
				ev.FrameworkConsistency.Consistent, inline(string(ev.IntellectualHonesty.Score)))
		}
	}
	b.WriteString("\n## Metrics\n\n")
	for _, l := range o.Metrics.lines() {
		b.WriteString("- " + l + "\n")
	}
	return b.String()
}

// utteranceNotes are what the transcript says of u beside its speaker: its
// kind, round, the violation it calls out, why it interrupted, who cut in.
func utteranceNotes(u Utterance, label func(string) string) []string {
	var notes []string
	if u.Kind != "" {
		notes = append(notes, strings.ReplaceAll(string(u.Kind), "_", " "))
	}
	if u.Exchange > 0 {
		notes = append(notes, fmt.Sprintf("round %d", u.Exchange))
	}
	if u.Violation != "" {
		notes = append(notes, fmt.Sprintf("%s, to %s", inline(string(u.Violation)), label(u.Target)))
	}
	if u.Kind == KindInterruption && u.Reason != "" {
		notes = append(notes, inline(u.Reason))
	}
	if u.Interrupted {
		notes = append(notes, "interrupted by "+label(u.InterruptedBy))
	}
	if u.Truncated {
		notes = append(notes, "cut short at the model's length limit")
	}
	return notes
}

// lines are the metrics for a document: the responses, steel-manning over
// the critique responses and self-critique over the substantive ones
// against the seed's targets ("not measured" when there is nothing to
// count), adherence and consistency, interruptions and interjections, and
// the spoken length.
func (m Metrics) lines() []string {
	lines := []string{fmt.Sprintf("responses %d, evaluated %d", m.Responses, m.Evaluated)}
	target := func(name string, rate float64, n int, of string, target float64, measured, met bool) string {
		if !measured {
			return fmt.Sprintf("%s: not measured (no %s; target >%.0f%%)", name, strings.TrimSuffix(of, "s"), 100*target)
		}
		verdict := "missed"
		if met {
			verdict = "met"
		}
		return fmt.Sprintf("%s %.0f%% of %d %s (target >%.0f%%: %s)", name, 100*rate, n, of, 100*target, verdict)
	}
	if m.Evaluated == 0 {
		lines = append(lines, "steel-manning, self-critique, adherence: not measured (no response was evaluated)")
	} else {
		lines = append(lines,
			target("steel-manning", m.SteelManningRate, m.CritiqueResponses, "critique responses", SteelManningTarget, m.SteelManningMeasured(), m.MeetsSteelManning),
			target("self-critique", m.SelfCritiqueRate, m.SubstantiveResponses, "substantive responses", SelfCritiqueTarget, m.SelfCritiqueMeasured(), m.MeetsSelfCritique)+m.cutNote(),
			fmt.Sprintf("mean adherence %.1f, framework consistency %.0f%%", m.MeanAdherence, 100*m.FrameworkConsistency))
	}
	lines = append(lines, fmt.Sprintf("interruptions %d, interjections %d", m.Interruptions, m.Interjections))
	return append(lines, m.Length())
}

// cutNote says, after the self-critique rate, how many responses it
// leaves out because an interruption cut them off.
func (m Metrics) cutNote() string {
	if m.CutResponses == 0 {
		return ""
	}
	return fmt.Sprintf("; %d cut off by an interruption not counted", m.CutResponses)
}

// count is "1 chair", "3 chairs".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// percent is "steel-manning 83%", or "steel-manning not measured".
func percent(name string, rate float64, measured bool) string {
	if !measured {
		return name + " not measured"
	}
	return fmt.Sprintf("%s %.0f%%", name, 100*rate)
}

// inline is text from a model, a user or a config on one line of Markdown.
func inline(s string) string { return mdtext.EscapeLead(oneLine(s)) }

// title is s with spaces for underscores and a capital first letter.
func title(s string) string {
	s = strings.ReplaceAll(s, "_", " ")
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
