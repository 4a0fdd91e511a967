// Package stubtext holds the text helpers that the writers of the offline
// stub model (llm.Stub) share across packages: expanding sentence templates,
// joining sentences into paragraphs, shortening and quoting. It knows no
// debate format and draws no random choices.
package stubtext

import (
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Expand replaces each {key} in tmpl with vars[key]; a key written with a
// capital first letter ({Opp}) inserts the value capitalized. Unknown keys
// are left as they are.
func Expand(tmpl string, vars map[string]string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			break
		}
		key := tmpl[i+1 : i+j]
		b.WriteString(tmpl[:i])
		if v, ok := vars[key]; ok {
			b.WriteString(v)
		} else if v, ok := vars[LowerFirst(key)]; ok && key != LowerFirst(key) {
			b.WriteString(UpperFirst(v))
		} else {
			b.WriteString(tmpl[i : i+j+1])
		}
		tmpl = tmpl[i+j+1:]
	}
	b.WriteString(tmpl)
	return b.String()
}

// UpperFirst returns s with its first letter upper-cased.
func UpperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || !unicode.IsLower(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// LowerFirst returns s with its first letter lower-cased.
func LowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || !unicode.IsUpper(r) {
		return s
	}
	return string(unicode.ToLower(r)) + s[n:]
}

// Join makes paragraphs of sentences, capitalizing each sentence and tidying
// its punctuation. Blank sentences and empty paragraphs are dropped;
// paragraphs are separated by a blank line.
func Join(paragraphs ...[]string) string {
	var out []string
	for _, p := range paragraphs {
		var ss []string
		for _, s := range p {
			if s = strings.TrimSpace(s); s != "" {
				ss = append(ss, punctuation.Replace(UpperFirst(s)))
			}
		}
		if len(ss) > 0 {
			out = append(out, strings.Join(ss, " "))
		}
	}
	return strings.Join(out, "\n\n")
}

// punctuation drops the doubled punctuation a quoted question leaves at the
// end of a sentence: `asks "Why?".` becomes `asks "Why?"`.
var punctuation = strings.NewReplacer(`?".`, `?"`, `?"?`, `?"`, `!".`, `!"`, `!"?`, `!"`, `."?`, `."`)

// Shorten collapses whitespace in s and cuts it at a word boundary so it has
// at most about limit characters, marking a cut with "…".
func Shorten(s string, limit int) string {
	s = strings.Join(strings.Fields(s), " ")
	n := 0
	for i := range s {
		if n < limit {
			n++
			continue
		}
		head := s[:i]
		if s[i] != ' ' {
			if sp := strings.LastIndexByte(head, ' '); sp > 0 {
				head = head[:sp]
			}
		}
		return strings.TrimRight(head, ",;:—- ") + "…"
	}
	return s
}

// Quote returns p shortened to about limit characters and put in double
// quotes, so that it can sit inside a sentence: a statement loses its full
// stop, a question keeps its mark. It returns fallback when p is empty.
func Quote(p string, limit int, fallback string) string {
	p = strings.TrimRight(strings.Trim(Shorten(p, limit), `"'“”`), ".")
	if p == "" {
		return fallback
	}
	return `"` + p + `"`
}

// Words counts the words of s.
func Words(s string) int { return len(strings.Fields(s)) }

// SplitList splits a comma-separated list ("a, b, c"), dropping blank items.
func SplitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// Snippet returns the first sentence of text, shortened to about limit
// characters.
func Snippet(text string, limit int) string {
	text = strings.Join(strings.Fields(text), " ")
	if i := strings.IndexAny(text, ".!?"); i > 0 {
		text = text[:i]
	}
	return Shorten(text, limit)
}

// FromSecondSentence returns text, whitespace collapsed, from its second
// sentence on, or all of it when it has only one.
func FromSecondSentence(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	if i := strings.Index(text, ". "); i > 0 && i+2 < len(text) {
		return text[i+2:]
	}
	return text
}

// JSON returns v marshalled. It panics if v cannot be marshalled, which for
// the writers' own types is a programming error.
func JSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic("stubtext: " + err.Error())
	}
	return string(b)
}
