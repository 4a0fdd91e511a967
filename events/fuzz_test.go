package events_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/events"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// FuzzFromRecord feeds FromRecord records of every type with arbitrary data,
// seeded with the records of a real debate: it must not panic, it agrees
// with engine.EventOf, and an event it makes keeps the record's identity and
// encodes as JSON.
func FuzzFromRecord(f *testing.F) {
	st := store.NewMemory()
	if _, err := engine.Run(context.Background(), llm.NewStub(2), quickPodcast(), engine.Debate{ID: "d", Proposition: "p?"},
		engine.WithStore(st)); err != nil {
		f.Fatal(err)
	}
	recs, err := st.Records(context.Background(), "d")
	if err != nil {
		f.Fatal(err)
	}
	for _, r := range recs {
		f.Add(r.Type, []byte(r.Data), r.Seq)
	}
	f.Add("verdict", []byte(`{"key":"v","speaker":"judge","value":{"winner":"a"},"event":{"type":"verdict","data":{"winner":"a"}}}`), int64(3))
	f.Add("utterance", []byte(`{"key":"u","value":[],"event":{"type":"utterance","saysValue":true}}`), int64(4))
	f.Add("utterance", []byte(`[]`), int64(5))
	f.Fuzz(func(t *testing.T, typ string, data []byte, seq int64) {
		rec := store.Record{DebateID: "d", Seq: seq, Type: typ, Data: json.RawMessage(data)}
		e, ok := events.FromRecord(rec)
		want, wantOK, err := engine.EventOf(rec)
		if ok != (wantOK && err == nil) {
			t.Fatalf("FromRecord ok = %v; engine.EventOf = %v, %v", ok, wantOK, err)
		}
		if !ok {
			return
		}
		if e.Seq != seq || e.DebateID != "d" || e.Type != want.Type {
			t.Errorf("event %+v lost the record's identity", e)
		}
		if _, err := json.Marshal(e); err != nil {
			t.Errorf("event of %s %q does not encode: %v", typ, data, err)
		}
	})
}
