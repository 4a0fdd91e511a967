package jsonschema

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
)

// Zero returns the simplest document valid against schema, for a fake or an
// offline model that must answer in shape: null where null is allowed, else
// the first const or enum value that fits, else the first alternative of
// anyOf that yields a document, else a value of the first type listed —
// false, "", 0 (or the bound nearest to it), an array of minItems such
// values, an object with its required properties only. A string is the
// shortest that minLength allows ("x" repeated), or one its pattern matches,
// built from the pattern; a string with both a pattern and a minLength its
// pattern's shortest match does not reach may have none (an error). Object keys come out
// sorted. A schema that admits no such document (one that needs itself
// without end, say) is an error, as is an invalid schema ([ErrInvalidSchema]).
func Zero(schema json.RawMessage) (json.RawMessage, error) {
	s, err := compile(schema)
	if err != nil {
		return nil, err
	}
	z := &zeroer{done: map[*node]zeroResult{}, active: map[*node]bool{}}
	r := z.zero(s.root)
	if !r.ok {
		return nil, fmt.Errorf("jsonschema: cannot build a document valid against the schema (%s)", s.root.loc)
	}
	return json.Marshal(r.v)
}

type zeroResult struct {
	v  any
	ok bool
	// cut reports a failure that came from a loop being cut short, which
	// may not happen when the node is reached another way.
	cut bool
}

type zeroer struct {
	done   map[*node]zeroResult
	active map[*node]bool
}

func (z *zeroer) zero(n *node) zeroResult {
	if r, ok := z.done[n]; ok {
		return r
	}
	if z.active[n] {
		return zeroResult{cut: true}
	}
	z.active[n] = true
	r := z.build(n)
	delete(z.active, n)
	if r.ok || !r.cut {
		z.done[n] = r
	}
	return r
}

func (z *zeroer) build(n *node) zeroResult {
	if valid(n, nil) {
		return zeroResult{ok: true}
	}
	cut := false
	try := func(v any) bool { return valid(n, v) }
	from := func(m *node) (any, bool) {
		r := z.zero(m)
		cut = cut || r.cut
		return r.v, r.ok
	}
	if n.hasConst && try(n.konst) {
		return zeroResult{v: n.konst, ok: true}
	}
	for _, e := range n.enum {
		if try(e) {
			return zeroResult{v: e, ok: true}
		}
	}
	if n.target != nil {
		if v, ok := from(n.target); ok && try(v) {
			return zeroResult{v: v, ok: true}
		}
	}
	for _, alt := range n.anyOf {
		if v, ok := from(alt); ok && try(v) {
			return zeroResult{v: v, ok: true}
		}
	}
	order := n.typeOrder
	if len(order) == 0 {
		order = []typeSet{tObject, tArray, tString, tNumber, tBoolean}
	}
	for _, t := range order {
		var v any
		switch t {
		case tBoolean:
			v = false
		case tString:
			v = n.zeroString()
		case tNumber, tInteger:
			v = n.zeroNumber(t == tInteger)
		case tArray:
			arr := make([]any, max(n.minItems, 0))
			if len(arr) > 0 && n.items != nil {
				e, ok := from(n.items)
				if !ok {
					continue
				}
				for i := range arr {
					arr[i] = e
				}
			}
			v = arr
		case tObject:
			obj := map[string]any{}
			ok := true
			for _, name := range n.required {
				var m *node
				if i, found := n.propIdx[name]; found {
					m = n.props[i].n
				} else if n.addlKind == addlSchema {
					m = n.addl
				}
				if m == nil {
					obj[name] = nil
					continue
				}
				if obj[name], ok = from(m); !ok {
					break
				}
			}
			if !ok {
				continue
			}
			v = obj
		default:
			continue
		}
		if try(v) {
			return zeroResult{v: v, ok: true}
		}
	}
	return zeroResult{cut: cut}
}

// zeroString is "", or the shortest string of minLength 'x's, or, with a
// pattern, a short string the pattern matches (see shortMatch).
func (n *node) zeroString() string {
	if n.pattern != nil {
		if s, ok := shortMatch(n.pattern); ok {
			return s
		}
		return ""
	}
	return strings.Repeat("x", max(n.minLength, 0))
}

// shortMatch builds a string re matches: the shortest way through each
// repetition (none for *, ?, one for +, the minimum for {m,n}), the first
// alternative, the first printable character of a class ("x" for a dot).
// Assertions (^, $, \b) are taken as satisfied; the result is checked, and
// ok is false when it does not match after all.
func shortMatch(re *regexp.Regexp) (string, bool) {
	tree, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	var walk func(t *syntax.Regexp)
	walk = func(t *syntax.Regexp) {
		switch t.Op {
		case syntax.OpLiteral:
			b.WriteString(string(t.Rune))
		case syntax.OpCharClass:
			b.WriteRune(classRune(t.Rune))
		case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			b.WriteByte('x')
		case syntax.OpCapture:
			walk(t.Sub[0])
		case syntax.OpPlus:
			walk(t.Sub[0])
		case syntax.OpRepeat:
			for range t.Min {
				walk(t.Sub[0])
			}
		case syntax.OpConcat:
			for _, sub := range t.Sub {
				walk(sub)
			}
		case syntax.OpAlternate:
			walk(t.Sub[0])
		}
		// OpStar, OpQuest, OpEmptyMatch, OpNoMatch and the assertions add
		// nothing.
	}
	walk(tree)
	s := b.String()
	return s, re.MatchString(s)
}

// classRune picks a character of a class given as ranges (lo, hi pairs):
// the first printable ASCII one if there is one, else the first.
func classRune(ranges []rune) rune {
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := max(ranges[i], '!'), min(ranges[i+1], '~')
		if lo <= hi {
			return lo
		}
	}
	if len(ranges) > 0 {
		return ranges[0]
	}
	return 'x'
}

// zeroNumber is 0 if the bounds allow it, else the bound nearest to it.
func (n *node) zeroNumber(integer bool) json.Number {
	lo, hi := math.Inf(-1), math.Inf(1)
	if n.minimum != nil {
		lo = *n.minimum
	}
	if n.exclMin != nil && *n.exclMin >= lo {
		lo = *n.exclMin
		if integer {
			lo = math.Floor(lo) + 1
		} else {
			lo = math.Nextafter(lo, math.Inf(1))
		}
	}
	if n.maximum != nil {
		hi = *n.maximum
	}
	if n.exclMax != nil && *n.exclMax <= hi {
		hi = *n.exclMax
		if integer {
			hi = math.Ceil(hi) - 1
		} else {
			hi = math.Nextafter(hi, math.Inf(-1))
		}
	}
	if integer {
		lo, hi = math.Ceil(lo), math.Floor(hi)
	}
	f := 0.0
	switch {
	case lo > 0:
		f = lo
	case hi < 0:
		f = hi
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		f = 0
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
}

func valid(n *node, v any) bool {
	var vs violations
	n.validate(v, "$", &vs)
	return vs.total == 0
}
