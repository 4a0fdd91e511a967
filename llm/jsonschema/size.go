package jsonschema

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// numberChars bounds the characters of a JSON number a grammar-constrained
// model writes: llama.cpp's JSON grammar allows at most 16 digits in an
// integral part, 16 in a fraction and 16 in an exponent, with their signs,
// point and "e".
const numberChars = 52

// MaxSize returns the length, in characters, of the longest compact JSON
// document (no white space) valid against schema, counting each character
// of a string once (an escape as the character it stands for): what a
// completion cap must leave room for, so that a reply a grammar keeps in
// shape can always close. A schema that admits documents of any length is
// an error naming every place that does: a string without maxLength (and
// no enum or const to bound it), an array without maxItems, an object
// that admits properties it does not name, a $ref that leads back to
// itself. A number counts as the longest llama.cpp's grammar writes (52
// characters), an integer between bounds as the longer bound.
func MaxSize(schema json.RawMessage) (int, error) {
	s, err := compile(schema)
	if err != nil {
		return 0, err
	}
	m := &measurer{active: map[*node]bool{}}
	n := m.size(s.root)
	if len(m.unbounded) > 0 {
		return 0, fmt.Errorf("jsonschema: documents of any length are valid: %s", strings.Join(m.unbounded, "; "))
	}
	return n, nil
}

type measurer struct {
	active    map[*node]bool
	unbounded []string
}

func (m *measurer) open(n *node, why string) int {
	m.unbounded = append(m.unbounded, n.loc+": "+why)
	return 0
}

// size is the longest valid document of n.
func (m *measurer) size(n *node) int {
	if m.active[n] {
		return m.open(n, "its $ref leads back to itself")
	}
	m.active[n] = true
	defer delete(m.active, n)
	if n.hasConst {
		return jsonLen(n.konst)
	}
	if n.hasEnum {
		most := 0
		for _, v := range n.enum {
			most = max(most, jsonLen(v))
		}
		return most
	}
	if n.target != nil {
		return m.size(n.target)
	}
	most := 0
	for _, a := range n.anyOf {
		most = max(most, m.size(a))
	}
	for _, t := range []typeSet{tObject, tArray, tString, tNumber, tInteger, tBoolean, tNull} {
		if n.types&t != 0 {
			most = max(most, m.typed(n, t))
		}
	}
	return most
}

// typed is the longest valid document of n of type t.
func (m *measurer) typed(n *node, t typeSet) int {
	switch t {
	case tNull:
		return len("null")
	case tBoolean:
		return len("false")
	case tInteger:
		if n.minimum != nil && n.maximum != nil {
			return max(len(strconv.FormatFloat(math.Trunc(*n.minimum), 'f', -1, 64)),
				len(strconv.FormatFloat(math.Trunc(*n.maximum), 'f', -1, 64)))
		}
		return numberChars
	case tNumber:
		return numberChars
	case tString:
		if n.maxLength < 0 {
			return m.open(n, "a string without maxLength")
		}
		return 2 + n.maxLength
	case tArray:
		if n.maxItems < 0 {
			return m.open(n, "an array without maxItems")
		}
		if n.maxItems == 0 {
			return 2
		}
		if n.items == nil {
			return m.open(n, "an array whose items may be anything")
		}
		return 2 + n.maxItems*m.size(n.items) + n.maxItems - 1
	default: // object
		if n.addlKind != addlFalse {
			return m.open(n, "an object that admits properties it does not name (additionalProperties false bounds it)")
		}
		total := 2 + max(len(n.props)-1, 0)
		for _, p := range n.props {
			total += jsonLen(p.name) + 1 + m.size(p.n)
		}
		return total
	}
}

// jsonLen is the length of v as compact JSON, a string's characters
// counted once each.
func jsonLen(v any) int {
	if s, ok := v.(string); ok {
		return 2 + utf8.RuneCountInString(s)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return utf8.RuneCount(raw)
}
