package jsonschema

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMaxSize(t *testing.T) {
	tests := []struct {
		name, schema string
		want         int
		open         []string // the unbounded places named, when an error
	}{
		{"bounded string", `{"type": "string", "maxLength": 10}`, 12, nil},
		{"enum", `{"type": "string", "enum": ["a", "bbb", "cc"]}`, 5, nil},
		{"const", `{"const": {"a": [1, 2]}}`, len(`{"a":[1,2]}`), nil},
		{"null or bool", `{"type": ["null", "boolean"]}`, 5, nil},
		{"integer between bounds", `{"type": "integer", "minimum": -5, "maximum": 100}`, 3, nil},
		{"number", `{"type": "number"}`, numberChars, nil},
		{"array", `{"type": "array", "maxItems": 3, "items": {"type": "string", "maxLength": 4}}`, 2 + 3*6 + 2, nil},
		{"empty array", `{"type": "array", "maxItems": 0, "items": {"type": "string"}}`, 2, nil},
		{"object", `{"type": "object", "additionalProperties": false, "required": ["a"],
			"properties": {"a": {"type": "string", "maxLength": 3}, "bb": {"type": "boolean"}}}`,
			len(`{"a":"xxx","bb":false}`), nil},
		{"anyOf", `{"anyOf": [{"type": "string", "maxLength": 2}, {"type": "string", "maxLength": 7}]}`, 9, nil},
		{"ref", `{"$defs": {"s": {"type": "string", "maxLength": 1}}, "type": "array", "maxItems": 2, "items": {"$ref": "#/$defs/s"}}`, 9, nil},
		{"unbounded", `{"type": "object", "additionalProperties": false, "required": ["a", "b", "c"], "properties": {
			"a": {"type": "string"}, "b": {"type": "array", "items": {"type": "boolean"}},
			"c": {"type": "object", "properties": {}}}}`, 0,
			[]string{"#/properties/a: a string without maxLength", "#/properties/b: an array without maxItems",
				"#/properties/c: an object that admits properties"}},
		{"recursive", `{"$defs": {"t": {"type": "array", "maxItems": 2, "items": {"$ref": "#/$defs/t"}}}, "$ref": "#/$defs/t"}`, 0,
			[]string{"its $ref leads back to itself"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MaxSize(json.RawMessage(tt.schema))
			if tt.open == nil {
				if err != nil || got != tt.want {
					t.Errorf("MaxSize = %d, %v; want %d", got, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("MaxSize = %d, want an error naming %q", got, tt.open)
			}
			for _, o := range tt.open {
				if !strings.Contains(err.Error(), o) {
					t.Errorf("error %q does not name %q", err, o)
				}
			}
		})
	}
	if _, err := MaxSize(json.RawMessage(`{"type": "string", "maxLength": "x"}`)); err == nil {
		t.Error("an invalid schema has a size")
	}
}
