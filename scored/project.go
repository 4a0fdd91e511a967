package scored

import (
	"slices"

	"github.com/duelogic/duelogic/engine"
)

// The scored debate's own tables in SQL stores: see [Format.Tables].
const (
	TableRounds = "scored_rounds"
	TableScores = "scored_scores"
)

var _ engine.Projector = (*Format)(nil)

func column(name string, t engine.ColumnType, notNull bool, doc string) engine.Column {
	return engine.Column{Name: name, Type: t, NotNull: notNull, Doc: doc}
}

// Tables returns the scored debate's tables (see [engine.Projector]):
// scored_rounds (one row per category round: the arbiter's verdict and the
// score it moved, before and after) and scored_scores (one row per
// category: its score before and after the debate and the adjustment).
func (f *Format) Tables() []engine.Table {
	return []engine.Table{
		{
			Name: TableRounds, Doc: "seed 003: each category's round, its verdict and its score delta",
			Columns: []engine.Column{
				column("debate_id", engine.ColText, true, ""),
				column("round", engine.ColInt, true, "1-based"),
				column("category", engine.ColText, true, ""),
				column("winner", engine.ColText, true, "advocate, challenger or draw"),
				column("reasoning", engine.ColText, true, ""),
				column("key_points", engine.ColJSON, false, ""),
				column("confidence", engine.ColReal, true, "in [0, 1]"),
				column("defaulted", engine.ColBool, true, "the arbiter gave no valid verdict: a draw at confidence 0"),
				column("pre_score", engine.ColReal, true, ""),
				column("post_score", engine.ColReal, true, ""),
				column("delta", engine.ColReal, true, ""),
				column("record_seq", engine.ColInt, true, ""),
				column("created_at", engine.ColTime, true, ""),
			},
			Key: []string{"debate_id", "round"},
		},
		{
			Name: TableScores, Doc: "seed 003: the score card, per category",
			Columns: []engine.Column{
				column("debate_id", engine.ColText, true, ""),
				column("category", engine.ColText, true, ""),
				column("pre", engine.ColReal, false, ""),
				column("post", engine.ColReal, false, ""),
				column("adjustment", engine.ColReal, false, ""),
			},
			Key: []string{"debate_id", "category"},
		},
	}
}

// Project returns the rows a scored debate's record adds to its tables
// (see [Format.Tables]).
func (f *Format) Project(st engine.StoredStep) []engine.Row {
	e := st.Event
	if e == nil {
		return nil
	}
	switch e.Type {
	case EventVerdict:
		rv, err := engine.DataAs[RoundVerdict](*e)
		if err != nil || rv.Round < 1 {
			return nil
		}
		v := rv.Verdict
		return []engine.Row{{Table: TableRounds, Values: map[string]any{
			"debate_id": st.DebateID, "round": rv.Round, "category": rv.Category, "winner": string(v.Winner),
			"reasoning": v.Reasoning, "key_points": v.KeyPoints, "confidence": v.Confidence, "defaulted": v.Defaulted,
			"pre_score": rv.PreScore, "post_score": rv.PostScore, "delta": rv.Delta, "record_seq": st.Seq, "created_at": st.Time,
		}}}
	case EventScores:
		sc, err := engine.DataAs[ScoreCard](*e)
		if err != nil {
			return nil
		}
		var cats []string
		for _, m := range []map[string]float64{sc.Pre, sc.Post, sc.Adjustments} {
			for c := range m {
				if !slices.Contains(cats, c) {
					cats = append(cats, c)
				}
			}
		}
		slices.Sort(cats)
		rows := make([]engine.Row, 0, len(cats))
		for _, c := range cats {
			v := map[string]any{"debate_id": st.DebateID, "category": c}
			for col, m := range map[string]map[string]float64{"pre": sc.Pre, "post": sc.Post, "adjustment": sc.Adjustments} {
				if x, ok := m[c]; ok {
					v[col] = x
				} else {
					v[col] = nil
				}
			}
			rows = append(rows, engine.Row{Table: TableScores, Values: v})
		}
		return rows
	}
	return nil
}
