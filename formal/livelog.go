package formal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// liveLog is the seed's append-only debate-log.jsonl of a debate that
// writes its output directory (Config.OutputDir): every entry is appended
// as it is stored, as said — a struck entry stays as it was, and its
// redaction entry follows it — so a reader can follow the file (tail -f)
// as the debate goes. Nothing written is ever rewritten: a resumed debate
// finds the lines it wrote and appends after them.
type liveLog struct {
	path  string
	f     *os.File
	lines [][]byte // the lines in the file, each with its newline
}

// openLiveLog opens (creating it, and its directory, when missing) the
// log in dir and reads the lines it holds. A last line without its newline
// is the torn end of a write that did not finish: it is cut off, being no
// entry.
func openLiveLog(dir string) (*liveLog, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("formal: output directory: %w", err)
	}
	path := filepath.Join(dir, FileLog)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("formal: open %s: %w", path, err)
	}
	l := &liveLog{path: path, f: f}
	if err := l.load(); err != nil {
		f.Close()
		return nil, err
	}
	return l, nil
}

func (l *liveLog) load() error {
	if err := l.f.Chmod(0o644); err != nil {
		return fmt.Errorf("formal: open %s: %w", l.path, err)
	}
	b, err := io.ReadAll(l.f)
	if err != nil {
		return fmt.Errorf("formal: read %s: %w", l.path, err)
	}
	keep := bytes.LastIndexByte(b, '\n') + 1
	if keep < len(b) {
		if err := l.f.Truncate(int64(keep)); err != nil {
			return fmt.Errorf("formal: cut the torn end of %s: %w", l.path, err)
		}
	}
	if _, err := l.f.Seek(int64(keep), io.SeekStart); err != nil {
		return fmt.Errorf("formal: open %s: %w", l.path, err)
	}
	for b = b[:keep]; len(b) > 0; {
		i := bytes.IndexByte(b, '\n') + 1
		l.lines = append(l.lines, b[:i])
		b = b[i:]
	}
	return nil
}

// errForeignLog is returned by liveLog.append for a file whose line is
// not the entry replayed: the file is another debate's (a fork's original)
// or was written by an earlier version, which wrote the struck log.
var errForeignLog = errors.New("formal: the log file holds another debate's log")

// append writes e as the log's line e.Seq, unless the file holds it
// already (a resumed debate replays the entries it stored): then the line
// must be e's, or the error wraps errForeignLog.
func (l *liveLog) append(e Entry) error {
	line, err := logLine(e)
	if err != nil {
		return err
	}
	switch {
	case e.Seq < len(l.lines):
		if !bytes.Equal(l.lines[e.Seq], line) {
			return fmt.Errorf("%w: line %d of %s is not entry %d of this debate", errForeignLog, e.Seq+1, l.path, e.Seq)
		}
		return nil
	case e.Seq > len(l.lines):
		return fmt.Errorf("formal: %s holds %d lines; entry %d cannot follow them", l.path, len(l.lines), e.Seq)
	}
	if _, err := l.f.Write(line); err != nil {
		return fmt.Errorf("formal: append entry %d to %s: %w", e.Seq, l.path, err)
	}
	l.lines = append(l.lines, line)
	return nil
}

func (l *liveLog) close() error { return l.f.Close() }

// logLine is e as a line of the seed's JSONL log, as [ExportLog] writes it
// (without striking it).
func logLine(e Entry) ([]byte, error) {
	e.Timestamp = e.Timestamp.UTC()
	if len(e.Sources) == 0 {
		e.Sources = nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		return nil, fmt.Errorf("formal: log entry %d: %w", e.Seq, err)
	}
	return b.Bytes(), nil
}

// makeDir creates the output directory base, or base-2, base-3, ... the
// first that does not exist (0755, its parents made as needed), and
// returns it. Creating it claims the name: two debates starting at once on
// the same topic never share a directory.
func makeDir(base string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return "", fmt.Errorf("formal: output directory: %w", err)
	}
	for i := 1; i <= maxOutputSuffix; i++ {
		dir := base
		if i > 1 {
			dir = fmt.Sprintf("%s-%d", base, i)
		}
		err := os.Mkdir(dir, 0o755)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err == nil {
			err = os.Chmod(dir, 0o755)
		}
		if err != nil {
			return "", fmt.Errorf("formal: output directory: %w", err)
		}
		return dir, nil
	}
	return "", fmt.Errorf("%w: %s and %d more like it", ErrOutputExists, base, maxOutputSuffix-1)
}

// addDocuments writes files (names and contents) into the debate's own
// output directory dir, beside its log, each through a temporary file
// renamed to its name, so a file appears whole or not at all; it returns
// their paths. A file already there with the same content (a resumed
// debate that stopped after writing it) is left as it is; one with other
// content is never written over ([ErrOutputExists]).
func addDocuments(dir string, files [][2]string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("formal: output directory: %w", err)
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = filepath.Join(dir, f[0])
		old, err := os.ReadFile(paths[i])
		switch {
		case err == nil && string(old) == f[1]:
			continue
		case err == nil:
			return nil, fmt.Errorf("%w: %s holds another %s", ErrOutputExists, dir, f[0])
		case !errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("formal: write %s: %w", f[0], err)
		}
		if err := writeFileAtomic(dir, f[0], f[1]); err != nil {
			return nil, err
		}
	}
	return paths, nil
}

// writeFileAtomic writes content to dir/name (0644) through a temporary
// file in dir, renamed to name only when it does not exist.
func writeFileAtomic(dir, name, content string) error {
	tmp, err := os.CreateTemp(dir, ".formal-*")
	if err != nil {
		return fmt.Errorf("formal: write %s: %w", name, err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	_, err = tmp.WriteString(content)
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("formal: write %s: %w", name, err)
	}
	dst := filepath.Join(dir, name)
	if _, err := os.Lstat(dst); err == nil {
		return fmt.Errorf("%w: %s holds another %s", ErrOutputExists, dir, name)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return fmt.Errorf("formal: write %s: %w", name, err)
	}
	return nil
}
