package sqlitestore

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/duelogic/duelogic/store"
	"github.com/google/go-cmp/cmp"
)

// pageCount is the number of pages of the database at path.
func pageCount(t *testing.T, s *Store) int {
	t.Helper()
	var n int
	if err := s.w.QueryRowContext(t.Context(), `PRAGMA page_count`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A full database (SQLite's max_page_count, which fails a write that needs
// a page beyond it with SQLITE_FULL, as a full disk does) stops the debate
// with an error naming the file and saying it is full; what was stored is
// the records committed before, whole; once there is room, ResumeStored
// finishes the debate as an uninterrupted run.
func TestFullDatabase(t *testing.T) {
	ctx := t.Context()
	ref := openTest(t)
	want, err := playPodcast(ctx, ref, "full", false)
	if err != nil {
		t.Fatal(err)
	}
	wantLog := logOf(t, ref, "full")
	empty := openTest(t)
	limit := (pageCount(t, empty) + pageCount(t, ref)) / 2

	path := filepath.Join(t.TempDir(), "full.db")
	s := openAt(t, path, fmt.Sprintf("max_page_count(%d)", limit))
	_, err = playPodcast(ctx, s, "full", false)
	if err == nil {
		t.Fatalf("the debate went on in a database of at most %d pages", limit)
	}
	t.Logf("stopped by: %v", err)
	if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, "no space left on its disk") {
		t.Errorf("error %q does not name the file and say it is full", msg)
	}
	recs, err := s.Records(ctx, "full")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) == 0 || len(recs) >= len(wantLog) {
		t.Fatalf("%d records stored in the full database, want some but not all %d", len(recs), len(wantLog))
	}
	if diff := cmp.Diff(wantLog[:len(recs)], logOf(t, s, "full")); diff != "" {
		t.Fatalf("the records stored differ from the uninterrupted run's (-want +got):\n%s", diff)
	}
	// Still full: another append fails the same way and stores nothing.
	next := recs[len(recs)-1]
	next.Seq++
	next.Data = []byte(`{"pad":"` + strings.Repeat("x", 64<<10) + `"}`)
	if err := s.Append(ctx, next); err == nil || !strings.Contains(err.Error(), "is full") {
		t.Errorf("Append to the full database: %v, want it full", err)
	}
	if again, err := s.Records(ctx, "full"); err != nil || len(again) != len(recs) {
		t.Fatalf("after a failed append: %d records (%v), want %d", len(again), err, len(recs))
	}
	s.Close()

	roomy := openAt(t, path)
	got, err := playPodcast(ctx, roomy, "full", true)
	if err != nil {
		t.Fatalf("resuming once there is room: %v", err)
	}
	if diff := cmp.Diff(said(want.Transcript), said(got.Transcript)); diff != "" {
		t.Fatalf("the transcript differs from an uninterrupted run (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantLog, logOf(t, roomy, "full")); diff != "" {
		t.Fatalf("the log differs from an uninterrupted run (-want +got):\n%s", diff)
	}
	t.Logf("%d of %d records fitted in %d pages; resumed to the uninterrupted run", len(recs), len(wantLog), limit)
}

// The operating system refuses to write past a size (RLIMIT_FSIZE, which
// fails write(2) with EFBIG the way a full disk fails it with ENOSPC: in
// the middle of the WAL): a child playing a debate stops with an error
// naming the file, and the records it committed resume to the
// uninterrupted run.
func TestFileSizeLimit(t *testing.T) {
	ctx := t.Context()
	mem := store.NewMemory()
	want, err := playPodcast(ctx, mem, "limited", false)
	if err != nil {
		t.Fatal(err)
	}
	wantLog := logOf(t, mem, "limited")

	path := filepath.Join(t.TempDir(), "limited.db")
	cmd, _, _ := startChild(t, "limited", path, "SQLITESTORE_ID=limited", "SQLITESTORE_FSIZE=200000")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	_ = cmd
	if err := cmd.Wait(); cmd.ProcessState.ExitCode() != 4 {
		t.Fatalf("the child: %v, want exit status 4 (the debate stopped by the store)", err)
	}
	s := openAt(t, path)
	recs, err := s.Records(ctx, "limited")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) == 0 || len(recs) >= len(wantLog) {
		t.Fatalf("%d records stored under the limit, want some but not all %d", len(recs), len(wantLog))
	}
	got, err := playPodcast(ctx, s, "limited", true)
	if err != nil {
		t.Fatalf("resuming without the limit: %v", err)
	}
	if diff := cmp.Diff(said(want.Transcript), said(got.Transcript)); diff != "" {
		t.Fatalf("the transcript differs from an uninterrupted run (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantLog, logOf(t, s, "limited")); diff != "" {
		t.Fatalf("the log differs from an uninterrupted run (-want +got):\n%s", diff)
	}
	t.Logf("%d of %d records written under the limit; resumed to the uninterrupted run", len(recs), len(wantLog))
}

// playLimited is the child of TestFileSizeLimit: it plays a debate with
// files limited to SQLITESTORE_FSIZE bytes and exits 4 when the store
// stops it with an error naming the file, printing the error.
func playLimited(ctx context.Context, st *Store) int {
	n, _ := strconv.ParseUint(os.Getenv("SQLITESTORE_FSIZE"), 10, 64)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	_, err := playPodcast(ctx, st, os.Getenv("SQLITESTORE_ID"), false)
	if err == nil {
		return 0
	}
	fmt.Fprintln(os.Stderr, err)
	if strings.Contains(err.Error(), st.Path()) && strings.Contains(err.Error(), "a full disk, a file size limit") {
		return 4
	}
	return 1
}

// fileState is what a test compares to see that nothing wrote to a file:
// its bytes and its modification time.
type fileState struct {
	sum   [32]byte
	mtime int64
}

func stateOf(t *testing.T, path string) fileState {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fileState{sha256.Sum256(b), fi.ModTime().UnixNano()}
}

// makeSQLite creates a SQLite database at path with the statements.
func makeSQLite(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// A file that is not a duelogic store — random bytes, text, a directory,
// another application's SQLite database — is refused by Open with an
// error wrapping ErrForeign that names it, and nothing is written to it
// (nor beside it: no WAL, no lock directory).
func TestForeignFile(t *testing.T) {
	random := make([]byte, 8192)
	rand.Read(random)
	tests := []struct {
		name string
		make func(t *testing.T, path string)
		want string // in the error
	}{
		{"random bytes", func(t *testing.T, path string) { os.WriteFile(path, random, 0o600) }, "not a SQLite database"},
		{"text", func(t *testing.T, path string) { os.WriteFile(path, []byte("debates go here\n"), 0o600) }, "not a SQLite database"},
		{"SQLite header then random bytes", func(t *testing.T, path string) {
			os.WriteFile(path, append([]byte(sqliteMagic), random...), 0o600)
		}, "cannot be read"},
		{"another application's tables", func(t *testing.T, path string) {
			makeSQLite(t, path, `CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)`, `INSERT INTO users (name) VALUES ('ann')`)
		}, "another application (its tables: users)"},
		{"another application's id", func(t *testing.T, path string) {
			makeSQLite(t, path, `PRAGMA application_id = 1179468627`, `CREATE TABLE t (x)`)
		}, "application_id 0x464d4353"},
		{"another application's WAL database", func(t *testing.T, path string) {
			makeSQLite(t, path, `PRAGMA journal_mode = WAL`, `CREATE TABLE records (debate_id TEXT, seq INTEGER)`)
		}, "its tables: records"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "app.db")
			tt.make(t, path)
			before := stateOf(t, path)
			names := dirNames(t, dir)
			s, err := Open(t.Context(), path)
			if err == nil {
				s.Close()
				t.Fatal("Open took the file for a store")
			}
			t.Logf("refused: %v", err)
			if !errors.Is(err, ErrForeign) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Open: %v; want ErrForeign naming %s and saying %q", err, path, tt.want)
			}
			if stateOf(t, path) != before {
				t.Error("Open wrote to the file")
			}
			if got := dirNames(t, dir); !slices.Equal(got, names) {
				t.Errorf("Open left %v beside the file, want %v", got, names)
			}
		})
	}
	t.Run("directory", func(t *testing.T) {
		_, err := Open(t.Context(), t.TempDir())
		if !errors.Is(err, ErrForeign) {
			t.Errorf("Open of a directory: %v, want ErrForeign", err)
		}
	})
}

// dirNames lists dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// An empty SQLite database (no tables, no application) becomes a store.
func TestEmptySQLiteBecomesStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.db")
	makeSQLite(t, path, `PRAGMA user_version = 0`, `VACUUM`)
	s := openAt(t, path)
	if err := s.Append(t.Context(), store.Record{DebateID: "d", Seq: 1, Type: "t", Time: when, Data: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
}

// A store of a newer schema is refused, unchanged.
func TestNewerSchema(t *testing.T) {
	s := openTest(t)
	path := s.Path()
	if _, err := s.w.Exec(`PRAGMA user_version = 99`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	before := stateOf(t, path)
	_, err := Open(t.Context(), path)
	if err == nil || !strings.Contains(err.Error(), "version 99") || !strings.Contains(err.Error(), path) {
		t.Fatalf("Open of a newer store: %v, want an error naming the file and its version", err)
	}
	if stateOf(t, path) != before {
		t.Error("Open wrote to the file")
	}
}

// A store whose pages are damaged after its header: reading fails with an
// error wrapping store.ErrCorrupt that names the file, an append fails,
// and neither writes to the file.
func TestDamagedStore(t *testing.T) {
	s := openTest(t)
	path := s.Path()
	for seq := int64(1); seq <= 200; seq++ {
		r := store.Record{DebateID: "d", Seq: seq, Type: "t", Time: when, Data: []byte(`{"text":"` + strings.Repeat("words ", 50) + `"}`)}
		if err := s.Append(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	pages := pageCount(t, s)
	s.Close() // checkpoints the WAL into the file
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Page 1 (the header and the schema) stays; every other is garbage.
	junk := make([]byte, len(b)-4096)
	rand.Read(junk)
	copy(b[4096:], junk)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	before := stateOf(t, path)
	d, err := Open(t.Context(), path)
	if err != nil {
		// Open may find it already.
		if !strings.Contains(err.Error(), path) {
			t.Fatalf("Open of a damaged store: %v, want the file named", err)
		}
		t.Logf("refused at Open: %v", err)
	} else {
		_, err := d.Records(t.Context(), "d")
		if !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), path) {
			t.Errorf("Records of a damaged store: %v, want ErrCorrupt naming %s", err, path)
		}
		t.Logf("Records: %v", err)
		err = d.Append(t.Context(), store.Record{DebateID: "d", Seq: 201, Type: "t", Time: when, Data: []byte(`{}`)})
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("Append to a damaged store: %v, want an error naming %s", err, path)
		}
		t.Logf("Append: %v", err)
		d.Close()
	}
	if stateOf(t, path) != before {
		t.Error("the damaged file was written to")
	}
	t.Logf("%d pages, all but the first overwritten", pages)
}

// Hostile debate IDs: those the store cannot key (empty, too long, not
// UTF-8, NUL) are refused by Append, Lock with ErrInvalidID; any other is
// stored as it is, a parameter and never SQL, and names no file: the lock
// file is named by a hash.
func TestHostileIDs(t *testing.T) {
	s := openTest(t)
	ctx := t.Context()
	for _, id := range []string{"", strings.Repeat("a", MaxIDLen+1), "bad\xffutf8", "nul\x00byte"} {
		err := s.Append(ctx, store.Record{DebateID: id, Seq: 1, Type: "t", Time: when, Data: []byte(`{}`)})
		if !errors.Is(err, store.ErrInvalidID) {
			t.Errorf("Append to debate %q: %v, want ErrInvalidID", id, err)
		}
		if _, err := s.Lock(ctx, id); !errors.Is(err, store.ErrInvalidID) {
			t.Errorf("Lock of debate %q: %v, want ErrInvalidID", id, err)
		}
	}
	if ids, err := s.Debates(ctx); err != nil || len(ids) != 0 {
		t.Fatalf("after refused IDs: Debates = %q, %v; want none", ids, err)
	}
	dir := filepath.Dir(s.Path())
	before := dirNames(t, dir)
	hostile := []string{
		"'; DROP TABLE records; --",
		`Robert"); DELETE FROM records WHERE ("1"="1`,
		"../../../../etc/passwd",
		"/absolute/path",
		`C:\Windows\win.ini`,
		"line\nbreak\r\n",
		"%00%2e%2e",
		" ",
		"日本語の討論",
		strings.Repeat("z", MaxIDLen),
	}
	for _, id := range hostile {
		unlock, err := s.Lock(ctx, id)
		if err != nil {
			t.Fatalf("Lock(%q): %v", id, err)
		}
		rec := store.Record{DebateID: id, Seq: 1, Type: "t", Time: when, Data: []byte(`{"id":` + strconv.Quote(id) + `}`)}
		if err := s.Append(ctx, rec); err != nil {
			t.Fatalf("Append(%q): %v", id, err)
		}
		got, err := s.Records(ctx, id)
		if err != nil || len(got) != 1 || got[0].DebateID != id || !bytes.Equal(got[0].Data, rec.Data) {
			t.Fatalf("Records(%q) = %v, %v", id, got, err)
		}
		if err := unlock(); err != nil {
			t.Fatal(err)
		}
	}
	ids, err := s.Debates(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(hostile)
	slices.Sort(want)
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("Debates (-want +got):\n%s", diff)
	}
	wantNames := append(slices.Clone(before), "duelogic.db.locks")
	slices.Sort(wantNames)
	if got := dirNames(t, dir); !slices.Equal(got, wantNames) {
		t.Errorf("files beside the store: %v, want %v", got, wantNames)
	}
	if names := lockFiles(t, s); len(names) != 0 {
		t.Errorf("lock files left: %v", names)
	}
}
