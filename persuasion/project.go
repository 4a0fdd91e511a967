package persuasion

import (
	"encoding/json"
	"slices"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
)

// The persuasion dialogue's own tables in SQL stores: see [Format.Tables].
const (
	TableMoves       = "persuasion_moves"
	TableCommitments = "persuasion_commitments"
	TableArguments   = "persuasion_arguments"
)

var _ engine.Projector = (*Format)(nil)

func column(name string, t engine.ColumnType, notNull bool, doc string) engine.Column {
	return engine.Column{Name: name, Type: t, NotNull: notNull, Doc: doc}
}

// Tables returns the persuasion dialogue's tables (see [engine.Projector]):
// persuasion_moves (every speech act, in order: the sides' moves and the
// challenges the protocol made), persuasion_commitments (each side's
// commitment store: a proposition is committed while no retract, or
// concession of its negation, took it back) and persuasion_arguments (the
// argument graph's arguments with their base and final strengths, written
// when the debate ends).
func (f *Format) Tables() []engine.Table {
	return []engine.Table{
		{
			Name: TableMoves, Doc: "seed 002: the speech acts of a persuasion dialogue",
			Columns: []engine.Column{
				column("debate_id", engine.ColText, true, ""),
				column("seq", engine.ColInt, true, "the turn's record"),
				column("position", engine.ColInt, true, "its place in the turn, from 1"),
				column("move_id", engine.ColText, false, "P1, O2, C1, ..."),
				column("round", engine.ColInt, true, ""),
				column("phase", engine.ColText, true, ""),
				column("side", engine.ColText, true, "PRO or OPP: whose turn"),
				column("speaker", engine.ColText, true, "who made the move, by speaker ID (pro, opp) as in utterances"),
				column("act", engine.ColText, true, "claim, why, concede, retract, since"),
				column("proposition", engine.ColText, true, ""),
				column("reasons", engine.ColJSON, false, ""),
				column("target", engine.ColText, false, "the move it replies to"),
				column("attack", engine.ColText, false, "rebut or undercut"),
				column("text", engine.ColText, false, ""),
				column("challenge", engine.ColBool, true, "a why the protocol asked, not the side"),
			},
			Key:     []string{"debate_id", "seq", "position"},
			Indexes: [][]string{{"debate_id", "move_id"}},
		},
		{
			Name: TableCommitments, Doc: "seed 002: each side's commitment store",
			Columns: []engine.Column{
				column("debate_id", engine.ColText, true, ""),
				column("speaker", engine.ColText, true, "whose store, by speaker ID (pro, opp)"),
				column("proposition", engine.ColText, true, ""),
				column("committed", engine.ColBool, true, "false once retracted"),
				column("move_id", engine.ColText, false, "the move that last changed it"),
				column("seq", engine.ColInt, true, "the record that last changed it"),
			},
			Key: []string{"debate_id", "speaker", "proposition"},
		},
		{
			Name: TableArguments, Doc: "seed 002: the arguments of the debate's graph and their strengths",
			Columns: []engine.Column{
				column("debate_id", engine.ColText, true, ""),
				column("argument_id", engine.ColText, true, ""),
				column("side", engine.ColText, true, ""),
				column("text", engine.ColText, true, ""),
				column("move_id", engine.ColText, false, "the move that put it forward"),
				column("base", engine.ColReal, true, "its base score"),
				column("strength", engine.ColReal, true, "its final strength under the debate's semantics"),
				column("surviving", engine.ColBool, true, "it survived every attack"),
			},
			Key:     []string{"debate_id", "argument_id"},
			Indexes: [][]string{{"debate_id", "strength"}},
		},
	}
}

// Project returns the rows a persuasion dialogue's record adds to its
// tables (see [Format.Tables]).
func (f *Format) Project(st engine.StoredStep) []engine.Row {
	e := st.Event
	if e == nil {
		return nil
	}
	switch e.Type {
	case EventTurn:
		t, err := engine.DataAs[Turn](*e)
		if err != nil {
			return nil
		}
		var rows []engine.Row
		add := func(m argumentation.Move, challenge bool) {
			reasons := any(nil)
			if len(m.Reasons) > 0 {
				reasons = m.Reasons
			}
			rows = append(rows, engine.Row{Table: TableMoves, Values: map[string]any{
				"debate_id": st.DebateID, "seq": st.Seq, "position": len(rows) + 1, "move_id": orNull(m.ID),
				"round": t.Round, "phase": string(t.Phase), "side": t.Side, "speaker": SpeakerID(m.Speaker), "act": string(m.Act),
				"proposition": m.Proposition, "reasons": reasons, "target": orNull(m.Target), "attack": orNull(m.Attack),
				"text": orNull(m.Text), "challenge": challenge,
			}})
		}
		for _, m := range t.Moves {
			add(m, false)
		}
		for _, m := range t.Challenges {
			add(m, true)
		}
		for _, m := range append(slices.Clone(t.Moves), t.Challenges...) {
			rows = append(rows, commitmentRows(st, m)...)
		}
		return rows
	case engine.EventDebateEnded:
		end, err := engine.DataAs[engine.Ended](*e)
		if err != nil || len(end.Detail) == 0 {
			return nil
		}
		var out struct {
			Computed  argumentation.Verdict          `json:"verdict"`
			Arguments []argumentation.ScoredArgument `json:"arguments"`
		}
		if json.Unmarshal(end.Detail, &out) != nil {
			return nil
		}
		rows := make([]engine.Row, 0, len(out.Arguments))
		for _, a := range out.Arguments {
			surviving := slices.ContainsFunc(out.Computed.Surviving, func(s argumentation.ScoredArgument) bool { return s.ID == a.ID })
			rows = append(rows, engine.Row{Table: TableArguments, Values: map[string]any{
				"debate_id": st.DebateID, "argument_id": a.ID, "side": a.Side, "text": a.Text, "move_id": orNull(a.Move),
				"base": a.Base, "strength": a.Score, "surviving": surviving,
			}})
		}
		return rows
	}
	return nil
}

// commitmentRows are the changes move m makes to its speaker's commitment
// store, by the seed's effect rules (as argumentation.Dialogue applies
// them): claim and since commit the proposition (and the reasons);
// concede commits it and takes back its negation; retract takes it back.
func commitmentRows(st engine.StoredStep, m argumentation.Move) []engine.Row {
	set := func(p string, committed, update bool) engine.Row {
		return engine.Row{Table: TableCommitments, Update: update, Values: map[string]any{
			"debate_id": st.DebateID, "speaker": SpeakerID(m.Speaker), "proposition": p, "committed": committed,
			"move_id": orNull(m.ID), "seq": st.Seq,
		}}
	}
	switch m.Act {
	case argumentation.Claim:
		return []engine.Row{set(m.Proposition, true, false)}
	case argumentation.Since:
		rows := []engine.Row{set(m.Proposition, true, false)}
		for _, r := range m.Reasons {
			rows = append(rows, set(r, true, false))
		}
		return rows
	case argumentation.Concede:
		return []engine.Row{set(argumentation.Negate(m.Proposition), false, true), set(m.Proposition, true, false)}
	case argumentation.Retract:
		return []engine.Row{set(m.Proposition, false, true)}
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
