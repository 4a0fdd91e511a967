package render

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain text", "Redis, or PostgreSQL?\n\tYes — «ça va» 😀", "Redis, or PostgreSQL?\n\tYes — «ça va» 😀"},
		{"clear screen, title, bell", "Q?\x1b[2J\x1b]0;PWNED\x07", "Q?␛[2J␛]0;PWNED␇"},
		{"CRLF is LF, a lone CR goes", "a\r\nb\rc", "a\nbc"},
		{"backspace, DEL, NUL", "a\bb\x7fc\x00", "a␈b␡c␀"},
		{"C1 controls", "a\u009b2Jb\u0085c", "a\uFFFD2Jb\uFFFDc"},
		{"a byte that is not UTF-8", "a\x9b2J\xffb", "a\uFFFD2J\uFFFDb"},
		{"U+FFFD itself stays", "a\uFFFDb", "a\uFFFDb"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Sanitize(tt.in); got != tt.want {
				t.Errorf("Sanitize(%q) = %q; want %q", tt.in, got, tt.want)
			}
		})
	}
}

// FuzzSanitize: whatever the input, no control character but newline and
// tab survives (no C0 byte, DEL or C1 control), the output is UTF-8, it
// has the input's newlines and tabs, sanitizing it again changes nothing,
// and printable text comes out as it went in.
func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"", "plain text\n\twith tabs", "Q?\x1b[2J\x1b]0;PWNED\x07", "a\r\nb", "\u009b31m", "\xff\xfe", "é\xc3", "\x7f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := Sanitize(in)
		for i := 0; i < len(out); i++ {
			if c := out[i]; c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
				t.Fatalf("Sanitize(%q) = %q: byte %#x at %d", in, out, c, i)
			}
		}
		if !utf8.ValidString(out) {
			t.Fatalf("Sanitize(%q) = %q: not UTF-8", in, out)
		}
		for _, c := range out {
			if c >= 0x80 && c <= 0x9f {
				t.Fatalf("Sanitize(%q) = %q: C1 control %U", in, out, c)
			}
		}
		for _, keep := range []string{"\n", "\t"} {
			if strings.Count(out, keep) != strings.Count(in, keep) {
				t.Fatalf("Sanitize(%q) = %q: %q not kept", in, out, keep)
			}
		}
		if again := Sanitize(out); again != out {
			t.Fatalf("Sanitize(%q) = %q, then %q", in, out, again)
		}
		printable := utf8.ValidString(in) && !strings.ContainsFunc(in, func(c rune) bool {
			return !unicode.IsPrint(c) && c != '\n' && c != '\t'
		})
		if printable && out != in {
			t.Fatalf("Sanitize(%q) = %q: printable text changed", in, out)
		}
	})
}
