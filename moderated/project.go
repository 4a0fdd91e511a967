package moderated

import (
	"encoding/json"

	"github.com/duelogic/duelogic/engine"
)

// The moderated debate's own tables in SQL stores: see [Format.Tables].
const (
	// TableRounds is seed 004's debate_rounds: one row per round.
	TableRounds = "debate_rounds"
	// TableDecisions is the moderated debate's decision: its synthesis,
	// the people's approval and the workflow follow-up.
	TableDecisions = "moderated_decisions"
	// TablePerspectives are the perspectives the moderator assigned.
	TablePerspectives = "moderated_perspectives"
)

var _ engine.Projector = (*Format)(nil)

func column(name string, t engine.ColumnType, notNull bool, doc string) engine.Column {
	return engine.Column{Name: name, Type: t, NotNull: notNull, Doc: doc}
}

// roundTurn is an argument or rebuttal as debate_rounds keeps it.
type roundTurn struct {
	Seq       int64  `json:"seq"`
	Speaker   string `json:"speaker"`
	Content   string `json:"content"`
	Cut       bool   `json:"cut,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
	Defaulted bool   `json:"defaulted,omitempty"`
}

// Tables returns the moderated debate's tables (see [engine.Projector]):
//
//   - debate_rounds (seed 004: "stores full argument history"): one row per
//     round with every argument and rebuttal of the round (JSON arrays of
//     {seq, speaker, content, cut, truncated, defaulted}, in the order
//     stored), the moderator's judgment of it, and the decision taken at
//     its checkpoint;
//   - moderated_decisions: the debate's decision (one row): the
//     synthesis, its approval and whether the workflow follow-up ran (the
//     seed's link to a workflow);
//   - moderated_perspectives: the perspectives assigned.
func (f *Format) Tables() []engine.Table {
	return []engine.Table{
		{
			Name: TableRounds, Doc: "seed 004: every round of a moderated debate, with its full argument history",
			Columns: []engine.Column{
				column("debate_id", engine.ColText, true, ""),
				column("round", engine.ColInt, true, "1-based"),
				{Name: "arguments", Type: engine.ColJSON, NotNull: true, Merge: engine.MergeAppend,
					Doc: "the round's arguments, in the order stored"},
				{Name: "rebuttals", Type: engine.ColJSON, NotNull: true, Merge: engine.MergeAppend,
					Doc: "the round's rebuttals, in the order stored"},
				column("opening", engine.ColText, false, "what the moderator opened the round with"),
				column("judgment", engine.ColText, false, "the moderator's summary of the round"),
				column("converging", engine.ColBool, false, ""),
				column("stagnating", engine.ColBool, false, ""),
				column("new_ground", engine.ColBool, false, ""),
				column("clear_winner", engine.ColText, false, "a perspective, when the moderator saw one"),
				column("end_reason", engine.ColText, false, "why the debate ended after this round, if it did"),
				column("judgment_data", engine.ColJSON, false, "the whole judgment"),
				column("decision", engine.ColText, false, "the checkpoint's decision: continue, guide or end"),
				column("guidance", engine.ColText, false, "the person's guidance, with guide"),
				column("decision_auto", engine.ColBool, false, "nobody was asked: the debate went on"),
				column("started_at", engine.ColTime, false, ""),
				column("judged_at", engine.ColTime, false, ""),
				column("decided_at", engine.ColTime, false, ""),
			},
			Key: []string{"debate_id", "round"},
		},
		{
			Name: TableDecisions, Doc: "the decision a moderated debate came to, and its workflow follow-up",
			Columns: []engine.Column{
				column("debate_id", engine.ColText, true, ""),
				column("title", engine.ColText, false, ""),
				column("rounds", engine.ColInt, false, ""),
				column("recommendation", engine.ColText, false, ""),
				column("confidence", engine.ColText, false, "High, Medium or Low"),
				column("end_reason", engine.ColText, false, ""),
				column("dissent", engine.ColText, false, ""),
				column("synthesis", engine.ColJSON, false, "the whole synthesis (the revised one, after a rejection)"),
				column("approval", engine.ColText, false, "approved, rejected or unreviewed"),
				column("approval_note", engine.ColText, false, ""),
				column("workflow_created", engine.ColBool, false, "the host's follow-up took the decision (seed 004's workflow link)"),
				column("decided_at", engine.ColTime, false, ""),
			},
			Key: []string{"debate_id"},
		},
		{
			Name: TablePerspectives, Doc: "the perspectives a moderated debate's moderator assigned",
			Columns: []engine.Column{
				column("debate_id", engine.ColText, true, ""),
				column("perspective", engine.ColText, true, "its speaker ID"),
				column("position", engine.ColInt, true, "the order assigned"),
				column("name", engine.ColText, true, ""),
				column("priorities", engine.ColJSON, false, ""),
				column("trade_offs", engine.ColText, false, ""),
				column("model", engine.ColText, false, ""),
			},
			Key: []string{"debate_id", "perspective"},
		},
	}
}

// Project returns the rows a moderated debate's record adds to its tables
// (see [Format.Tables]).
func (f *Format) Project(st engine.StoredStep) []engine.Row {
	e := st.Event
	if e == nil {
		return nil
	}
	round := func(n int, v map[string]any) engine.Row {
		v["debate_id"], v["round"] = st.DebateID, n
		return engine.Row{Table: TableRounds, Values: v}
	}
	switch e.Type {
	case engine.EventUtterance:
		u := e.Utterance
		if u == nil || u.Exchange < 1 {
			return nil
		}
		t := roundTurn{Seq: st.Seq, Speaker: u.Speaker, Content: u.Content, Cut: u.Cut, Truncated: u.Truncated, Defaulted: u.Defaulted}
		switch u.Kind {
		case "opening":
			return []engine.Row{round(u.Exchange, map[string]any{"opening": u.Content, "started_at": st.Time})}
		case "argument":
			return []engine.Row{round(u.Exchange, map[string]any{"arguments": []roundTurn{t}})}
		case "rebuttal":
			return []engine.Row{round(u.Exchange, map[string]any{"rebuttals": []roundTurn{t}})}
		}
	case EventJudgment:
		j, err := engine.DataAs[Judgment](*e)
		if err != nil || j.Round < 1 {
			return nil
		}
		return []engine.Row{round(j.Round, map[string]any{
			"judgment": j.Summary, "converging": j.Converging, "stagnating": j.Stagnating, "new_ground": j.NewGround,
			"clear_winner": orNull(string(j.ClearWinner)), "end_reason": orNull(string(j.End)), "judgment_data": e.Data,
			"judged_at": st.Time,
		})}
	case EventCheckpoint:
		c, err := engine.DataAs[CheckpointOutcome](*e)
		if err != nil || c.Round < 1 || c.Paused {
			return nil
		}
		return []engine.Row{round(c.Round, map[string]any{
			"decision": orNull(string(c.Action)), "guidance": orNull(c.Guidance), "decision_auto": c.Auto, "decided_at": st.Time,
		})}
	case EventAssignment:
		var ps []Perspective
		if json.Unmarshal(e.Data, &ps) != nil {
			return nil
		}
		rows := make([]engine.Row, 0, len(ps))
		for i, p := range ps {
			rows = append(rows, engine.Row{Table: TablePerspectives, Values: map[string]any{
				"debate_id": st.DebateID, "perspective": string(p.ID), "position": i + 1, "name": p.Name,
				"priorities": p.Priorities, "trade_offs": orNull(p.TradeOffs), "model": orNull(p.Model),
			}})
		}
		return rows
	case EventSynthesis:
		s, err := engine.DataAs[Synthesis](*e)
		if err != nil {
			return nil
		}
		return []engine.Row{{Table: TableDecisions, Values: map[string]any{
			"debate_id": st.DebateID, "title": s.Title, "rounds": s.Rounds, "recommendation": s.Recommendation,
			"confidence": orNull(string(s.Confidence)), "end_reason": orNull(string(s.EndReason)), "dissent": orNull(s.Dissent),
			"synthesis": e.Data, "decided_at": st.Time,
		}}}
	case EventApproval:
		a, err := engine.DataAs[ApprovalOutcome](*e)
		if err != nil || a.Paused {
			return nil
		}
		return []engine.Row{{Table: TableDecisions, Values: map[string]any{
			"debate_id": st.DebateID, "approval": orNull(string(a.Status)), "approval_note": orNull(a.Note),
		}}}
	case EventFollowUp:
		var done bool
		if json.Unmarshal(e.Data, &done) != nil {
			return nil
		}
		return []engine.Row{{Table: TableDecisions, Values: map[string]any{"debate_id": st.DebateID, "workflow_created": done}}}
	}
	return nil
}

// orNull is s, or nil (SQL NULL) for "".
func orNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}
