package formal_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/formal"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// struckSeed is a stub seed whose debate (one or two rounds) strikes an
// entry before the audience's conclusion.
const struckSeed = 6

// readLog reads the output directory's log: its bytes and its entries.
func readLog(t *testing.T, dir string) ([]byte, []formal.Entry) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, formal.FileLog))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := formal.ImportLog(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return b, entries
}

// storedEntries are the entries of stopDebate stored in st, as said.
func storedEntries(t *testing.T, st store.Store) []formal.Entry {
	t.Helper()
	recs, err := st.Records(t.Context(), stopDebate.ID)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := formal.EntriesFromRecords(recs)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// "shared/debate-log.jsonl | Append-only debate log — source of truth":
// with an output directory, the debate creates it at its start (Step C)
// and appends every entry to its debate-log.jsonl as it is stored, as
// said: a debate stopped midway leaves the log of what it stored, a struck
// entry stays as it was, followed by its redaction, and the resumed debate
// appends the rest without rewriting a byte.
func TestLiveLogIsAppendedAsTheDebateGoes(t *testing.T) {
	parent := t.TempDir()
	f, err := engine.Open(formal.FormatName, []byte(`{"minRounds": 1, "maxRounds": 2, "outputDir": "`+filepath.ToSlash(parent)+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	st := store.NewMemory()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	stub := llm.NewStub(struckSeed)
	client := llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		if req.Purpose == formal.PurposeAudienceConclusion {
			cancel()
			<-ctx.Done()
			return llm.Response{}, ctx.Err()
		}
		return stub.Complete(ctx, req)
	})
	if _, err := engine.Run(ctx, client, f, stopDebate, engine.WithStore(st), engine.WithClock(pinned)); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v; want it cancelled", err)
	}
	dirs, err := os.ReadDir(parent)
	if err != nil || len(dirs) != 1 {
		t.Fatalf("the stopped debate left %v (%v); want its output directory", dirs, err)
	}
	dir := filepath.Join(parent, dirs[0].Name())
	if files, _ := os.ReadDir(dir); len(files) != 1 || files[0].Name() != formal.FileLog {
		t.Errorf("the stopped debate's directory holds %v; want only its log", files)
	}
	stopped, said := readLog(t, dir)
	if diff := cmp.Diff(storedEntries(t, st), said); diff != "" {
		t.Errorf("the log of the stopped debate (-stored +file):\n%s", diff)
	}
	red := slices.IndexFunc(said, func(e formal.Entry) bool { return e.Type == formal.TypeRedaction })
	if red < 0 {
		t.Fatalf("seed %d struck no entry before the audience's conclusion", struckSeed)
	}
	if struck := said[*said[red].TargetSeq]; strings.HasPrefix(struck.Content, "[REDACTED") || struck.Sources == nil {
		t.Errorf("the struck entry was rewritten: %+v", struck)
	}

	res, err := engine.ResumeStored(t.Context(), llm.NewStub(struckSeed), stopDebate.ID, engine.WithStore(st), engine.WithClock(pinned))
	if err != nil {
		t.Fatal(err)
	}
	o := res.Detail.(*formal.Outcome)
	final, all := readLog(t, dir)
	if !bytes.HasPrefix(final, stopped) {
		t.Errorf("the resumed debate rewrote its log:\nbefore %q\nafter  %q", stopped, final[:min(len(final), len(stopped))])
	}
	if diff := cmp.Diff(storedEntries(t, st), all); diff != "" {
		t.Errorf("the log of the finished debate (-stored +file):\n%s", diff)
	}
	if diff := cmp.Diff(o.Entries, formal.Strike(all)); diff != "" {
		t.Errorf("the outcome's entries are not the log struck (-outcome +file):\n%s", diff)
	}
	if o.Dir != dir || !slices.Contains(o.Files, filepath.Join(dir, formal.FileLog)) || !slices.Contains(o.Files, filepath.Join(dir, formal.FileSummary)) {
		t.Errorf("outcome dir %s, files %v", o.Dir, o.Files)
	}
}
