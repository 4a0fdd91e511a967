package engine

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// A SQL store (pgstore, sqlitestore) keeps, beside a debate's record log,
// tables that people query: projections of the log, derived from it record
// by record and rebuilt from it. The tables every debate has (debates,
// utterances, judgments) come from the engine's own records; a format that
// wants tables of its own implements [Projector]. The definitions here are
// dialect-neutral: package store/sqlproj renders them for PostgreSQL and
// SQLite.

// ColumnType is the type of a projected column, in terms both SQL dialects
// have.
type ColumnType string

// The column types. JSON is jsonb in PostgreSQL, text in SQLite; Time is
// timestamptz in PostgreSQL, RFC 3339 text in UTC with nanoseconds (sortable
// as text) in SQLite; Bool is an integer 0/1 in SQLite.
const (
	ColText ColumnType = "text"
	ColInt  ColumnType = "int"
	ColReal ColumnType = "real"
	ColBool ColumnType = "bool"
	ColJSON ColumnType = "json"
	ColTime ColumnType = "time"
)

// Merge says what a row given for a key that already has one does to a
// column: a format projects a row from several records by giving its key
// again with the columns each record knows.
type Merge int

// The merges.
const (
	// MergeSet replaces the column's value (the default).
	MergeSet Merge = iota
	// MergeAppend appends the given value, a JSON array, to the column's
	// array (a JSON column): a round's arguments, one record at a time.
	MergeAppend
	// MergeAdd adds the given number to the column's.
	MergeAdd
)

// Column is a column of a projected table.
type Column struct {
	Name string
	Type ColumnType
	// NotNull: the column never holds NULL; a row inserted without it
	// takes the type's zero value (0, '', false, '[]' for JSON).
	NotNull bool
	Merge   Merge
	// Doc says what the column holds, for the schema's comments.
	Doc string
}

// Table is a projected table. Its first column is debate_id (text, the
// debate's ID), which refers to debates(id) and is where a rebuild deletes
// from; Key is its primary key, debate_id first.
type Table struct {
	Name    string
	Doc     string
	Columns []Column
	Key     []string
	// Indexes are more indexes, each a list of columns.
	Indexes [][]string
}

// Row is a row a record projects into a table: the values of some of its
// columns, the key's always. A row whose key is new is inserted (columns
// left out are NULL, or their zero value when NotNull); one whose key
// exists has the columns given merged into it (see [Merge]). Values are
// string, int, int64, float64, bool, time.Time, json.RawMessage (JSON
// columns; any other value is encoded with encoding/json) or nil.
type Row struct {
	Table  string
	Values map[string]any
	// Update: the row only changes one that exists; none is inserted.
	Update bool
}

// Projector is implemented by a [Format] whose debates have tables of their
// own in SQL stores (the Duelogic podcast's debate_chairs, moderated's
// debate_rounds, ...). A SQL store finds it through the registry
// ([ProjectorOf]) by the format's name in the debate's first record, never
// by importing the format. Both methods must be pure: the same record
// gives the same rows, whatever came before, so that a rebuild from the
// log gives the tables the appends gave.
type Projector interface {
	// Tables returns the definitions of the format's tables. Their names
	// must not be those of the common tables (debates, utterances,
	// judgments) nor of another format's; prefixing them with the format's
	// name is wise, the seeds' own names (debate_rounds) excepted.
	Tables() []Table
	// Project returns the rows step adds to the format's tables, in the
	// order they are to be written; none for a step they do not show.
	Project(step StoredStep) []Row
}

// StoredStep is one record of a debate as the engine wrote it: a step, its
// value and the event that announced it (see [Session.Step]). A
// [Projector] reads it.
type StoredStep struct {
	DebateID string
	Seq      int64
	Time     time.Time
	// Type is the record's type, Key the step's key.
	Type string
	Key  string
	// Side reports a side step ([Session.SideStep]).
	Side    bool
	Speaker string
	Usage   llm.Usage
	Cost    float64
	// Value is the step's value as stored (JSON); for the debate's first
	// record (Seq 1, Type RecordDebate) see [StoredStep.Head].
	Value json.RawMessage
	// Event is the event the record announced, as [Replay] gives it; nil
	// when none.
	Event *Event
	// Judgments counts the judgments the step made, by purpose (with
	// those of the checks beside a watched utterance).
	Judgments map[string]JudgmentCounts
	// Started is the time of the debate's first record: a SQL store sets
	// it (StepOf cannot know it), for columns that count from the start.
	Started time.Time
}

// StepOf reads rec as the engine wrote it. A record that is not in the
// engine's layout fails with an error wrapping [ErrCorruptLog].
func StepOf(rec store.Record) (StoredStep, error) {
	var en entry
	if err := json.Unmarshal(rec.Data, &en); err != nil {
		return StoredStep{}, fmt.Errorf("%w: record %d (%s): %v", ErrCorruptLog, rec.Seq, rec.Type, err)
	}
	st := StoredStep{
		DebateID: rec.DebateID, Seq: rec.Seq, Time: rec.Time, Type: rec.Type,
		Key: en.Key, Side: en.Side, Speaker: en.Speaker, Usage: en.Usage, Cost: en.Cost,
		Value: en.Value, Judgments: en.Judgments,
	}
	if en.Watch != nil && len(en.Watch.Judgments) > 0 {
		// The checks beside a watched utterance are the step's judgments too.
		js := make(map[string]JudgmentCounts, len(en.Judgments)+len(en.Watch.Judgments))
		for p, c := range en.Judgments {
			js[p] = c
		}
		for p, c := range en.Watch.Judgments {
			js[p] = js[p].add(c)
		}
		st.Judgments = js
	}
	if en.Event != nil {
		st.Event = en.Event.event(&rec, en.Value)
	}
	return st, nil
}

// Head returns the summary the debate's first record holds (format,
// debate, stored configuration), and false for any other record.
func (st StoredStep) Head() (Summary, bool) {
	if st.Seq != 1 || st.Type != RecordDebate {
		return Summary{}, false
	}
	var h head
	if err := json.Unmarshal(st.Value, &h); err != nil || h.Version != recordVersion {
		return Summary{}, false
	}
	h.Debate.ID = st.DebateID
	return Summary{
		ID: st.DebateID, Format: h.Format, Debate: h.Debate, Spec: h.Spec, Mapped: h.Mapping != "",
		Records: 1, Started: st.Time, Updated: st.Time,
	}, true
}

var (
	projectorsMu sync.Mutex
	projectors   = map[string]Projector{}
)

// ProjectorOf returns the [Projector] of the format registered as name
// (made once, with the format's defaults, and kept), and false when the
// format is not registered or has no tables of its own.
func ProjectorOf(name string) (Projector, bool) {
	projectorsMu.Lock()
	defer projectorsMu.Unlock()
	if p, ok := projectors[name]; ok {
		return p, p != nil
	}
	open, ok := opener(name)
	if !ok {
		return nil, false // not cached: it may be registered later
	}
	var p Projector
	if f, err := open(json.RawMessage("{}")); err == nil {
		p, _ = underlying(f).(Projector)
	}
	projectors[name] = p
	return p, p != nil
}
