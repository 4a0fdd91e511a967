package duelogic

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
)

// errNoJSON means a model's reply held no JSON object.
var errNoJSON = errors.New("no JSON object in reply")

// extractJSONObject finds the JSON object in a model's reply: it skips code
// fences and prose around the object, takes the first balanced {...} (strings
// and escapes respected), and drops trailing commas before } and ]. The result
// is decoded into a generic map.
func extractJSONObject(reply string) (map[string]any, error) {
	start := strings.IndexByte(reply, '{')
	for start >= 0 {
		end := matchBrace(reply, start)
		if end < 0 {
			break
		}
		cand := dropTrailingCommas(reply[start : end+1])
		var m map[string]any
		if err := json.Unmarshal([]byte(cand), &m); err == nil {
			return m, nil
		}
		next := strings.IndexByte(reply[start+1:], '{')
		if next < 0 {
			break
		}
		start += 1 + next
	}
	return nil, errNoJSON
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

// dropTrailingCommas removes a comma that is followed (after white space) by
// } or ], outside strings.
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

// field looks a key up case-insensitively, ignoring '_' and '-'
// ("steel_manning" finds "steelManning").
func field(m map[string]any, key string) (any, bool) {
	if v, ok := m[key]; ok {
		return v, true
	}
	norm := func(s string) string { return strings.ToLower(keyNoise.Replace(s)) }
	want := norm(key)
	for k, v := range m {
		if norm(k) == want {
			return v, true
		}
	}
	return nil, false
}

func asNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, false
		}
		return x, true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(x), "%"), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, false
		}
		return f, true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

func asBool(v any) (bool, bool) {
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

func asString(v any) string {
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

func asStrings(v any) []string {
	switch x := v.(type) {
	case []any:
		var out []string
		for _, e := range x {
			if s := asString(e); s != "" {
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

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func clamp(x, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, x)) }

// truncateRunes cuts s to at most n runes, adding "…" when it cut.
func truncateRunes(s string, n int) string {
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
