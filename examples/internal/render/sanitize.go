package render

import (
	"strings"
	"unicode/utf8"
)

// Sanitize returns s made safe to write to a terminal: text from a model, a
// person or a store cannot move the cursor, clear the screen, set the
// window title or ring the bell. A C0 control character other than newline
// and tab becomes its Unicode control picture (ESC is shown as ␛, BEL as
// ␇), DEL becomes ␡, a carriage return is dropped (so CRLF reads as LF),
// and a C1 control (U+0080–U+009F) or a byte that is not UTF-8 becomes
// U+FFFD. Anything else, newlines and tabs included, is kept as it is.
func Sanitize(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, unsafe) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && n == 1, c >= 0x80 && c <= 0x9f:
			b.WriteRune(utf8.RuneError)
		case c == '\r':
		case c < 0x20 && c != '\n' && c != '\t':
			b.WriteRune(0x2400 + c) // the control pictures: U+2400 is NUL's
		case c == 0x7f:
			b.WriteRune('\u2421')
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// unsafe reports whether c is a control character that Sanitize replaces.
func unsafe(c rune) bool {
	return c < 0x20 && c != '\n' && c != '\t' || c >= 0x7f && c <= 0x9f
}
