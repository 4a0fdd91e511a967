package jsonschema

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// validate adds to vs every way in which v, found at path, fails n.
func (n *node) validate(v any, path string, vs *violations) {
	if n.target != nil {
		n.target.validate(v, path, vs)
	}
	if !n.types.has(v) {
		vs.add(path, "want %s, got %s", n.types, kindOf(v))
		return
	}
	if n.hasConst && !equal(v, n.konst) {
		vs.add(path, "want %s, got %s", show(n.konst), show(v))
	}
	if n.hasEnum && !slices.ContainsFunc(n.enum, func(e any) bool { return equal(v, e) }) {
		vs.add(path, "%s is not one of %s", show(v), showList(n.enum))
	}
	if len(n.anyOf) > 0 {
		n.validateAnyOf(v, path, vs)
	}
	switch x := v.(type) {
	case string:
		n.validateString(x, path, vs)
	case json.Number:
		n.validateNumber(x, path, vs)
	case []any:
		n.validateArray(x, path, vs)
	case map[string]any:
		n.validateObject(x, path, vs)
	}
}

// validateAnyOf reports v when it satisfies none of n's alternatives: the
// problems of the closest alternative whose type fits v, or else the types
// v could have had.
func (n *node) validateAnyOf(v any, path string, vs *violations) {
	var best *violations
	var fitting typeSet // the types the alternatives allow
	untyped := false    // some alternative does not restrict the type
	for _, alt := range n.anyOf {
		var avs violations
		alt.validate(v, path, &avs)
		if avs.total == 0 {
			return
		}
		kinds := alt.kinds()
		fitting |= kinds
		untyped = untyped || kinds == 0
		if kinds != 0 && kinds.has(v) && (best == nil || avs.total < best.total) {
			best = &avs
		}
	}
	if best == nil {
		if !untyped {
			vs.add(path, "want %s, got %s", fitting, kindOf(v))
		} else {
			vs.add(path, "matches none of the %d alternatives (anyOf)", len(n.anyOf))
		}
		return
	}
	vs.total += best.total - len(best.list)
	for _, b := range best.list {
		vs.add(b.Path, "%s", b.Problem)
	}
}

// kinds is the set of types a value valid against n may have (0: any).
func (n *node) kinds() typeSet {
	return n.kindsDepth(0)
}

func (n *node) kindsDepth(depth int) typeSet {
	if depth > 64 { // a loop through $ref: give up narrowing
		return 0
	}
	var all typeSet = 1<<7 - 1
	k := all
	if n.types != 0 {
		k &= n.types
	}
	if n.target != nil {
		if t := n.target.kindsDepth(depth + 1); t != 0 {
			k &= t
		}
	}
	if len(n.anyOf) > 0 {
		var u typeSet
		for _, alt := range n.anyOf {
			t := alt.kindsDepth(depth + 1)
			if t == 0 {
				t = all
			}
			u |= t
		}
		k &= u
	}
	if k == all {
		return 0
	}
	return k
}

func (n *node) validateNumber(x json.Number, path string, vs *violations) {
	f, ok := number(x)
	if !ok {
		vs.add(path, "unreadable number %s", x)
		return
	}
	if n.minimum != nil && f < *n.minimum {
		vs.add(path, "%s is less than the minimum %s", x, fmtNum(*n.minimum))
	}
	if n.exclMin != nil && f <= *n.exclMin {
		vs.add(path, "%s is not greater than %s", x, fmtNum(*n.exclMin))
	}
	if n.maximum != nil && f > *n.maximum {
		vs.add(path, "%s is greater than the maximum %s", x, fmtNum(*n.maximum))
	}
	if n.exclMax != nil && f >= *n.exclMax {
		vs.add(path, "%s is not less than %s", x, fmtNum(*n.exclMax))
	}
}

func (n *node) validateString(x string, path string, vs *violations) {
	if n.minLength >= 0 || n.maxLength >= 0 {
		k := utf8.RuneCountInString(x)
		if n.minLength >= 0 && k < n.minLength {
			vs.add(path, "%s, want at least %d", chars(k), n.minLength)
		}
		if n.maxLength >= 0 && k > n.maxLength {
			vs.add(path, "%s, want at most %d", chars(k), n.maxLength)
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(x) {
		vs.add(path, "%s does not match the pattern %s", show(x), quote(n.pattern.String()))
	}
}

func chars(k int) string {
	if k == 1 {
		return "1 character"
	}
	return strconv.Itoa(k) + " characters"
}

func (n *node) validateArray(x []any, path string, vs *violations) {
	if n.minItems >= 0 && len(x) < n.minItems {
		vs.add(path, "%s, want at least %d", items(len(x)), n.minItems)
	}
	if n.maxItems >= 0 && len(x) > n.maxItems {
		vs.add(path, "%s, want at most %d", items(len(x)), n.maxItems)
	}
	if n.items != nil {
		for i, e := range x {
			n.items.validate(e, path+"["+strconv.Itoa(i)+"]", vs)
		}
	}
}

func items(k int) string {
	if k == 1 {
		return "1 item"
	}
	return strconv.Itoa(k) + " items"
}

func (n *node) validateObject(x map[string]any, path string, vs *violations) {
	for _, name := range n.required {
		if _, ok := x[name]; !ok {
			vs.add(path, "missing required property %s", quote(name))
		}
	}
	for _, p := range n.props {
		if v, ok := x[p.name]; ok {
			p.n.validate(v, member(path, p.name), vs)
		}
	}
	var extra []string
	for name := range x {
		if _, ok := n.propIdx[name]; !ok {
			extra = append(extra, name)
		}
	}
	slices.Sort(extra)
	for _, name := range extra {
		switch n.addlKind {
		case addlFalse:
			vs.add(member(path, name), "unexpected property (not in the schema)")
		case addlSchema:
			n.addl.validate(x[name], member(path, name), vs)
		}
	}
}

// member is the path of property name of the object at path.
func member(path, name string) string {
	ident := name != ""
	for i, r := range name {
		if !(r == '_' || r == '$' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && '0' <= r && r <= '9') {
			ident = false
			break
		}
	}
	if ident {
		return path + "." + name
	}
	return path + "[" + quote(name) + "]"
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// equal reports whether two decoded JSON values are the same JSON value.
func equal(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		fx, okx := number(x)
		fy, oky := number(y)
		return okx && oky && fx == fy
	case []any:
		y, ok := b.([]any)
		return ok && slices.EqualFunc(x, y, equal)
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equal(xv, yv) {
				return false
			}
		}
		return true
	default: // nil, bool, string
		return a == b
	}
}

// show renders a value for a message, cut short.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return kindOf(v)
	}
	s := string(b)
	if len(s) > 60 {
		cut := 57
		for cut > 0 && s[cut]&0xC0 == 0x80 { // a UTF-8 continuation byte
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}

func showList(vs []any) string {
	const most = 12
	parts := make([]string, 0, min(len(vs), most))
	for _, v := range vs[:min(len(vs), most)] {
		parts = append(parts, show(v))
	}
	s := strings.Join(parts, ", ")
	if len(vs) > most {
		s += fmt.Sprintf(", ... (%d values)", len(vs))
	}
	return s
}

func fmtNum(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return fmt.Sprint(f)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
