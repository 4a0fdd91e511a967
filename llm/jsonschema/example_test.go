package jsonschema_test

import (
	"encoding/json"
	"fmt"

	"github.com/duelogic/duelogic/llm/jsonschema"
)

func Example() {
	schema := json.RawMessage(`{
		"type": "object",
		"properties": {
			"score": {"type": "integer", "minimum": 0, "maximum": 100},
			"reason": {"type": ["string", "null"]}
		},
		"required": ["score", "reason"],
		"additionalProperties": false
	}`)
	fmt.Println(jsonschema.Strict(schema))
	fmt.Println(jsonschema.Check(schema, []byte(`{"score": 72, "reason": null}`)))
	fmt.Println(jsonschema.Check(schema, []byte(`{"score": "high", "mood": "bold"}`)))
	zero, _ := jsonschema.Zero(schema)
	fmt.Println(string(zero))
	// Output:
	// <nil>
	// <nil>
	// jsonschema: $: missing required property "reason"; $.score: want integer, got string; $.mood: unexpected property (not in the schema)
	// {"reason":null,"score":0}
}
