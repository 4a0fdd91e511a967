package events

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// The JSON shapes of the engine's records (engine.go, flow.go, session.go);
// only the fields an event needs.
type (
	segmentRecord struct {
		Segment duelogic.Segment `json:"segment"`
	}
	utteranceRecord struct {
		Utterance duelogic.Utterance `json:"utterance"`
	}
	evaluationRecord struct {
		UtteranceSeq int64                        `json:"utteranceSeq"`
		Speaker      string                       `json:"speaker"`
		Evaluation   *duelogic.ResponseEvaluation `json:"evaluation"`
		Evaluated    bool                         `json:"evaluated"`
	}
	interruptionRecord struct {
		UtteranceSeq int64                       `json:"utteranceSeq"`
		Candidate    duelogic.InterruptCandidate `json:"candidate"`
	}
	endedRecord struct {
		Usage   llm.Usage        `json:"usage"`
		Metrics duelogic.Metrics `json:"metrics"`
	}
	stepRecord struct {
		Key     string          `json:"key"`
		Speaker string          `json:"speaker"`
		Value   json.RawMessage `json:"value"`
		Event   *struct {
			Type      duelogic.EventType  `json:"type"`
			Segment   duelogic.Segment    `json:"segment"`
			Speaker   string              `json:"speaker"`
			Utterance *duelogic.Utterance `json:"utterance"`
			Data      json.RawMessage     `json:"data"`
		} `json:"event"`
	}
)

// FromRecord turns a stored record back into the event the engine announced
// for it, with the record's DebateID, Seq and Time. It reports false for a
// record the engine does not announce (an evaluation the arbiter did not
// make) and for one it cannot read.
//
// The events are those the engine emits live, except where the record does
// not hold everything the live event carried:
//
//   - debate → [duelogic.EventDebateStarted];
//   - segment_started, segment_ended → the segment events, with Segment;
//   - utterance → [duelogic.EventUtterance] with Segment, Speaker and the
//     Utterance (its Seq set), as it was when first said: without the
//     evaluation and interruption marks added later;
//   - evaluation → [duelogic.EventEvaluation] with Speaker and Evaluation
//     (Segment is the exchange, where evaluations are made; the evaluated
//     utterance is the speaker's last one);
//   - interruption → [duelogic.EventInterruption] with Speaker (the
//     interrupting chair) and Interrupt; its Utterance holds only the
//     interrupted utterance's Seq, Speaker and marks, not its content;
//   - debate_ended → [duelogic.EventDebateEnded] whose Result holds only
//     DebateID, Usage and Metrics (the transcript is the utterances before);
//   - moves → [duelogic.EventArgumentMap] with the record's Data as Data (a
//     [json.RawMessage]);
//   - any other record that a [duelogic.Session] step wrote (a format's
//     verdict, score or checkpoint) → the event that announced it live,
//     stored with the step: its type, segment, speaker, utterance and Data
//     (as a json.RawMessage of the same JSON); a step no event announced
//     gives none.
func FromRecord(rec store.Record) (duelogic.Event, bool) {
	e := duelogic.Event{DebateID: rec.DebateID, Seq: rec.Seq, Time: rec.Time}
	var err error
	switch rec.Type {
	case duelogic.RecordDebate:
		e.Type = duelogic.EventDebateStarted
	case duelogic.RecordSegmentStarted, duelogic.RecordSegmentEnded:
		var r segmentRecord
		if err = json.Unmarshal(rec.Data, &r); err == nil {
			e.Type, e.Segment = duelogic.EventSegmentStarted, r.Segment
			if rec.Type == duelogic.RecordSegmentEnded {
				e.Type = duelogic.EventSegmentEnded
			}
		}
	case duelogic.RecordUtterance:
		var r utteranceRecord
		if err = json.Unmarshal(rec.Data, &r); err == nil {
			u := r.Utterance
			u.Seq = rec.Seq
			e.Type, e.Segment, e.Speaker, e.Utterance = duelogic.EventUtterance, u.Segment, u.Speaker, &u
		}
	case duelogic.RecordEvaluation:
		var r evaluationRecord
		if err = json.Unmarshal(rec.Data, &r); err == nil {
			if !r.Evaluated {
				return duelogic.Event{}, false
			}
			e.Type, e.Segment, e.Speaker, e.Evaluation = duelogic.EventEvaluation, duelogic.SegmentExchange, r.Speaker, r.Evaluation
		}
	case duelogic.RecordInterruption:
		var r interruptionRecord
		if err = json.Unmarshal(rec.Data, &r); err == nil {
			c := r.Candidate
			by := c.InterruptingChair.Position
			e.Type, e.Segment, e.Speaker, e.Interrupt = duelogic.EventInterruption, duelogic.SegmentExchange, by, &c
			e.Utterance = &duelogic.Utterance{
				Seq: r.UtteranceSeq, Speaker: c.InterruptedChair.Position, Segment: duelogic.SegmentExchange,
				Interrupted: true, InterruptedBy: by,
			}
		}
	case duelogic.RecordDebateEnded:
		var r endedRecord
		if err = json.Unmarshal(rec.Data, &r); err == nil {
			e.Type = duelogic.EventDebateEnded
			e.Result = &duelogic.Result{DebateID: rec.DebateID, Usage: r.Usage, Metrics: r.Metrics}
		}
	case duelogic.RecordMoves:
		if !json.Valid(rec.Data) {
			return duelogic.Event{}, false
		}
		e.Type, e.Data = duelogic.EventArgumentMap, json.RawMessage(rec.Data)
	default:
		var r stepRecord
		if err = json.Unmarshal(rec.Data, &r); err == nil {
			if r.Key == "" || r.Value == nil || rec.Type == "" {
				return duelogic.Event{}, false
			}
			se := r.Event
			if se == nil {
				return duelogic.Event{}, false // a step no event announced
			}
			// The event that announced the step, stored with it.
			e.Type, e.Segment, e.Speaker, e.Utterance = se.Type, se.Segment, se.Speaker, se.Utterance
			if se.Data != nil {
				e.Data = se.Data
			}
		}
	}
	if err != nil {
		return duelogic.Event{}, false
	}
	return e, true
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

// Summary describes a stored debate, as a list of debates shows it.
type Summary struct {
	ID string `json:"id"`
	// Format names the debate's format ("duelogic", "formal", ...).
	Format string          `json:"format"`
	Debate duelogic.Debate `json:"debate"`
	// Config is the configuration of a Duelogic debate; nil for other
	// formats, whose configuration is Spec.
	Config *duelogic.Config `json:"config,omitempty"`
	Spec   json.RawMessage  `json:"spec,omitempty"`
	Status Status           `json:"status"`
	// Records counts the records; Utterances the utterances among them.
	Records    int `json:"records"`
	Utterances int `json:"utterances"`
	// Started and Updated are the times of the first and the last record.
	Started time.Time `json:"started"`
	Updated time.Time `json:"updated"`
}

// ErrNotDebate is returned by [Summarize] when the records do not start with
// a debate record.
var ErrNotDebate = errors.New("events: records do not start with a debate record")

// Summarize reads a debate's records (as [store.Store.Records] returns them)
// into a [Summary] whose Status is finished or stopped.
func Summarize(recs []store.Record) (Summary, error) {
	if len(recs) == 0 || recs[0].Type != duelogic.RecordDebate {
		return Summary{}, ErrNotDebate
	}
	d, err := duelogic.Summarize(recs)
	if err != nil {
		return Summary{}, fmt.Errorf("events: debate %s: %w", recs[0].DebateID, err)
	}
	s := Summary{
		ID: d.ID, Format: d.Format, Debate: d.Debate, Config: d.Config, Spec: d.Spec,
		Status: StatusStopped, Records: d.Records, Started: d.Started, Updated: d.Updated,
	}
	if d.Finished {
		s.Status = StatusFinished
	}
	for _, r := range recs {
		if r.Type == duelogic.RecordUtterance {
			s.Utterances++
		}
	}
	return s, nil
}
