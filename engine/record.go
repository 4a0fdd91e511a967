package engine

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// Record types the engine writes; a format adds its own for its steps.
// Every record's Data is one JSON object (see [Replay]) with a "key" naming
// the step of the debate that wrote it; Resume replays records by key, so the
// Play that wrote a log walks it again.
const (
	RecordDebate         = "debate"
	RecordSegmentStarted = "segment_started"
	RecordSegmentEnded   = "segment_ended"
	RecordUtterance      = "utterance"
	RecordMoves          = "moves"
	RecordDebateEnded    = "debate_ended"
)

// recordVersion is the version of the record layout this engine writes and
// reads.
const recordVersion = 2

// entry is the Data of every record: the step's key, whether it is a side
// step, who it is charged to, its value, and the event that announced it.
type entry struct {
	Key     string    `json:"key"`
	Side    bool      `json:"side,omitempty"`
	Speaker string    `json:"speaker,omitempty"`
	Usage   llm.Usage `json:"usage,omitzero"`
	// Cost is what the step's calls cost, at the prices of [WithPrices].
	Cost float64 `json:"cost,omitempty"`
	// Purposes splits the usage of the step's calls (Usage and Watch's)
	// by llm.Request.Purpose; a step stored without it (by an earlier
	// engine) counts under the empty purpose.
	Purposes map[string]llm.Usage `json:"purposes,omitempty"`
	Value    json.RawMessage      `json:"value,omitempty"`
	Event    *storedEvent         `json:"event,omitempty"`
	// Judgments counts the judgments made for the step ([Judge]), by
	// purpose: a resumed debate counts them as it charges Usage.
	Judgments map[string]JudgmentCounts `json:"judgments,omitempty"`
	// Watch is what the checks beside a watched utterance came to
	// ([Session.SayWatched]); their usage is charged to its Speaker.
	Watch *watchEntry `json:"watch,omitempty"`
}

// purposesOf is the step's usage by purpose (see Purposes).
func (e entry) purposesOf() map[string]llm.Usage {
	if e.Purposes != nil {
		return e.Purposes
	}
	all := e.Usage
	if e.Watch != nil {
		all = all.Add(e.Watch.Usage)
	}
	return withRest(nil, all)
}

// head is the value of a debate's first record.
type head struct {
	Version int             `json:"version"`
	Format  string          `json:"format"`
	Debate  Debate          `json:"debate"`
	Spec    json.RawMessage `json:"spec,omitempty"`
	// Mapping is the semantics the debate's argument map is scored with,
	// "" when it maps none.
	Mapping string `json:"mapping,omitempty"`
}

// Announcement is the event a step announces, as a format describes it
// (see [Session.Step]): the engine adds the debate, the record's Seq and
// Time, and encodes Data as JSON.
type Announcement struct {
	Type      EventType
	Segment   Segment
	Speaker   string
	Utterance *Utterance
	Data      any

	saysValue bool // Utterance is the record's value (see storedEvent)
}

// storedEvent is an event as its record keeps it (the DebateID, Seq and Time
// are the record's). SaysValue: the event's Utterance is the record's value,
// with the record's Seq, and is not stored twice.
type storedEvent struct {
	Type      EventType       `json:"type"`
	Segment   Segment         `json:"segment,omitempty"`
	Speaker   string          `json:"speaker,omitempty"`
	Utterance *Utterance      `json:"utterance,omitempty"`
	SaysValue bool            `json:"saysValue,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
	// Evaluation is read from logs of earlier versions, whose podcast
	// evaluation events kept their payload here: it is the event's Data.
	Evaluation json.RawMessage `json:"evaluation,omitempty"`
}

// stored returns a as its record keeps it; value is the record's value.
func (a *Announcement) stored() (*storedEvent, error) {
	se := &storedEvent{Type: a.Type, Segment: a.Segment, Speaker: a.Speaker, Utterance: a.Utterance}
	if a.saysValue {
		se.Utterance, se.SaysValue = nil, true
	}
	if a.Data != nil {
		raw, err := json.Marshal(a.Data)
		if err != nil {
			return nil, err
		}
		se.Data = raw
	}
	return se, nil
}

// event is the event se announces for rec.
func (se *storedEvent) event(rec *store.Record, value json.RawMessage) *Event {
	e := &Event{
		Type: se.Type, DebateID: rec.DebateID, Seq: rec.Seq, Segment: se.Segment, Speaker: se.Speaker,
		Utterance: se.Utterance, Data: se.Data, Time: rec.Time,
	}
	if len(e.Data) == 0 && len(se.Evaluation) > 0 && !bytes.Equal(se.Evaluation, []byte("null")) {
		e.Data = se.Evaluation
	}
	if se.SaysValue {
		var u Utterance
		if err := json.Unmarshal(value, &u); err == nil {
			u.Seq = rec.Seq
			e.Utterance = &u
		}
	} else if e.Utterance != nil {
		u := *e.Utterance
		e.Utterance = &u
	}
	return e
}

// Replay returns the events a debate's records announced when they were
// stored, in order: exactly the events other than tokens that its sink
// received live (the same type, seq, speaker, segment, utterance, data
// and time). A record no event announced gives none.
func Replay(records []store.Record) ([]Event, error) {
	var out []Event
	for _, rec := range records {
		e, ok, err := EventOf(rec)
		if err != nil {
			return out, err
		}
		if ok {
			out = append(out, e)
		}
	}
	return out, nil
}

// EventOf returns the event that announced rec, and false when none did.
func EventOf(rec store.Record) (Event, bool, error) {
	var en entry
	if err := json.Unmarshal(rec.Data, &en); err != nil {
		return Event{}, false, fmt.Errorf("%w: record %d (%s): %v", ErrCorruptLog, rec.Seq, rec.Type, err)
	}
	if en.Event == nil {
		return Event{}, false, nil
	}
	return *en.Event.event(&rec, en.Value), true, nil
}
