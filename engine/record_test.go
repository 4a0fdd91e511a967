package engine_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/store"
)

// TestEventOfReadsEarlierLayouts: a podcast evaluation event stored by an
// earlier version kept its payload in the event's "evaluation" field; it
// is the event's Data now, so replaying an old log gives the same events
// a new one does.
func TestEventOfReadsEarlierLayouts(t *testing.T) {
	const eval = `{"adherenceScore":70,"steelManning":{"attempted":true,"quality":"strong"}}`
	tests := []struct {
		name, data string
		wantData   string
	}{
		{"earlier layout", `{"key":"k","event":{"type":"evaluation","speaker":"chair_1","evaluation":` + eval + `}}`, eval},
		{"current layout", `{"key":"k","event":{"type":"evaluation","speaker":"chair_1","data":` + eval + `}}`, eval},
		{"data wins", `{"key":"k","event":{"type":"evaluation","data":{"a":1},"evaluation":` + eval + `}}`, `{"a":1}`},
		{"unscored", `{"key":"k","event":{"type":"evaluation","speaker":"chair_1","evaluation":null}}`, ``},
		{"no payload", `{"key":"k","event":{"type":"evaluation","speaker":"chair_1"}}`, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ok, err := engine.EventOf(store.Record{DebateID: "d", Seq: 4, Type: "duelogic_evaluation", Data: json.RawMessage(tt.data)})
			if err != nil || !ok {
				t.Fatalf("EventOf = %v, %v", ok, err)
			}
			if string(e.Data) != tt.wantData {
				t.Errorf("Data = %s, want %s", e.Data, tt.wantData)
			}
			if e.Type != "evaluation" || e.Seq != 4 || e.DebateID != "d" {
				t.Errorf("event = %+v", e)
			}
		})
	}
}

// TestValidateDebateNamesEveryProblem: ValidateDebate's error names each
// problem by its field, for a host to show beside its input, and reads as
// one sentence.
func TestValidateDebateNamesEveryProblem(t *testing.T) {
	tests := []struct {
		name   string
		d      engine.Debate
		fields []string
		text   string
	}{
		{"valid", engine.Debate{ID: "a-1", Proposition: "Why?", Context: "c"}, nil, ""},
		{"empty proposition", engine.Debate{Proposition: "  "}, []string{"proposition"}, "engine: invalid debate: proposition is empty"},
		{"all three", engine.Debate{ID: ".x", Proposition: "\xff", Context: strings.Repeat("c", engine.MaxContextRunes+1)},
			[]string{"id", "proposition", "context"},
			`engine: invalid debate: id ".x": use 1-128 of A-Z a-z 0-9 . _ - not starting with '.'; proposition is not valid UTF-8; context has 20001 characters; at most 20000`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := engine.ValidateDebate(tt.d)
			if tt.fields == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var de *engine.DebateError
			if !errors.As(err, &de) || !errors.Is(err, engine.ErrInvalidDebate) {
				t.Fatalf("ValidateDebate = %v, want a *DebateError wrapping ErrInvalidDebate", err)
			}
			var fields []string
			for _, v := range de.Violations {
				fields = append(fields, v.Field)
			}
			if !slices.Equal(fields, tt.fields) || err.Error() != tt.text {
				t.Errorf("fields %q, text %q; want %q, %q", fields, err, tt.fields, tt.text)
			}
		})
	}
}
