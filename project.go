package duelogic

import (
	"encoding/json"
	"math"

	"github.com/duelogic/duelogic/engine"
)

// The podcast's own tables in SQL stores (seed 000's schema): see
// [Podcast.Tables].
const (
	TableChairs        = "debate_chairs"
	TableEvaluations   = "response_evaluations"
	TableInterruptions = "chair_interruptions"
)

var _ engine.Projector = (*Podcast)(nil)

func column(name string, t engine.ColumnType, notNull bool) engine.Column {
	return engine.Column{Name: name, Type: t, NotNull: notNull}
}

// Tables returns seed 000's tables, as SQL stores keep them (see
// [engine.Projector]): debate_chairs (one row per chair), response_evaluations
// (one per evaluation made, keyed by its record, with the utterance it
// evaluates) and chair_interruptions (one per interruption, with the
// utterance cut into and its time in milliseconds from the debate's
// start). The podcast also sets the debates table's duelogic_config, and
// marks the utterance an interruption cut into.
func (p *Podcast) Tables() []engine.Table {
	return []engine.Table{
		{
			Name: TableChairs, Doc: "the chairs of a Duelogic debate (seed 000)",
			Columns: []engine.Column{
				column("debate_id", engine.ColText, true),
				column("chair_position", engine.ColText, true),
				column("framework", engine.ColText, true),
				column("model_id", engine.ColText, true),
				column("model_display_name", engine.ColText, false),
				column("provider_name", engine.ColText, false),
				column("created_at", engine.ColTime, true),
			},
			Key: []string{"debate_id", "chair_position"},
		},
		{
			Name: TableEvaluations, Doc: "the arbiter's evaluations of chair responses (seed 000)",
			Columns: []engine.Column{
				column("debate_id", engine.ColText, true),
				column("seq", engine.ColInt, true),
				column("utterance_seq", engine.ColInt, false),
				column("speaker", engine.ColText, true),
				column("adherence_score", engine.ColInt, false),
				column("steel_manning_attempted", engine.ColBool, false),
				column("steel_manning_quality", engine.ColText, false),
				column("self_critique_attempted", engine.ColBool, false),
				column("self_critique_quality", engine.ColText, false),
				column("framework_consistent", engine.ColBool, false),
				column("evaluation_data", engine.ColJSON, true),
				column("created_at", engine.ColTime, true),
			},
			Key:     []string{"debate_id", "seq"},
			Indexes: [][]string{{"debate_id", "utterance_seq"}},
		},
		{
			Name: TableInterruptions, Doc: "interruptions made in a Duelogic debate (seed 000)",
			Columns: []engine.Column{
				column("debate_id", engine.ColText, true),
				column("seq", engine.ColInt, true),
				column("utterance_seq", engine.ColInt, false),
				column("interrupting_chair", engine.ColText, true),
				column("interrupted_chair", engine.ColText, true),
				column("trigger_reason", engine.ColText, true),
				column("trigger_content", engine.ColText, false),
				column("urgency", engine.ColReal, false),
				column("timestamp_ms", engine.ColInt, true),
				column("created_at", engine.ColTime, true),
			},
			Key: []string{"debate_id", "seq"},
		},
	}
}

// Project returns the rows a podcast record adds to seed 000's tables (see
// [Podcast.Tables]).
func (p *Podcast) Project(st engine.StoredStep) []engine.Row {
	if sum, ok := st.Head(); ok {
		return headRows(st, sum)
	}
	e := st.Event
	if e == nil {
		return nil
	}
	switch e.Type {
	case EventEvaluation:
		return evaluationRows(st, *e)
	case EventInterruption:
		return interruptionRows(st, *e)
	}
	return nil
}

func headRows(st engine.StoredStep, sum engine.Summary) []engine.Row {
	rows := []engine.Row{{Table: "debates", Update: true, Values: map[string]any{"id": st.DebateID, "duelogic_config": sum.Spec}}}
	for _, c := range chairsOf(sum.Spec) {
		rows = append(rows, engine.Row{Table: TableChairs, Values: map[string]any{
			"debate_id": st.DebateID, "chair_position": c.Position, "framework": string(c.Framework), "model_id": c.ModelID,
			"model_display_name": orNull(c.ModelDisplayName), "provider_name": orNull(c.ProviderName), "created_at": st.Time,
		}})
	}
	return rows
}

func evaluationRows(st engine.StoredStep, e engine.Event) []engine.Row {
	if len(e.Data) == 0 || string(e.Data) == "null" {
		return nil // unscored
	}
	ev, err := engine.DataAs[ResponseEvaluation](e)
	if err != nil {
		return nil
	}
	var v struct {
		UtteranceSeq int64 `json:"utteranceSeq"`
	}
	_ = json.Unmarshal(st.Value, &v) // an old log's value may not say
	var of any
	if v.UtteranceSeq > 0 {
		of = v.UtteranceSeq
	}
	return []engine.Row{{Table: TableEvaluations, Values: map[string]any{
		"debate_id": st.DebateID, "seq": st.Seq, "utterance_seq": of, "speaker": e.Speaker,
		"adherence_score":         min(max(ev.AdherenceScore, 0), 100),
		"steel_manning_attempted": ev.SteelManning.Attempted, "steel_manning_quality": orNull(string(ev.SteelManning.Quality)),
		"self_critique_attempted": ev.SelfCritique.Attempted, "self_critique_quality": orNull(string(ev.SelfCritique.Quality)),
		"framework_consistent": ev.FrameworkConsistency.Consistent, "evaluation_data": e.Data, "created_at": st.Time,
	}}}
}

func interruptionRows(st engine.StoredStep, e engine.Event) []engine.Row {
	var c InterruptCandidate
	_ = json.Unmarshal(e.Data, &c) // what is missing stays empty
	by, of := c.InterruptingChair.Position, c.InterruptedChair.Position
	if by == "" {
		by = e.Speaker
	}
	var cut any
	if u := e.Utterance; u != nil {
		cut = u.Seq
		if of == "" {
			of = u.Speaker
		}
	} else {
		var v struct {
			UtteranceSeq int64 `json:"utteranceSeq"`
		}
		if json.Unmarshal(st.Value, &v) == nil && v.UtteranceSeq > 0 {
			cut = v.UtteranceSeq
		}
	}
	urgency := c.Urgency
	if math.IsNaN(urgency) {
		urgency = 0
	}
	rows := []engine.Row{{Table: TableInterruptions, Values: map[string]any{
		"debate_id": st.DebateID, "seq": st.Seq, "utterance_seq": cut, "interrupting_chair": by, "interrupted_chair": of,
		"trigger_reason": string(c.TriggerReason), "trigger_content": orNull(c.TriggerContent),
		"urgency": min(max(urgency, 0), 1), "timestamp_ms": st.Time.Sub(st.Started).Milliseconds(), "created_at": st.Time,
	}}}
	if cut != nil {
		rows = append(rows, engine.Row{Table: "utterances", Update: true, Values: map[string]any{
			"debate_id": st.DebateID, "seq": cut, "interrupted": true, "interrupted_by": by,
		}})
	}
	return rows
}

// orNull is s, or nil (SQL NULL) for "".
func orNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// chairsOf finds the chairs of a stored configuration: an array "chairs"
// at its top (the podcast's configuration), or in one of its top-level
// objects (a log of an earlier version kept them in "config"), whose
// elements have a position.
func chairsOf(spec json.RawMessage) []Chair {
	var top map[string]json.RawMessage
	if json.Unmarshal(spec, &top) != nil {
		return nil
	}
	try := func(m map[string]json.RawMessage) []Chair {
		var cs []Chair
		if raw, ok := m["chairs"]; !ok || json.Unmarshal(raw, &cs) != nil {
			return nil
		}
		out := cs[:0]
		for _, c := range cs {
			if c.Position != "" {
				out = append(out, c)
			}
		}
		return out
	}
	if cs := try(top); len(cs) > 0 {
		return cs
	}
	for _, raw := range top {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) == nil {
			if cs := try(m); len(cs) > 0 {
				return cs
			}
		}
	}
	return nil
}
