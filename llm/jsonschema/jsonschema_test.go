package jsonschema

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// evaluation is a schema of the kind a debate format sends: nested objects,
// a nullable field, an enum, bounds, an array of $ref'd objects.
const evaluation = `{
	"type": "object",
	"description": "a judgment of one turn",
	"properties": {
		"evaluation": {
			"type": "object",
			"properties": {
				"score": {"type": "integer", "minimum": 0, "maximum": 100},
				"verdict": {"type": "string", "enum": ["sound", "weak", "fallacious"]},
				"note": {"type": ["string", "null"]}
			},
			"required": ["score", "verdict", "note"],
			"additionalProperties": false
		},
		"moves": {"type": "array", "items": {"$ref": "#/$defs/move"}, "maxItems": 3}
	},
	"required": ["evaluation", "moves"],
	"additionalProperties": false,
	"$defs": {
		"move": {
			"type": "object",
			"properties": {
				"kind": {"const": "claim"},
				"target": {"anyOf": [{"type": "integer", "exclusiveMinimum": 0}, {"type": "null"}]}
			},
			"required": ["kind", "target"],
			"additionalProperties": false
		}
	}
}`

func TestCheck(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		doc    string
		want   []Violation // nil: valid
		total  int         // when more than len(want)
	}{
		{name: "valid", schema: evaluation, doc: `{"evaluation":{"score":80,"verdict":"sound","note":null},"moves":[{"kind":"claim","target":2}]}`},
		{name: "integer written as 80.0", schema: evaluation, doc: `{"evaluation":{"score":80.0,"verdict":"weak","note":"x"},"moves":[]}`},
		{name: "wrong type", schema: evaluation, doc: `{"evaluation":{"score":"80","verdict":"sound","note":null},"moves":[]}`,
			want: []Violation{{"$.evaluation.score", "want integer, got string"}}},
		{name: "fraction for an integer", schema: evaluation, doc: `{"evaluation":{"score":80.5,"verdict":"sound","note":null},"moves":[]}`,
			want: []Violation{{"$.evaluation.score", "want integer, got number"}}},
		{name: "missing and extra properties", schema: evaluation, doc: `{"evaluation":{"score":1,"verdict":"sound","zeta":1,"alpha":2},"moves":[],"extra key":true}`,
			want: []Violation{
				{"$.evaluation", `missing required property "note"`},
				{"$.evaluation.alpha", "unexpected property (not in the schema)"},
				{"$.evaluation.zeta", "unexpected property (not in the schema)"},
				{`$["extra key"]`, "unexpected property (not in the schema)"},
			}},
		{name: "enum, bounds", schema: evaluation, doc: `{"evaluation":{"score":101,"verdict":"great","note":null},"moves":[]}`,
			want: []Violation{
				{"$.evaluation.score", "101 is greater than the maximum 100"},
				{"$.evaluation.verdict", `"great" is not one of "sound", "weak", "fallacious"`},
			}},
		{name: "nullable type list", schema: evaluation, doc: `{"evaluation":{"score":0,"verdict":"weak","note":7},"moves":[]}`,
			want: []Violation{{"$.evaluation.note", "want string or null, got number"}}},
		{name: "ref, const, anyOf, maxItems", schema: evaluation,
			doc: `{"evaluation":{"score":0,"verdict":"weak","note":null},"moves":[{"kind":"claim","target":null},{"kind":"rebut","target":0},{"kind":"claim","target":"x"},{"kind":"claim","target":1}]}`,
			want: []Violation{
				{"$.moves", "4 items, want at most 3"},
				{"$.moves[1].kind", `want "claim", got "rebut"`},
				{"$.moves[1].target", "0 is not greater than 0"},
				{"$.moves[2].target", "want integer or null, got string"},
			}},
		{name: "not JSON", schema: evaluation, doc: `{"evaluation":`,
			want: []Violation{{"$", "not valid JSON: unexpected EOF"}}},
		{name: "trailing data", schema: evaluation, doc: `{} {}`,
			want: []Violation{{"$", "not valid JSON: data after the JSON value"}}},
		{name: "empty", schema: evaluation, doc: ` `,
			want: []Violation{{"$", "not valid JSON: empty document"}}},
		{name: "root type", schema: evaluation, doc: `[1]`,
			want: []Violation{{"$", "want object, got array"}}},
		{name: "minItems, minimum", schema: `{"type":"array","items":{"type":"number","minimum":-1.5},"minItems":3}`, doc: `[-2]`,
			want: []Violation{{"$", "1 item, want at least 3"}, {"$[0]", "-2 is less than the minimum -1.5"}}},
		{name: "exclusiveMaximum", schema: `{"type":"number","exclusiveMaximum":1}`, doc: `1`,
			want: []Violation{{"$", "1 is not less than 1"}}},
		{name: "additionalProperties schema", schema: `{"type":"object","additionalProperties":{"type":"boolean"}}`, doc: `{"a":true,"b":1}`,
			want: []Violation{{"$.b", "want boolean, got number"}}},
		{name: "additionalProperties true", schema: `{"type":"object","properties":{},"additionalProperties":true}`, doc: `{"a":1}`},
		{name: "enum compares JSON values", schema: `{"enum":[1, {"a":[true,null]}]}`, doc: `{"a":[true,null]}`},
		{name: "enum number forms", schema: `{"enum":[1]}`, doc: `1.0e0`},
		{name: "anyOf: closest alternative", schema: `{"anyOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"type":"string"}]}`, doc: `{"a":1}`,
			want: []Violation{{"$.a", "want string, got number"}}},
		{name: "anyOf: none", schema: `{"anyOf":[{"enum":["x"]},{"const":"y"}]}`, doc: `"z"`,
			want: []Violation{{"$", "matches none of the 2 alternatives (anyOf)"}}},
		{name: "root recursion", schema: `{"type":"object","properties":{"next":{"anyOf":[{"$ref":"#"},{"type":"null"}]}},"required":["next"],"additionalProperties":false}`,
			doc:  `{"next":{"next":{"next":{}}}}`,
			want: []Violation{{"$.next.next.next", `missing required property "next"`}}},
		{name: "escaped def name", schema: `{"$defs":{"a/b~c":{"type":"string"}},"$ref":"#/$defs/a~1b~0c"}`, doc: `1`,
			want: []Violation{{"$", "want string, got number"}}},
		{name: "no schema keywords", schema: `{"description":"anything"}`, doc: `[1,{"a":null}]`},
		{name: "minLength counts code points", schema: `{"type":"string","minLength":2,"maxLength":3}`, doc: `"éé"`},
		{name: "minLength, maxLength", schema: `{"type":"array","items":{"type":"string","minLength":1,"maxLength":3}}`, doc: `["", "abcd", "abc"]`,
			want: []Violation{{"$[0]", "0 characters, want at least 1"}, {"$[1]", "4 characters, want at most 3"}}},
		{name: "pattern is unanchored", schema: `{"type":"string","pattern":"b+"}`, doc: `"abbc"`},
		{name: "pattern", schema: `{"type":"object","properties":{"url":{"type":"string","pattern":"^https?://[a-z]+$"}}}`, doc: `{"url":"ftp://x"}`,
			want: []Violation{{"$.url", `"ftp://x" does not match the pattern "^https?://[a-z]+$"`}}},
		{name: "string keywords ignore other types", schema: `{"type":["string","null","integer"],"minLength":2,"pattern":"^a"}`, doc: `7`},
		{name: "many violations", schema: `{"type":"array","items":{"type":"string"}}`, doc: `[1,2,3,4,5,6,7,8,9,10,11,12]`,
			want: []Violation{
				{"$[0]", "want string, got number"}, {"$[1]", "want string, got number"}, {"$[2]", "want string, got number"},
				{"$[3]", "want string, got number"}, {"$[4]", "want string, got number"}, {"$[5]", "want string, got number"},
				{"$[6]", "want string, got number"}, {"$[7]", "want string, got number"}, {"$[8]", "want string, got number"},
				{"$[9]", "want string, got number"},
			}, total: 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(json.RawMessage(tt.schema), []byte(tt.doc))
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Check: %v, want nil", err)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Check: %v, want a *ValidationError", err)
			}
			if diff := cmp.Diff(tt.want, ve.Violations); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
			total := max(tt.total, len(tt.want))
			if ve.Total != total {
				t.Errorf("Total = %d, want %d", ve.Total, total)
			}
		})
	}
}

func TestValidationErrorText(t *testing.T) {
	err := Check(json.RawMessage(evaluation), []byte(`{"evaluation":{"score":"high","verdict":"sound","note":null},"moves":{}}`))
	want := "jsonschema: $.evaluation.score: want integer, got string; $.moves: want array, got object"
	if err == nil || err.Error() != want {
		t.Errorf("Check: %v\nwant %s", err, want)
	}
	err = Check(json.RawMessage(`{"type":"array","items":{"type":"null"}}`), []byte(`[1,1,1,1,1,1,1,1,1,1,1,1]`))
	if err == nil || !strings.HasSuffix(err.Error(), "; and 2 more") {
		t.Errorf("Check: %v, want it to end with %q", err, "; and 2 more")
	}
}

func TestInvalidSchema(t *testing.T) {
	tests := []struct {
		name, schema, want string
	}{
		{"not JSON", `{"type":`, "not JSON: unexpected end of JSON input"},
		{"empty", ``, "empty schema"},
		{"not an object", `true`, "at #: want a JSON object"},
		{"unsupported keyword", `{"type":"object","properties":{"a":{"type":"string","format":"uri"}}}`, `at #/properties/a: unsupported keyword "format"`},
		{"pattern not a string", `{"type":"string","pattern":1}`, "pattern: want a string"},
		{"pattern with a lookahead", `{"type":"string","pattern":"^(?=a)"}`, `pattern: "^(?=a)" is not a regular expression this package can check`},
		{"bad minLength", `{"minLength":-1}`, "minLength: want a non-negative integer"},
		{"unknown type", `{"type":"text"}`, `at #: type: unknown type "text"`},
		{"type twice", `{"type":["null","null"]}`, `"null" is listed twice`},
		{"required not strings", `{"required":[1]}`, "required: want an array of strings"},
		{"null keyword", `{"minimum":null}`, "minimum: null is not allowed"},
		{"duplicate key", `{"type":"string","type":"number"}`, `key "type" appears twice`},
		{"bad minItems", `{"minItems":1.5}`, "minItems: want a non-negative integer"},
		{"empty enum", `{"enum":[]}`, "enum: want a non-empty array"},
		{"tuple items", `{"items":[{"type":"string"}]}`, "at #/items: want a JSON object"},
		{"remote ref", `{"$ref":"https://example.com/s.json"}`, `$ref "https://example.com/s.json": only "#" and "#/$defs/<name>" are supported`},
		{"missing def", `{"$ref":"#/$defs/nope"}`, `$ref "#/$defs/nope": no such definition`},
		{"nested $defs", `{"properties":{"a":{"$defs":{}}}}`, "at #/properties/a: $defs: supported only at the root"},
		{"ref loop", `{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"anyOf":[{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"}`, "loop that never descends"},
		{"self ref", `{"$ref":"#"}`, "loop that never descends"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for name, err := range map[string]error{
				"Check":  Check(json.RawMessage(tt.schema), []byte(`{}`)),
				"Strict": Strict(json.RawMessage(tt.schema)),
				"Zero":   func() error { _, err := Zero(json.RawMessage(tt.schema)); return err }(),
			} {
				if !errors.Is(err, ErrInvalidSchema) || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("%s: %v, want ErrInvalidSchema mentioning %q", name, err, tt.want)
				}
			}
		})
	}
}

func TestStrict(t *testing.T) {
	tests := []struct {
		name, schema string
		want         []string // substrings of the error; nil: strict
	}{
		{name: "strict", schema: evaluation},
		{name: "string keywords", schema: `{"type":"object","properties":{"a":{"type":"string","minLength":1,"maxLength":9,"pattern":"^x+$"}},"required":["a"],"additionalProperties":false}`},
		{name: "root anyOf", schema: `{"anyOf":[{"type":"object","properties":{},"required":[],"additionalProperties":false}]}`,
			want: []string{`#: the root must have "type": "object"`}},
		{name: "root not an object", schema: `{"type":"array","items":{"type":"string"}}`, want: []string{`#: the root must have`}},
		{name: "nullable root", schema: `{"type":["object","null"],"properties":{},"required":[],"additionalProperties":false}`, want: []string{`#: the root must have`}},
		{name: "optional property", schema: `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a"],"additionalProperties":false}`,
			want: []string{`#: required must list every property; it lacks "b"`}},
		{name: "required unknown", schema: `{"type":"object","properties":{},"required":["x"],"additionalProperties":false}`,
			want: []string{`required lists "x", which is not among the properties`}},
		{name: "additionalProperties missing or true", schema: `{"type":"object","properties":{"a":{"type":"object","properties":{},"required":[],"additionalProperties":true}},"required":["a"]}`,
			want: []string{"#: an object schema must have additionalProperties false", "#/properties/a: additionalProperties must be false"}},
		{name: "no properties", schema: `{"type":"object","additionalProperties":false}`, want: []string{"#: an object schema must have properties"}},
		{name: "array without items", schema: `{"type":"object","properties":{"a":{"type":"array"}},"required":["a"],"additionalProperties":false}`,
			want: []string{"#/properties/a: an array schema must have items"}},
		{name: "untyped", schema: `{"type":"object","properties":{"a":{"description":"x"}},"required":["a"],"additionalProperties":false}`,
			want: []string{"#/properties/a: says nothing of what it accepts"}},
		{name: "in $defs", schema: `{"type":"object","properties":{"a":{"$ref":"#/$defs/d"}},"required":["a"],"additionalProperties":false,"$defs":{"d":{"type":"object","properties":{"x":{"type":"string"}}}}}`,
			want: []string{"#/$defs/d: an object schema must have additionalProperties false", `#/$defs/d: required must list every property; it lacks "x"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Strict(json.RawMessage(tt.schema))
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Strict: %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Strict: nil, want an error")
			}
			if errors.Is(err, ErrInvalidSchema) {
				t.Errorf("Strict: %v wraps ErrInvalidSchema, but the schema is valid", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Strict: %v\nwant it to mention %q", err, w)
				}
			}
		})
	}
}

func TestZero(t *testing.T) {
	tests := []struct {
		name, schema, want string
	}{
		{"evaluation", evaluation, `{"evaluation":{"note":null,"score":0,"verdict":"sound"},"moves":[]}`},
		{"nullable first", `{"type":["string","null"]}`, `null`},
		{"first type", `{"type":["boolean","string"]}`, `false`},
		{"bounds", `{"type":"object","properties":{"a":{"type":"integer","exclusiveMinimum":2.5},"b":{"type":"number","maximum":-3}},"required":["a","b"]}`, `{"a":3,"b":-3}`},
		{"minItems of refs", `{"type":"array","items":{"$ref":"#/$defs/x"},"minItems":2,"$defs":{"x":{"const":{"k":[1]}}}}`, `[{"k":[1]},{"k":[1]}]`},
		{"anyOf in order", `{"anyOf":[{"type":"string","enum":["b","a"]},{"type":"integer"}]}`, `"b"`},
		{"recursion ends at null", `{"type":"object","properties":{"next":{"anyOf":[{"$ref":"#"},{"type":"null"}]}},"required":["next"],"additionalProperties":false}`, `{"next":null}`},
		{"recursion through an alternative", `{"$defs":{"t":{"anyOf":[{"type":"object","properties":{"sub":{"$ref":"#/$defs/t"}},"required":["sub"]},{"type":"integer","minimum":7}]}},"type":"array","items":{"$ref":"#/$defs/t"},"minItems":1}`, `[7]`},
		{"anything", `{}`, `null`},
		{"minLength", `{"type":"string","minLength":3}`, `"xxx"`},
		{"pattern", `{"type":"object","properties":{"url":{"type":"string","pattern":"^https?://[A-Za-z0-9][A-Za-z0-9.-]*(/[a-z]*)?$"},"day":{"type":"string","pattern":"^[0-9]{4}-(0[1-9]|1[0-2])$"}},"required":["url","day"]}`,
			`{"day":"0000-01","url":"http://0"}`},
		{"pattern of a class without printable ASCII", `{"type":"string","pattern":"^[é-ü]{2}$"}`, `"éé"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Zero(json.RawMessage(tt.schema))
			if err != nil {
				t.Fatalf("Zero: %v", err)
			}
			if string(got) != tt.want {
				t.Errorf("Zero = %s, want %s", got, tt.want)
			}
			if err := Check(json.RawMessage(tt.schema), got); err != nil {
				t.Errorf("Check(Zero): %v", err)
			}
		})
	}
	for _, schema := range []string{
		`{"type":"object","properties":{"self":{"$ref":"#"}},"required":["self"]}`, // needs itself without end
		`{"type":"integer","minimum":1,"maximum":0}`,
		`{"type":"string","enum":[1,2]}`,
		`{"type":"string","pattern":"^a$","minLength":2}`, // the pattern's match is too short
		`{"type":"string","pattern":"\\ba\\b\\Bx"}`,       // assertions that cannot hold
	} {
		if got, err := Zero(json.RawMessage(schema)); err == nil || errors.Is(err, ErrInvalidSchema) {
			t.Errorf("Zero(%s) = %s, %v; want an error that is not ErrInvalidSchema", schema, got, err)
		}
	}
}

func FuzzCheck(f *testing.F) {
	f.Add(evaluation, `{"evaluation":{"score":80,"verdict":"sound","note":null},"moves":[{"kind":"claim","target":2}]}`)
	f.Add(`{"type":"array","items":{"type":"number","minimum":-1.5},"minItems":3}`, `[-2, 1e400, 0.5]`)
	f.Add(`{"anyOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"type":"string"}]}`, `{"a":1}`)
	f.Add(`{"type":"object","properties":{"next":{"anyOf":[{"$ref":"#"},{"type":"null"}]}},"required":["next"],"additionalProperties":false}`, `{"next":{"next":null}}`)
	f.Add(`{"enum":[1, {"a":[true,null]}],"const":1.0}`, `1`)
	f.Add(`{"$defs":{"a/b":{"type":"string"}},"$ref":"#/$defs/a~1b"}`, `"x"`)
	f.Add(`{"type":"string","minLength":2,"maxLength":4,"pattern":"^[a-c]+(d|e)?$"}`, `"abd"`)
	f.Fuzz(func(t *testing.T, schema, doc string) {
		err := Check(json.RawMessage(schema), []byte(doc))
		if errors.Is(err, ErrInvalidSchema) {
			if Strict(json.RawMessage(schema)) == nil {
				t.Fatalf("Strict accepts a schema Check rejects: %v", err)
			}
			return
		}
		var ve *ValidationError
		switch {
		case err == nil:
			if !json.Valid([]byte(doc)) {
				t.Fatalf("Check accepted %q, which is not JSON", doc)
			}
		case errors.As(err, &ve):
			if len(ve.Violations) == 0 || ve.Total < len(ve.Violations) || len(ve.Violations) > maxViolations {
				t.Fatalf("malformed ValidationError: %+v", ve)
			}
		default:
			t.Fatalf("Check: unexpected error %T %v", err, err)
		}
		// A zero document, when there is one, is valid.
		if z, err := Zero(json.RawMessage(schema)); err == nil {
			if err := Check(json.RawMessage(schema), z); err != nil {
				t.Fatalf("Check(Zero) = %v for %s", err, z)
			}
		}
	})
}

func BenchmarkCheck(b *testing.B) {
	doc := []byte(`{"evaluation":{"score":80,"verdict":"sound","note":null},"moves":[{"kind":"claim","target":2},{"kind":"claim","target":null}]}`)
	for b.Loop() {
		if err := Check(json.RawMessage(evaluation), doc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStrict(b *testing.B) {
	for b.Loop() {
		if err := Strict(json.RawMessage(evaluation)); err != nil {
			b.Fatal(err)
		}
	}
}
