package formal

import (
	"encoding/json"
	"testing"

	"github.com/duelogic/duelogic/engine/enginetest"
	"github.com/duelogic/duelogic/llm/jsonschema"
)

func TestSchemasAreStrict(t *testing.T) {
	for name, schema := range map[string]json.RawMessage{
		"turn (opening)": turnSchema([]EntryType{TypeOpeningStatement}, nil, nil, nil),
		"turn (round, challenge)": turnSchema([]EntryType{TypeNewPoint, TypeRebuttal, TypeConjecture}, []int{2, 8},
			[]challengeable{{seq: 2, src: Source{URL: "https://a.example/x"}}, {seq: 2, index: 1, src: Source{URL: "https://b.example/y"}}, {seq: 8, src: Source{URL: "https://c.example/"}}}, []int{2, 8}),
		PurposeAudienceQuestions: json.RawMessage(questionsSchema),
		PurposeRelay:             relaySchema(2),
		PurposeClarification:     json.RawMessage(clarificationSchema),
		PurposePointOfOrder:      json.RawMessage(pointOfOrderSchema),
		PurposeConclusionCheck:   json.RawMessage(conclusionCheckSchema),
		PurposeVerdict:           json.RawMessage(verdictSchema),
		PurposeVerification:      json.RawMessage(verificationSchema),
	} {
		enginetest.StrictSchema(t, name, schema)
		if err := jsonschema.Strict(schema); err != nil {
			t.Errorf("schema %s: %v", name, err)
		}
	}
}

// A reply shaped by the turn schema parses.
func TestTurnSchemaShapedReplyParses(t *testing.T) {
	reply := `{"type": "rebuttal", "content": "It does not follow.", "sources": [{"url": "https://example.org/a", "title": "A", "accessed": "2026-02-20"}],
		"rebuttal_to_seq": 2, "source_challenge": null}`
	r := turnRules{allowed: []EntryType{TypeNewPoint, TypeRebuttal}, rebuttable: []int{2}, challenge: []challengeable{}, today: "2026-02-21"}
	got, err := parseTurn(reply, r)
	if err != nil || got.Type != TypeRebuttal || got.RebuttalToSeq == nil || *got.RebuttalToSeq != 2 || got.Challenge != nil {
		t.Errorf("parseTurn = %+v, %v", got, err)
	}
}
