package argumentation

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// WriteDOT writes g as a Graphviz digraph: one box per argument labelled
// with its ID, text (wrapped), side and score, filled green if it survives
// (score > 0.5) and red if not (white without a score); supports are green
// edges, rebuts red, undercuts red and dashed, derived attacks dotted. All
// text is escaped for DOT's quoted strings. scores may be the zero Scores.
func WriteDOT(w io.Writer, g *Graph, scores Scores) error {
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	p("digraph argumentation {\n")
	p("  rankdir=BT;\n")
	p("  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\"];\n")
	p("  edge [fontname=\"Helvetica\", fontsize=10];\n")
	if g != nil {
		for _, a := range g.Arguments() {
			lines := []string{a.ID}
			if a.Text != "" {
				lines[0] += ":"
				lines = append(lines, wrap(oneLine(a.Text), 40)...)
			}
			var foot []string
			if a.Side != "" {
				foot = append(foot, oneLine(a.Side))
			}
			fill := "white"
			if s, ok := scores.Strength[a.ID]; ok {
				foot = append(foot, fmt.Sprintf("%.2f", s))
				fill = "#f8d7da"
				if s > SurvivalThreshold {
					fill = "#d4edda"
				}
			}
			if len(foot) > 0 {
				lines = append(lines, strings.Join(foot, " · "))
			}
			for i, l := range lines {
				lines[i] = dotEscape(l)
			}
			p("  %s [label=\"%s\", fillcolor=\"%s\"];\n", dotQuote(a.ID), strings.Join(lines, `\n`), fill)
		}
		for _, r := range g.Relations() {
			attrs := `label="support", color="#2e7d32", fontcolor="#2e7d32"`
			if r.Type == Attack {
				label := r.Kind.String()
				style := "solid"
				if r.Kind == Undercut {
					style = "dashed"
				}
				if r.Derivation != Direct {
					label = r.Derivation.String() + " (" + label + ")"
					style = "dotted"
				}
				attrs = fmt.Sprintf(`label="%s", color="#c62828", fontcolor="#c62828", style=%s`, label, style)
			}
			p("  %s -> %s [%s];\n", dotQuote(r.From), dotQuote(r.To), attrs)
		}
	}
	p("}\n")
	return bw.Flush()
}

// dotEscape escapes text for a DOT double-quoted string: backslashes and
// quotes are escaped and line breaks become \n escapes.
func dotEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case '"':
			b.WriteString(`\"`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func dotQuote(s string) string { return `"` + dotEscape(s) + `"` }

// wrap breaks s into lines of at most about width runes at spaces.
func wrap(s string, width int) []string {
	var lines []string
	var cur strings.Builder
	n := 0
	for _, word := range strings.Fields(s) {
		wl := len([]rune(word))
		if n > 0 && n+1+wl > width {
			lines = append(lines, cur.String())
			cur.Reset()
			n = 0
		}
		if n > 0 {
			cur.WriteByte(' ')
			n++
		}
		cur.WriteString(word)
		n += wl
	}
	if n > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}
