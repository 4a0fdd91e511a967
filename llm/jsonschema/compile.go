package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// typeSet is a set of JSON types; 0 means any type.
type typeSet uint8

const (
	tObject typeSet = 1 << iota
	tArray
	tString
	tNumber
	tInteger
	tBoolean
	tNull
)

var typeNames = []struct {
	t    typeSet
	name string
}{
	{tObject, "object"}, {tArray, "array"}, {tString, "string"}, {tNumber, "number"},
	{tInteger, "integer"}, {tBoolean, "boolean"}, {tNull, "null"},
}

func typeByName(name string) typeSet {
	for _, tn := range typeNames {
		if tn.name == name {
			return tn.t
		}
	}
	return 0
}

// String lists the types: "string or null".
func (ts typeSet) String() string {
	var names []string
	for _, tn := range typeNames {
		if ts&tn.t != 0 {
			names = append(names, tn.name)
		}
	}
	return strings.Join(names, " or ")
}

// has reports whether v, a decoded JSON value, is of one of the types.
func (ts typeSet) has(v any) bool {
	if ts == 0 {
		return true
	}
	switch x := v.(type) {
	case nil:
		return ts&tNull != 0
	case bool:
		return ts&tBoolean != 0
	case string:
		return ts&tString != 0
	case json.Number:
		if ts&tNumber != 0 {
			return true
		}
		f, ok := number(x)
		return ts&tInteger != 0 && ok && f == math.Trunc(f)
	case []any:
		return ts&tArray != 0
	case map[string]any:
		return ts&tObject != 0
	}
	return false
}

// number parses a JSON number. Numbers beyond float64's range become ±Inf.
func number(n json.Number) (float64, bool) {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// additional says what additionalProperties allows.
type additional uint8

const (
	addlAbsent additional = iota // any further property
	addlFalse                    // none
	addlTrue                     // any, said explicitly
	addlSchema                   // those valid against node.addl
)

// node is one compiled schema object.
type node struct {
	loc      string   // where it is in the schema: "#/properties/score"
	keywords []string // the keywords it has, in order

	types     typeSet
	typeOrder []typeSet // the types in the order the schema lists them

	props    []prop // in the schema's order
	propIdx  map[string]int
	hasProps bool
	required []string
	addlKind additional
	addl     *node

	items              *node
	minItems, maxItems int // -1: none

	minLength, maxLength int // in characters (code points); -1: none
	pattern              *regexp.Regexp

	enum     []any
	hasEnum  bool
	konst    any
	hasConst bool
	anyOf    []*node

	minimum, maximum, exclMin, exclMax *float64

	ref    string
	target *node // what ref resolves to
}

type prop struct {
	name string
	n    *node
}

// schema is a compiled schema document.
type schema struct {
	root  *node
	defs  map[string]*node
	nodes []*node // every node, in the order compiled
}

// cacheSize bounds the compiled schemas kept: a program has a few dozen.
const cacheSize = 64

// cache keeps compiled schemas by their text. A compiled schema is never
// changed, so callers share it.
var cache struct {
	sync.Mutex
	m map[string]*schema
}

// compile returns the compiled schema for raw, from the cache when it can.
func compile(raw json.RawMessage) (*schema, error) {
	cache.Lock()
	s, ok := cache.m[string(raw)]
	cache.Unlock()
	if ok {
		return s, nil
	}
	s, err := compileNew(raw)
	if err != nil {
		return nil, err
	}
	cache.Lock()
	defer cache.Unlock()
	if cache.m == nil || len(cache.m) >= cacheSize {
		cache.m = make(map[string]*schema, cacheSize)
	}
	cache.m[string(raw)] = s
	return s, nil
}

// compileNew parses and checks a schema document.
func compileNew(raw json.RawMessage) (*schema, error) {
	s := &schema{defs: map[string]*node{}}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, fmt.Errorf("%w: empty schema", ErrInvalidSchema)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("%w: not JSON: %v", ErrInvalidSchema, strings.TrimPrefix(err.Error(), "json: "))
	}
	root, err := s.node(raw, "#", true)
	if err != nil {
		return nil, err
	}
	s.root = root
	for _, n := range s.nodes {
		if n.ref == "" {
			continue
		}
		if n.ref == "#" {
			n.target = s.root
			continue
		}
		name, ok := strings.CutPrefix(n.ref, "#/$defs/")
		if !ok || strings.Contains(name, "/") {
			return nil, fmt.Errorf("%w at %s: $ref %q: only \"#\" and \"#/$defs/<name>\" are supported", ErrInvalidSchema, n.loc, n.ref)
		}
		name = unescaper.Replace(name)
		if n.target = s.defs[name]; n.target == nil {
			return nil, fmt.Errorf("%w at %s: $ref %q: no such definition", ErrInvalidSchema, n.loc, n.ref)
		}
	}
	if err := s.checkCycles(); err != nil {
		return nil, err
	}
	return s, nil
}

// node compiles the schema object raw found at loc.
func (s *schema) node(raw json.RawMessage, loc string, root bool) (*node, error) {
	keys, fields, err := object(raw)
	if err != nil {
		return nil, fmt.Errorf("%w at %s: %v", ErrInvalidSchema, loc, err)
	}
	n := &node{loc: loc, keywords: keys, minItems: -1, maxItems: -1, minLength: -1, maxLength: -1}
	s.nodes = append(s.nodes, n)
	bad := func(kw, format string, args ...any) error {
		return fmt.Errorf("%w at %s: %s: %s", ErrInvalidSchema, loc, kw, fmt.Sprintf(format, args...))
	}
	for _, kw := range keys {
		v := fields[kw]
		if kw != "const" && string(bytes.TrimSpace(v)) == "null" {
			return nil, bad(kw, "null is not allowed")
		}
		switch kw {
		case "description", "title", "$comment":
		case "type":
			if err := n.setTypes(v); err != nil {
				return nil, bad(kw, "%v", err)
			}
		case "properties":
			pkeys, pfields, err := object(v)
			if err != nil {
				return nil, bad(kw, "%v", err)
			}
			n.hasProps, n.propIdx = true, make(map[string]int, len(pkeys))
			for _, name := range pkeys {
				child, err := s.node(pfields[name], loc+"/properties/"+escape(name), false)
				if err != nil {
					return nil, err
				}
				n.propIdx[name] = len(n.props)
				n.props = append(n.props, prop{name: name, n: child})
			}
		case "required":
			if err := json.Unmarshal(v, &n.required); err != nil || n.required == nil {
				return nil, bad(kw, "want an array of strings")
			}
			if dup := duplicate(n.required); dup != "" {
				return nil, bad(kw, "%q is listed twice", dup)
			}
		case "additionalProperties":
			switch string(bytes.TrimSpace(v)) {
			case "false":
				n.addlKind = addlFalse
				continue
			case "true":
				n.addlKind = addlTrue
				continue
			}
			if n.addl, err = s.node(v, loc+"/additionalProperties", false); err != nil {
				return nil, err
			}
			n.addlKind = addlSchema
		case "items":
			if n.items, err = s.node(v, loc+"/items", false); err != nil {
				return nil, err
			}
		case "minItems", "maxItems", "minLength", "maxLength":
			var k float64
			if json.Unmarshal(v, &k) != nil || k < 0 || k != math.Trunc(k) || k > math.MaxInt32 {
				return nil, bad(kw, "want a non-negative integer")
			}
			switch kw {
			case "minItems":
				n.minItems = int(k)
			case "maxItems":
				n.maxItems = int(k)
			case "minLength":
				n.minLength = int(k)
			default:
				n.maxLength = int(k)
			}
		case "pattern":
			var expr string
			if json.Unmarshal(v, &expr) != nil {
				return nil, bad(kw, "want a string")
			}
			if n.pattern, err = regexp.Compile(expr); err != nil {
				return nil, bad(kw, "%q is not a regular expression this package can check: %v", expr, err)
			}
		case "enum":
			var list []json.RawMessage
			if json.Unmarshal(v, &list) != nil || len(list) == 0 {
				return nil, bad(kw, "want a non-empty array")
			}
			for _, item := range list {
				x, err := decode(item)
				if err != nil {
					return nil, bad(kw, "%v", err)
				}
				n.enum = append(n.enum, x)
			}
			n.hasEnum = true
		case "const":
			if n.konst, err = decode(v); err != nil {
				return nil, bad(kw, "%v", err)
			}
			n.hasConst = true
		case "anyOf":
			var list []json.RawMessage
			if json.Unmarshal(v, &list) != nil || len(list) == 0 {
				return nil, bad(kw, "want a non-empty array of schemas")
			}
			for i, item := range list {
				child, err := s.node(item, fmt.Sprintf("%s/anyOf/%d", loc, i), false)
				if err != nil {
					return nil, err
				}
				n.anyOf = append(n.anyOf, child)
			}
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
			var f float64
			if json.Unmarshal(v, &f) != nil {
				return nil, bad(kw, "want a number")
			}
			switch kw {
			case "minimum":
				n.minimum = &f
			case "maximum":
				n.maximum = &f
			case "exclusiveMinimum":
				n.exclMin = &f
			default:
				n.exclMax = &f
			}
		case "$defs":
			if !root {
				return nil, bad(kw, "supported only at the root")
			}
			dkeys, dfields, err := object(v)
			if err != nil {
				return nil, bad(kw, "%v", err)
			}
			for _, name := range dkeys {
				if s.defs[name], err = s.node(dfields[name], "#/$defs/"+escape(name), false); err != nil {
					return nil, err
				}
			}
		case "$ref":
			if json.Unmarshal(v, &n.ref) != nil || n.ref == "" {
				return nil, bad(kw, "want a non-empty string")
			}
		default:
			return nil, fmt.Errorf("%w at %s: unsupported keyword %q", ErrInvalidSchema, loc, kw)
		}
	}
	return n, nil
}

func (n *node) setTypes(raw json.RawMessage) error {
	var names []string
	var one string
	if json.Unmarshal(raw, &one) == nil {
		names = []string{one}
	} else if json.Unmarshal(raw, &names) != nil || len(names) == 0 {
		return fmt.Errorf("want a type name or a non-empty array of them")
	}
	for _, name := range names {
		t := typeByName(name)
		switch {
		case t == 0:
			return fmt.Errorf("unknown type %q", name)
		case n.types&t != 0:
			return fmt.Errorf("%q is listed twice", name)
		}
		n.types |= t
		n.typeOrder = append(n.typeOrder, t)
	}
	return nil
}

// object splits a JSON object into its keys, in order, and their values.
// It rejects anything else, and duplicate keys.
func object(raw json.RawMessage) ([]string, map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, fmt.Errorf("want a JSON object")
	}
	var keys []string
	fields := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		key := tok.(string) // the decoder allows only strings here
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		if _, dup := fields[key]; dup {
			return nil, nil, fmt.Errorf("key %q appears twice", key)
		}
		keys = append(keys, key)
		fields[key] = v
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, nil, fmt.Errorf("data after the JSON object")
	}
	return keys, fields, nil
}

func duplicate(xs []string) string {
	seen := make(map[string]bool, len(xs))
	for _, x := range xs {
		if seen[x] {
			return x
		}
		seen[x] = true
	}
	return ""
}

var (
	escaper   = strings.NewReplacer("~", "~0", "/", "~1")
	unescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

// escape encodes a name as a JSON Pointer token.
func escape(name string) string { return escaper.Replace(name) }

// checkCycles rejects a $ref or anyOf loop that comes back to a schema
// without descending into the document, which no validation could finish.
func (s *schema) checkCycles() error {
	const (
		unseen = iota
		active
		done
	)
	state := make(map[*node]int, len(s.nodes))
	var visit func(n *node) error
	visit = func(n *node) error {
		switch state[n] {
		case active:
			return fmt.Errorf("%w at %s: $ref loop that never descends into the document", ErrInvalidSchema, n.loc)
		case done:
			return nil
		}
		state[n] = active
		next := n.anyOf
		if n.target != nil {
			next = append([]*node{n.target}, next...)
		}
		for _, m := range next {
			if err := visit(m); err != nil {
				return err
			}
		}
		state[n] = done
		return nil
	}
	for _, n := range s.nodes {
		if err := visit(n); err != nil {
			return err
		}
	}
	return nil
}
