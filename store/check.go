package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Errors returned by [Memory] and [JSONL] for input they refuse to store.
var (
	// ErrInvalidID means a debate ID is not usable as a file name: it must be
	// 1 to 128 bytes of ASCII letters, digits, '.', '_' and '-', not starting
	// with '.'.
	ErrInvalidID = errors.New("store: invalid debate ID")
	// ErrInvalidRecord means a record cannot be stored faithfully: its Type is
	// empty or not UTF-8, its Data is not valid UTF-8 JSON, or its Time is
	// outside the years 0 to 9999 or has a UTC offset of a day or more.
	ErrInvalidRecord = errors.New("store: invalid record")
)

// maxIDLen is the longest debate ID, in bytes.
const maxIDLen = 128

// checkID reports why id is not a valid debate ID, wrapping ErrInvalidID.
func checkID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("%w: empty", ErrInvalidID)
	case len(id) > maxIDLen:
		return fmt.Errorf("%w %.20q...: longer than %d bytes", ErrInvalidID, id, maxIDLen)
	case id[0] == '.':
		return fmt.Errorf("%w %q: starts with '.'", ErrInvalidID, id)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf("%w %q: byte %#02x at %d is not a letter, digit, '.', '_' or '-'", ErrInvalidID, id, c, i)
		}
	}
	return nil
}

// checkRecord reports why rec cannot be appended before its Seq is compared
// with the log: an invalid ID, or what [CheckRecord] finds.
func checkRecord(rec Record) error {
	if err := checkID(rec.DebateID); err != nil {
		return err
	}
	return CheckRecord(rec)
}

// CheckRecord reports why no Store keeps rec, whatever its rules for debate
// IDs: a Seq below 1 (wrapping [ErrConflict]), or a Type that is empty or
// not UTF-8, Data that is not UTF-8 JSON, or a Time that RFC 3339 cannot
// carry (years outside 0..9999, an offset of a day or more), each wrapping
// [ErrInvalidRecord]. Memory and JSONL refuse exactly these; a Store
// written elsewhere calls it to refuse the same records.
func CheckRecord(rec Record) error {
	if rec.Seq < 1 {
		return fmt.Errorf("%w: debate %q: seq %d, want 1 or more", ErrConflict, rec.DebateID, rec.Seq)
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: debate %q seq %d: %s", ErrInvalidRecord, rec.DebateID, rec.Seq, fmt.Sprintf(format, args...))
	}
	switch {
	case rec.Type == "":
		return bad("empty type")
	case !utf8.ValidString(rec.Type):
		return bad("type %q is not valid UTF-8", rec.Type)
	case len(rec.Data) == 0:
		return bad("empty data (want a JSON value, e.g. null)")
	case !json.Valid(rec.Data):
		return bad("data is not valid JSON")
	case !utf8.Valid(rec.Data):
		return bad("data is not valid UTF-8")
	}
	// What RFC 3339, and so JSON, can carry.
	if y := rec.Time.Year(); y < 0 || y > 9999 {
		return bad("time %v: year outside 0..9999", rec.Time)
	}
	if _, off := rec.Time.Zone(); off <= -24*60*60 || off >= 24*60*60 {
		return bad("time %v: UTC offset of 24 hours or more", rec.Time)
	}
	return nil
}
