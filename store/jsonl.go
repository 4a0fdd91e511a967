package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
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
// a debate's first record), and only then unlocks and returns. Records opens
// the file read-only and takes a shared lock, so it never sees half a record
// being written. A JSONL remembers the last Seq of each debate it has seen
// and trusts it only while the file's identity, size and modification time
// are unchanged, so a record appended by another process is always noticed. On systems without flock (Windows, Solaris, AIX, Plan 9,
// js, wasip1) JSONL serializes its own callers only, and a directory must not
// be shared by two JSONL values.
//
// JSONL is a [Locker]: [JSONL.Lock] takes a debate's lock, a flock on a file
// of its own, so that of several processes sharing the directory only one
// plays a debate at a time.
//
// Reading never writes: Records and Debates leave every file byte for byte
// as it was. A record that was acknowledged is never cut or rewritten.
//
// A crash in the middle of an Append can leave a torn last line: bytes after
// the file's last newline. Append writes a line, its newline last, with one
// write call and returns only after fsync, so a line without its newline was
// never acknowledged. Records returns the records before a torn line and
// ignores it; Debates does not list a file whose only line is torn, and
// Records of it returns [ErrNotFound]. Only Append repairs: when it is about
// to write a debate's next record, it first cuts the torn line off (and logs
// a warning to Logger naming the file and the number of bytes cut). An
// Append refused with [ErrConflict] cuts nothing, and neither does Lock.
//
// A complete line, one that ends in its newline, is never cut: it may hold an
// acknowledged record. When a complete line, the last one included, is not
// the debate's next record (not JSON, a record of another debate, a Seq out
// of order), the file is damaged: Records returns an error wrapping
// [ErrCorrupt] that names the file and the line (1 is the first); Append,
// which reads only the file's end, returns one too when the damaged line is
// the last complete one; neither changes the file. Debates still lists a
// damaged debate, so that it can be inspected; it needs repair by hand.
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
	// Logger, if not nil, receives a warning each time Append cuts off a torn
	// last line, with the file and the number of bytes cut. Set it before
	// using the store.
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
		return nil, fmt.Errorf("store: open JSONL store %s: %w", dir, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("store: open JSONL store %s: %w", dir, err)
	}
	if err := probeWrite(root); err != nil {
		root.Close()
		return nil, fmt.Errorf("store: open JSONL store %s: the directory cannot be written: %w", dir, err)
	}
	return &JSONL{dir: dir, root: root, debates: make(map[string]*debateFile), locked: make(map[string]bool)}, nil
}

// probeWrite creates and removes a file in root: a directory a debate
// cannot be written to is an error of OpenJSONL, not of the first Append.
// The file's name starts with '.', which no debate ID does.
func probeWrite(root *os.Root) error {
	var b [8]byte
	rand.Read(b[:])
	name := ".probe-" + hex.EncodeToString(b[:])
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write([]byte("probe\n"))
	cerr := f.Close()
	rerr := root.Remove(name)
	return errors.Join(werr, cerr, rerr)
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
// [ErrInvalidRecord] for a record it would not store faithfully, and one
// wrapping [ErrCorrupt] when the file's last complete line is not a record of
// the debate. Before writing, it cuts off a torn last line (see [JSONL]). If
// writing or syncing fails, Append cuts the file back to where it was.
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
	mode := openAppend
	if rec.Seq == 1 {
		mode = openCreate
	}
	err = s.use(ctx, rec.DebateID, mode, func(f *os.File, d *debateFile) error {
		last, size, keep, err := s.tail(f, d, rec.DebateID)
		if err != nil {
			return err
		}
		if rec.Seq != last+1 {
			return fmt.Errorf("%w: debate %q: seq %d, want %d", ErrConflict, rec.DebateID, rec.Seq, last+1)
		}
		d.info = nil // until the write is known to be complete
		if keep < size {
			if err := s.cutTorn(ctx, f, rec.DebateID, size, keep); err != nil {
				return err
			}
			size = keep
		}
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

// Records reads the debate's file, without writing to it. It returns the
// records of its complete lines, ignoring a torn last line (see [JSONL]); an
// error wrapping [ErrNotFound] when the file does not exist or holds no
// complete line; and an error wrapping [ErrCorrupt], naming the file and the
// line, when a complete line is not the debate's next record.
func (s *JSONL) Records(ctx context.Context, debateID string) ([]Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkID(debateID); err != nil {
		return nil, err
	}
	var recs []Record
	err := s.use(ctx, debateID, openRead, func(f *os.File, d *debateFile) error {
		fi, err := f.Stat()
		if err != nil {
			return fmt.Errorf("store: %w", err)
		}
		buf := make([]byte, fi.Size())
		if _, err := f.ReadAt(buf, 0); err != nil {
			return fmt.Errorf("store: read %s: %w", s.path(debateID), err)
		}
		var torn int
		recs, torn, err = parseLog(buf, debateID)
		if err != nil {
			return s.corrupt(debateID, err)
		}
		if torn == 0 {
			// What Append would find; a torn line leaves d for it to see.
			d.info, d.last = fi, int64(len(recs))
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
// directory hold at least one complete line (one ending in a newline), even
// when that line is not a record: Records then reports the damage. A file
// holding only a torn line is not listed. Files whose names are not a valid
// debate ID followed by ".jsonl" are ignored. Debates reads, never writes.
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

// How use opens a debate's file.
type openMode int

const (
	openRead   openMode = iota // read-only, shared lock
	openAppend                 // for appending, exclusive lock
	openCreate                 // as openAppend, creating the file
)

// use calls fn with the debate's file, opened as mode says and locked
// against other goroutines of this JSONL and, with flock, against other
// processes: shared for reading, exclusive for appending. Unless mode is
// openCreate, a missing file is ErrNotFound.
func (s *JSONL) use(ctx context.Context, id string, mode openMode, fn func(*os.File, *debateFile) error) error {
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

	flag, lock := os.O_RDWR|os.O_APPEND, lockFile
	switch mode {
	case openRead:
		flag, lock = os.O_RDONLY, lockFileShared
	case openCreate:
		flag |= os.O_CREATE
	}
	f, err := s.root.OpenFile(id+".jsonl", flag, 0o600)
	if err != nil {
		if mode != openCreate && errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: debate %q", ErrNotFound, id)
		}
		return fmt.Errorf("store: %w", err)
	}
	defer f.Close()
	if err := lock(f); err != nil {
		return fmt.Errorf("store: lock %s: %w", s.path(id), err)
	}
	defer unlockFile(f)
	return fn(f, d)
}

// tail returns the last Seq in f, locked for appending, f's size, and keep:
// the size without a torn last line, which it does not cut. It trusts d
// while the file looks unchanged.
func (s *JSONL) tail(f *os.File, d *debateFile, id string) (last, size, keep int64, err error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, 0, 0, fmt.Errorf("store: %w", err)
	}
	size = fi.Size()
	if old := d.info; old != nil && os.SameFile(old, fi) && old.Size() == size && old.ModTime().Equal(fi.ModTime()) {
		return d.last, size, size, nil
	}
	d.info = nil
	last, keep, err = scanTail(f, size, id)
	if err != nil {
		return 0, 0, 0, s.corruptAt(f, id, err)
	}
	if keep == size { // d only ever describes a file without a torn line
		d.info, d.last = fi, last
	}
	return last, size, keep, nil
}

// cutTorn cuts the torn last line off f, locked for appending, from size
// bytes to keep, and logs a warning to Logger.
func (s *JSONL) cutTorn(ctx context.Context, f *os.File, id string, size, keep int64) error {
	if s.Logger != nil {
		s.Logger.WarnContext(ctx, "store: cutting off torn last line", "file", s.path(id), "offset", keep, "bytes", size-keep)
	}
	if err := f.Truncate(keep); err != nil {
		return fmt.Errorf("store: cut torn line off %s: %w", s.path(id), err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("store: sync %s: %w", s.path(id), err)
	}
	return nil
}

// undo cuts f back to size after a failed append, and returns err.
func (s *JSONL) undo(f *os.File, size int64, err error) error {
	if terr := f.Truncate(size); terr != nil {
		return errors.Join(err, fmt.Errorf("store: cut back: %w", terr))
	}
	_ = f.Sync() // best effort: err is what the caller needs to know
	return err
}

// lineError is a complete line of a debate's file that is not the record
// expected there.
type lineError struct {
	line int   // 1 for the first line; 0 when only off is known
	off  int64 // of the line's first byte
	err  error
}

func (e *lineError) Error() string { return e.err.Error() }

// corrupt turns err, a *lineError with its line set, into the error wrapping
// ErrCorrupt that names the file and the line; other errors it returns
// as they are.
func (s *JSONL) corrupt(id string, err error) error {
	var le *lineError
	if !errors.As(err, &le) {
		return err
	}
	return fmt.Errorf("%w: %s:%d: %w", ErrCorrupt, s.path(id), le.line, le.err)
}

// corruptAt is corrupt for an error of scanTail, whose line it counts in f.
func (s *JSONL) corruptAt(f io.ReaderAt, id string, err error) error {
	var le *lineError
	if !errors.As(err, &le) {
		return fmt.Errorf("store: read %s: %w", s.path(id), err)
	}
	n, cerr := countLines(f, le.off)
	if cerr != nil {
		return fmt.Errorf("%w: %s, the line at byte %d: %w", ErrCorrupt, s.path(id), le.off, le.err)
	}
	le.line = n + 1
	return s.corrupt(id, le)
}

// countLines returns the number of newlines in the first n bytes of f.
func countLines(f io.ReaderAt, n int64) (int, error) {
	lines := 0
	buf := make([]byte, 64<<10)
	for off := int64(0); off < n; {
		m, err := f.ReadAt(buf[:min(int64(len(buf)), n-off)], off)
		lines += bytes.Count(buf[:m], []byte{'\n'})
		off += int64(m)
		if err != nil && off < n {
			return 0, err
		}
	}
	return lines, nil
}

// parseLog decodes a debate's whole file: the records of its complete lines,
// and the length of the torn line after them (0 when buf ends in a newline).
// A complete line that is not record n of debate id, the nth line, is a
// *lineError.
func parseLog(buf []byte, id string) (recs []Record, torn int, err error) {
	var off int64
	for n := 1; ; n++ {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return recs, len(buf), nil
		}
		rec, err := decodeLine(buf[:i])
		if err == nil && (rec.DebateID != id || rec.Seq != int64(n)) {
			err = fmt.Errorf("record of debate %q seq %d, want debate %q seq %d", rec.DebateID, rec.Seq, id, n)
		}
		if err != nil {
			return nil, 0, &lineError{line: n, off: off, err: err}
		}
		recs = append(recs, rec)
		buf = buf[i+1:]
		off += int64(i + 1)
	}
}

// scanTail reads the end of a debate's file of the given size and returns the
// last record's Seq and keep, the length of the file without a torn last line
// (size when the file ends in a newline). It checks the last complete line
// only: when it is not a record of debate id, the error is a *lineError with
// its offset.
func scanTail(f io.ReaderAt, size int64, id string) (last, keep int64, err error) {
	if size == 0 {
		return 0, 0, nil
	}
	buf, off, err := readTail(f, size, 2)
	if err != nil {
		return 0, 0, err
	}
	// buf holds [off, size). Unless off is 0 it starts inside a line, and it
	// holds at least two newlines: the last complete line is whole.
	end := bytes.LastIndexByte(buf, '\n')
	if end < 0 {
		return 0, 0, nil // only a torn line, or nothing
	}
	keep = off + int64(end+1)
	start := bytes.LastIndexByte(buf[:end], '\n') + 1
	rec, err := decodeLine(buf[start:end])
	if err == nil && rec.DebateID != id {
		err = fmt.Errorf("record of debate %q, want debate %q", rec.DebateID, id)
	}
	if err != nil {
		return 0, 0, &lineError{off: off + int64(start), err: err}
	}
	return rec.Seq, keep, nil
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
