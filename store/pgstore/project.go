package pgstore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/store"
	"github.com/jackc/pgx/v5"
)

// stmt is one SQL statement with its parameters.
type stmt struct {
	sql  string
	args []any
}

// EventEvaluation is the event type whose records go to
// response_evaluations: the Duelogic podcast's evaluations of chair
// responses, whose Data is the evaluation (none when it went unscored).
const EventEvaluation engine.EventType = "evaluation"

// EventInterruption is the event type whose records go to
// chair_interruptions: the Duelogic podcast's interruptions, whose Data names
// the interrupting and interrupted chairs, the trigger and the urgency.
const EventInterruption engine.EventType = "interruption"

// projection returns the statements that project rec into the seed's
// tables, to run after rec is inserted, in its transaction. A debate is
// projected when its first record is the engine's debate record; the later
// records of a debate that is not are left out, and so is a record that is
// not in the engine's layout: the log keeps them, the tables do not need
// them.
func projection(rec store.Record) []stmt {
	if rec.Seq == 1 {
		return projectHead(rec)
	}
	e, ok, err := engine.EventOf(rec)
	if err != nil {
		return nil
	}
	at := dbTime(rec.Time)
	ended := rec.Type == engine.RecordDebateEnded || ok && e.Type == engine.EventDebateEnded
	// The debate's row first: it is what Rebuild locks.
	out := []stmt{{`UPDATE debates SET records = $2, updated_at = $3,
		status = CASE WHEN $4 THEN 'finished' ELSE status END WHERE id = $1`,
		[]any{rec.DebateID, rec.Seq, at, ended}}}
	if !ok {
		return out
	}
	switch {
	case e.Type == engine.EventUtterance && e.Utterance != nil:
		u := e.Utterance
		var replyTo *int64
		if u.ReplyTo > 0 {
			replyTo = &u.ReplyTo
		}
		out = append(out, stmt{`INSERT INTO utterances (debate_id, seq, speaker, kind, segment, exchange, content, model,
			interrupted, interrupted_by, reply_to, reason, created_at)
			SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13 WHERE EXISTS (SELECT FROM debates WHERE id = $1)`,
			[]any{rec.DebateID, rec.Seq, text(u.Speaker), text(string(u.Kind)), text(string(u.Segment)), u.Exchange,
				text(u.Content), optText(u.Model), u.Interrupted, optText(u.InterruptedBy), replyTo, optText(u.Reason), at}})
	case e.Type == EventEvaluation && len(e.Data) > 0:
		ev, err := engine.DataAs[engine.ResponseEvaluation](e)
		if err != nil {
			return out
		}
		data := e.Data
		out = append(out, stmt{`INSERT INTO response_evaluations (debate_id, seq, utterance_seq, speaker,
			adherence_score, steel_manning_attempted, steel_manning_quality, self_critique_attempted,
			self_critique_quality, framework_consistent, evaluation_data, created_at)
			SELECT $1, $2, (SELECT max(seq) FROM utterances WHERE debate_id = $1 AND speaker = $3 AND seq < $2), $3,
				$4, $5, $6, $7, $8, $9, $10::text::jsonb, $11
			WHERE EXISTS (SELECT FROM debates WHERE id = $1)`,
			[]any{rec.DebateID, rec.Seq, text(e.Speaker), min(max(ev.AdherenceScore, 0), 100),
				ev.SteelManning.Attempted, optText(string(ev.SteelManning.Quality)),
				ev.SelfCritique.Attempted, optText(string(ev.SelfCritique.Quality)),
				ev.FrameworkConsistency.Consistent, jsonbText(data), at}})
	case e.Type == EventInterruption:
		out = append(out, projectInterruption(rec, e, at)...)
	}
	return out
}

// projectHead projects a debate's first record: the debate and its chairs.
func projectHead(rec store.Record) []stmt {
	sum, err := engine.Summarize([]store.Record{rec})
	if err != nil {
		return nil
	}
	at := dbTime(rec.Time)
	config := sum.Spec
	if len(config) == 0 {
		config = json.RawMessage(`{}`)
	}
	status := "running"
	if sum.Finished {
		status = "finished"
	}
	out := []stmt{{`INSERT INTO debates (id, debate_mode, config, proposition, context, status, records, created_at, updated_at)
		VALUES ($1, $2, $3::text::jsonb, $4, $5, $6, $7, $8, $8)
		ON CONFLICT (id) DO UPDATE SET debate_mode = $2, config = $3::text::jsonb, proposition = $4, context = $5,
			status = $6, records = $7, created_at = $8, updated_at = $8`,
		[]any{rec.DebateID, text(sum.Format), jsonbText(config), text(sum.Debate.Proposition), text(sum.Debate.Context),
			status, rec.Seq, at}}}
	for _, c := range chairsOf(sum.Spec) {
		out = append(out, stmt{`INSERT INTO debate_chairs (debate_id, chair_position, framework, model_id,
			model_display_name, provider_name, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (debate_id, chair_position) DO NOTHING`,
			[]any{rec.DebateID, text(c.Position), text(c.Framework), text(c.ModelID),
				optText(c.ModelDisplayName), optText(c.ProviderName), at}})
	}
	return out
}

// chair is a chair of a format's configuration, by the field names of the
// Duelogic podcast's.
type chair struct {
	Position         string `json:"position"`
	Framework        string `json:"framework"`
	ModelID          string `json:"modelId"`
	ModelDisplayName string `json:"modelDisplayName"`
	ProviderName     string `json:"providerName"`
}

// chairsOf finds the chairs of a configuration: an array "chairs" at its
// top (the podcast's configuration), or in one of its top-level objects (a
// log of an earlier version kept them in "config"), whose elements have a
// position.
func chairsOf(spec json.RawMessage) []chair {
	var top map[string]json.RawMessage
	if json.Unmarshal(spec, &top) != nil {
		return nil
	}
	try := func(m map[string]json.RawMessage) []chair {
		var cs []chair
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

// interruption is an interruption event's Data, by the field names of the
// Duelogic podcast's InterruptCandidate.
type interruption struct {
	InterruptingChair struct {
		Position string `json:"position"`
	} `json:"interruptingChair"`
	InterruptedChair struct {
		Position string `json:"position"`
	} `json:"interruptedChair"`
	TriggerReason  string  `json:"triggerReason"`
	TriggerContent string  `json:"triggerContent"`
	Urgency        float64 `json:"urgency"`
}

// projectInterruption projects an interruption event: its row, and the mark
// on the utterance cut into.
func projectInterruption(rec store.Record, e engine.Event, at time.Time) []stmt {
	var d interruption
	_ = json.Unmarshal(e.Data, &d) // what is missing stays empty
	by, of := d.InterruptingChair.Position, d.InterruptedChair.Position
	if by == "" {
		by = e.Speaker
	}
	var cut *int64
	if u := e.Utterance; u != nil {
		cut = &u.Seq
		if of == "" {
			of = u.Speaker
		}
	}
	urgency := d.Urgency
	if math.IsNaN(urgency) {
		urgency = 0
	}
	urgency = min(max(urgency, 0), 1)
	out := []stmt{{`INSERT INTO chair_interruptions (debate_id, seq, utterance_seq, interrupting_chair, interrupted_chair,
		trigger_reason, trigger_content, urgency, timestamp_ms, created_at)
		SELECT $1, $2, $3, $4, $5, $6, $7, $8, (extract(epoch FROM $9::timestamptz - d.created_at) * 1000)::bigint, $9
		FROM debates d WHERE d.id = $1`,
		[]any{rec.DebateID, rec.Seq, cut, text(by), text(of), text(d.TriggerReason), optText(d.TriggerContent), urgency, at}}}
	if cut != nil {
		out = append(out, stmt{`UPDATE utterances SET interrupted = true, interrupted_by = $3 WHERE debate_id = $1 AND seq = $2`,
			[]any{rec.DebateID, *cut, text(by)}})
	}
	return out
}

// Rebuild derives the projections of a debate again from its log: it
// deletes the debate's rows of debate_chairs, utterances,
// response_evaluations and chair_interruptions and projects every record
// again, in one transaction. It waits for Appends in flight and holds later
// ones of the debate until it commits. A debate whose first record is not
// the engine's has no projections; Rebuild then only deletes. It returns an
// error wrapping store.ErrNotFound for a debate without records.
func (s *Store) Rebuild(ctx context.Context, debateID string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// Appends of the debate update its row first: this waits for them.
		if _, err := tx.Exec(ctx, `SELECT FROM debates WHERE id = $1 FOR UPDATE`, debateID); err != nil {
			return err
		}
		recs, err := readRecords(ctx, tx, debateID)
		if err != nil {
			return err
		}
		if len(recs) == 0 {
			return fmt.Errorf("%w: debate %q", store.ErrNotFound, debateID)
		}
		b := &pgx.Batch{}
		for _, table := range []string{"chair_interruptions", "response_evaluations", "utterances", "debate_chairs"} {
			b.Queue(`DELETE FROM `+table+` WHERE debate_id = $1`, debateID)
		}
		head := projectHead(recs[0])
		if len(head) == 0 {
			b.Queue(`DELETE FROM debates WHERE id = $1`, debateID)
		}
		for _, st := range head {
			b.Queue(st.sql, st.args...)
		}
		if len(head) > 0 {
			for _, r := range recs[1:] {
				for _, st := range projection(r) {
					b.Queue(st.sql, st.args...)
				}
			}
		}
		return runBatch(ctx, tx, b)
	})
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		return fmt.Errorf("pgstore: rebuild debate %q: %w", debateID, err)
	}
	return nil
}

// text makes s storable as PostgreSQL text, which cannot hold NUL: each NUL
// becomes U+FFFD. (The record log keeps the original.)
func text(s string) string {
	if strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\x00", "\uFFFD")
}

// optText is text(s), or NULL for "".
func optText(s string) *string {
	if s == "" {
		return nil
	}
	t := text(s)
	return &t
}

// jsonbText returns JSON text jsonb accepts: jsonb cannot hold the escape
// \u0000, which becomes \ufffd. (The record log keeps the original.)
func jsonbText(raw []byte) string {
	const nul = `\u0000`
	if !bytes.Contains(raw, []byte(nul)) {
		return string(raw)
	}
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' || i+1 >= len(raw) {
			b.WriteByte(c)
			continue
		}
		// An escape: two bytes, or six for \uXXXX.
		if bytes.HasPrefix(raw[i:], []byte(nul)) {
			b.WriteString(`\ufffd`)
			i += len(nul) - 1
			continue
		}
		b.WriteByte(c)
		b.WriteByte(raw[i+1])
		i++
	}
	return b.String()
}

// dbTime is t as a timestamptz can hold it: from the year 1 on (the
// projections' times; the log keeps the record's).
func dbTime(t time.Time) time.Time {
	if lo := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC); t.Before(lo) {
		return lo
	}
	return t
}
