package jsonschema

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Strict reports whether schema is one that OpenAI's strict structured
// outputs accept ("strict": true), so that a server constrains its output by
// it instead of rejecting the request. It returns nil when it is, and
// otherwise an error listing the problems, each with its schema location.
// The rules, besides those of [Check] (an invalid schema wraps
// [ErrInvalidSchema]):
//
//   - the root has "type": "object" (a single type, not anyOf or $ref);
//   - every object schema has properties, additionalProperties false, and
//     required listing every property (an optional value is a required one
//     whose type includes "null");
//   - every array schema has items;
//   - every schema says what it accepts: type, anyOf, $ref, enum or const.
//
// Every keyword [Check] understands is one strict mode accepts: the
// documented pattern, minItems, maxItems and number bounds, and minLength
// and maxLength, which OpenAI's strict mode accepts and enforces though its
// guide does not list them (fine-tuned models accept none of these; a
// server that refuses a schema is answered by the client's fallback).
// Strict does not check OpenAI's size limits (number of properties, depth of
// nesting, length of enums).
func Strict(schema json.RawMessage) error {
	s, err := compile(schema)
	if err != nil {
		return err
	}
	var problems []string
	add := func(n *node, format string, args ...any) {
		problems = append(problems, n.loc+": "+fmt.Sprintf(format, args...))
	}
	if s.root.types != tObject || len(s.root.anyOf) > 0 || s.root.ref != "" {
		add(s.root, `the root must have "type": "object" and no anyOf or $ref`)
	}
	for _, n := range s.nodes {
		if n.types == 0 && len(n.anyOf) == 0 && n.ref == "" && !n.hasEnum && !n.hasConst {
			add(n, "says nothing of what it accepts: give a type, anyOf, $ref, enum or const")
		}
		if n.types&tArray != 0 && n.items == nil {
			add(n, "an array schema must have items")
		}
		if n.addlKind != addlAbsent && n.addlKind != addlFalse {
			add(n, "additionalProperties must be false")
		}
		if n.types&tObject == 0 {
			continue
		}
		if !n.hasProps {
			add(n, "an object schema must have properties")
		}
		if n.addlKind == addlAbsent {
			add(n, "an object schema must have additionalProperties false")
		}
		var missing []string
		for _, p := range n.props {
			if !slices.Contains(n.required, p.name) {
				missing = append(missing, quote(p.name))
			}
		}
		if len(missing) > 0 {
			add(n, "required must list every property; it lacks %s", strings.Join(missing, ", "))
		}
		for _, name := range n.required {
			if _, ok := n.propIdx[name]; !ok {
				add(n, "required lists %s, which is not among the properties", quote(name))
			}
		}
	}
	if len(problems) == 0 {
		return nil
	}
	const most = 10
	msg := strings.Join(problems[:min(len(problems), most)], "; ")
	if len(problems) > most {
		msg += fmt.Sprintf("; and %d more", len(problems)-most)
	}
	return fmt.Errorf("jsonschema: not valid for strict mode: %s", msg)
}
