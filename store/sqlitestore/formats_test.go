package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	_ "github.com/duelogic/duelogic/formal"
	_ "github.com/duelogic/duelogic/moderated"
	_ "github.com/duelogic/duelogic/persuasion"
	_ "github.com/duelogic/duelogic/scored"
	"github.com/duelogic/duelogic/store/sqlproj"
)

// tableRows returns every projected row of a debate, table by table, each
// row as its columns' values in the table's column order, in key order.
func tableRows(t *testing.T, db *sql.DB, id string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, tb := range sqlproj.Tables() {
		where := "debate_id"
		if tb.Name == sqlproj.TableDebates {
			where = "id"
		}
		rows, err := db.QueryContext(t.Context(), fmt.Sprintf(`SELECT * FROM %q WHERE %q = ? ORDER BY %s`,
			tb.Name, where, `"`+strings.Join(tb.Key, `", "`)+`"`), id)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				if b, ok := v.([]byte); ok {
					vals[i] = string(b)
				}
			}
			out[tb.Name] = append(out[tb.Name], fmt.Sprint(vals...))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	return out
}

func countRows(t *testing.T, db *sql.DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(t.Context(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// One debate of every registered format played into a SQLite store is in
// its tables as its log says (the acceptance: debates with its
// format and status, as many utterances as its transcript, a moderated
// debate's debate_rounds as many as its rounds), and Rebuild restores
// every table of a debate exactly after damage, without touching another
// debate's rows.
func TestEveryFormatProjected(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	type played struct {
		id     string
		format string
		res    *engine.Result[engine.Outcome]
	}
	var debates []played
	for i, format := range engine.Formats() {
		f, err := engine.Open(format, nil)
		if err != nil {
			t.Fatal(err)
		}
		id := fmt.Sprintf("sq-%d", i)
		res, err := engine.Run(ctx, stubClient(), f, engine.Debate{ID: id, Proposition: "Should cities ban private cars?", Unattended: true},
			engine.WithStore(s), engine.WithClock(pinned))
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		debates = append(debates, played{id, format, res})
	}
	if len(debates) < 5 {
		t.Fatalf("%d formats registered, want the five", len(debates))
	}
	before := map[string]map[string][]string{}
	for _, d := range debates {
		var format, status string
		if err := s.r.QueryRowContext(ctx, `SELECT format, status FROM debates WHERE id = ?`, d.id).Scan(&format, &status); err != nil {
			t.Fatalf("%s: %v", d.format, err)
		}
		if format != d.format || status != "finished" {
			t.Errorf("%s: debates row says %s %s, want %s finished", d.id, format, status, d.format)
		}
		if n := countRows(t, s.r, `SELECT count(*) FROM utterances WHERE debate_id = ?`, d.id); n != len(d.res.Transcript) || n == 0 {
			t.Errorf("%s: %d utterances, the transcript has %d", d.format, n, len(d.res.Transcript))
		}
		if d.format == "moderated" {
			detail, _ := json.Marshal(d.res.Detail)
			var o struct {
				Rounds []json.RawMessage `json:"rounds"`
			}
			if err := json.Unmarshal(detail, &o); err != nil {
				t.Fatal(err)
			}
			if n := countRows(t, s.r, `SELECT count(*) FROM debate_rounds WHERE debate_id = ?`, d.id); n != len(o.Rounds) || n == 0 {
				t.Errorf("moderated: %d debate_rounds, the outcome has %d rounds", n, len(o.Rounds))
			}
		}
		before[d.id] = tableRows(t, s.r, d.id)
	}
	if faults, err := s.ProjectionFaults(ctx); err != nil || len(faults) > 0 {
		t.Fatalf("projection faults: %v %v", faults, err)
	}

	// Damage every table: the rows of every other debate gone, every
	// utterance's content changed; rebuild the debates one by one.
	for _, tb := range sqlproj.Tables() {
		col := "debate_id"
		if tb.Name == sqlproj.TableDebates {
			col = "id"
		}
		for i := 0; i < len(debates); i += 2 {
			if _, err := s.w.ExecContext(ctx, fmt.Sprintf(`DELETE FROM %q WHERE %q = ?`, tb.Name, col), debates[i].id); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := s.w.ExecContext(ctx, `UPDATE utterances SET content = 'tampered'`); err != nil {
		t.Fatal(err)
	}
	for _, d := range debates {
		if err := s.Rebuild(ctx, d.id); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(before[d.id], tableRows(t, s.r, d.id)); diff != "" {
			t.Errorf("%s after Rebuild (-before +after):\n%s", d.format, diff)
		}
	}
}
