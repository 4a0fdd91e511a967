package sqlproj

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/duelogic/duelogic/store"
)

// MaxIDLen is the longest debate ID, in bytes, the SQL stores keep.
const MaxIDLen = 256

// CheckID reports why id cannot be a debate ID in a SQL store: it must be
// 1 to [MaxIDLen] bytes of UTF-8 without NUL (a PostgreSQL text value
// cannot hold one), the same rule in every SQL store, so that a debate
// moves between them. Any other character, quotes and SQL and path
// separators included, is kept as it is: IDs go to the database as
// parameters, never as SQL text. The error wraps store.ErrInvalidID.
func CheckID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("%w: empty", store.ErrInvalidID)
	case len(id) > MaxIDLen:
		return fmt.Errorf("%w %.20q...: longer than %d bytes", store.ErrInvalidID, id, MaxIDLen)
	case !utf8.ValidString(id):
		return fmt.Errorf("%w %q: not valid UTF-8", store.ErrInvalidID, id)
	case strings.IndexByte(id, 0) >= 0:
		return fmt.Errorf("%w %q: holds a NUL byte", store.ErrInvalidID, id)
	}
	return nil
}

// CheckRecord reports why rec cannot be appended to a SQL store, before
// its Seq is compared with the log: an invalid ID ([CheckID]), what
// store.CheckRecord finds (the records store.JSONL refuses too), or a Type
// holding NUL, which a PostgreSQL text column cannot.
func CheckRecord(rec store.Record) error {
	if err := CheckID(rec.DebateID); err != nil {
		return err
	}
	if err := store.CheckRecord(rec); err != nil {
		return err
	}
	if strings.IndexByte(rec.Type, 0) >= 0 {
		return fmt.Errorf("%w: debate %q seq %d: type %q holds a NUL byte", store.ErrInvalidRecord, rec.DebateID, rec.Seq, rec.Type)
	}
	return nil
}

// EncodeTime writes a record's time as the SQL stores keep it: RFC 3339
// with nanoseconds and its offset (in UTC when the offset has seconds,
// which RFC 3339 cannot write), so that it reads back to the same instant
// and offset.
func EncodeTime(t time.Time) string {
	if _, off := t.Zone(); off%60 != 0 {
		t = t.UTC()
	}
	return t.Format(time.RFC3339Nano)
}

// FirstRecord is [DebateOf] of a debate's first record as a SQL store
// reads it back: its type, its stored time ([EncodeTime]) and its data.
func FirstRecord(debateID, typ, at, data string) (Debate, bool, error) {
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return Debate{}, false, fmt.Errorf("debate %q seq 1: stored time %q: %w", debateID, at, err)
	}
	d, ok := DebateOf(store.Record{DebateID: debateID, Seq: 1, Type: typ, Time: t, Data: []byte(data)})
	return d, ok, nil
}
