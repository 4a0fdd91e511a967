package sqlproj_test

import (
	"context"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	_ "github.com/duelogic/duelogic/formal"
	"github.com/duelogic/duelogic/llm"
	_ "github.com/duelogic/duelogic/moderated"
	_ "github.com/duelogic/duelogic/persuasion"
	_ "github.com/duelogic/duelogic/scored"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/sqlproj"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the testdata/*.sql golden files")

// The schema of both dialects is the golden one: a change to a table's
// definition, the common ones or a format's, shows in a diff.
func TestSchemaGolden(t *testing.T) {
	for _, d := range []sqlproj.Dialect{sqlproj.Postgres, sqlproj.SQLite} {
		t.Run(d.String(), func(t *testing.T) {
			got := strings.Join(d.Schema(), ";\n\n") + ";\n"
			path := filepath.Join("testdata", "schema."+d.String()+".sql")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("schema mismatch (-golden +got); run with -update to accept:\n%s", diff)
			}
		})
	}
}

// Every table is the common tables' and the five formats', each name once,
// each with debate_id first and its key's columns defined.
func TestTables(t *testing.T) {
	seen := map[string]bool{}
	var names []string
	for _, tb := range sqlproj.Tables() {
		if seen[tb.Name] {
			t.Errorf("table %s twice", tb.Name)
		}
		seen[tb.Name] = true
		names = append(names, tb.Name)
		if tb.Name != sqlproj.TableDebates && (tb.Columns[0].Name != "debate_id" || tb.Key[0] != "debate_id") {
			t.Errorf("table %s: debate_id is not its first column and key", tb.Name)
		}
		for _, k := range tb.Key {
			found := false
			for _, c := range tb.Columns {
				found = found || c.Name == k
			}
			if !found {
				t.Errorf("table %s: key column %s is not defined", tb.Name, k)
			}
		}
	}
	want := []string{"debates", "utterances", "judgments", "debate_chairs", "response_evaluations", "chair_interruptions",
		"formal_entries", "formal_sources", "formal_verifications", "debate_rounds", "moderated_decisions",
		"moderated_perspectives", "persuasion_moves", "persuasion_commitments", "persuasion_arguments",
		"scored_rounds", "scored_scores"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tables mismatch (-want +got):\n%s", diff)
	}
}

// play plays a debate of format with the stub model into a memory store
// and returns its records and result.
func play(t testing.TB, format string) ([]store.Record, *engine.Result[engine.Outcome]) {
	t.Helper()
	ctx := context.Background()
	f, err := engine.Open(format, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := store.NewMemory()
	at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex // the clock is read from several goroutines
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		at = at.Add(time.Second)
		return at
	}
	res, err := engine.Run(ctx, llm.NewStub(3), f, engine.Debate{ID: "d-" + format, Proposition: "Should cities ban private cars?", Unattended: true},
		engine.WithStore(st), engine.WithClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := st.Records(ctx, res.DebateID)
	if err != nil {
		t.Fatal(err)
	}
	return recs, res
}

var (
	pgParam     = regexp.MustCompile(`\$(\d+)`)
	insertTable = regexp.MustCompile(`^INSERT INTO "([a-z_]+)"`)
	sqliteParam = regexp.MustCompile(`\?(\d+)`)
	bareParam   = regexp.MustCompile(`\?(\D|$)`)
)

// numbered reports whether the parameters of sql are ?1 to ?n, each once.
func numbered(sql string, n int) bool {
	seen := map[string]bool{}
	for _, m := range sqliteParam.FindAllStringSubmatch(sql, -1) {
		if seen[m[1]] {
			return false
		}
		seen[m[1]] = true
	}
	for i := 1; i <= n; i++ {
		if !seen[strconv.Itoa(i)] {
			return false
		}
	}
	return len(seen) == n
}

// Every record of a debate of every format projects in both dialects:
// statements with as many parameters as arguments, each dialect's
// spelling, one utterances row per utterance of the transcript, the same
// rows in both dialects; and a rebuild is the debate's statements with
// the deletes first.
func TestProjectEveryFormat(t *testing.T) {
	for _, format := range engine.Formats() {
		t.Run(format, func(t *testing.T) {
			recs, res := play(t, format)
			deb, ok := sqlproj.DebateOf(recs[0])
			if !ok || deb.Format != format || deb.ID != res.DebateID || !deb.Started.Equal(recs[0].Time) {
				t.Fatalf("DebateOf = %+v, %v", deb, ok)
			}
			tables := map[sqlproj.Dialect]map[string]int{}
			for _, d := range []sqlproj.Dialect{sqlproj.Postgres, sqlproj.SQLite} {
				tables[d] = map[string]int{}
				var all []sqlproj.Stmt
				for _, r := range recs {
					stmts, err := d.Project(deb, r)
					if err != nil {
						t.Fatal(err)
					}
					all = append(all, stmts...)
				}
				for _, s := range all {
					switch d {
					case sqlproj.Postgres:
						if strings.Contains(s.SQL, "?") || len(pgParam.FindAllString(s.SQL, -1)) != len(s.Args) {
							t.Fatalf("postgres: %d args for %s", len(s.Args), s.SQL)
						}
					case sqlproj.SQLite:
						// Numbered (?N): an UPDATE's key comes last in its text.
						if pgParam.MatchString(s.SQL) || bareParam.MatchString(s.SQL) || strings.Contains(s.SQL, "::") ||
							!numbered(s.SQL, len(s.Args)) {
							t.Fatalf("sqlite: %d args for %s", len(s.Args), s.SQL)
						}
					}
					if m := insertTable.FindStringSubmatch(s.SQL); m != nil {
						tables[d][m[1]]++
					}
				}
				if n := tables[d]["utterances"]; n != len(res.Transcript) {
					t.Errorf("%s: %d utterances rows, transcript %d", d, n, len(res.Transcript))
				}
				rebuilt, err := d.Rebuild(recs)
				if err != nil {
					t.Fatal(err)
				}
				del := d.Delete(deb.ID)
				if diff := cmp.Diff(append(del, all...), rebuilt); diff != "" {
					t.Errorf("%s: Rebuild is not Delete and every record's projection:\n%s", d, diff)
				}
			}
			if diff := cmp.Diff(tables[sqlproj.Postgres], tables[sqlproj.SQLite]); diff != "" {
				t.Errorf("rows by table differ between the dialects (-postgres +sqlite):\n%s", diff)
			}
			own := 0
			for name, n := range tables[sqlproj.Postgres] {
				if name != "debates" && name != "utterances" && name != "judgments" {
					own += n
				}
			}
			if own == 0 {
				t.Errorf("no rows in the format's own tables: %v", tables[sqlproj.Postgres])
			}
		})
	}
}

// A record of a debate that is not the engine's projects nothing, and a
// record not in the engine's layout only advances the debate's row.
func TestForeignRecords(t *testing.T) {
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, ok := sqlproj.DebateOf(store.Record{DebateID: "x", Seq: 1, Type: "note", Time: at, Data: json.RawMessage(`{}`)}); ok {
		t.Error("DebateOf took a record that is not the engine's debate record")
	}
	recs, _ := play(t, duelogic.FormatName)
	deb, _ := sqlproj.DebateOf(recs[0])
	stmts, err := sqlproj.Postgres.Project(deb, store.Record{DebateID: deb.ID, Seq: 99, Type: "note", Time: at, Data: json.RawMessage(`[1]`)})
	if err != nil || len(stmts) != 1 || !strings.HasPrefix(stmts[0].SQL, `UPDATE "debates" SET "records"`) {
		t.Errorf("a foreign record: %v %+v", err, stmts)
	}
	stmts, err = sqlproj.Postgres.Rebuild([]store.Record{{DebateID: "x", Seq: 1, Type: "note", Time: at, Data: json.RawMessage(`{}`)}})
	if err != nil || !strings.HasPrefix(stmts[len(stmts)-1].SQL, `DELETE FROM "debates"`) {
		t.Errorf("rebuild of a foreign debate: %v %+v", err, stmts)
	}
}

// The rules both dialects share for values: NUL in text and \u0000 in JSON
// replaced, NaN is NULL, times from the year 1 and as sortable UTC text in
// SQLite, booleans as 0/1 in SQLite.
func TestValues(t *testing.T) {
	recs, _ := play(t, duelogic.FormatName)
	deb, _ := sqlproj.DebateOf(recs[0])
	// An utterance whose content holds a NUL, at a time before the year 1.
	var data map[string]any
	for _, r := range recs {
		if r.Type == engine.RecordUtterance {
			_ = json.Unmarshal(r.Data, &data)
			break
		}
	}
	v := data["value"].(map[string]any)
	v["content"] = "a\x00b"
	raw, _ := json.Marshal(data)
	rec := store.Record{DebateID: deb.ID, Seq: 5, Type: engine.RecordUtterance, Time: time.Date(-5, 1, 1, 0, 0, 0, 0, time.FixedZone("x", 3600)), Data: raw}
	for _, tc := range []struct {
		d       sqlproj.Dialect
		content any
		at      any
		cut     any
	}{
		{sqlproj.Postgres, "a\uFFFDb", time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{sqlproj.SQLite, "a\uFFFDb", "0001-01-01T00:00:00.000000000Z", int64(0)},
	} {
		stmts, err := tc.d.Project(deb, rec)
		if err != nil {
			t.Fatal(err)
		}
		var u *sqlproj.Stmt
		for i := range stmts {
			if strings.HasPrefix(stmts[i].SQL, `INSERT INTO "utterances"`) {
				u = &stmts[i]
			}
		}
		if u == nil {
			t.Fatalf("%s: no utterance: %+v", tc.d, stmts)
		}
		// Columns in the table's order: debate_id, seq, speaker, kind,
		// segment, exchange, round, content, model, interrupted,
		// interrupted_by, cut, ...; created_at last.
		if got := u.Args[7]; got != tc.content {
			t.Errorf("%s: content %q, want %q", tc.d, got, tc.content)
		}
		if got := u.Args[len(u.Args)-1]; !cmp.Equal(got, tc.at) {
			t.Errorf("%s: time %v, want %v", tc.d, got, tc.at)
		}
		if got := u.Args[11]; got != tc.cut {
			t.Errorf("%s: cut %#v, want %#v", tc.d, got, tc.cut)
		}
	}
	if got := sqlproj.Text("x\x00"); got != "x\uFFFD" {
		t.Errorf("Text = %q", got)
	}
	_ = math.NaN
}

// BenchmarkProject measures the statements' building, per record, for the
// records of a stub debate of each format, in each dialect.
func BenchmarkProject(b *testing.B) {
	for _, format := range engine.Formats() {
		recs, _ := play(b, format)
		deb, _ := sqlproj.DebateOf(recs[0])
		for _, d := range []sqlproj.Dialect{sqlproj.Postgres, sqlproj.SQLite} {
			b.Run(format+"/"+d.String(), func(b *testing.B) {
				b.ReportAllocs()
				n := 0
				for b.Loop() {
					if _, err := d.Project(deb, recs[n%len(recs)]); err != nil {
						b.Fatal(err)
					}
					n++
				}
			})
		}
	}
}
