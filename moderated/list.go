package moderated

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/store"
)

// Summary is a moderated debate as [List] reports it.
type Summary struct {
	DebateID string `json:"debateId"`
	Question string `json:"question"`
	Status   Status `json:"status"`
	// Round is the round in progress or last played (0 before the first).
	Round     int `json:"round"`
	MaxRounds int `json:"maxRounds"`
	// Perspectives are the names of the perspectives seated, once
	// assigned.
	Perspectives []string `json:"perspectives,omitempty"`
	// Started and Updated are the times of the first and last records.
	Started time.Time `json:"started"`
	Updated time.Time `json:"updated"`
	// Elapsed is the time the debate has spent, as last stored (after the
	// analysis, each round and the synthesis): what counts against
	// Config.TotalTimeout. JSON holds it as "elapsed", in seconds.
	Elapsed time.Duration `json:"-"`
}

// List reads every debate in st and reports the moderated ones, in the
// store's order, with where each stands: analyzing, in_round, checkpoint
// (a round was judged and its checkpoint not yet decided — also a debate
// that stopped there), synthesizing, complete or paused (at a question to
// its people: the clarifying question, a checkpoint, the approval of the
// synthesis or the workflow question — asked through the engine or a
// deprecated hook).
func List(ctx context.Context, st store.Store) ([]Summary, error) {
	ids, err := st.Debates(ctx)
	if err != nil {
		return nil, fmt.Errorf("moderated: list debates: %w", err)
	}
	var out []Summary
	for _, id := range ids {
		recs, err := st.Records(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("moderated: list debates: %s: %w", id, err)
		}
		if sum, ok := summarize(recs); ok {
			out = append(out, sum)
		}
	}
	return out, nil
}

// head is what List reads of a debate's first record, whose Data is
// {"key":"debate","value":{"version":...,"format":...,"debate":{...},"spec":{...}}},
// the spec being the Format's JSON.
type head struct {
	Value struct {
		Format string        `json:"format"`
		Debate engine.Debate `json:"debate"`
		Spec   Format        `json:"spec"`
	} `json:"value"`
}

// summarize reads a debate's records; ok is false for a debate of another
// format, or one whose first record cannot be read.
func summarize(recs []store.Record) (Summary, bool) {
	if len(recs) == 0 || recs[0].Type != engine.RecordDebate {
		return Summary{}, false
	}
	var h head
	if json.Unmarshal(recs[0].Data, &h) != nil || h.Value.Format != FormatName {
		return Summary{}, false
	}
	sum := Summary{
		DebateID: recs[0].DebateID, Question: h.Value.Debate.Proposition, Status: StatusAnalyzing,
		MaxRounds: h.Value.Spec.Config.MaxRounds, Started: recs[0].Time, Updated: recs[len(recs)-1].Time,
	}
	for _, rec := range recs[1:] {
		var data struct {
			Key   string          `json:"key"`
			Value json.RawMessage `json:"value"`
		}
		if json.Unmarshal(rec.Data, &data) != nil {
			continue
		}
		var n int
		if strings.HasPrefix(data.Key, "round") {
			fmt.Sscanf(data.Key, "round%d:", &n)
		}
		switch rec.Type {
		case engine.RecordAsked:
			var a engine.Asked
			_ = json.Unmarshal(data.Value, &a)
			switch {
			case a.Paused:
				sum.Status = StatusPaused
			case a.Question.Kind == engine.QuestionClarification:
				sum.Status = StatusAnalyzing
			case a.Question.Kind == engine.QuestionCheckpoint:
				sum.Status = StatusCheckpoint
			default:
				sum.Status = StatusSynthesizing
			}
		case RecordClarification, RecordApproval:
			var p struct {
				Paused bool `json:"paused"`
			}
			_ = json.Unmarshal(data.Value, &p)
			switch {
			case p.Paused:
				sum.Status = StatusPaused
			case rec.Type == RecordClarification:
				sum.Status = StatusAnalyzing
			default:
				sum.Status = StatusSynthesizing
			}
		case RecordElapsed:
			var e elapsed
			if json.Unmarshal(data.Value, &e) == nil {
				sum.Elapsed = e.duration()
			}
		case RecordAssignment:
			var seats []Perspective
			if json.Unmarshal(data.Value, &seats) == nil {
				sum.Perspectives = nil
				for _, p := range seats {
					sum.Perspectives = append(sum.Perspectives, p.Name)
				}
			}
			sum.Status, sum.Round = StatusInRound, 1
		case RecordJudgment:
			var j Judgment
			_ = json.Unmarshal(data.Value, &j)
			sum.Round, sum.Status = n, StatusCheckpoint
			if j.End != "" {
				sum.Status = StatusSynthesizing
			}
		case RecordCheckpoint:
			var c CheckpointOutcome
			_ = json.Unmarshal(data.Value, &c)
			switch {
			case c.Paused:
				sum.Status = StatusPaused
			case c.Action == End:
				sum.Status = StatusSynthesizing
			default:
				sum.Status, sum.Round = StatusInRound, n+1
			}
		case engine.RecordSegmentStarted:
			var seg engine.Segment
			if json.Unmarshal(data.Value, &seg) == nil && seg == SegmentSynthesis {
				sum.Status = StatusSynthesizing
			}
		case engine.RecordDebateEnded:
			sum.Status = StatusComplete
		case engine.RecordUtterance, RecordTurn:
			if n > sum.Round || n > 0 && n == sum.Round && sum.Status == StatusInRound {
				sum.Status, sum.Round = StatusInRound, n
			}
		}
	}
	return sum, true
}
