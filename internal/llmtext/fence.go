package llmtext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Fence puts text between <tag> and </tag> lines. Every tag-like "<name" or
// "</name" inside text is defused: its "<" becomes "&lt;", so the text can
// neither close its own fence nor open another. Text that a model could read
// as a tag counts too:
//
//   - look-alikes of "<" (fullwidth ＜, small ﹤, ‹, 〈, 〈, ⟨, ❬, ❮, ❰, ⧼,
//     ˂, Unicode tag characters) stand for "<";
//   - look-alikes of "/" and "\" ("<\/name", as in JSON) stand for "/";
//   - white space, control and format characters (\v, \f, U+2028,
//     zero-width spaces and joiners, U+FEFF, ...), combining marks and
//     variation selectors between the "<", the slashes and the name are
//     skipped;
//   - a name starts with "_" or a letter of any script (fullwidth and
//     homoglyph letters included).
//
// Everything else, the rest of a defused tag included, is kept as it is.
func Fence(tag, text string) string {
	return "<" + tag + ">\n" + strings.TrimSpace(defuseTags(text)) + "\n</" + tag + ">"
}

// defuseTags replaces with "&lt;" each "<" or look-alike of it that opens a
// tag.
func defuseTags(s string) string {
	var b strings.Builder
	done := 0 // s[:done] is in b
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if isLess(fold(r)) && startsName(s[i+n:]) {
			b.WriteString(s[done:i])
			b.WriteString("&lt;")
			done = i + n
		}
		i += n
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// startsName reports whether s, the text after a "<", continues a tag: after
// any slashes and invisible characters comes "_" or a letter.
func startsName(s string) bool {
	for _, r := range s {
		switch r = fold(r); {
		case isSlash(r) || invisible(r):
		default:
			return r == '_' || unicode.IsLetter(r)
		}
	}
	return false
}

// fold maps fullwidth ASCII (U+FF01..U+FF5E) and Unicode tag characters
// (U+E0020..U+E007E) to the ASCII characters they stand for.
func fold(r rune) rune {
	switch {
	case r >= 0xFF01 && r <= 0xFF5E:
		return r - 0xFF01 + '!'
	case r >= 0xE0020 && r <= 0xE007E:
		return r - 0xE0000
	}
	return r
}

// isLess reports whether r (folded) is "<" or looks like it.
func isLess(r rune) bool {
	switch r {
	case '<',
		'\uFE64', // SMALL LESS-THAN SIGN
		'\u2039', // SINGLE LEFT-POINTING ANGLE QUOTATION MARK
		'\u2329', // LEFT-POINTING ANGLE BRACKET
		'\u3008', // LEFT ANGLE BRACKET
		'\u27E8', // MATHEMATICAL LEFT ANGLE BRACKET
		'\u276C', // MEDIUM LEFT-POINTING ANGLE BRACKET ORNAMENT
		'\u276E', // HEAVY LEFT-POINTING ANGLE QUOTATION MARK ORNAMENT
		'\u2770', // HEAVY LEFT-POINTING ANGLE BRACKET ORNAMENT
		'\u29FC', // LEFT-POINTING CURVED ANGLE BRACKET
		'\u02C2': // MODIFIER LETTER LEFT ARROWHEAD
		return true
	}
	return false
}

// isSlash reports whether r (folded) is "/", "\" or looks like one of them.
func isSlash(r rune) bool {
	switch r {
	case '/', '\\',
		'\u2044', // FRACTION SLASH
		'\u2215', // DIVISION SLASH
		'\u2216', // SET MINUS
		'\u29F5', // REVERSE SOLIDUS OPERATOR
		'\u29F8', // BIG SOLIDUS
		'\u29F9', // BIG REVERSE SOLIDUS
		'\uFE68', // SMALL REVERSE SOLIDUS
		'\u2571', // BOX DRAWINGS LIGHT DIAGONAL UPPER RIGHT TO LOWER LEFT
		'\u2572', // BOX DRAWINGS LIGHT DIAGONAL UPPER LEFT TO LOWER RIGHT
		'\u27CB', // MATHEMATICAL RISING DIAGONAL
		'\u27CD': // MATHEMATICAL FALLING DIAGONAL
		return true
	}
	return false
}

// invisible reports whether r can sit inside a tag without showing or
// without stopping a reader from seeing the tag: white space (U+2028 and
// U+2029 included), control and format characters, combining marks,
// variation selectors, other default-ignorable code points, and the
// replacement character that invalid UTF-8 decodes to.
func invisible(r rune) bool {
	return r == utf8.RuneError || unicode.IsSpace(r) ||
		unicode.In(r, unicode.Z, unicode.Cc, unicode.Cf, unicode.Mn, unicode.Me,
			unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}
