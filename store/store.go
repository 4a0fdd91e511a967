// Package store is duelogic's persistence: an append-only log of records per
// debate. The debate engine appends a record before it announces it, and rebuilds
// a debate from its records to resume it.
//
// Host applications may implement [Store] over their own database; the
// conformance suite in package storetest checks an implementation against every
// rule below. [Memory] and [JSONL] are the two implementations shipped here.
package store

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// Sentinel errors a [Store] returns; callers branch on them with errors.Is.
var (
	// ErrConflict means the appended record's Seq is not the debate's last Seq + 1.
	ErrConflict = errors.New("store: sequence conflict")
	// ErrNotFound means the store holds no record of the debate.
	ErrNotFound = errors.New("store: not found")
	// ErrLocked means a [Locker] holds the debate's lock for someone else:
	// another process, or another Lock call of this one.
	ErrLocked = errors.New("store: debate locked")
	// ErrCorrupt means the stored log of a debate is damaged: something
	// that was stored whole cannot be read back as the debate's records.
	// [JSONL] names the file and the line, and changes nothing: the log
	// needs repair by hand (or a backup).
	ErrCorrupt = errors.New("store: corrupt log")
)

// Record is one entry of a debate's log.
//
// A stored Record's Time is the same instant as the appended one
// ([time.Time.Equal]), not necessarily the same value (==): a store that
// serializes it keeps the instant and the UTC offset but not the Location's
// name or the monotonic clock reading.
type Record struct {
	DebateID string `json:"debateId"`
	// Seq is 1 for a debate's first record, then +1, with no gaps.
	Seq  int64     `json:"seq"`
	Time time.Time `json:"time"`
	// Type says what Data holds, e.g. "debate", "utterance", "evaluation".
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// Store is an append-only log of records, one sequence per debate.
//
// Implementations must be safe for concurrent use. Append is atomic: when it
// returns nil the record is durable to the degree the implementation promises
// and will be returned by Records exactly as given — DebateID, Seq and Type
// equal, Data byte for byte, and Time the same instant to the nanosecond as
// reported by [time.Time.Equal] (its Location and monotonic clock reading need
// not survive, so compare Times with Equal, not ==); when it returns an error
// nothing was stored. Of concurrent Appends of the same Seq to one debate,
// exactly one succeeds and the others return ErrConflict. A canceled ctx makes
// the methods return ctx's error.
//
// An implementation may reject a record it cannot store faithfully (a debate
// ID it cannot use as a key, Data that is not JSON) with an error of its own;
// [Memory] and [JSONL] return errors wrapping [ErrInvalidID] and
// [ErrInvalidRecord].
type Store interface {
	// Append stores rec. It returns an error wrapping ErrConflict unless
	// rec.Seq == last+1, where last is the Seq of the debate's last record
	// (0 for a debate with none).
	Append(ctx context.Context, rec Record) error
	// Records returns the debate's records in Seq order, or an error wrapping
	// ErrNotFound when there are none. An implementation that finds the
	// debate's stored log damaged returns an error wrapping ErrCorrupt.
	Records(ctx context.Context, debateID string) ([]Record, error)
	// Debates returns the IDs of the debates that have records, sorted.
	Debates(ctx context.Context) ([]string, error)
}

// Locker is implemented by a store that several processes may share: it
// lets one of them at a time play a debate. The engine's Run and Resume take
// the lock of the debate they play when their store is a Locker, and release
// it when they return.
//
// Lock does not wait: when the debate's lock is held — by another process,
// or by an earlier Lock of this one that was not unlocked — it returns an
// error wrapping ErrLocked. Otherwise it returns unlock, which releases the
// lock; calling unlock again does nothing. A lock whose holder dies (its
// process, its connection) is freed without an unlock. Holding a lock does
// not stop Append: the log's Seq check is what keeps two writers from
// interleaving; the lock keeps them from trying.
type Locker interface {
	Lock(ctx context.Context, debateID string) (unlock func() error, err error)
}
