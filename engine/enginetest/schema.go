package enginetest

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"testing"
)

// strictKeywords are the JSON Schema keywords OpenAI's strict mode accepts
// and a format's schema may use (those package llm/jsonschema checks).
var strictKeywords = []string{
	"type", "properties", "required", "additionalProperties", "items", "enum", "const",
	"description", "anyOf", "$defs", "$ref", "title",
	"minItems", "maxItems", "minLength", "maxLength", "pattern",
	"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
}

// StrictSchema fails t unless schema, the JSON Schema of the replies of the
// judgment name, has the shape OpenAI's strict structured outputs require:
// the root is an object; every object lists its properties, has
// additionalProperties false and requires every property it lists (an
// optional value is typed with "null" among its types instead); every
// array has items; only the keywords strict mode accepts are used.
func StrictSchema(t testing.TB, name string, schema json.RawMessage) {
	t.Helper()
	for _, p := range StrictSchemaProblems(schema) {
		t.Errorf("schema %s: %s", name, p)
	}
}

// StrictSchemaProblems returns the ways schema breaks the rules
// [StrictSchema] checks, none when it keeps them.
func StrictSchemaProblems(schema json.RawMessage) []string {
	var root any
	if err := json.Unmarshal(schema, &root); err != nil {
		return []string{fmt.Sprintf("not JSON: %v", err)}
	}
	var probs []string
	m, ok := root.(map[string]any)
	if !ok || !slices.Contains(types(m), "object") || len(types(m)) != 1 {
		probs = append(probs, `the root is not a schema of "type": "object"`)
	}
	walkSchema("$", root, &probs)
	return probs
}

// types returns the "type" of a schema as a list.
func types(m map[string]any) []string {
	switch t := m["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func walkSchema(path string, v any, probs *[]string) {
	add := func(format string, args ...any) { *probs = append(*probs, path+": "+fmt.Sprintf(format, args...)) }
	m, ok := v.(map[string]any)
	if !ok {
		add("a schema must be an object")
		return
	}
	for k := range m {
		if !slices.Contains(strictKeywords, k) {
			add("keyword %q is not accepted in strict mode", k)
		}
	}
	ts := types(m)
	if len(ts) == 0 && m["anyOf"] == nil && m["$ref"] == nil && m["enum"] == nil && m["const"] == nil {
		add("no type")
	}
	if slices.Contains(ts, "object") {
		props, _ := m["properties"].(map[string]any)
		if props == nil {
			add("an object without properties")
		}
		if ap, ok := m["additionalProperties"].(bool); !ok || ap {
			add("additionalProperties is not false")
		}
		var keys, required []string
		for k := range props {
			keys = append(keys, k)
		}
		req, _ := m["required"].([]any)
		for _, r := range req {
			s, _ := r.(string)
			required = append(required, s)
		}
		sort.Strings(keys)
		sort.Strings(required)
		if !slices.Equal(keys, required) {
			add("required %v, want every property %v", required, keys)
		}
		for _, k := range keys {
			walkSchema(path+"."+k, props[k], probs)
		}
	}
	if slices.Contains(ts, "array") {
		if it, ok := m["items"]; !ok {
			add("an array without items")
		} else {
			walkSchema(path+"[]", it, probs)
		}
	}
	if alts, ok := m["anyOf"].([]any); ok {
		for i, a := range alts {
			walkSchema(fmt.Sprintf("%s.anyOf[%d]", path, i), a, probs)
		}
	}
	if defs, ok := m["$defs"].(map[string]any); ok {
		for k, d := range defs {
			walkSchema(path+".$defs."+k, d, probs)
		}
	}
}
