package events_test

import (
	"encoding/json"
	"testing"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/events"
	"github.com/duelogic/duelogic/store"
)

// FuzzFromRecord feeds FromRecord records of every type with arbitrary data:
// it must not panic, and an event it makes keeps the record's identity and
// encodes as JSON.
func FuzzFromRecord(f *testing.F) {
	for _, seed := range []struct{ typ, data string }{
		{duelogic.RecordDebate, `{"key":"debate","format":"duelogic","debate":{"proposition":"p"}}`},
		{duelogic.RecordSegmentStarted, `{"key":"segment_started:opening","segment":"opening"}`},
		{duelogic.RecordUtterance, `{"key":"intro","utterance":{"speaker":"arbiter","content":"hi"}}`},
		{duelogic.RecordEvaluation, `{"key":"eval:x1","speaker":"chair_1","evaluated":true,"evaluation":{"adherenceScore":3}}`},
		{duelogic.RecordInterruption, `{"key":"int:x1","utteranceSeq":4,"candidate":{"interruptingChair":{"position":"chair_2"}}}`},
		{duelogic.RecordDebateEnded, `{"key":"end","usage":{"promptTokens":1}}`},
		{duelogic.RecordMoves, `{"key":"moves:1","side":true}`},
		{"verdict", `{"key":"v","speaker":"judge","value":{"winner":"a"}}`},
		{"verdict", `{"key":"v","value":null}`},
		{duelogic.RecordUtterance, `[]`},
	} {
		f.Add(seed.typ, []byte(seed.data), int64(3))
	}
	f.Fuzz(func(t *testing.T, typ string, data []byte, seq int64) {
		rec := store.Record{DebateID: "d", Seq: seq, Type: typ, Data: json.RawMessage(data)}
		e, ok := events.FromRecord(rec)
		if !ok {
			return
		}
		if e.Seq != seq || e.DebateID != "d" || e.Type == "" {
			t.Errorf("event %+v lost the record's identity", e)
		}
		if _, err := json.Marshal(e); err != nil {
			t.Errorf("event of %s %q does not encode: %v", typ, data, err)
		}
	})
}
