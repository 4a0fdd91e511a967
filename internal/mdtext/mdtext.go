// Package mdtext escapes text written by models or users into the Markdown
// documents duelogic renders, so that it stays text: it cannot start a
// heading, a quote, a fence or a table of its own.
package mdtext

import "strings"

// Block keeps s's lines (trimmed of trailing white space) but escapes each
// that would start a heading, a quote, a fence, a table row or a thematic
// break.
func Block(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = EscapeLead(strings.TrimRight(l, " \t"))
	}
	return strings.Join(lines, "\n")
}

// EscapeLead backslash-escapes a line's first non-space character when it
// would start a Markdown heading, quote, fence, table row or thematic break.
func EscapeLead(l string) string {
	t := strings.TrimLeft(l, " ")
	if t == "" {
		return l
	}
	switch t[0] {
	case '#', '>', '|', '`', '~', '=':
		return l[:len(l)-len(t)] + `\` + t
	}
	return l
}
