package engine_test

import (
	"encoding/json"
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
