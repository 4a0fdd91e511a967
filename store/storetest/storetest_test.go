package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/duelogic/duelogic/store"
)

// toy is a small Store with switchable bugs, to show that each rule of the
// suite catches what it is about.
type toy struct {
	bug  string
	mu   sync.Mutex
	logs map[string][]store.Record
	all  int64 // records in all debates, for the "sharedSeq" bug
}

func (s *toy) Append(ctx context.Context, rec store.Record) error {
	if err := ctx.Err(); err != nil && s.bug != "ignoreCtx" {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.logs == nil {
		s.logs = make(map[string][]store.Record)
	}
	log := s.logs[rec.DebateID]
	want := int64(len(log)) + 1
	if s.bug == "sharedSeq" {
		want = s.all + 1
	}
	switch {
	case s.bug == "acceptAnySeq":
	case s.bug == "storeOnConflict" && rec.Seq != want:
		s.logs[rec.DebateID] = append(log, rec)
		return fmt.Errorf("%w: seq %d", store.ErrConflict, rec.Seq)
	case rec.Seq != want:
		return fmt.Errorf("%w: seq %d", store.ErrConflict, rec.Seq)
	case s.bug == "dropAfter5" && rec.Seq > 5:
		return nil
	}
	if s.bug != "alias" {
		rec.Data = bytes.Clone(rec.Data)
	}
	if s.bug == "truncateTime" {
		rec.Time = rec.Time.Truncate(time.Microsecond)
	}
	s.logs[rec.DebateID] = append(log, rec)
	s.all++
	return nil
}

func (s *toy) Records(ctx context.Context, id string) ([]store.Record, error) {
	if err := ctx.Err(); err != nil && s.bug != "ignoreCtx" {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	log := s.logs[id]
	if len(log) == 0 {
		if s.bug == "notFoundNil" {
			return nil, nil
		}
		return nil, fmt.Errorf("%w: %s", store.ErrNotFound, id)
	}
	if s.bug == "alias" {
		return log, nil
	}
	recs := slices.Clone(log)
	for i := range recs {
		recs[i].Data = bytes.Clone(recs[i].Data)
		if s.bug == "compactData" {
			var b bytes.Buffer
			if json.Compact(&b, recs[i].Data) == nil {
				recs[i].Data = b.Bytes()
			}
		}
	}
	return recs, nil
}

func (s *toy) Debates(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil && s.bug != "ignoreCtx" {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bug == "unsorted" {
		ids := slices.Sorted(maps.Keys(s.logs))
		slices.Reverse(ids)
		return ids, nil
	}
	return slices.Sorted(maps.Keys(s.logs)), nil
}

func TestRunCorrectToy(t *testing.T) {
	Run(t, func(*testing.T) store.Store { return &toy{} })
}

func TestRulesCatchBugs(t *testing.T) {
	tests := []struct {
		bug  string
		fail []string // rules that must report it
	}{
		{"acceptAnySeq", []string{"Conflict", "ConcurrentSameSeq"}},
		{"storeOnConflict", []string{"Conflict"}},
		{"notFoundNil", []string{"NotFound", "Conflict"}},
		{"compactData", []string{"RoundTrip"}},
		{"truncateTime", []string{"RoundTrip"}},
		{"sharedSeq", []string{"PerDebate", "DebatesSorted", "ConcurrentDebates"}},
		{"unsorted", []string{"DebatesSorted", "ConcurrentDebates"}},
		{"dropAfter5", []string{"ConcurrentDebates"}},
		{"alias", []string{"NoAliasing"}},
		{"ignoreCtx", []string{"Canceled"}},
	}
	byName := make(map[string]func(context.Context, store.Store) error)
	for _, r := range rules {
		byName[r.name] = r.check
	}
	for _, tc := range tests {
		for _, name := range tc.fail {
			t.Run(tc.bug+"/"+name, func(t *testing.T) {
				check := byName[name]
				if check == nil {
					t.Fatalf("no rule %q", name)
				}
				err := check(t.Context(), &toy{bug: tc.bug})
				if err == nil {
					t.Fatalf("rule %s passed a store with bug %s", name, tc.bug)
				}
				t.Logf("reported: %v", err)
			})
		}
	}
}

func TestFailAfter(t *testing.T) {
	ctx := context.Background()
	mem := store.NewMemory()
	boom := errors.New("disk full")
	s := FailAfter(mem, 2, boom)
	for seq := int64(1); seq <= 3; seq++ {
		err := s.Append(ctx, store.Record{DebateID: "d", Seq: seq, Time: time.Unix(seq, 0), Type: "t", Data: []byte(`{}`)})
		if (seq <= 2) != (err == nil) || seq == 3 && !errors.Is(err, boom) {
			t.Errorf("Append %d = %v", seq, err)
		}
	}
	recs, err := s.Records(ctx, "d")
	if err != nil || len(recs) != 2 {
		t.Errorf("Records = %d records, %v; want the 2 stored", len(recs), err)
	}
}

// lockToy is a toy store that is also a store.Locker, with switchable bugs.
type lockToy struct {
	toy
	lockBug string
	lmu     sync.Mutex
	held    map[string]bool
}

func (l *lockToy) Lock(ctx context.Context, id string) (func() error, error) {
	if err := ctx.Err(); err != nil && l.lockBug != "ignoreCtx" {
		return nil, err
	}
	l.lmu.Lock()
	defer l.lmu.Unlock()
	if l.held == nil {
		l.held = make(map[string]bool)
	}
	key := id
	if l.lockBug == "global" {
		key = ""
	}
	if l.held[key] && l.lockBug != "reentrant" {
		return nil, fmt.Errorf("%w: %s", store.ErrLocked, id)
	}
	l.held[key] = true
	return func() error {
		l.lmu.Lock()
		defer l.lmu.Unlock()
		if l.lockBug != "stuck" {
			delete(l.held, key)
		}
		return nil
	}, nil
}

func TestRunCorrectLockToy(t *testing.T) {
	Run(t, func(*testing.T) store.Store { return &lockToy{} })
}

func TestLockRulesCatchBugs(t *testing.T) {
	tests := []struct {
		bug  string
		fail []string
	}{
		{"reentrant", []string{"LockExcludes", "LockConcurrent"}},
		{"global", []string{"LockPerDebate"}},
		{"stuck", []string{"LockExcludes"}},
		{"ignoreCtx", []string{"LockCanceled"}},
	}
	byName := make(map[string]func(context.Context, store.Locker) error)
	for _, r := range lockRules {
		byName[r.name] = r.check
	}
	for _, tc := range tests {
		for _, name := range tc.fail {
			t.Run(tc.bug+"/"+name, func(t *testing.T) {
				check := byName[name]
				if check == nil {
					t.Fatalf("no rule %q", name)
				}
				if err := check(t.Context(), &lockToy{lockBug: tc.bug}); err == nil {
					t.Fatalf("rule %s passed a locker with bug %s", name, tc.bug)
				} else {
					t.Logf("reported: %v", err)
				}
			})
		}
	}
}
