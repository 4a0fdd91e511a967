package events

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/store"
)

// FromRecord returns the event that announced rec when it was stored,
// exactly as the debate's sink received it live (type, DebateID, Seq, Time,
// segment, speaker, utterance, evaluation and Data as raw JSON), for a
// debate of any format. It reports false for a record no event announced
// and for one it cannot read; it is [engine.EventOf] without the error,
// which a caller that must tell the two apart calls instead. [engine.Replay]
// does the same for a whole debate.
func FromRecord(rec store.Record) (engine.Event, bool) {
	e, ok, err := engine.EventOf(rec)
	return e, ok && err == nil
}

// Status says where a stored debate stands.
type Status string

// The statuses of a debate.
const (
	// StatusRunning: a host is running the debate (the store alone cannot
	// tell; hosts set it).
	StatusRunning Status = "running"
	// StatusFinished: the log ends with the debate_ended record.
	StatusFinished Status = "finished"
	// StatusStopped: the log ends before the end; Resume finishes it.
	StatusStopped Status = "stopped"
)

// Summary describes a stored debate, as a list of debates shows it: the
// engine's [engine.Summary] with a status and an utterance count. The
// format's configuration is Spec, as JSON ([engine.Open] takes it).
type Summary struct {
	ID string `json:"id"`
	// Format names the debate's format ("duelogic", "formal", ...).
	Format string        `json:"format"`
	Debate engine.Debate `json:"debate"`
	// Spec is the format's stored configuration, as JSON.
	Spec json.RawMessage `json:"spec,omitempty"`
	// Mapped reports whether the debate maps its arguments.
	Mapped bool   `json:"mapped,omitempty"`
	Status Status `json:"status"`
	// Records counts the records; Utterances the utterances among them.
	Records    int `json:"records"`
	Utterances int `json:"utterances"`
	// Started and Updated are the times of the first and the last record.
	Started time.Time `json:"started"`
	Updated time.Time `json:"updated"`
}

// Summarize reads a debate's records (as [store.Store.Records] returns them)
// into a [Summary] whose Status is finished or stopped. It builds on
// [engine.Summarize] and fails, as it does, with an error wrapping
// [engine.ErrCorruptLog] when the records do not start with a readable
// debate record.
func Summarize(recs []store.Record) (Summary, error) {
	d, err := engine.Summarize(recs)
	if err != nil {
		return Summary{}, fmt.Errorf("events: %w", err)
	}
	s := Summary{
		ID: d.ID, Format: d.Format, Debate: d.Debate, Spec: d.Spec, Mapped: d.Mapped,
		Status: StatusStopped, Records: d.Records, Started: d.Started, Updated: d.Updated,
	}
	if d.Finished {
		s.Status = StatusFinished
	}
	for _, r := range recs {
		if r.Type == engine.RecordUtterance {
			s.Utterances++
		}
	}
	return s, nil
}
