package store_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/duelogic/duelogic/store"
	"github.com/google/go-cmp/cmp"
)

var testTime = time.Date(2025, 6, 1, 12, 0, 0, 5, time.FixedZone("", 2*60*60))

func testRec(id string, seq int64) store.Record {
	return store.Record{DebateID: id, Seq: seq, Time: testTime, Type: "t", Data: json.RawMessage(fmt.Sprintf(`{"n":%d}`, seq))}
}

func mustAppend(t *testing.T, s store.Store, recs ...store.Record) {
	t.Helper()
	for _, r := range recs {
		if err := s.Append(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
}

func mustRecords(t *testing.T, s store.Store, id string, want []store.Record) {
	t.Helper()
	got, err := s.Records(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Records(%q) mismatch (-want +got):\n%s", id, diff)
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestJSONLFormat(t *testing.T) {
	dir := t.TempDir()
	s := newJSONL(t, dir)
	lmt := time.FixedZone("LMT", -(4*60*60 + 56*60 + 2)) // an offset with seconds
	recs := []store.Record{
		{DebateID: "d", Seq: 1, Time: testTime, Type: "debate", Data: json.RawMessage(`{"a": [1, 2]}`)},
		{DebateID: "d", Seq: 2, Time: testTime, Type: "pretty", Data: json.RawMessage("{\n  \"a\": 1\n}\n")},
		{DebateID: "d", Seq: 3, Time: time.Date(1880, 1, 1, 0, 0, 0, 0, lmt), Type: "<old>", Data: json.RawMessage(` 3`)},
	}
	mustAppend(t, s, recs...)
	want := `{"debateId":"d","seq":1,"time":"2025-06-01T12:00:00.000000005+02:00","type":"debate","data":{"a": [1, 2]}}
{"debateId":"d","seq":2,"time":"2025-06-01T12:00:00.000000005+02:00","type":"pretty","dataText":"{\n  \"a\": 1\n}\n"}
{"debateId":"d","seq":3,"time":"1880-01-01T04:56:02Z","type":"\u003cold\u003e","dataText":" 3"}
`
	if diff := cmp.Diff(want, readFile(t, filepath.Join(dir, "d.jsonl"))); diff != "" {
		t.Errorf("file mismatch (-want +got):\n%s", diff)
	}
	mustRecords(t, newJSONL(t, dir), "d", recs)
}

// logBuffer returns a logger writing text to the returned buffer.
func logBuffer() (*slog.Logger, *bytes.Buffer) {
	var buf bytes.Buffer
	return slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	})), &buf
}

func TestJSONLTornLastLine(t *testing.T) {
	line4 := `{"debateId":"d","seq":4,"time":"2025-06-01T12:00:00Z","type":"t","data":{"n":4}}`
	tails := []struct {
		name, tail string
	}{
		{"partial line", line4[:30]},
		{"whole record without newline", line4},
		{"zeros", "\x00\x00\x00\x00\x00\x00"},
		{"zeros with newline", "\x00\x00\x00\n"},
		{"empty line", "\n"},
		{"garbage line", "garbage\n"},
		{"record of another debate without newline", strings.Replace(line4, `"d"`, `"e"`, 1)},
	}
	for _, tc := range tails {
		for _, first := range []string{"Records", "Append", "Debates"} {
			t.Run(tc.name+"/"+first, func(t *testing.T) {
				dir := t.TempDir()
				name := filepath.Join(dir, "d.jsonl")
				recs := []store.Record{testRec("d", 1), testRec("d", 2), testRec("d", 3)}
				mustAppend(t, newJSONL(t, dir), recs...)
				good := readFile(t, name)
				appendFile(t, name, tc.tail)
				wantLog := fmt.Sprintf("level=WARN msg=\"store: cutting off torn last line\" file=%s offset=%d bytes=%d\n", name, len(good), len(tc.tail))

				s := newJSONL(t, dir)
				logger, logs := logBuffer()
				s.Logger = logger
				switch first {
				case "Records":
					mustRecords(t, s, "d", recs)
				case "Append":
					recs = append(recs, testRec("d", 4))
					mustAppend(t, s, recs[3])
					good += readFile(t, name)[len(good):]
				case "Debates":
					ids, err := s.Debates(t.Context())
					if diff := cmp.Diff([]string{"d"}, ids); err != nil || diff != "" {
						t.Fatalf("Debates: %v, mismatch (-want +got):\n%s", err, diff)
					}
					mustRecords(t, s, "d", recs)
				}
				if got := readFile(t, name); got != good {
					t.Errorf("file after repair:\n%q\nwant:\n%q", got, good)
				}
				if diff := cmp.Diff(wantLog, logs.String()); diff != "" {
					t.Errorf("log mismatch (-want +got):\n%s", diff)
				}
				// The log goes on.
				next := testRec("d", int64(len(recs)+1))
				mustAppend(t, s, next)
				mustRecords(t, newJSONL(t, dir), "d", append(recs, next))
			})
		}
	}
}

func appendFile(t *testing.T, name, s string) {
	t.Helper()
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestJSONLOnlyTornLine(t *testing.T) {
	dir := t.TempDir()
	appendFile(t, filepath.Join(dir, "d.jsonl"), `{"debateId":"d","seq":1,"ti`)
	s := newJSONL(t, dir)
	if ids, err := s.Debates(t.Context()); err != nil || len(ids) != 0 {
		t.Errorf("Debates = %q, %v; want none", ids, err)
	}
	if _, err := s.Records(t.Context(), "d"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Records: got error %v, want ErrNotFound", err)
	}
	if err := s.Append(t.Context(), testRec("d", 2)); !errors.Is(err, store.ErrConflict) {
		t.Errorf("Append seq 2: got error %v, want ErrConflict", err)
	}
	mustAppend(t, s, testRec("d", 1))
	mustRecords(t, s, "d", []store.Record{testRec("d", 1)})
}

func TestJSONLDamaged(t *testing.T) {
	line := func(seq int, id string) string {
		return fmt.Sprintf(`{"debateId":%q,"seq":%d,"time":"2025-06-01T12:00:00Z","type":"t","data":{}}`+"\n", id, seq)
	}
	tests := []struct {
		name, content, want string
	}{
		{"bad line inside", line(1, "d") + "garbage\n" + line(3, "d"), "d.jsonl:2: invalid character"},
		{"seq gap", line(1, "d") + line(3, "d"), "d.jsonl:2: record of debate \"d\" seq 3, want debate \"d\" seq 2"},
		{"other debate inside", line(1, "d") + line(2, "D") + line(3, "d"), "d.jsonl:2: record of debate \"D\" seq 2"},
		{"other debate last", line(1, "D"), `last record is of debate "D", not "d"`},
		{"bad line before torn line", line(1, "d") + "garbage\n" + `{"debate`, "line before a torn last line"},
		{"two bad last lines", line(1, "d") + "garbage\n" + "garbage\n", "line before a torn last line"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			name := filepath.Join(dir, "d.jsonl")
			appendFile(t, name, tc.content)
			s := newJSONL(t, dir)
			_, err := s.Records(t.Context(), "d")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Records: got error %v, want one containing %q", err, tc.want)
			}
			if got := readFile(t, name); got != tc.content {
				t.Errorf("file changed to %q", got)
			}
		})
	}
}

func TestJSONLModes(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no Unix permission bits")
	}
	dir := filepath.Join(t.TempDir(), "new", "store")
	s := newJSONL(t, dir)
	mustAppend(t, s, testRec("d", 1))
	for _, tc := range []struct {
		name string
		want fs.FileMode
	}{
		{dir, 0o700 | fs.ModeDir},
		{filepath.Join(dir, "d.jsonl"), 0o600},
	} {
		fi, err := os.Stat(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode(); got != tc.want {
			t.Errorf("%s: mode %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestJSONLIgnoresOtherFiles(t *testing.T) {
	dir := t.TempDir()
	s := newJSONL(t, dir)
	mustAppend(t, s, testRec("d", 1))
	for _, name := range []string{"notes.txt", ".hidden.jsonl", "bad name.jsonl", ".jsonl", "d.jsonl.tmp"} {
		appendFile(t, filepath.Join(dir, name), `{"debateId":"x","seq":1,"time":"2025-06-01T12:00:00Z","type":"t","data":{}}`+"\n")
	}
	if err := os.Mkdir(filepath.Join(dir, "sub.jsonl"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("d.jsonl", filepath.Join(dir, "link.jsonl")); err != nil {
		t.Log(err)
	}
	ids, err := s.Debates(t.Context())
	if diff := cmp.Diff([]string{"d"}, ids); err != nil || diff != "" {
		t.Errorf("Debates: %v, mismatch (-want +got):\n%s", err, diff)
	}
}

func TestJSONLClosed(t *testing.T) {
	s, err := store.OpenJSONL(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, testRec("d", 1))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := s.Append(t.Context(), testRec("d", 2)); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("Append: got error %v, want fs.ErrClosed", err)
	}
	if _, err := s.Records(t.Context(), "d"); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("Records: got error %v, want fs.ErrClosed", err)
	}
	if _, err := s.Debates(t.Context()); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("Debates: got error %v, want fs.ErrClosed", err)
	}
}

func TestOpenJSONLErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	appendFile(t, file, "x")
	for _, dir := range []string{"", file, filepath.Join(file, "sub")} {
		if s, err := store.OpenJSONL(dir); err == nil {
			s.Close()
			t.Errorf("OpenJSONL(%q) succeeded", dir)
		}
	}
}

// Two JSONL values on one directory stand for two processes: each must see
// the other's appends, however well it remembers its own.
func TestJSONLTwoValues(t *testing.T) {
	dir := t.TempDir()
	a, b := newJSONL(t, dir), newJSONL(t, dir)
	mustAppend(t, a, testRec("d", 1))
	mustAppend(t, b, testRec("d", 2))
	// a remembers 1 as the last Seq; the file says 2.
	if err := a.Append(t.Context(), testRec("d", 2)); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale Append: got error %v, want ErrConflict", err)
	}
	mustAppend(t, a, testRec("d", 3))
	mustAppend(t, b, testRec("d", 4))
	mustAppend(t, a, testRec("d", 5))
	want := []store.Record{testRec("d", 1), testRec("d", 2), testRec("d", 3), testRec("d", 4), testRec("d", 5)}
	mustRecords(t, a, "d", want)
	mustRecords(t, b, "d", want)
}

const childEnv = "DUELOGIC_STORE_TEST_CHILD" // dir,id,writer,count

// TestJSONLProcesses runs writers in child processes that append to one
// debate at once, each retrying on ErrConflict; every record must be there
// once, in a whole line, with no Seq taken twice.
func TestJSONLProcesses(t *testing.T) {
	if !store.HasFileLock {
		t.Skip("no flock on " + runtime.GOOS)
	}
	if testing.Short() {
		t.Skip("starts processes")
	}
	const writers, count = 3, 30
	dir := t.TempDir()
	cmds := make([]*exec.Cmd, writers)
	outs := make([]bytes.Buffer, writers)
	for w := range cmds {
		cmd := exec.Command(os.Args[0], "-test.run=^TestJSONLChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s,%s,%d,%d", childEnv, dir, "shared", w, count))
		cmd.Stdout, cmd.Stderr = &outs[w], &outs[w]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[w] = cmd
	}
	for w, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("writer %d: %v\n%s", w, err, outs[w].Bytes())
		}
	}
	if t.Failed() {
		return
	}

	// Every line is a whole record.
	f, err := os.Open(filepath.Join(dir, "shared.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := 0
	for sc := bufio.NewScanner(f); sc.Scan(); lines++ {
		if !json.Valid(sc.Bytes()) {
			t.Fatalf("line %d is not JSON: %q", lines+1, sc.Bytes())
		}
	}
	if lines != writers*count {
		t.Errorf("%d lines, want %d", lines, writers*count)
	}
	// Seqs 1..n (Records checks), and each writer's records in its order.
	recs, err := newJSONL(t, dir).Records(t.Context(), "shared")
	if err != nil {
		t.Fatal(err)
	}
	next := make([]int, writers)
	for _, r := range recs {
		var d struct{ Writer, N int }
		if err := json.Unmarshal(r.Data, &d); err != nil {
			t.Fatal(err)
		}
		if d.N != next[d.Writer] {
			t.Fatalf("seq %d: writer %d record %d, want record %d", r.Seq, d.Writer, d.N, next[d.Writer])
		}
		next[d.Writer]++
	}
	if diff := cmp.Diff([]int{count, count, count}, next); diff != "" {
		t.Errorf("records per writer mismatch (-want +got):\n%s", diff)
	}
}

// TestJSONLChild is a writer of TestJSONLProcesses when run as a child.
func TestJSONLChild(t *testing.T) {
	env := os.Getenv(childEnv)
	if env == "" {
		t.Skip("run by TestJSONLProcesses")
	}
	args := strings.Split(env, ",")
	dir, id := args[0], args[1]
	writer, _ := strconv.Atoi(args[2])
	count, _ := strconv.Atoi(args[3])
	s := newJSONL(t, dir)
	ctx := t.Context()
	for n := 0; n < count; {
		recs, err := s.Records(ctx, id)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			t.Fatal(err)
		}
		rec := store.Record{
			DebateID: id,
			Seq:      int64(len(recs)) + 1,
			Time:     time.Now(),
			Type:     "t",
			Data:     json.RawMessage(fmt.Sprintf(`{"writer":%d,"n":%d,"pad":%q}`, writer, n, strings.Repeat("x", 100*writer))),
		}
		switch err := s.Append(ctx, rec); {
		case err == nil:
			n++
		case !errors.Is(err, store.ErrConflict):
			t.Fatal(err)
		}
	}
}

func TestJSONLConflictCreatesNoFile(t *testing.T) {
	dir := t.TempDir()
	s := newJSONL(t, dir)
	if err := s.Append(t.Context(), testRec("d", 2)); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("Append seq 2 to a new debate: got error %v, want ErrConflict", err)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("directory holds %v (%v), want nothing", entries, err)
	}
}
