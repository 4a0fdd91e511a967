package render

import (
	"fmt"
	"strings"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
)

// Head is what a Markdown transcript says of its debate above the
// utterances. Status, when set, follows the format ("finished").
type Head struct {
	ID, Format, Status string
	Debate             engine.Debate
}

// Transcript is a debate as Markdown, the document the CLI writes and the
// web page offers: who said what, segment by segment, with the arbiter's
// evaluations, the speakers named by name, then tail.
func Transcript(h Head, us []engine.Utterance, name func(speaker string) string, tail string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", strings.Join(strings.Fields(h.Debate.Proposition), " "))
	status := ""
	if h.Status != "" {
		status = ", " + h.Status
	}
	fmt.Fprintf(&b, "Debate `%s`, format %s%s, %d utterances.\n", h.ID, h.Format, status, len(us))
	if c := strings.TrimSpace(h.Debate.Context); c != "" {
		fmt.Fprintf(&b, "\n> %s\n", strings.ReplaceAll(c, "\n", "\n> "))
	}
	var seg engine.Segment
	for _, u := range us {
		if u.Segment != seg {
			seg = u.Segment
			fmt.Fprintf(&b, "\n## %s\n", Title(string(seg)))
		}
		fmt.Fprintf(&b, "\n**%s**", name(u.Speaker))
		var notes []string
		if u.Kind != "" {
			notes = append(notes, strings.ReplaceAll(string(u.Kind), "_", " "))
		}
		if u.Exchange > 0 {
			notes = append(notes, fmt.Sprintf("round %d", u.Exchange))
		}
		if u.Violation != "" {
			notes = append(notes, fmt.Sprintf("%s, to %s", u.Violation, name(u.Target)))
		}
		if u.Kind == engine.KindInterruption && u.Reason != "" {
			notes = append(notes, u.Reason)
		}
		if u.Interrupted {
			notes = append(notes, "interrupted by "+name(u.InterruptedBy))
		}
		if u.Truncated {
			notes = append(notes, "cut short at the model's length limit")
		}
		if len(notes) > 0 {
			fmt.Fprintf(&b, " — %s", strings.Join(notes, ", "))
		}
		fmt.Fprintf(&b, "\n\n%s\n", strings.TrimSpace(u.Content))
		if ev := u.Evaluation; ev != nil {
			fmt.Fprintf(&b, "\n> Evaluation: adherence %d · steel-man %s · self-critique %s · consistent %t · honesty %s\n",
				ev.AdherenceScore, ev.SteelManning.Quality, ev.SelfCritique.Quality, ev.FrameworkConsistency.Consistent, ev.IntellectualHonesty.Score)
		}
	}
	b.WriteString(tail)
	return b.String()
}

// MetricsSection is the Markdown section of a podcast's metrics: the lines
// the terminal shows ([MetricsLines]), as a list.
func MetricsSection(m duelogic.Metrics) string {
	var b strings.Builder
	b.WriteString("\n## Metrics\n\n")
	for _, line := range MetricsLines(m) {
		text := line.Text
		if line.Met != nil {
			verdict := "missed"
			if *line.Met {
				verdict = "met"
			}
			text = strings.Replace(text, "{verdict}", verdict, 1)
		}
		b.WriteString("- " + text + "\n")
	}
	return b.String()
}

// Title is s with spaces for underscores and a capital first letter.
func Title(s string) string {
	s = strings.ReplaceAll(s, "_", " ")
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
