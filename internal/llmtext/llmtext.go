// Package llmtext holds the text handling every duelogic package needs around
// model calls: fencing user or model text as data inside prompts, and reading
// a JSON object out of a model's reply with tolerance for what models do to
// JSON (code fences, prose around it, trailing commas, numbers as strings,
// snake_case keys).
package llmtext

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// OneLine collapses white space, so text placed on a prompt line cannot start
// a line of its own.
func OneLine(s string) string {
	s = strings.TrimSpace(s)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || c != ' ' && asciiSpace(c) || c == ' ' && asciiSpace(s[i+1]) {
			// A run to squeeze, or a non-ASCII rune that may be space:
			// the general path. (s is trimmed, so a space is never last.)
			return strings.Join(strings.Fields(s), " ")
		}
	}
	return s
}

func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// Truncate cuts s to at most n runes, adding "…" when it cut.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return strings.TrimSpace(s[:j]) + "…"
		}
		i++
	}
	return s
}

// ErrNoJSON means a reply held no JSON object.
var ErrNoJSON = errors.New("no JSON object in reply")

// Object returns the first JSON object in a model's reply: it skips code
// fences and prose around the object (an unbalanced "{" included), takes the
// first balanced {...} (strings and escapes respected) that decodes, and
// drops trailing commas before } and ]. Numbers are float64; one beyond
// float64's range (1e999, as a grammar-held model may write) is the
// largest float64 of its sign, one too small for it 0.
func Object(reply string) (map[string]any, error) {
	start := strings.IndexByte(reply, '{')
	for start >= 0 {
		if end := matchBrace(reply, start); end >= 0 {
			if m, ok := decodeObject(dropTrailingCommas(reply[start : end+1])); ok {
				return m, nil
			}
		}
		next := strings.IndexByte(reply[start+1:], '{')
		if next < 0 {
			break
		}
		start += 1 + next
	}
	return nil, ErrNoJSON
}

// decodeObject decodes a JSON object whose numbers are read as Object says.
func decodeObject(text string) (map[string]any, bool) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil || dec.More() {
		return nil, false
	}
	return floats(m).(map[string]any), true
}

// floats replaces the json.Numbers in v, a decoded JSON value, by float64s
// within float64's range.
func floats(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, _ := strconv.ParseFloat(string(x), 64) // ±Inf beyond the range, 0 below it
		if math.IsInf(f, 0) {
			f = math.Copysign(math.MaxFloat64, f)
		}
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = floats(e)
		}
	case []any:
		for i, e := range x {
			x[i] = floats(e)
		}
	}
	return v
}

// matchBrace returns the index of the brace closing the one at s[open], or -1.
func matchBrace(s string, open int) int {
	depth, inStr, esc := 0, false, false
	for i := open; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// dropTrailingCommas removes a comma followed (after white space) by } or ],
// outside strings.
func dropTrailingCommas(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	inStr, esc := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			b.WriteByte(c)
			continue
		}
		if c == '"' {
			inStr = true
		}
		if c == ',' {
			j := i + 1
			for j < len(s) && strings.IndexByte(" \t\r\n", s[j]) >= 0 {
				j++
			}
			if j < len(s) && (s[j] == '}' || s[j] == ']') {
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

var keyNoise = strings.NewReplacer("_", "", "-", "", " ", "")

// Lookup finds key in m, ignoring case, '_', '-' and spaces
// ("steel_manning" finds "steelManning").
func Lookup(m map[string]any, key string) (any, bool) {
	if v, ok := m[key]; ok {
		return v, true
	}
	want := strings.ToLower(keyNoise.Replace(key))
	for k, v := range m {
		if strings.ToLower(keyNoise.Replace(k)) == want {
			return v, true
		}
	}
	return nil, false
}

// Number reads a finite number, also from a string ("0.8", "85%") or a bool.
func Number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	case string:
		f, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(x), "%"), 64)
		return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// Bool reads a bool, also from "yes"/"no", "true"/"false", "1"/"0" or a
// number; ok is false for anything else.
func Bool(v any) (b, ok bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "yes", "y", "1":
			return true, true
		case "false", "no", "n", "0", "":
			return false, true
		}
	case float64:
		return x != 0, true
	}
	return false, false
}

// String reads a string (trimmed), or a number or bool as text; "" otherwise.
func String(v any) string {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

// Strings reads a list of strings, or one string as a list of one, dropping
// empty entries.
func Strings(v any) []string {
	switch x := v.(type) {
	case []any:
		var out []string
		for _, e := range x {
			if s := String(e); s != "" {
				out = append(out, s)
			}
		}
		return out
	case string:
		if s := strings.TrimSpace(x); s != "" {
			return []string{s}
		}
	}
	return nil
}

// Map reads a JSON object, or nil.
func Map(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// Bullets renders items as a Markdown list, one line each ("- item"),
// leaving out the blank ones.
func Bullets(items []string) string {
	var b strings.Builder
	for _, it := range items {
		if it = OneLine(it); it != "" {
			b.WriteString("- " + it + "\n")
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}
