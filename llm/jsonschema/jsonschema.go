// Package jsonschema checks JSON documents against the subset of JSON Schema
// that OpenAI's strict structured outputs accept, which is also what
// llama.cpp, vLLM and Ollama turn into a grammar. duelogic sends such a
// schema with every call that expects JSON ([llm.Request.Schema]) and checks
// the reply with [Check] whatever the server did with it.
//
// The keywords understood are
//
//   - type: a name or a list of names among "object", "array", "string",
//     "number", "integer", "boolean" and "null" ("integer" accepts any
//     number without a fractional part, 1.0 included);
//   - properties, required, additionalProperties (false, true or a schema);
//   - items (one schema for every element), minItems, maxItems;
//   - minLength, maxLength (strings, counted in Unicode code points) and
//     pattern (a regular expression the string must contain a match of,
//     unanchored as JSON Schema has it; checked with Go's regexp, so a
//     pattern it cannot compile, one with a lookahead or a backreference,
//     makes the schema invalid);
//   - enum, const (compared as JSON values: 1 equals 1.0, key order does
//     not matter);
//   - anyOf;
//   - minimum, maximum, exclusiveMinimum, exclusiveMaximum (numbers);
//   - $defs and $ref, local references only: "#" or "#/$defs/<name>";
//   - the annotations description, title and $comment, which are ignored.
//
// llama.cpp turns minLength, maxLength and a pattern into its grammar, but
// honours a pattern only when it is anchored at both ends ("^...$"); it
// ignores minLength and maxLength on a string that has a pattern, and its
// grammar for a pattern produces the characters of the JSON text, escapes
// unchecked: keep a pattern's characters free of quotes, backslashes and
// control characters.
//
// Any other keyword makes the schema invalid ([ErrInvalidSchema]) rather
// than being silently ignored, so that a check never passes a document a
// keyword was meant to reject.
//
// [llm.Request.Schema]: https://pkg.go.dev/github.com/duelogic/duelogic/llm#Request
package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ErrInvalidSchema reports a schema that is not JSON, uses a keyword outside
// the supported subset, gives a keyword a value of the wrong kind, or has a
// $ref that does not resolve or loops without descending into the document.
// [Check], [Strict] and [Zero] return it wrapped, with the schema location
// ("#/properties/score") of the problem.
var ErrInvalidSchema = errors.New("jsonschema: invalid schema")

// maxViolations bounds how many violations a [ValidationError] lists.
const maxViolations = 10

// Violation is one way in which a document fails its schema.
type Violation struct {
	// Path locates the offending value in the document: "$" is the whole
	// document, "$.evaluation.score" a property, "$.moves[2]" an element,
	// `$["odd key"]` a property whose name is not an identifier.
	Path string
	// Problem says what is wrong: "want number, got string".
	Problem string
}

func (v Violation) String() string { return v.Path + ": " + v.Problem }

// ValidationError reports a document that is not valid JSON or does not
// satisfy its schema.
type ValidationError struct {
	// Violations are the first violations found (at most 10), in document
	// order: object properties in the schema's order, then the document's
	// other properties sorted by name.
	Violations []Violation
	// Total is the number of violations found, which may exceed
	// len(Violations).
	Total int
}

// Error lists the violations, separated by semicolons.
func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("jsonschema: ")
	for i, v := range e.Violations {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(v.String())
	}
	if more := e.Total - len(e.Violations); more > 0 {
		fmt.Fprintf(&b, "; and %d more", more)
	}
	return b.String()
}

// Check reports whether doc, a JSON document, satisfies schema. It returns
// nil when it does, a [*ValidationError] naming the path of each problem
// when it does not (or is not JSON at all), and an error wrapping
// [ErrInvalidSchema] when the schema itself is unusable.
//
// Check, [Strict] and [Zero] are safe for concurrent use. They keep the
// last few dozen schemas they compiled, so a program that checks every
// reply of a purpose against the same schema compiles it once.
func Check(schema json.RawMessage, doc []byte) error {
	s, err := compile(schema)
	if err != nil {
		return err
	}
	return s.check(doc)
}

// check validates doc against the compiled schema.
func (s *schema) check(doc []byte) error {
	v, err := decode(doc)
	if err != nil {
		return &ValidationError{Violations: []Violation{{Path: "$", Problem: "not valid JSON: " + strings.TrimPrefix(err.Error(), "json: ")}}, Total: 1}
	}
	var vs violations
	s.root.validate(v, "$", &vs)
	if vs.total == 0 {
		return nil
	}
	return &ValidationError{Violations: vs.list, Total: vs.total}
}

// decode parses one JSON value, keeping numbers as json.Number, and rejects
// anything after it.
func decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if err == io.EOF {
			return nil, errors.New("empty document")
		}
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

// violations collects the first few violations and counts them all.
type violations struct {
	list  []Violation
	total int
}

func (vs *violations) add(path, format string, args ...any) {
	vs.total++
	if len(vs.list) < maxViolations {
		vs.list = append(vs.list, Violation{Path: path, Problem: fmt.Sprintf(format, args...)})
	}
}
