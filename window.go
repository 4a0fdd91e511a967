package duelogic

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The prompt window: prompts carry the last few turns verbatim and a running
// summary of the ones before, both bounded, so a prompt's size does not grow
// with the length of the debate.
const (
	// windowTurnRunes caps each verbatim turn.
	windowTurnRunes = 2500
	// summaryLines is how many earlier turns the summary names.
	summaryLines = 12
	// summaryLineRunes caps each summary line.
	summaryLineRunes = 220
	// highlightRunes caps each strongest-moment excerpt in the closing.
	highlightRunes = 600
)

// recentCount is how many turns a prompt carries verbatim: one round.
func (r *play) recentCount() int { return max(2, len(r.cfg.Chairs)) }

// window renders the debate so far for a prompt: "" before anyone spoke.
func (r *play) window() string {
	summary, recent := r.split()
	var b strings.Builder
	if summary != "" {
		b.WriteString("Earlier in the debate (summary):\n" + fence("summary", summary) + "\n\n")
	}
	if recent != "" {
		b.WriteString("The most recent turns, verbatim:\n" + fence("transcript", recent))
	}
	return strings.TrimSuffix(b.String(), "\n\n")
}

// split renders the summary of the older turns and the recent turns.
func (r *play) split() (summary, recent string) {
	n := r.s.Len()
	t := r.s.Tail(r.recentCount() + summaryLines)
	cut := max(0, len(t)-r.recentCount())
	var sb strings.Builder
	if skipped := n - len(t); skipped > 0 {
		sb.WriteString("(" + strconv.Itoa(skipped) + " earlier turns not shown)")
	}
	for _, u := range t[:cut] {
		if sb.Len() > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString("- " + r.label(u.Speaker) + ", ")
		writeKind(&sb, u)
		sb.WriteString(": " + truncateRunes(firstSentences(u.Content, 2), summaryLineRunes))
	}
	var rb strings.Builder
	for i, u := range t[cut:] {
		if i > 0 {
			rb.WriteString("\n\n")
		}
		rb.WriteString(r.label(u.Speaker) + ", ")
		writeKind(&rb, u)
		rb.WriteString(":\n" + truncateRunes(u.Content, windowTurnRunes))
	}
	return sb.String(), rb.String()
}

func writeKind(b *strings.Builder, u Utterance) {
	switch u.Kind {
	case KindResponse:
		b.WriteString("exchange " + strconv.Itoa(u.Exchange))
		if u.Interrupted {
			b.WriteString(", interrupted")
		}
	case KindInterruption:
		b.WriteString("interrupting (" + strings.ReplaceAll(u.Reason, "_", " ") + ")")
	case KindInterjection:
		b.WriteString("interjecting")
	default:
		b.WriteString(string(u.Kind))
	}
}

// firstSentences returns the first n sentences of s on one line (runs of
// white space as one space).
func firstSentences(s string, n int) string {
	end := 0
	for i := 0; i < n; i++ {
		j := strings.IndexAny(s[end:], ".?!")
		if j < 0 {
			end = len(s)
			break
		}
		end += j + 1
	}
	return oneLine(s[:end])
}

// closingMaterial gathers what the arbiter's closing needs, bounded in size:
// the summary and the last round, each chair's two best-evaluated responses
// (or its last two when none was evaluated) and record, and the most urgent
// interruptions as the key clashes.
func (r *play) closingMaterial() ClosingMaterial {
	summary, recent := r.split()
	m := ClosingMaterial{Summary: summary, Recent: recent}
	for _, ch := range r.cfg.Chairs {
		rec := ChairRecord{Position: ch.Position}
		var mine []Utterance
		total := 0
		for _, u := range r.transcript() {
			if u.Kind == KindInterjection && u.Target == ch.Position {
				rec.Interjections++
				continue
			}
			if u.Speaker != ch.Position || u.Kind != KindResponse && u.Kind != KindOpening {
				continue
			}
			mine = append(mine, u)
			if ev := u.Evaluation; ev != nil {
				rec.Evaluated++
				total += ev.AdherenceScore
				if !weakOrAbsent(ev.SteelManning.Quality) {
					rec.SteelManned++
				}
				if !weakOrAbsent(ev.SelfCritique.Quality) {
					rec.SelfCritiqued++
				}
				if !ev.FrameworkConsistency.Consistent {
					rec.Inconsistencies++
				}
			}
		}
		if rec.Evaluated > 0 {
			rec.MeanAdherence = float64(total) / float64(rec.Evaluated)
		}
		score := func(u Utterance) int {
			if u.Evaluation == nil {
				return -1
			}
			return u.Evaluation.AdherenceScore
		}
		best := slices.Clone(mine)
		slices.SortStableFunc(best, func(a, b Utterance) int {
			return cmp.Or(cmp.Compare(score(b), score(a)), cmp.Compare(b.Seq, a.Seq))
		})
		for _, u := range best[:min(2, len(best))] {
			rec.Highlights = append(rec.Highlights, truncateRunes(u.Content, highlightRunes))
		}
		m.Chairs = append(m.Chairs, rec)
	}
	clashes := slices.Clone(r.interruptions)
	slices.SortStableFunc(clashes, func(a, b InterruptCandidate) int { return cmp.Compare(b.Urgency, a.Urgency) })
	for _, c := range clashes[:min(5, len(clashes))] {
		m.Clashes = append(m.Clashes, fmt.Sprintf("%s cut into %s (%s): %q",
			r.label(c.InterruptingChair.Position), r.label(c.InterruptedChair.Position),
			strings.ReplaceAll(string(c.TriggerReason), "_", " "), truncateRunes(c.TriggerContent, 200)))
	}
	return m
}
