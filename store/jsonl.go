package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// JSONL is a [Store] that keeps each debate's log in its own file of JSON
// lines, <dir>/<debateID>.jsonl, one record per line:
//
//	{"debateId":"d1","seq":1,"time":"2025-06-01T12:00:00.5+02:00","type":"debate","data":{"topic":"x"}}
//
// It is safe for concurrent use, and several processes (or several JSONL
// values) may share a directory: Append locks the debate's file (flock(2),
// exclusive), reads the last Seq from the file's end, writes the line with one
// write call on a file opened with O_APPEND, fsyncs it (and the directory, for
// a debate's first record), and only then unlocks and returns. Records takes
// the same lock, so it never sees half a record. A JSONL remembers the last Seq
// of each debate it has seen and trusts it only while the file's identity, size
// and modification time are unchanged, so a record appended by another process
// is always noticed. On systems without flock (Windows, Solaris, AIX, Plan 9,
// js, wasip1) JSONL serializes its own callers only, and a directory must not
// be shared by two JSONL values.
//
// JSONL is a [Locker]: [JSONL.Lock] takes a debate's lock, a flock on a file
// of its own, so that of several processes sharing the directory only one
// plays a debate at a time.
//
// A crash in the middle of an Append can leave a torn last line: one without
// its newline, or one that is not a record. The next Append or Records of that
// debate cuts it off (and logs a warning to Logger). A record that was
// acknowledged is never cut: it was fsynced before Append returned. A bad line
// anywhere else means the file was damaged; Records reports it as an error
// naming the file and the line.
//
// Debate IDs must be valid file names (see [ErrInvalidID]); IDs that differ
// only in case name the same file on case-insensitive file systems, where
// using both is reported as an error. Files are created with mode 0600, and
// the directory, if OpenJSONL creates it, with mode 0700.
//
// Data is written verbatim after "data": when it is a single line without
// leading or trailing white space, as a JSON encoder writes it; any other Data
// is kept as a JSON string under "dataText", so Records always returns Data
// byte for byte. Time is written in RFC 3339 with nanoseconds and its UTC
// offset (converted to UTC if the offset has seconds, which RFC 3339 cannot
// express), so Records returns the same instant (time.Time.Equal) in a fixed
// zone or time.Local.
type JSONL struct {
	// Logger, if not nil, receives a warning each time a torn last line is
	// cut off. Set it before using the store.
	Logger *slog.Logger

	dir  string
	root *os.Root

	mu      sync.Mutex
	closed  bool
	debates map[string]*debateFile
	locked  map[string]bool // debates locked by Lock in this JSONL
}

// debateFile is what a JSONL knows of one debate's file.
type debateFile struct {
	// sem holds a token while a goroutine of this process uses the file; it
	// guards info and last.
	sem chan struct{}
	// info is the file as it was when its last Seq was last; nil: unknown.
	info os.FileInfo
	last int64
}

var _ Locker = (*JSONL)(nil)

// OpenJSONL returns a store keeping its files in dir, which it creates (with
// mode 0700) if it does not exist. Call Close when done.
func OpenJSONL(dir string) (*JSONL, error) {
	if dir == "" {
		return nil, errors.New("store: open JSONL store: empty directory name")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("store: open JSONL store: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("store: open JSONL store: %w", err)
	}
	return &JSONL{dir: dir, root: root, debates: make(map[string]*debateFile), locked: make(map[string]bool)}, nil
}

// Close releases the directory. Later calls of the store's methods return an
// error wrapping [fs.ErrClosed]; calling Close again does nothing.
func (s *JSONL) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if err := s.root.Close(); err != nil {
		return fmt.Errorf("store: close %s: %w", s.dir, err)
	}
	return nil
}

// Append writes rec as the last line of its debate's file and fsyncs it, if
// rec.Seq is the debate's last Seq + 1; otherwise it returns an error wrapping
// [ErrConflict]. It returns an error wrapping [ErrInvalidID] or
// [ErrInvalidRecord] for a record it would not store faithfully. If writing or
// syncing fails, Append cuts the file back to where it was.
func (s *JSONL) Append(ctx context.Context, rec Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkRecord(rec); err != nil {
		return err
	}
	line, err := encodeLine(rec)
	if err != nil {
		return err
	}
	// Only a debate's first record creates its file.
	err = s.use(ctx, rec.DebateID, rec.Seq == 1, func(f *os.File, d *debateFile) error {
		last, size, err := s.tail(ctx, f, d, rec.DebateID)
		if err != nil {
			return err
		}
		if rec.Seq != last+1 {
			return fmt.Errorf("%w: debate %q: seq %d, want %d", ErrConflict, rec.DebateID, rec.Seq, last+1)
		}
		d.info = nil // until the write is known to be complete
		// Under 1 GiB, (*os.File).Write is a single write(2).
		if _, err := f.Write(line); err != nil {
			return s.undo(f, size, fmt.Errorf("store: append to %s: %w", s.path(rec.DebateID), err))
		}
		if err := f.Sync(); err != nil {
			return s.undo(f, size, fmt.Errorf("store: sync %s: %w", s.path(rec.DebateID), err))
		}
		if size == 0 {
			// The file may be new: make its directory entry durable too.
			if err := syncDir(s.root); err != nil {
				return s.undo(f, size, fmt.Errorf("store: sync %s: %w", s.dir, err))
			}
		}
		if fi, err := f.Stat(); err == nil {
			d.info, d.last = fi, rec.Seq
		}
		return nil
	})
	if errors.Is(err, ErrNotFound) {
		return fmt.Errorf("%w: debate %q: seq %d, want 1", ErrConflict, rec.DebateID, rec.Seq)
	}
	return err
}

// Records reads the debate's file. It returns an error wrapping [ErrNotFound]
// when the file does not exist or holds no record, and an error naming the
// file and line when a line other than the last is not the expected record.
func (s *JSONL) Records(ctx context.Context, debateID string) ([]Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkID(debateID); err != nil {
		return nil, err
	}
	var recs []Record
	err := s.use(ctx, debateID, false, func(f *os.File, d *debateFile) error {
		_, size, err := s.tail(ctx, f, d, debateID)
		if err != nil {
			return err
		}
		buf := make([]byte, size)
		if _, err := f.ReadAt(buf, 0); err != nil {
			return fmt.Errorf("store: read %s: %w", s.path(debateID), err)
		}
		for n := 1; len(buf) > 0; n++ {
			i := bytes.IndexByte(buf, '\n')
			if i < 0 { // tail made sure the last line ends in one
				return fmt.Errorf("store: %s:%d: no newline", s.path(debateID), n)
			}
			rec, err := decodeLine(buf[:i])
			if err == nil && (rec.DebateID != debateID || rec.Seq != int64(n)) {
				err = fmt.Errorf("record of debate %q seq %d, want debate %q seq %d", rec.DebateID, rec.Seq, debateID, n)
			}
			if err != nil {
				return fmt.Errorf("store: %s:%d: %w", s.path(debateID), n, err)
			}
			recs = append(recs, rec)
			buf = buf[i+1:]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%w: debate %q", ErrNotFound, debateID)
	}
	return recs, nil
}

// Lock takes the lock of a debate, for a process that is about to play it
// (see [Locker]): an exclusive flock(2) on the file <dir>/<debateID>.lock,
// which it creates and leaves in place. It does not wait: when the lock is
// held, by another process or another Lock of this JSONL, it returns an
// error wrapping [ErrLocked]. The operating system frees the lock of a
// process that dies. On systems without flock, the lock only excludes the
// other Lock calls of this JSONL.
func (s *JSONL) Lock(ctx context.Context, debateID string) (unlock func() error, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkID(debateID); err != nil {
		return nil, err
	}
	name := debateID + ".lock"
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("store: %s: %w", s.dir, fs.ErrClosed)
	}
	if s.locked[debateID] {
		return nil, fmt.Errorf("%w: debate %q: by this process", ErrLocked, debateID)
	}
	f, err := s.root.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("store: lock debate %q: %w", debateID, err)
	}
	ok, err := tryLockFile(f)
	if err != nil || !ok {
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("store: lock %s: %w", filepath.Join(s.dir, name), err)
		}
		return nil, fmt.Errorf("%w: debate %q: by another process (%s)", ErrLocked, debateID, filepath.Join(s.dir, name))
	}
	s.locked[debateID] = true
	var once sync.Once
	return func() error {
		var err error
		once.Do(func() {
			err = unlockFile(f)
			if cerr := f.Close(); err == nil {
				err = cerr // closing frees the lock even when unlocking failed
			}
			s.mu.Lock()
			delete(s.locked, debateID)
			s.mu.Unlock()
			if err != nil {
				err = fmt.Errorf("store: unlock %s: %w", filepath.Join(s.dir, name), err)
			}
		})
		return err
	}, nil
}

// Debates returns, sorted, the IDs of the debates whose files in the
// directory hold at least one complete line. Files whose names are not a valid
// debate ID followed by ".jsonl" are ignored.
func (s *JSONL) Debates(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	entries, err := fs.ReadDir(s.root.FS(), ".")
	if err != nil {
		return nil, fmt.Errorf("store: list %s: %w", s.dir, err)
	}
	var ids []string
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || !e.Type().IsRegular() || checkID(id) != nil {
			continue
		}
		has, err := s.hasLine(e.Name())
		if err != nil {
			return nil, err
		}
		if has {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids) // ReadDir sorts by name, but "a.jsonl" > "a-b.jsonl" while "a" < "a-b"
	return ids, nil
}

// hasLine reports whether the named file holds a newline: a record's end.
func (s *JSONL) hasLine(name string) (bool, error) {
	f, err := s.root.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil // removed since listed
	}
	if err != nil {
		return false, fmt.Errorf("store: %w", err)
	}
	defer f.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := f.Read(buf)
		if bytes.IndexByte(buf[:n], '\n') >= 0 {
			return true, nil
		}
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("store: read %s: %w", filepath.Join(s.dir, name), err)
		}
	}
}

func (s *JSONL) path(id string) string { return filepath.Join(s.dir, id+".jsonl") }

func (s *JSONL) checkOpen() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("store: %s: %w", s.dir, fs.ErrClosed)
	}
	return nil
}

// use calls fn with the debate's file, opened for appending and locked against
// other goroutines and processes. Without create, a missing file is
// ErrNotFound.
func (s *JSONL) use(ctx context.Context, id string, create bool, fn func(*os.File, *debateFile) error) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return fmt.Errorf("store: %s: %w", s.dir, fs.ErrClosed)
	}
	d := s.debates[id]
	if d == nil {
		d = &debateFile{sem: make(chan struct{}, 1)}
		s.debates[id] = d
	}
	s.mu.Unlock()

	select {
	case d.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-d.sem }()
	if err := ctx.Err(); err != nil {
		return err
	}

	flag := os.O_RDWR | os.O_APPEND
	if create {
		flag |= os.O_CREATE
	}
	f, err := s.root.OpenFile(id+".jsonl", flag, 0o600)
	if err != nil {
		if !create && errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: debate %q", ErrNotFound, id)
		}
		return fmt.Errorf("store: %w", err)
	}
	defer f.Close()
	if err := lockFile(f); err != nil {
		return fmt.Errorf("store: lock %s: %w", s.path(id), err)
	}
	defer unlockFile(f)
	return fn(f, d)
}

// tail returns the last Seq in the locked file f and its size, first cutting
// off a torn last line. It trusts d while the file looks unchanged.
func (s *JSONL) tail(ctx context.Context, f *os.File, d *debateFile, id string) (last, size int64, err error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, 0, fmt.Errorf("store: %w", err)
	}
	if old := d.info; old != nil && os.SameFile(old, fi) && old.Size() == fi.Size() && old.ModTime().Equal(fi.ModTime()) {
		return d.last, fi.Size(), nil
	}
	d.info = nil
	last, cut, err := scanTail(f, fi.Size(), id)
	if err != nil {
		return 0, 0, fmt.Errorf("store: %s: %w", s.path(id), err)
	}
	if cut < fi.Size() {
		if s.Logger != nil {
			s.Logger.WarnContext(ctx, "store: cutting off torn last line", "file", s.path(id), "offset", cut, "bytes", fi.Size()-cut)
		}
		if err := f.Truncate(cut); err != nil {
			return 0, 0, fmt.Errorf("store: cut torn line off %s: %w", s.path(id), err)
		}
		if err := f.Sync(); err != nil {
			return 0, 0, fmt.Errorf("store: sync %s: %w", s.path(id), err)
		}
		if fi, err = f.Stat(); err != nil {
			return 0, 0, fmt.Errorf("store: %w", err)
		}
	}
	d.info, d.last = fi, last
	return last, cut, nil
}

// undo cuts f back to size after a failed append, and returns err.
func (s *JSONL) undo(f *os.File, size int64, err error) error {
	if terr := f.Truncate(size); terr != nil {
		return errors.Join(err, fmt.Errorf("store: cut back: %w", terr))
	}
	_ = f.Sync() // best effort: err is what the caller needs to know
	return err
}

// scanTail reads the end of a debate's file of the given size and returns the
// last record's Seq and the length of the file without a torn last line (size
// when there is none). At most one line is torn: every Append is fsynced
// before the next one starts.
func scanTail(f io.ReaderAt, size int64, id string) (last, keep int64, err error) {
	buf, off, err := readTail(f, size, 3)
	if err != nil {
		return 0, 0, err
	}
	// buf holds [off, size). Unless off is 0, it starts inside a line; with
	// three newlines it holds the last two lines and whatever follows them.
	start := 0 // of the lines in buf
	if off > 0 {
		start = bytes.IndexByte(buf, '\n') + 1
	}
	lines := buf[start:]
	keep = size
	torn := false
	if len(lines) > 0 && lines[len(lines)-1] != '\n' {
		// No newline: the last write did not finish.
		i := bytes.LastIndexByte(lines, '\n') + 1
		keep, lines, torn = off+int64(start+i), lines[:i], true
	}
	for len(lines) > 0 {
		i := bytes.LastIndexByte(lines[:len(lines)-1], '\n') + 1
		rec, err := decodeLine(lines[i : len(lines)-1])
		if err == nil {
			if rec.DebateID != id {
				return 0, 0, fmt.Errorf("last record is of debate %q, not %q", rec.DebateID, id)
			}
			return rec.Seq, keep, nil
		}
		if torn {
			// Two bad lines: not a crash during one Append.
			return 0, 0, fmt.Errorf("line before a torn last line: %w", err)
		}
		// A complete line that is not a record: the last write finished
		// its newline but not all its blocks before a crash.
		keep, lines, torn = off+int64(start+i), lines[:i], true
	}
	return 0, keep, nil // no record left
}

// readTail returns the bytes [off, size) of f, for the largest off at which
// they hold at least n newlines, or 0.
func readTail(f io.ReaderAt, size int64, n int) (buf []byte, off int64, err error) {
	for chunk := int64(16 << 10); ; chunk *= 2 {
		off = max(size-chunk, 0)
		buf = make([]byte, size-off)
		if _, err := f.ReadAt(buf, off); err != nil {
			return nil, 0, err
		}
		if off == 0 || bytes.Count(buf, []byte{'\n'}) >= n {
			return buf, off, nil
		}
	}
}

// lineHead is the part of a line before the data.
type lineHead struct {
	DebateID string    `json:"debateId"`
	Seq      int64     `json:"seq"`
	Time     time.Time `json:"time"`
	Type     string    `json:"type"`
}

// encodeLine returns rec as one line of JSON, newline included. rec has
// passed checkRecord.
func encodeLine(rec Record) ([]byte, error) {
	t := rec.Time
	if _, off := t.Zone(); off%60 != 0 {
		t = t.UTC() // RFC 3339 offsets are whole minutes
	}
	head, err := json.Marshal(lineHead{DebateID: rec.DebateID, Seq: rec.Seq, Time: t, Type: rec.Type})
	if err != nil {
		return nil, fmt.Errorf("%w: debate %q seq %d: %w", ErrInvalidRecord, rec.DebateID, rec.Seq, err)
	}
	line := head[:len(head)-1] // without '}'
	if verbatim(rec.Data) {
		line = append(line, `,"data":`...)
		line = append(line, rec.Data...)
	} else {
		text, err := json.Marshal(string(rec.Data))
		if err != nil {
			return nil, fmt.Errorf("%w: debate %q seq %d: %w", ErrInvalidRecord, rec.DebateID, rec.Seq, err)
		}
		line = append(line, `,"dataText":`...)
		line = append(line, text...)
	}
	return append(line, "}\n"...), nil
}

// verbatim reports whether JSON data can go into a line as it is and come
// back byte for byte: it has no line break, and no white space around it
// (which a decoder would drop).
func verbatim(data []byte) bool {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	return len(data) > 0 && !isSpace(data[0]) && !isSpace(data[len(data)-1]) &&
		!bytes.ContainsAny(data, "\n\r")
}

// decodeLine parses a line written by encodeLine, without its newline.
func decodeLine(line []byte) (Record, error) {
	var l struct {
		lineHead
		Data     json.RawMessage `json:"data"`
		DataText *string         `json:"dataText"`
	}
	if err := json.Unmarshal(line, &l); err != nil {
		return Record{}, err
	}
	rec := Record{DebateID: l.DebateID, Seq: l.Seq, Time: l.Time, Type: l.Type, Data: l.Data}
	switch {
	case l.Data != nil && l.DataText != nil:
		return Record{}, errors.New("both data and dataText")
	case l.DataText != nil:
		rec.Data = json.RawMessage(*l.DataText)
	}
	if err := checkRecord(rec); err != nil {
		return Record{}, err
	}
	return rec, nil
}
