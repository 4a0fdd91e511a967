package store

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
)

// Memory is a [Store] that keeps records in memory, for tests and for debates
// that need not outlive the process. It is safe for concurrent use. The zero
// value is an empty store ready to use.
//
// Memory copies Data on the way in and on the way out, so neither the caller of
// Append nor the caller of Records can change what is stored. It strips the
// monotonic clock reading from Time. It accepts the same debate IDs and records
// as [JSONL] (otherwise errors wrapping [ErrInvalidID] or [ErrInvalidRecord]),
// so a program tested with one runs unchanged with the other.
type Memory struct {
	mu   sync.RWMutex
	logs map[string][]Record // by debate ID; never an empty slice
}

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory { return &Memory{} }

// Append stores rec if rec.Seq is the debate's last Seq + 1, and otherwise
// returns an error wrapping [ErrConflict].
func (m *Memory) Append(ctx context.Context, rec Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkRecord(rec); err != nil {
		return err
	}
	rec.Time = rec.Time.Round(0)
	rec.Data = bytes.Clone(rec.Data)

	m.mu.Lock()
	defer m.mu.Unlock()
	log := m.logs[rec.DebateID]
	if want := int64(len(log)) + 1; rec.Seq != want {
		return fmt.Errorf("%w: debate %q: seq %d, want %d", ErrConflict, rec.DebateID, rec.Seq, want)
	}
	if m.logs == nil {
		m.logs = make(map[string][]Record)
	}
	m.logs[rec.DebateID] = append(log, rec)
	return nil
}

// Records returns copies of the debate's records in Seq order, or an error
// wrapping [ErrNotFound] when there are none.
func (m *Memory) Records(ctx context.Context, debateID string) ([]Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkID(debateID); err != nil {
		return nil, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	log := m.logs[debateID]
	if len(log) == 0 {
		return nil, fmt.Errorf("%w: debate %q", ErrNotFound, debateID)
	}
	recs := slices.Clone(log)
	for i := range recs {
		recs[i].Data = bytes.Clone(recs[i].Data)
	}
	return recs, nil
}

// Debates returns the IDs of the debates that have records, sorted.
func (m *Memory) Debates(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return slices.Sorted(maps.Keys(m.logs)), nil
}

var (
	_ Store = (*Memory)(nil)
	_ Store = (*JSONL)(nil)
)
