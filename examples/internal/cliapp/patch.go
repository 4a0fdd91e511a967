package cliapp

import (
	"encoding/json"
	"fmt"
	"strings"
)

// patch is a JSON object built from dotted keys: set("flow.maxExchanges", 4)
// makes {"flow": {"maxExchanges": 4}}. It is a format's configuration as
// [engine.Open] takes it (the fields it leaves out keep the format's
// defaults) and, for --fork, an RFC 7396 merge patch of a stored one.
type patch map[string]any

// set sets the field at the dotted path key to v (anything encoding/json
// encodes). A later value for the same key replaces an earlier one; a key
// whose part is empty, or that makes a field both a value and an object
// ("a=1" and "a.b=2"), is an error naming it.
func (p patch) set(key string, v any) error {
	parts := strings.Split(key, ".")
	m := map[string]any(p)
	for i, k := range parts {
		if k == "" {
			return fmt.Errorf("%q: a key has no empty parts (a.b.c)", key)
		}
		if i == len(parts)-1 {
			if _, obj := m[k].(map[string]any); obj {
				return fmt.Errorf("%q is an object of the keys set below it, not a value", key)
			}
			m[k] = v
			return nil
		}
		switch next := m[k].(type) {
		case nil:
			child := map[string]any{}
			m[k] = child
			m = child
		case map[string]any:
			m = next
		default:
			return fmt.Errorf("%q: %q is set to a value, not an object", key, strings.Join(parts[:i+1], "."))
		}
	}
	return nil
}

// setJSON sets the field at key to value read as JSON when it is JSON
// ("4", "true", `"x"`, "[1,2]", "null"), else as a string ("gpt-4o").
func (p patch) setJSON(key, value string) error {
	if json.Valid([]byte(value)) {
		return p.set(key, json.RawMessage(value))
	}
	return p.set(key, value)
}

// setAll sets every top-level field of v, a configuration that encodes as
// a JSON object.
func (p patch) setAll(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode the configuration: %w", err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return fmt.Errorf("encode the configuration: %w", err)
	}
	for k, f := range fields {
		p[k] = f
	}
	return nil
}

// raw is p as JSON; nil when p is empty (the format's defaults, or an
// unchanged configuration).
func (p patch) raw() (json.RawMessage, error) {
	if len(p) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode the configuration: %w", err)
	}
	return b, nil
}
