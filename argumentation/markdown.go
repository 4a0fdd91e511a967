package argumentation

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// Participant describes a participant for the report: its side label (as
// used in moves) and persona. The moderator may be listed though it makes no
// moves.
type Participant struct {
	Side    string `json:"side"`
	Persona string `json:"persona"`
}

// Report is everything the seed's output document shows. Judge fills
// Dialogue, Graph, Scores, Semantics and Verdict; the rest is text the
// caller provides (empty sections say so).
type Report struct {
	Topic        string
	Participants []Participant // nil: the dialogue's participants, no personas
	Context      []string      // the shared context K, one fact per item
	Dialogue     *Dialogue
	Graph        *Graph // the dialogue's graph that Scores evaluate
	Scores       Scores
	Semantics    Semantics // how Scores were computed (zero: not said)
	Verdict      Verdict
	Rationale    string // "": generated from the verdict's numbers
	Consensus    string
	Conditions   []string
	// Final marks a finished debate: its last round (if not round 0) is
	// titled "Closing" instead of "Argumentation".
	Final bool
}

// WriteMarkdown renders the report as the seed's Markdown document:
// participants, shared context, transcript by round, commitment stores,
// arguments and relations tables (derived attacks included), an ASCII
// argument map, and the verdict with its quality metrics. Table cells are
// escaped (backslashes, pipes; line breaks become spaces).
func (r Report) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	d := r.Dialogue
	if d == nil {
		d = NewDialogue()
	}
	g := r.Graph
	if g == nil {
		g = NewGraph()
	}
	moves := d.Moves()
	v := r.Verdict

	p("# Debate: %q\n\n", oneLine(r.Topic))

	p("## Participants\n")
	parts := r.Participants
	if parts == nil {
		for _, s := range d.Participants() {
			parts = append(parts, Participant{Side: s})
		}
	}
	if len(parts) == 0 {
		p("_None._\n")
	}
	for _, pt := range parts {
		p("- **%s**", oneLine(pt.Side))
		if pt.Persona != "" {
			p(" %s", oneLine(pt.Persona))
		}
		p("\n")
	}

	p("\n## Shared Context (K)\n")
	bullets(bw, r.Context, "_None recorded._")
	p("\n---\n\n## Transcript\n")
	if len(moves) == 0 {
		p("\n_No moves._\n")
	}
	last := 0
	for _, m := range moves {
		last = max(last, m.Round)
	}
	rounds := map[int][]Move{}
	var order []int
	for _, m := range moves {
		if _, ok := rounds[m.Round]; !ok {
			order = append(order, m.Round)
		}
		rounds[m.Round] = append(rounds[m.Round], m)
	}
	slices.Sort(order)
	for k, n := range order {
		if k > 0 {
			p("\n---\n")
		}
		title := "Argumentation"
		switch {
		case n == 0:
			title = "Opening"
		case r.Final && n == last:
			title = "Closing"
		}
		p("\n### Round %d: %s\n", n, title)
		for _, m := range rounds[n] {
			p("\n**%s [%s]** %s%s\n", oneLine(m.Speaker), m.ID, moveText(m), replyText(m))
			if t := strings.TrimSpace(m.Text); t != "" {
				for _, line := range strings.Split(t, "\n") {
					p("> %s\n", strings.TrimRight(line, " \t\r"))
				}
			}
		}
	}

	p("\n---\n\n## Commitment Stores (Final State)\n\n")
	p("| Agent | Commitments | Retractions |\n|-------|-------------|-------------|\n")
	for _, cs := range v.Commitments {
		p("| %s | %s | %s |\n", cell(cs.Participant), cell(braces(cs.Commitments)), cell(braces(cs.Retracted)))
	}

	p("\n---\n\n## Argumentation Framework\n\n")
	p("_%s_\n", scoresNote(r.Semantics, r.Scores))
	p("\n### Arguments\n\n| ID | Content | Source | Score |\n|----|---------|--------|-------|\n")
	for _, a := range g.Arguments() {
		p("| %s | %s | %s | %s |\n", cell(a.ID), cell(a.Text), cell(a.Side), scoreText(r.Scores, a.ID))
	}
	p("\n### Relations\n\n| From | To | Type | Classification |\n|------|----|------|----------------|\n")
	rels := g.Relations()
	for _, rel := range g.Flatten().Relations() {
		if rel.Derivation != Direct {
			rels = append(rels, rel)
		}
	}
	for _, rel := range rels {
		typ := "Attack"
		if rel.Type == Support {
			typ = "Support"
		}
		p("| %s | %s | %s | %s |\n", cell(rel.From), cell(rel.To), typ, classify(rel))
	}
	p("\n### Argument Map (ASCII)\n\n```\n")
	writeMap(bw, g, r.Scores)
	p("```\n")

	p("\n---\n\n## Verdict\n\n")
	p("### Winner: **%s** (Score: %s)\n", winnerText(v), scoreLine(v))
	if len(v.Sides) > 2 {
		p("\n")
		for _, s := range v.Sides {
			p("- %s: %.2f (%d surviving of %d arguments)\n", oneLine(s.Side), s.Score, s.Surviving, s.Arguments)
		}
	}
	p("\n### Rationale\n")
	if r.Rationale != "" {
		p("%s\n", strings.TrimSpace(r.Rationale))
	} else {
		p("%s\n", rationale(v))
	}
	p("\n### Strongest Surviving Arguments\n")
	numbered(bw, v.Strongest, "_None survived._")
	p("\n### Valid Points from Losing Side\n")
	empty := "_None._"
	if v.Draw {
		empty = "_No losing side: the verdict is a draw._"
	}
	numbered(bw, v.ValidPoints, empty)
	p("\n### Unaddressed Challenges\n")
	if len(v.Unaddressed) == 0 {
		p("_None._\n")
	}
	for _, c := range v.Unaddressed {
		arg := ""
		if c.Argument != "" {
			arg = " [" + c.Argument + "]"
		}
		p("- [%s] %s asked %s `why` %q%s — never answered\n", c.Move, oneLine(c.Speaker), oneLine(c.Challenged), c.Proposition, arg)
	}
	p("\n### Concessions and Retractions\n")
	if len(v.Concessions)+len(v.Retractions) == 0 {
		p("_None._\n")
	}
	for _, m := range moves {
		switch m.Act {
		case Concede:
			p("- [%s] %s conceded %q\n", m.ID, oneLine(m.Speaker), m.Proposition)
		case Retract:
			p("- [%s] %s retracted %q\n", m.ID, oneLine(m.Speaker), m.Proposition)
		}
	}
	p("\n### Consensus Solution\n")
	if c := strings.TrimSpace(r.Consensus); c != "" {
		p("%s\n", c)
	} else {
		p("_Not provided._\n")
	}
	p("\n### Conditions for Revisiting\n")
	bullets(bw, r.Conditions, "_Not provided._")
	mt := v.Metrics
	p("\n### Debate Quality Metrics\n")
	p("- Moves: %d\n", mt.Moves)
	p("- Arguments raised: %d\n", mt.Arguments)
	p("- Attacks: %d (%d rebuts, %d undercuts)\n", mt.Attacks, mt.Rebuts, mt.Undercuts)
	p("- Supports: %d\n", mt.Supports)
	p("- Challenges: %d (%d unanswered)\n", mt.Challenges, mt.Unanswered)
	p("- Concessions made: %d\n", mt.Concessions)
	p("- Retractions: %d\n", mt.Retractions)
	return bw.Flush()
}

// WriteDOT writes the report's graph as Graphviz DOT; see WriteDOT.
func (r Report) WriteDOT(w io.Writer) error { return WriteDOT(w, r.Graph, r.Scores) }

func moveText(m Move) string {
	switch m.Act {
	case Since:
		q := make([]string, len(m.Reasons))
		for i, s := range m.Reasons {
			q[i] = fmt.Sprintf("%q", s)
		}
		return fmt.Sprintf("%q `since` {%s}", m.Proposition, strings.Join(q, ", "))
	}
	return fmt.Sprintf("`%s` %q", m.Act, m.Proposition)
}

func replyText(m Move) string {
	switch {
	case m.Target == "":
		return ""
	case m.Attack == "rebut":
		return fmt.Sprintf(" — rebuts [%s]", m.Target)
	case m.Attack == "undercut":
		return fmt.Sprintf(" — undercuts [%s]", m.Target)
	}
	return fmt.Sprintf(" — reply to [%s]", m.Target)
}

func classify(r Relation) string {
	if r.Type == Support {
		return "Direct"
	}
	kind := "Rebutting"
	if r.Kind == Undercut {
		kind = "Undercutting"
	}
	switch r.Derivation {
	case SupportedAttack:
		return "Supported attack (derived, " + strings.ToLower(kind) + ")"
	case SecondaryAttack:
		return "Secondary attack (derived, " + strings.ToLower(kind) + ")"
	}
	return kind
}

func scoresNote(s Semantics, sc Scores) string {
	name := "Scores"
	if s.kind != kindNone {
		name = "Scores: " + s.String() + " semantics"
	}
	switch {
	case sc.Strength == nil:
		return "Scores: not computed."
	case sc.Method == Exact:
		return fmt.Sprintf("%s, exact (acyclic graph, %d levels).", name, sc.Iterations)
	case sc.Converged:
		return fmt.Sprintf("%s, %s method, converged after %d iterations.", name, sc.Method, sc.Iterations)
	}
	return fmt.Sprintf("%s, %s method, NOT converged after %d iterations (residual %.2g): the scores are provisional.",
		name, sc.Method, sc.Iterations, sc.Residual)
}

func scoreText(sc Scores, id string) string {
	s, ok := sc.Strength[id]
	if !ok {
		return "–"
	}
	return fmt.Sprintf("%.2f", s)
}

func winnerText(v Verdict) string {
	switch {
	case v.Draw:
		return "Draw"
	case v.Winner == "":
		return "None"
	}
	return oneLine(v.Winner)
}

func scoreLine(v Verdict) string {
	if len(v.Sides) == 0 {
		return "–"
	}
	parts := make([]string, len(v.Sides))
	for i, s := range v.Sides {
		parts[i] = fmt.Sprintf("%.2f", s.Score)
	}
	return strings.Join(parts, " vs ")
}

// rationale explains the verdict from its numbers.
func rationale(v Verdict) string {
	var b strings.Builder
	side := func(s SideScore) string {
		var ids []string
		for _, a := range v.Surviving {
			if a.Side == s.Side {
				ids = append(ids, fmt.Sprintf("%s %.2f", a.ID, a.Score))
			}
		}
		if len(ids) == 0 {
			return fmt.Sprintf("%s has no surviving argument (of %d)", oneLine(s.Side), s.Arguments)
		}
		return fmt.Sprintf("%s scores %.2f from %d surviving argument%s (%s)",
			oneLine(s.Side), s.Score, s.Surviving, plural(s.Surviving), strings.Join(ids, ", "))
	}
	switch {
	case len(v.Sides) == 0:
		b.WriteString("No side made a move.")
	case v.Draw:
		b.WriteString("Too close to call: ")
	default:
		fmt.Fprintf(&b, "%s prevails: ", oneLine(v.Winner))
	}
	for i, s := range v.Sides {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(side(s))
	}
	if len(v.Sides) > 0 {
		b.WriteString(".")
	}
	if n := len(v.Unaddressed); n > 0 {
		fmt.Fprintf(&b, " %d challenge%s went unanswered.", n, plural(n))
	}
	if !v.Converged && v.Method != Exact {
		b.WriteString(" The scores did not converge, so the verdict is provisional.")
	}
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func numbered(w io.Writer, args []ScoredArgument, empty string) {
	if len(args) == 0 {
		fmt.Fprintf(w, "%s\n", empty)
	}
	for i, a := range args {
		fmt.Fprintf(w, "%d. [%s] %s (%s, %.2f)\n", i+1, a.ID, oneLine(a.Text), oneLine(a.Side), a.Score)
	}
}

func bullets(w io.Writer, items []string, empty string) {
	n := 0
	for _, it := range items {
		if it = oneLine(it); it != "" {
			fmt.Fprintf(w, "- %s\n", it)
			n++
		}
	}
	if n == 0 {
		fmt.Fprintf(w, "%s\n", empty)
	}
}

func braces(ps []string) string { return "{" + strings.Join(ps, ", ") + "}" }

// oneLine collapses white space, line breaks included, to single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// cell escapes text for a Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(oneLine(s), `\`, `\\`)
	return strings.ReplaceAll(s, "|", `\|`)
}

// writeMap draws the graph as trees: each conclusion (an argument that
// supports or attacks nothing) with the relations into it, recursively; an
// argument met again is referred back to. Arguments only on cycles come last.
func writeMap(w io.Writer, g *Graph, sc Scores) {
	args := g.Arguments()
	if len(args) == 0 {
		fmt.Fprintln(w, "(no arguments)")
		return
	}
	byID := map[string]Argument{}
	for _, a := range args {
		byID[a.ID] = a
	}
	in := map[string][]Relation{}
	hasOut := map[string]bool{}
	for _, r := range g.Relations() {
		in[r.To] = append(in[r.To], r)
		if r.From != r.To {
			hasOut[r.From] = true
		}
	}
	label := func(a Argument) string {
		return fmt.Sprintf("[%s] %s (%s, %s)", a.ID, shorten(oneLine(a.Text), 60), oneLine(a.Side), scoreText(sc, a.ID))
	}
	shown := map[string]bool{}
	var walk func(id, prefix string)
	walk = func(id, prefix string) {
		rels := in[id]
		for k, r := range rels {
			branch, next := "├─", "│  "
			if k == len(rels)-1 {
				branch, next = "└─", "   "
			}
			name := "support"
			if r.Type == Attack {
				name = r.Kind.String()
			}
			if shown[r.From] {
				fmt.Fprintf(w, "%s%s%s── [%s] (see above)\n", prefix, branch, name, r.From)
				continue
			}
			shown[r.From] = true
			fmt.Fprintf(w, "%s%s%s── %s\n", prefix, branch, name, label(byID[r.From]))
			walk(r.From, prefix+next)
		}
	}
	root := func(a Argument) {
		shown[a.ID] = true
		fmt.Fprintln(w, label(a))
		walk(a.ID, "")
	}
	for _, a := range args {
		if !hasOut[a.ID] {
			root(a)
		}
	}
	for _, a := range args {
		if !shown[a.ID] {
			root(a)
		}
	}
}

func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
