package cliapp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/store"
	"github.com/google/go-cmp/cmp"
)

// storedDebate reads debate id from the JSONL store in dir: its records
// and its summary.
func storedDebate(t *testing.T, dir, id string) ([]store.Record, engine.Summary) {
	t.Helper()
	js, err := store.OpenJSONL(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer js.Close()
	recs, err := js.Records(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := engine.Summarize(recs)
	if err != nil {
		t.Fatal(err)
	}
	return recs, sum
}

// TestFork: --fork ID@SEQ with --set plays a podcast again from its
// openings with another arbiter model and one more exchange: the new
// debate keeps the first SEQ records, stores the patched configuration,
// plays on to its end and is named on both outputs.
func TestFork(t *testing.T) {
	dir := t.TempDir()
	r := runIn(t, dir, "", nil, "--max-rounds", "3", "Should we use GraphQL or REST?")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	id := idRE.FindString(r.stdout)
	db := filepath.Join(dir, "db")
	recs, _ := storedDebate(t, db, id)
	// After the openings: the last record of the opening segment.
	var at int64
	for _, rec := range recs {
		if ev, ok, _ := engine.EventOf(rec); ok && ev.Type == engine.EventSegmentEnded && ev.Segment == duelogic.SegmentOpening {
			at = rec.Seq
		}
	}
	if at == 0 {
		t.Fatal("no end of the openings")
	}

	f := runIn(t, dir, "", nil, "--fork", fmt.Sprintf("%s@%d", id[:8], at),
		"--set", "arbiter.modelId=judge-2", "--set", "flow.maxExchanges=4")
	if f.code != 0 {
		t.Fatalf("fork: exit %d: %s", f.code, f.stderr)
	}
	m := forkedRE.FindStringSubmatch(f.stderr)
	if m == nil || m[1] != id || m[2] != fmt.Sprint(at) {
		t.Fatalf("stderr does not name the fork of %s after record %d:\n%s", id, at, f.stderr)
	}
	fid := m[3]
	if !strings.Contains(f.stdout, fmt.Sprintf("── fork %s of %s after record %d ──", fid, id, at)) || !strings.Contains(f.stdout, "══════ METRICS ══════") {
		t.Errorf("stdout lacks the fork's heading or its end:\n%s", f.stdout)
	}

	frecs, fsum := storedDebate(t, db, fid)
	if fsum.Debate.ForkOf != id || fsum.Debate.ForkAt != at {
		t.Errorf("fork of %s at %d; want %s at %d", fsum.Debate.ForkOf, fsum.Debate.ForkAt, id, at)
	}
	var cfg duelogic.Config
	if err := json.Unmarshal(fsum.Spec, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Arbiter.ModelID != "judge-2" || cfg.Flow.MaxExchanges != 4 || cfg.Arbiter.AccountabilityLevel == "" {
		t.Errorf("forked configuration: arbiter %+v, %d exchanges", cfg.Arbiter, cfg.Flow.MaxExchanges)
	}
	// The records after the first are copied as they were.
	for i := 1; i < int(at); i++ {
		if diff := cmp.Diff(string(recs[i].Data), string(frecs[i].Data)); diff != "" {
			t.Fatalf("record %d differs (-original +fork):\n%s", i+1, diff)
		}
	}
	exchanges := 0
	for _, rec := range frecs {
		if ev, ok, _ := engine.EventOf(rec); ok && ev.Type == engine.EventUtterance && ev.Utterance.Exchange > exchanges {
			exchanges = ev.Utterance.Exchange
		}
	}
	if exchanges != 4 || !strings.Contains(listOf(t, dir), fid) {
		t.Errorf("the fork played %d exchanges; want 4, and listed", exchanges)
	}
}

var forkedRE = regexp.MustCompile(`debate: forked (dl-[0-9a-f]{16}) after record (\d+) into (dl-[0-9a-f]{16})\n`)

// listOf is what --list prints of the store under dir.
func listOf(t *testing.T, dir string) string {
	t.Helper()
	return runIn(t, dir, "", nil, "--list").stdout
}

// TestForkBadInput: a --fork or --set that is wrong is a one-line usage
// error naming what is wrong, and nothing is stored.
func TestForkBadInput(t *testing.T) {
	dir := t.TempDir()
	r := runIn(t, dir, "", nil, "--max-rounds", "3", "Should we use GraphQL or REST?")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	id := idRE.FindString(r.stdout)
	recs, _ := storedDebate(t, filepath.Join(dir, "db"), id)
	n := len(recs)
	tests := []struct {
		name string
		args []string
		want string // stderr's first line
	}{
		{"no @", []string{"--fork", id}, "debate: --fork " + id + ": want ID@SEQ, a debate and the number of the last of its records the fork keeps (dl-4b41@12)"},
		{"no SEQ", []string{"--fork", id + "@"}, "debate: --fork " + id + "@: want ID@SEQ"},
		{"SEQ not a number", []string{"--fork", id + "@five"}, `debate: --fork ` + id + `@five: SEQ "five" is not a number`},
		{"unknown debate", []string{"--fork", "dl-0000000000000000@3"}, "debate: --fork dl-0000000000000000@3: no debate dl-0000000000000000 in " + filepath.Join(dir, "db")},
		{"SEQ 0", []string{"--fork", id + "@0"}, fmt.Sprintf("debate: --fork %s@0: SEQ 0 is not one of the records of %s, 1..%d", id, id, n)},
		{"SEQ past the end", []string{"--fork", fmt.Sprintf("%s@%d", id, n+1)}, fmt.Sprintf("debate: --fork %s@%d: SEQ %d is not one of the records of %s, 1..%d", id, n+1, n+1, id, n)},
		{"invalid configuration", []string{"--fork", id + "@3", "--set", "flow.maxExchanges=99"},
			"debate: --set: the forked configuration is invalid: flow.maxExchanges: 99 is outside 3..30"},
		{"unknown field", []string{"--fork", id + "@3", "--set", "flow.maxExchange=4"},
			"debate: --set: the forked configuration is invalid: flow.maxExchange: no such field"},
		{"a value of the wrong type", []string{"--fork", id + "@3", "--set", "flow.maxExchanges=four"},
			"debate: --set: the forked configuration is invalid: "},
		{"no value", []string{"--fork", id + "@3", "--set", "flow.maxExchanges"}, `debate: invalid value "flow.maxExchanges" for flag -set: want key=value`},
		{"an empty part", []string{"--fork", id + "@3", "--set", "flow..maxExchanges=4"}, `debate: --set flow..maxExchanges=4: "flow..maxExchanges": a key has no empty parts`},
		{"a value and an object", []string{"--fork", id + "@3", "--set", "flow=1", "--set", "flow.maxExchanges=4"},
			`debate: --set flow.maxExchanges=4: "flow.maxExchanges": "flow" is set to a value, not an object`},
		{"--set without --fork", []string{"--set", "flow.maxExchanges=4", "q?"}, "debate: --set changes the configuration of a fork: give --fork ID@SEQ"},
		{"--fork with a question", []string{"--fork", id + "@3", "q?"}, "debate: --fork takes no question: the debate's is stored"},
		{"--fork and --resume", []string{"--fork", id + "@3", "--resume", id}, "debate: --resume and --fork: give one"},
		{"a format's flag", []string{"--fork", id + "@3", "--max-rounds", "4"}, "debate: --max-rounds: --fork keeps the stored configuration; fork it with --set to change it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runIn(t, dir, "", nil, tt.args...)
			lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
			if r.code != 2 || len(lines) != 2 || !strings.HasPrefix(lines[0], tt.want) || lines[1] != "run debate -h for the flags" {
				t.Errorf("exit %d, stderr:\n%s\nwant 2 and a line starting %q", r.code, r.stderr, tt.want)
			}
			if r.stdout != "" {
				t.Errorf("stdout: %q", r.stdout)
			}
			files, err := os.ReadDir(filepath.Join(dir, "db"))
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, f := range files {
				if filepath.Ext(f.Name()) == ".jsonl" {
					names = append(names, f.Name())
				}
			}
			if want := []string{id + ".jsonl"}; !cmp.Equal(names, want) {
				t.Errorf("the store holds %v; want %v, the debate forked", names, want)
			}
		})
	}
}
