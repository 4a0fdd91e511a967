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

// fileState is what a read must leave as it was: the content, byte for byte,
// and the modification time, which a cut and rewrite would move.
type fileState struct {
	content string
	mtime   time.Time
}

func stateOf(t *testing.T, name string) fileState {
	t.Helper()
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return fileState{readFile(t, name), fi.ModTime()}
}

func checkUnchanged(t *testing.T, name string, want fileState, after string) {
	t.Helper()
	if got := stateOf(t, name); got.content != want.content {
		t.Errorf("after %s, the file changed from\n%q\nto\n%q", after, want.content, got.content)
	} else if !got.mtime.Equal(want.mtime) {
		t.Errorf("after %s, the file was rewritten (mtime %v, was %v)", after, got.mtime, want.mtime)
	}
}

// jsonLine is a line as JSONL writes it, newline included.
func jsonLine(id string, seq int) string {
	return fmt.Sprintf(`{"debateId":%q,"seq":%d,"time":"2025-06-01T12:00:00Z","type":"t","data":{"n":%d}}`+"\n", id, seq, seq)
}

func jsonLines(id string, n int) string {
	var b strings.Builder
	for seq := 1; seq <= n; seq++ {
		b.WriteString(jsonLine(id, seq))
	}
	return b.String()
}

// A torn last line — bytes after the last newline — is ignored by reads,
// which write nothing, and cut off by the next Append that writes a record,
// with a warning naming the file and the bytes cut; a refused Append cuts
// nothing.
func TestJSONLTornLastLine(t *testing.T) {
	line4 := strings.TrimSuffix(jsonLine("d", 4), "\n")
	tails := []struct {
		name, tail string
	}{
		{"partial line", line4[:30]},
		{"whole record without newline", line4},
		{"line without its closing brace", line4[:len(line4)-1]},
		{"zeros", "\x00\x00\x00\x00\x00\x00"},
		{"one brace", "{"},
		{"record of another debate without newline", strings.Replace(line4, `"d"`, `"e"`, 1)},
		{"long partial line", `{"debateId":"d","seq":4,"time":"2025-06-01T12:00:00Z","type":"t","data":"` + strings.Repeat("x", 50<<10)},
	}
	for _, tc := range tails {
		// A JSONL that wrote the good records remembers their last Seq;
		// a fresh one (another process) must find it in the file.
		for _, fresh := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/fresh-%v", tc.name, fresh), func(t *testing.T) {
				dir := t.TempDir()
				name := filepath.Join(dir, "d.jsonl")
				recs := []store.Record{testRec("d", 1), testRec("d", 2), testRec("d", 3)}
				s := newJSONL(t, dir)
				mustAppend(t, s, recs...)
				good := readFile(t, name)
				appendFile(t, name, tc.tail)
				torn := stateOf(t, name)
				if fresh {
					s = newJSONL(t, dir)
				}
				logger, logs := logBuffer()
				s.Logger = logger

				for range 2 { // a second listing finds what the first did
					ids, err := s.Debates(t.Context())
					if diff := cmp.Diff([]string{"d"}, ids); err != nil || diff != "" {
						t.Fatalf("Debates: %v, mismatch (-want +got):\n%s", err, diff)
					}
					mustRecords(t, s, "d", recs)
					checkUnchanged(t, name, torn, "Debates and Records")
				}
				for _, seq := range []int64{3, 5} {
					if err := s.Append(t.Context(), testRec("d", seq)); !errors.Is(err, store.ErrConflict) {
						t.Fatalf("Append seq %d: got error %v, want ErrConflict", seq, err)
					}
					checkUnchanged(t, name, torn, fmt.Sprintf("a refused Append of seq %d", seq))
				}
				if logs.Len() != 0 {
					t.Fatalf("logged before any cut:\n%s", logs)
				}

				next := testRec("d", 4)
				mustAppend(t, s, next)
				line, err := os.ReadFile(name)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := string(line[:min(len(good), len(line))]), good; got != want {
					t.Fatalf("the good records changed: %q, want %q", got, want)
				}
				if n := bytes.Count(line[len(good):], []byte{'\n'}); n != 1 || line[len(line)-1] != '\n' {
					t.Errorf("after the good records: %q, want one line, the new record", line[len(good):])
				}
				wantLog := fmt.Sprintf("level=WARN msg=\"store: cutting off torn last line\" file=%s offset=%d bytes=%d\n", name, len(good), len(tc.tail))
				if diff := cmp.Diff(wantLog, logs.String()); diff != "" {
					t.Errorf("log mismatch (-want +got):\n%s", diff)
				}
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

// A file holding only a torn line is no debate, and reading it leaves it as
// it is; the debate's first record replaces it.
func TestJSONLOnlyTornLine(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "d.jsonl")
	appendFile(t, name, `{"garbage`)
	torn := stateOf(t, name)
	s := newJSONL(t, dir)
	logger, logs := logBuffer()
	s.Logger = logger
	for range 2 {
		if ids, err := s.Debates(t.Context()); err != nil || len(ids) != 0 {
			t.Errorf("Debates = %q, %v; want none", ids, err)
		}
		if _, err := s.Records(t.Context(), "d"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Records: got error %v, want ErrNotFound", err)
		}
		checkUnchanged(t, name, torn, "Debates and Records")
	}
	if err := s.Append(t.Context(), testRec("d", 2)); !errors.Is(err, store.ErrConflict) {
		t.Errorf("Append seq 2: got error %v, want ErrConflict", err)
	}
	checkUnchanged(t, name, torn, "a refused Append")
	mustAppend(t, s, testRec("d", 1))
	mustRecords(t, s, "d", []store.Record{testRec("d", 1)})
	wantLog := fmt.Sprintf("level=WARN msg=\"store: cutting off torn last line\" file=%s offset=0 bytes=9\n", name)
	if diff := cmp.Diff(wantLog, logs.String()); diff != "" {
		t.Errorf("log mismatch (-want +got):\n%s", diff)
	}
}

// Reading never writes, whatever the file holds, and a complete line (one
// that ends in a newline) that is not the debate's next record is damage:
// Records names the file and the line in an error wrapping ErrCorrupt, and
// Append, when the damage is the last complete line, refuses in the same
// words, cutting nothing. Debates lists every file with a complete line.
func TestJSONLDamaged(t *testing.T) {
	lines := jsonLines("d", 3)
	// The reviewer's case: a finished debate's 52 lines, the last one's
	// closing brace gone, its newline kept.
	brace := jsonLines("d", 52)
	brace = brace[:len(brace)-2] + "\n"
	tests := []struct {
		name, content string
		listed        bool  // by Debates
		records       int   // Records returns records 1..records
		err           error // of Records: nil, ErrNotFound or ErrCorrupt
		line          int   // named in the ErrCorrupt error
		tail          bool  // the damage is in the last complete line: Append refuses too
		appendLine    int   // named by Append, which reads the last complete line, if not line
	}{
		{name: "sound", content: lines, listed: true, records: 3},
		{name: "torn last line", content: lines + `{"debateId":"d","se`, listed: true, records: 3},
		{name: "empty file", content: "", err: store.ErrNotFound},
		{name: "only a torn line", content: `{"garbage`, err: store.ErrNotFound},
		{name: "last line without its closing brace", content: brace, listed: true, err: store.ErrCorrupt, line: 52, tail: true},
		{name: "only line without its closing brace", content: jsonLine("d", 1)[:len(jsonLine("d", 1))-2] + "\n", listed: true, err: store.ErrCorrupt, line: 1, tail: true},
		{name: "garbage line", content: `{"garbage` + "\n", listed: true, err: store.ErrCorrupt, line: 1, tail: true},
		{name: "empty line last", content: lines + "\n", listed: true, err: store.ErrCorrupt, line: 4, tail: true},
		{name: "empty line only", content: "\n", listed: true, err: store.ErrCorrupt, line: 1, tail: true},
		{name: "zeros with newline", content: lines + "\x00\x00\x00\n", listed: true, err: store.ErrCorrupt, line: 4, tail: true},
		{name: "record of another debate last", content: lines + jsonLine("D", 4), listed: true, err: store.ErrCorrupt, line: 4, tail: true},
		{name: "record of another debate only", content: jsonLine("D", 1), listed: true, err: store.ErrCorrupt, line: 1, tail: true},
		{name: "bad line before a torn line", content: jsonLine("d", 1) + "garbage\n" + `{"debate`, listed: true, err: store.ErrCorrupt, line: 2, tail: true},
		{name: "two bad last lines", content: jsonLine("d", 1) + "garbage\n" + "garbage\n", listed: true, err: store.ErrCorrupt, line: 2, tail: true, appendLine: 3},
		{name: "bad line inside", content: jsonLine("d", 1) + "garbage\n" + jsonLine("d", 3), listed: true, err: store.ErrCorrupt, line: 2},
		{name: "seq gap", content: jsonLine("d", 1) + jsonLine("d", 3), listed: true, err: store.ErrCorrupt, line: 2},
		{name: "seq repeated", content: jsonLine("d", 1) + jsonLine("d", 1) + jsonLine("d", 2), listed: true, err: store.ErrCorrupt, line: 2},
		{name: "record of another debate inside", content: jsonLine("d", 1) + jsonLine("D", 2) + jsonLine("d", 3), listed: true, err: store.ErrCorrupt, line: 2},
		{name: "seq gap before a torn line", content: jsonLine("d", 1) + jsonLine("d", 3) + `{"de`, listed: true, err: store.ErrCorrupt, line: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			name := filepath.Join(dir, "d.jsonl")
			appendFile(t, name, tc.content)
			before := stateOf(t, name)
			s := newJSONL(t, dir)
			logger, logs := logBuffer()
			s.Logger = logger

			var wantIDs []string
			if tc.listed {
				wantIDs = []string{"d"}
			}
			var wantRecs []store.Record
			for seq := 1; seq <= tc.records; seq++ {
				r := testRec("d", int64(seq))
				r.Time = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
				wantRecs = append(wantRecs, r)
			}
			where := fmt.Sprintf("%s:%d: ", name, tc.line)
			for range 2 { // the next listing finds the same
				ids, err := s.Debates(t.Context())
				if diff := cmp.Diff(wantIDs, ids); err != nil || diff != "" {
					t.Errorf("Debates: %v, mismatch (-want +got):\n%s", err, diff)
				}
				recs, err := s.Records(t.Context(), "d")
				switch {
				case !errors.Is(err, tc.err) || (err == nil) != (tc.err == nil):
					t.Errorf("Records: got error %v, want %v", err, tc.err)
				case errors.Is(tc.err, store.ErrCorrupt) && !strings.Contains(err.Error(), where):
					t.Errorf("Records: got error %q, want one naming %q", err, where)
				}
				if diff := cmp.Diff(wantRecs, recs, cmp.Comparer(time.Time.Equal)); diff != "" {
					t.Errorf("Records mismatch (-want +got):\n%s", diff)
				}
				checkUnchanged(t, name, before, "Debates and Records")
			}
			if tc.tail {
				if tc.appendLine != 0 {
					where = fmt.Sprintf("%s:%d: ", name, tc.appendLine)
				}
				for _, seq := range []int64{1, int64(strings.Count(tc.content, "\n")), int64(strings.Count(tc.content, "\n") + 1)} {
					err := s.Append(t.Context(), testRec("d", seq))
					if !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), where) {
						t.Errorf("Append seq %d: got error %v, want ErrCorrupt naming %q", seq, err, where)
					}
				}
				checkUnchanged(t, name, before, "a refused Append")
			}
			if logs.Len() != 0 {
				t.Errorf("logged a cut:\n%s", logs)
			}
		})
	}
}

// An Append refused for damage names the line even when the lines before it
// are longer than what Append reads of the file's end.
func TestJSONLDamagedAfterLongLines(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "d.jsonl")
	s := newJSONL(t, dir)
	for seq := int64(1); seq <= 3; seq++ {
		rec := testRec("d", seq)
		rec.Data = json.RawMessage(`"` + strings.Repeat("x", 40<<10) + `"`)
		mustAppend(t, s, rec)
	}
	appendFile(t, name, "garbage\n")
	before := stateOf(t, name)
	where := name + ":4: "
	for _, s := range []*store.JSONL{s, newJSONL(t, dir)} {
		if err := s.Append(t.Context(), testRec("d", 4)); !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), where) {
			t.Errorf("Append: got error %v, want ErrCorrupt naming %q", err, where)
		}
		if _, err := s.Records(t.Context(), "d"); !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), where) {
			t.Errorf("Records: got error %v, want ErrCorrupt naming %q", err, where)
		}
	}
	checkUnchanged(t, name, before, "Append and Records")
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
	dirs := []string{"", file, filepath.Join(file, "sub")}
	if fi, err := os.Stat("/proc/self"); err == nil && fi.IsDir() {
		dirs = append(dirs, "/proc") // no one may create a file there, root included
	}
	if os.Geteuid() != 0 {
		ro := t.TempDir()
		if err := os.Chmod(ro, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(ro, 0o700) })
		dirs = append(dirs, ro)
	}
	for _, dir := range dirs {
		s, err := store.OpenJSONL(dir)
		if err == nil {
			s.Close()
			t.Errorf("OpenJSONL(%q) succeeded", dir)
			continue
		}
		if dir != "" && !strings.Contains(err.Error(), dir) {
			t.Errorf("OpenJSONL(%q) = %v: the error does not name the directory", dir, err)
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
