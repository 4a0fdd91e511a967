package sqlproj

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/store"
)

// Debate is what the projection of a debate's records needs to know of the
// debate: its ID, its format and when it started, read from its first
// record by [DebateOf]. A store keeps it (or reads the first record again)
// to project the later records.
type Debate struct {
	ID     string
	Format string
	// Started is the first record's Time.
	Started time.Time
}

// DebateOf reads the debate from its first record, and false when rec is
// not the engine's debate record (Seq 1, type "debate", the engine's
// layout): such a debate is kept in the log only, with no projections.
func DebateOf(first store.Record) (Debate, bool) {
	if first.Seq != 1 || first.Type != engine.RecordDebate {
		return Debate{}, false
	}
	st, err := engine.StepOf(first)
	if err != nil {
		return Debate{}, false
	}
	sum, ok := st.Head()
	if !ok {
		return Debate{}, false
	}
	return Debate{ID: first.DebateID, Format: sum.Format, Started: first.Time}, true
}

// Tables returns the definitions of every projected table: the common ones
// (debates, utterances, judgments) and then the tables of each registered
// format that implements [engine.Projector], in the order of
// [engine.Formats]. A format's table whose name is taken (by a common
// table or an earlier format's) is left out: it would be a programming
// error in that format, which sqlproj's TestTables catches for the built-in ones.
func Tables() []engine.Table {
	names := engine.Formats()
	tablesMu.Lock()
	defer tablesMu.Unlock()
	if slices.Equal(names, tablesOf) {
		return tablesCache
	}
	out := slices.Clone(commonTables)
	for _, name := range names {
		p, ok := engine.ProjectorOf(name)
		if !ok {
			continue
		}
		for _, t := range p.Tables() {
			if slices.ContainsFunc(out, func(o engine.Table) bool { return o.Name == t.Name }) {
				continue
			}
			out = append(out, t)
		}
	}
	tablesOf, tablesCache = names, out
	return out
}

var (
	tablesMu    sync.Mutex
	tablesOf    []string       // the formats tablesCache was made for
	tablesCache []engine.Table // what Tables returns; read-only
)

// table finds the definition of a table by name.
func table(tables []engine.Table, name string) *engine.Table {
	for i := range tables {
		if tables[i].Name == name {
			return &tables[i]
		}
	}
	return nil
}

// Schema returns the statements that create every projected table ([Tables])
// that does not exist, with its indexes: run them, in order, when the
// store opens. They do not change a table that exists (see
// [Dialect.AddColumns]).
func (d Dialect) Schema() []string {
	var out []string
	for _, t := range Tables() {
		out = append(out, d.CreateTable(t)...)
	}
	return out
}

// Project returns the statements that project rec, a record of debate deb
// (see [DebateOf]), into the tables: to run in the transaction that
// appends rec, after it, so that the tables never disagree with the log.
// Records are projected in Seq order, each once; projecting one again
// (a rebuild) gives the same rows. A record that is not in the engine's
// layout only advances the debate's row (records, updated_at). The
// format's rows come from its [engine.Projector], found by deb.Format in
// the registry; a format that is not registered in this process projects
// only the common tables (a later [Dialect.Rebuild] in a process that
// links it fills the rest). An error means a row a projector returned does
// not fit its table's definition: a programming error in that format.
func (d Dialect) Project(deb Debate, rec store.Record) ([]Stmt, error) {
	tables := Tables()
	var rows []engine.Row
	if rec.Seq == 1 {
		rows = headRows(rec)
	} else {
		rows = []engine.Row{{Table: TableDebates, Update: true, Values: map[string]any{
			"id": rec.DebateID, "records": rec.Seq, "updated_at": rec.Time,
		}}}
	}
	st, err := engine.StepOf(rec)
	if err == nil {
		st.Started = deb.Started
		if rec.Seq > 1 {
			rows = append(rows, stepRows(st)...)
		}
		if p, ok := engine.ProjectorOf(deb.Format); ok {
			rows = append(rows, p.Project(st)...)
		}
	}
	out := make([]Stmt, 0, len(rows))
	for _, r := range rows {
		s, err := d.rowStmt(tables, r)
		if err != nil {
			return nil, fmt.Errorf("sqlproj: debate %q seq %d (%s): %w", rec.DebateID, rec.Seq, rec.Type, err)
		}
		if s.SQL != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

// Delete returns the statements that delete the projected rows of a
// debate from every table but debates, whose row a rebuild writes again
// (an upsert: it is never deleted, so that an append of the debate waiting
// on its lock in another transaction finds it after the rebuild). Use
// [Dialect.Rebuild] to rebuild.
func (d Dialect) Delete(debateID string) []Stmt {
	tables := Tables()
	p := d.placeholder(1, engine.ColText)
	var out []Stmt
	for i := len(tables) - 1; i >= 0; i-- {
		if tables[i].Name == TableDebates {
			continue
		}
		out = append(out, Stmt{SQL: "DELETE FROM " + quote(tables[i].Name) + " WHERE " + quote("debate_id") + " = " + p, Args: []any{debateID}})
	}
	return out
}

// Rebuild returns the statements that derive a debate's projections again
// from its whole log, recs (store.Store.Records, in Seq order): the rows
// of every table but debates deleted ([Dialect.Delete]), then every record
// projected ([Dialect.Project]), the first rewriting the debates row
// whole. Run in one transaction, they restore damaged tables exactly. A
// debate whose first record is not the engine's has its debates row
// deleted too (and none written).
func (d Dialect) Rebuild(recs []store.Record) ([]Stmt, error) {
	if len(recs) == 0 {
		return nil, nil
	}
	id := recs[0].DebateID
	out := d.Delete(id)
	deb, ok := DebateOf(recs[0])
	if !ok {
		return append(out, Stmt{SQL: "DELETE FROM " + quote(TableDebates) + " WHERE " + quote("id") + " = " +
			d.placeholder(1, engine.ColText), Args: []any{id}}), nil
	}
	for _, r := range recs {
		s, err := d.Project(deb, r)
		if err != nil {
			return nil, err
		}
		out = append(out, s...)
	}
	return out, nil
}

// rowStmt is the statement that writes r.
func (d Dialect) rowStmt(tables []engine.Table, r engine.Row) (Stmt, error) {
	t := table(tables, r.Table)
	if t == nil {
		return Stmt{}, fmt.Errorf("no table %q", r.Table)
	}
	var cols []*engine.Column
	for i := range t.Columns {
		if _, ok := r.Values[t.Columns[i].Name]; ok {
			cols = append(cols, &t.Columns[i])
		}
	}
	if len(cols) != len(r.Values) {
		for name := range r.Values {
			if !slices.ContainsFunc(t.Columns, func(c engine.Column) bool { return c.Name == name }) {
				return Stmt{}, fmt.Errorf("table %s has no column %q", t.Name, name)
			}
		}
	}
	for _, k := range t.Key {
		if _, ok := r.Values[k]; !ok {
			return Stmt{}, fmt.Errorf("a row of %s without its key column %q", t.Name, k)
		}
	}
	args := make([]any, len(cols))
	for i, c := range cols {
		v, err := d.value(r.Values[c.Name], c.Type)
		if err != nil {
			return Stmt{}, fmt.Errorf("%s.%s: %w", t.Name, c.Name, err)
		}
		args[i] = v
	}
	return Stmt{SQL: d.rowSQL(t, cols, r.Update), Args: args}, nil
}

// headRows are the rows of a debate's first record: its debates row.
func headRows(rec store.Record) []engine.Row {
	st, err := engine.StepOf(rec)
	if err != nil {
		return nil
	}
	sum, ok := st.Head()
	if !ok {
		return nil
	}
	spec := sum.Spec
	if len(spec) == 0 {
		spec = json.RawMessage(`{}`)
	}
	var forkOf any
	if sum.Debate.ForkOf != "" {
		forkOf = sum.Debate.ForkOf
	}
	var forkAt any
	if sum.Debate.ForkAt > 0 {
		forkAt = sum.Debate.ForkAt
	}
	return []engine.Row{{Table: TableDebates, Values: map[string]any{
		"id": rec.DebateID, "format": sum.Format, "debate_mode": sum.Format, "status": "running",
		"proposition": sum.Debate.Proposition, "context": sum.Debate.Context, "config": spec,
		"duelogic_config": nil, "fork_of": forkOf, "fork_at": forkAt, "unattended": sum.Debate.Unattended,
		"records": rec.Seq, "verdict_winner": nil, "verdict_draw": nil, "verdict_void": nil, "verdict_summary": nil,
		"prompt_tokens": nil, "completion_tokens": nil, "cost": nil,
		"created_at": rec.Time, "started_at": rec.Time, "updated_at": rec.Time, "ended_at": nil,
	}}}
}

// stepRows are the common rows of a later record: its utterance, its
// judgments, and the end of the debate.
func stepRows(st engine.StoredStep) []engine.Row {
	var rows []engine.Row
	e := st.Event
	if e != nil && e.Type == engine.EventUtterance && e.Utterance != nil {
		u := e.Utterance
		rows = append(rows, engine.Row{Table: TableUtterances, Values: map[string]any{
			"debate_id": st.DebateID, "seq": st.Seq, "speaker": u.Speaker, "kind": string(u.Kind),
			"segment": string(u.Segment), "exchange": u.Exchange, "round": u.Exchange, "content": u.Content,
			"model": optional(u.Model), "interrupted": u.Interrupted, "interrupted_by": optional(u.InterruptedBy),
			"cut": u.Cut, "truncated": u.Truncated, "defaulted": u.Defaulted, "reply_to": optionalInt(u.ReplyTo),
			"reason": optional(u.Reason), "violation": optional(string(u.Violation)), "target": optional(u.Target),
			"created_at": st.Time,
		}})
	}
	purposes := make([]string, 0, len(st.Judgments))
	for p := range st.Judgments {
		purposes = append(purposes, p)
	}
	sort.Strings(purposes)
	for _, p := range purposes {
		c := st.Judgments[p]
		rows = append(rows, engine.Row{Table: TableJudgments, Values: map[string]any{
			"debate_id": st.DebateID, "seq": st.Seq, "purpose": p, "step": st.Key, "speaker": optional(st.Speaker),
			"first": c.First, "reasked": c.Reasked, "defaulted": c.Defaulted, "truncated": c.Truncated,
			"created_at": st.Time,
		}})
	}
	if st.Type == engine.RecordDebateEnded || e != nil && e.Type == engine.EventDebateEnded {
		v := map[string]any{"id": st.DebateID, "status": "finished", "ended_at": st.Time}
		if e != nil {
			if end, err := engine.DataAs[engine.Ended](*e); err == nil {
				v["prompt_tokens"] = end.Usage.PromptTokens
				v["completion_tokens"] = end.Usage.CompletionTokens
				v["cost"] = end.Cost
				if vd := end.Verdict; vd != nil {
					v["verdict_winner"] = optional(vd.Winner)
					v["verdict_draw"] = vd.Draw
					v["verdict_void"] = vd.Void
					v["verdict_summary"] = vd.Summary
				}
			}
		}
		rows = append(rows, engine.Row{Table: TableDebates, Update: true, Values: v})
	}
	return rows
}

// optional is s, or nil (NULL) for "".
func optional(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// optionalInt is n, or nil (NULL) for 0.
func optionalInt(n int64) any {
	if n == 0 {
		return nil
	}
	return n
}

// Execer is what runs a statement in database/sql: a *sql.DB, *sql.Conn or
// *sql.Tx.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Exec runs stmts on ex in order (in the caller's transaction) and returns
// the first error, naming the statement.
func Exec(ctx context.Context, ex Execer, stmts []Stmt) error {
	for _, s := range stmts {
		if _, err := ex.ExecContext(ctx, s.SQL, s.Args...); err != nil {
			return fmt.Errorf("sqlproj: %.60s: %w", s.SQL, err)
		}
	}
	return nil
}
