package formal

import (
	"github.com/duelogic/duelogic/engine"
)

// The formal debate's own tables in SQL stores: see [Format.Tables].
const (
	TableEntries       = "formal_entries"
	TableSources       = "formal_sources"
	TableVerifications = "formal_verifications"
)

var _ engine.Projector = (*Format)(nil)

func column(name string, t engine.ColumnType, notNull bool, doc string) engine.Column {
	return engine.Column{Name: name, Type: t, NotNull: notNull, Doc: doc}
}

// Tables returns the formal debate's tables (see [engine.Projector]):
// formal_entries, the seed's debate log (one row per entry, by its entry
// seq; redacted when the chair struck it), formal_sources (the sources each
// entry cites) and formal_verifications (the verifier's finding on each
// source checked).
func (f *Format) Tables() []engine.Table {
	return []engine.Table{
		{
			Name: TableEntries, Doc: "seed 001's debate log: one row per entry",
			Columns: []engine.Column{
				column("debate_id", engine.ColText, true, ""),
				column("entry_seq", engine.ColInt, true, "the entry's seq in the seed's log (from 0)"),
				column("record_seq", engine.ColInt, true, "the record that holds it"),
				column("timestamp", engine.ColTime, true, ""),
				column("phase", engine.ColText, true, ""),
				column("speaker", engine.ColText, true, "chair, promoter, detractor, verifier, audience, ..."),
				column("type", engine.ColText, true, "the entry's type: opening_statement, rebuttal, ruling, ..."),
				column("content", engine.ColText, true, ""),
				column("sources", engine.ColInt, true, "how many sources it cites"),
				column("rebuttal_to_seq", engine.ColInt, false, ""),
				column("target_seq", engine.ColInt, false, "the entry a challenge, ruling or redaction is about"),
				column("redacted", engine.ColBool, true, "the chair struck it from the record"),
			},
			Key:     []string{"debate_id", "entry_seq"},
			Indexes: [][]string{{"debate_id", "speaker", "entry_seq"}},
		},
		{
			Name: TableSources, Doc: "the sources formal entries cite",
			Columns: []engine.Column{
				column("debate_id", engine.ColText, true, ""),
				column("entry_seq", engine.ColInt, true, ""),
				column("source_index", engine.ColInt, true, "its place in the entry's sources, from 0"),
				column("url", engine.ColText, true, ""),
				column("title", engine.ColText, true, ""),
				column("accessed", engine.ColText, true, ""),
			},
			Key: []string{"debate_id", "entry_seq", "source_index"},
		},
		{
			Name: TableVerifications, Doc: "the verifier's findings on cited sources",
			Columns: []engine.Column{
				column("debate_id", engine.ColText, true, ""),
				column("entry_seq", engine.ColInt, true, "the entry citing the source"),
				column("source_index", engine.ColInt, true, ""),
				column("record_seq", engine.ColInt, true, ""),
				column("url", engine.ColText, true, ""),
				column("status", engine.ColText, true, "verified, unverifiable, fabricated, ..."),
				column("reason", engine.ColText, true, ""),
				column("verified_at", engine.ColTime, true, ""),
			},
			Key:     []string{"debate_id", "entry_seq", "source_index"},
			Indexes: [][]string{{"status", "debate_id"}},
		},
	}
}

// Project returns the rows a formal debate's record adds to its tables (see
// [Format.Tables]).
func (f *Format) Project(st engine.StoredStep) []engine.Row {
	e := st.Event
	if e == nil {
		return nil
	}
	switch e.Type {
	case EventEntry:
		en, err := engine.DataAs[Entry](*e)
		if err != nil {
			return nil
		}
		rows := []engine.Row{{Table: TableEntries, Values: map[string]any{
			"debate_id": st.DebateID, "entry_seq": en.Seq, "record_seq": st.Seq, "timestamp": en.Timestamp,
			"phase": string(en.Phase), "speaker": string(en.Speaker), "type": string(en.Type), "content": en.Content,
			"sources": len(en.Sources), "rebuttal_to_seq": intOrNull(en.RebuttalToSeq), "target_seq": intOrNull(en.TargetSeq),
			"redacted": false,
		}}}
		for i, s := range en.Sources {
			rows = append(rows, engine.Row{Table: TableSources, Values: map[string]any{
				"debate_id": st.DebateID, "entry_seq": en.Seq, "source_index": i, "url": s.URL, "title": s.Title, "accessed": s.Accessed,
			}})
		}
		if en.Type == TypeRedaction && en.TargetSeq != nil {
			rows = append(rows, engine.Row{Table: TableEntries, Update: true, Values: map[string]any{
				"debate_id": st.DebateID, "entry_seq": *en.TargetSeq, "redacted": true,
			}})
		}
		return rows
	case EventVerification:
		fd, err := engine.DataAs[Finding](*e)
		if err != nil {
			return nil
		}
		return []engine.Row{{Table: TableVerifications, Values: map[string]any{
			"debate_id": st.DebateID, "entry_seq": fd.Seq, "source_index": fd.Index, "record_seq": st.Seq,
			"url": fd.Source.URL, "status": string(fd.Verification.Status), "reason": fd.Verification.Reason, "verified_at": st.Time,
		}}}
	}
	return nil
}

func intOrNull(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}
