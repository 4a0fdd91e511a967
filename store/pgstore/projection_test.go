package pgstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/pgstore"
	"github.com/duelogic/duelogic/store/sqlproj"
	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
)

// truncating is the stub model, except that the replies of one purpose
// stop at their token cap (finish reason "length"): utterances kept
// truncated.
type truncating struct {
	*llm.Stub
	purpose string
}

func (c truncating) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	r, err := c.Stub.Complete(ctx, req)
	if err == nil && req.Purpose == c.purpose {
		r.FinishReason = "length"
	}
	return r, err
}

func (c truncating) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	r, err := c.Stub.Stream(ctx, req, onDelta)
	if err == nil && req.Purpose == c.purpose {
		r.FinishReason = "length"
	}
	return r, err
}

// failAfter is a store whose appends fail after n records.
type failAfter struct {
	store.Store
	mu sync.Mutex
	n  int
}

var errInjected = errors.New("injected store failure")

func (f *failAfter) Append(ctx context.Context, rec store.Record) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n <= 0 {
		return errInjected
	}
	f.n--
	return f.Store.Append(ctx, rec)
}

// snapshot returns every projected row of a debate, table by table, as
// JSON, in key order.
func snapshot(t *testing.T, c *pgx.Conn, id string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, tb := range sqlproj.Tables() {
		where, order := "debate_id", ""
		if tb.Name == sqlproj.TableDebates {
			where = "id"
		}
		for i, k := range tb.Key {
			if i > 0 {
				order += ", "
			}
			order += `"` + k + `"`
		}
		rows, err := c.Query(t.Context(), fmt.Sprintf(`SELECT to_jsonb(x)::text FROM %q x WHERE %q = $1 ORDER BY %s`, tb.Name, where, order), id)
		if err != nil {
			t.Fatal(err)
		}
		out[tb.Name] = collect(t, rows, func(r pgx.Rows, s *string) error { return r.Scan(s) })
	}
	return out
}

func count(t *testing.T, c *pgx.Conn, q string, args ...any) int {
	t.Helper()
	var n int
	if err := c.QueryRow(t.Context(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// Every format's debate is in the projected tables as its log says, and
// Rebuild restores them exactly after damage: the acceptance
// (debates with format and status, utterances as many as the transcript,
// debate_rounds as many as the moderated debate's rounds) and a
// comparison of every table with the log, for plain debates of the five
// formats and for cut (podcast interruptions), truncated, forked and
// resumed ones.
func TestProjectionsEqualTheLog(t *testing.T) {
	ctx := context.Background()
	dsn := schemaDSN(t)
	pg := open(t, dsn)
	c := connect(t, dsn)

	type played struct {
		name   string
		id     string
		format string
		res    *engine.Result[engine.Outcome]
	}
	n := 0
	run := func(t *testing.T, format string, config string, client llm.Client, st store.Store) (*engine.Result[engine.Outcome], error) {
		t.Helper()
		n++
		f, err := engine.Open(format, json.RawMessage(config))
		if err != nil {
			t.Fatal(err)
		}
		return engine.Run(ctx, client, f, engine.Debate{ID: map[bool]string{true: "podcast-1", false: fmt.Sprintf("debate-%d", n)}[n == 1 && format == "duelogic"], Proposition: "Should cities ban private cars?", Context: "Air quality is poor.", Unattended: true},
			engine.WithStore(st), engine.WithClock(clock()))
	}
	var debates []played
	for _, format := range engine.Formats() {
		cfg := "{}"
		if format == "duelogic" {
			cfg = `{"flow": {"maxExchanges": 3}, "interruptions": {"enabled": true, "cooldownSeconds": 0, "aggressiveness": 5}, "arbiter": {"accountabilityLevel": "strict"}}`
		}
		res, err := run(t, format, cfg, stubClient(), pg)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		debates = append(debates, played{format, res.DebateID, format, res})
	}
	// Truncated: every argument of a scored debate (3 categories, 2 sides) stopped at its cap.
	res, err := run(t, "scored", "{}", truncating{llm.NewStub(3), "scored_argument"}, pg)
	if err != nil {
		t.Fatal(err)
	}
	debates = append(debates, played{"truncated", res.DebateID, "scored", res})
	// Resumed: a moderated debate whose store failed after 20 records.
	res, err = run(t, "moderated", "{}", stubClient(), &failAfter{Store: pg, n: 20})
	if !errors.Is(err, errInjected) || res == nil {
		t.Fatalf("failing store: got %v", err)
	}
	res, err = engine.ResumeStored(ctx, stubClient(), res.DebateID, engine.WithStore(pg), engine.WithClock(clock()))
	if err != nil {
		t.Fatal(err)
	}
	debates = append(debates, played{"resumed", res.DebateID, "moderated", res})
	// Forked: the podcast debate copied up to its 12th record, played on.
	fork, err := engine.Fork(ctx, pg, debates[0].id, 12, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err = engine.ResumeStored(ctx, stubClient(), fork, engine.WithStore(pg), engine.WithClock(clock()))
	if err != nil {
		t.Fatal(err)
	}
	debates = append(debates, played{"forked", fork, "duelogic", res})

	for _, d := range debates {
		t.Run(d.name, func(t *testing.T) {
			// debates: the format, the status, the verdict.
			var format, status, summary string
			var winner *string
			if err := c.QueryRow(ctx, `SELECT format, status, verdict_winner, verdict_summary FROM debates WHERE id = $1`, d.id).
				Scan(&format, &status, &winner, &summary); err != nil {
				t.Fatal(err)
			}
			v := d.res.Detail.Verdict()
			var w string
			if winner != nil {
				w = *winner
			}
			if format != d.format || status != "finished" || w != v.Winner || summary != v.Summary {
				t.Errorf("debates row: %s %s %q %q; want %s finished %q %q", format, status, w, summary, d.format, v.Winner, v.Summary)
			}
			// utterances: the transcript, with its cuts and truncations.
			type utt struct {
				Seq                       int64
				Speaker, Content          string
				Round                     int
				Cut, Truncated, Interrupt bool
			}
			rows, _ := c.Query(ctx, `SELECT seq, speaker, content, round, cut, truncated, interrupted FROM utterances WHERE debate_id = $1 ORDER BY seq`, d.id)
			got := collect(t, rows, func(r pgx.Rows, u *utt) error {
				return r.Scan(&u.Seq, &u.Speaker, &u.Content, &u.Round, &u.Cut, &u.Truncated, &u.Interrupt)
			})
			var want []utt
			for _, u := range d.res.Transcript {
				want = append(want, utt{u.Seq, u.Speaker, u.Content, u.Exchange, u.Cut, u.Truncated, u.Interrupted})
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("utterances mismatch (-transcript +table):\n%s", diff)
			}
			switch d.name {
			case "duelogic", "forked":
				if n := count(t, c, `SELECT count(*) FROM utterances WHERE debate_id = $1 AND interrupted`, d.id); n == 0 {
					t.Error("no interrupted utterance in the podcast debate")
				}
			case "truncated":
				if n := count(t, c, `SELECT count(*) FROM utterances WHERE debate_id = $1 AND truncated AND kind = 'argument'`, d.id); n != 6 {
					t.Errorf("%d truncated arguments, want 6", n)
				}
			}
			// judgments: the result's counts.
			jrows, _ := c.Query(ctx, `SELECT purpose, sum(first)::int, sum(reasked)::int, sum(defaulted)::int, sum(truncated)::int
				FROM judgments WHERE debate_id = $1 GROUP BY purpose`, d.id)
			type jc struct {
				p string
				c engine.JudgmentCounts
			}
			gotJ := map[string]engine.JudgmentCounts{}
			for _, j := range collect(t, jrows, func(r pgx.Rows, j *jc) error {
				return r.Scan(&j.p, &j.c.First, &j.c.Reasked, &j.c.Defaulted, &j.c.Truncated)
			}) {
				gotJ[j.p] = j.c
			}
			wantJ := map[string]engine.JudgmentCounts{}
			for p, jc := range d.res.Judgments {
				if jc != (engine.JudgmentCounts{}) {
					wantJ[p] = jc
				}
			}
			if diff := cmp.Diff(wantJ, gotJ); diff != "" {
				t.Errorf("judgments mismatch (-result +table):\n%s", diff)
			}
			// The format's own tables.
			detail, _ := json.Marshal(d.res.Detail)
			var o struct {
				Rounds    []json.RawMessage `json:"rounds"`
				Arguments []json.RawMessage `json:"arguments"`
			}
			_ = json.Unmarshal(detail, &o)
			switch d.format {
			case "moderated":
				if n := count(t, c, `SELECT count(*) FROM debate_rounds WHERE debate_id = $1`, d.id); n != len(o.Rounds) || n == 0 {
					t.Errorf("%d debate_rounds, want %d", n, len(o.Rounds))
				}
				if n := count(t, c, `SELECT count(*) FROM debate_rounds WHERE debate_id = $1
					AND jsonb_array_length(arguments) >= 2 AND jsonb_array_length(rebuttals) = jsonb_array_length(arguments) AND judgment IS NOT NULL`, d.id); n != len(o.Rounds) {
					t.Errorf("%d full debate_rounds, want %d", n, len(o.Rounds))
				}
				if n := count(t, c, `SELECT count(*) FROM moderated_decisions WHERE debate_id = $1 AND recommendation <> ''`, d.id); n != 1 {
					t.Errorf("%d moderated_decisions, want 1", n)
				}
			case "scored":
				if n := count(t, c, `SELECT count(*) FROM scored_rounds WHERE debate_id = $1`, d.id); n != len(o.Rounds) || n == 0 {
					t.Errorf("%d scored_rounds, want %d", n, len(o.Rounds))
				}
			case "persuasion":
				if n := count(t, c, `SELECT count(*) FROM persuasion_arguments WHERE debate_id = $1`, d.id); n != len(o.Arguments) || n == 0 {
					t.Errorf("%d persuasion_arguments, want %d", n, len(o.Arguments))
				}
				if n := count(t, c, `SELECT count(*) FROM persuasion_commitments WHERE debate_id = $1 AND committed`, d.id); n == 0 {
					t.Error("no commitments")
				}
			case "formal":
				recs, _ := pg.Records(ctx, d.id)
				evs, _ := engine.Replay(recs)
				entries, verified := 0, 0
				for _, e := range evs {
					switch e.Type {
					case "formal_entry":
						entries++
					case "formal_verification":
						verified++
					}
				}
				if n := count(t, c, `SELECT count(*) FROM formal_entries WHERE debate_id = $1`, d.id); n != entries || n == 0 {
					t.Errorf("%d formal_entries, want %d", n, entries)
				}
				if n := count(t, c, `SELECT count(*) FROM formal_verifications WHERE debate_id = $1`, d.id); n != verified || n == 0 {
					t.Errorf("%d formal_verifications, want %d", n, verified)
				}
			case "duelogic":
				if n := count(t, c, `SELECT count(*) FROM debate_chairs WHERE debate_id = $1`, d.id); n != 2 {
					t.Errorf("%d debate_chairs, want 2", n)
				}
				if n := count(t, c, `SELECT count(*) FROM debates WHERE id = $1 AND duelogic_config = config`, d.id); n != 1 {
					t.Error("duelogic_config is not the podcast's configuration")
				}
			}

			// Every table, as the appends left it, is what Rebuild derives
			// from the log after damage.
			before := snapshot(t, c, d.id)
			for _, tb := range sqlproj.Tables() {
				if tb.Name != sqlproj.TableDebates {
					if _, err := c.Exec(ctx, fmt.Sprintf(`DELETE FROM %q WHERE debate_id = $1 AND random() < 0.5`, tb.Name), d.id); err != nil {
						t.Fatal(err)
					}
				}
			}
			if _, err := c.Exec(ctx, `UPDATE debates SET status = 'running', verdict_winner = 'x', records = 1 WHERE id = $1`, d.id); err != nil {
				t.Fatal(err)
			}
			if err := pg.Rebuild(ctx, d.id); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(before, snapshot(t, c, d.id)); diff != "" {
				t.Errorf("tables after Rebuild differ from the appends' (-appended +rebuilt):\n%s", diff)
			}
		})
	}
	if fs, err := pg.ProjectionFaults(ctx); err != nil || len(fs) > 0 {
		t.Errorf("projection faults: %v %v", fs, err)
	}
}

var _ = pgstore.Open
