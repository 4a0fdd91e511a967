package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// panicky panics in Play, after its first turn.
type panicky struct{ toy }

func (p *panicky) Play(ctx context.Context, s *engine.Session) (int, error) {
	if _, err := s.Record(ctx, "first", engine.Utterance{Speaker: "pro", Segment: "rounds", Kind: engine.KindResponse, Content: "hi"}); err != nil {
		return 0, err
	}
	panic("boom")
}

func openJSONL(t *testing.T, dir string) *store.JSONL {
	t.Helper()
	s, err := store.OpenJSONL(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Run and Resume take the debate's lock when the store is a store.Locker:
// a lock held elsewhere (another JSONL on the directory stands for another
// process) stops them with ErrLocked; they release it when they return.
func TestRunTakesTheStoreLock(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	mine, other := openJSONL(t, dir), openJSONL(t, dir)
	d := engine.Debate{ID: "locked", Proposition: "Locks work."}

	unlock, err := other.Lock(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	_, err = engine.Run(ctx, llm.NewStub(1), &toy{Rounds: 1}, d, engine.WithStore(mine))
	if !errors.Is(err, store.ErrLocked) {
		t.Fatalf("Run of a debate locked elsewhere: got error %v, want store.ErrLocked", err)
	}
	if _, err := mine.Records(ctx, d.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Run refused by the lock stored something: %v", err)
	}
	unlock()

	if _, err := engine.Run(ctx, llm.NewStub(1), &toy{Rounds: 1}, d, engine.WithStore(mine)); err != nil {
		t.Fatal(err)
	}
	// Released on return.
	unlock, err = other.Lock(ctx, d.ID)
	if err != nil {
		t.Fatalf("Lock after Run returned: %v", err)
	}
	if _, err := engine.Resume(ctx, llm.NewStub(1), &toy{}, d.ID, engine.WithStore(mine)); !errors.Is(err, store.ErrLocked) {
		t.Fatalf("Resume of a debate locked elsewhere: got error %v, want store.ErrLocked", err)
	}
	unlock()
	if _, err := engine.Resume(ctx, llm.NewStub(1), &toy{}, d.ID, engine.WithStore(mine)); err != nil {
		t.Fatal(err)
	}
	if unlock, err = other.Lock(ctx, d.ID); err != nil {
		t.Fatalf("Lock after Resume returned: %v", err)
	}
	unlock()
}

// The lock is released when Play panics, too.
func TestRunReleasesTheLockOnPanic(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	mine, other := openJSONL(t, dir), openJSONL(t, dir)
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("Run did not panic")
			}
		}()
		engine.Run(ctx, llm.NewStub(1), &panicky{toy{Rounds: 1}}, engine.Debate{ID: "p", Proposition: "x"}, engine.WithStore(mine))
	}()
	unlock, err := other.Lock(ctx, "p")
	if err != nil {
		t.Fatalf("Lock after Run panicked: %v", err)
	}
	unlock()
}
