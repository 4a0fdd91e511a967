package sqlitestore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/sqlproj"
)

// Lock takes the debate's lock (see store.Locker). SQLite has no advisory
// locks, so the lock is a file's: an exclusive flock(2) on
// <database>.locks/<hash of the ID>.lock, taken without waiting. The
// kernel holds a flock for the open file, not for the process, so it
// excludes every other Lock of the debate — in another process of the
// machine, another Store on the file, or this one — and it frees the lock
// the moment its holder's process dies, however it dies (kill -9
// included). unlock removes the lock file, while still holding it, and
// closes it.
//
// A process that dies holding a lock leaves its lock file behind, empty
// of any lock: the next Lock of the debate takes it at once and removes it
// when it unlocks. The file says which process held it and which debate
// it is (pid and ID, for a person looking), and nothing reads it.
//
// Lock does not wait: when the debate's lock is held it returns an error
// wrapping store.ErrLocked. Files are created with mode 0600 and the
// directory with 0700: the processes sharing a store run as one user.
// Like SQLite's WAL mode, the lock works for the processes of one machine,
// not across a network file system. On systems without flock(2) it
// excludes the Locks of this process only.
func (s *Store) Lock(ctx context.Context, debateID string) (unlock func() error, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := sqlproj.CheckID(debateID); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(s.locks, 0o700); err != nil {
		return nil, fmt.Errorf("sqlitestore: lock debate %q: %w", debateID, err)
	}
	name := lockName(s.locks, debateID)
	// The holder before us may remove the file between our open and our
	// flock: then we hold a file no one else will open, and try again.
	for range 100 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("sqlitestore: lock debate %q: %w", debateID, err)
		}
		ok, err := tryLock(f)
		if err != nil || !ok {
			f.Close()
			if err != nil {
				return nil, fmt.Errorf("sqlitestore: lock debate %q: %w", debateID, err)
			}
			return nil, fmt.Errorf("%w: debate %q: by another process, or another Lock of this one (%s)", store.ErrLocked, debateID, name)
		}
		if !current(f, name) {
			release(f, "")
			continue
		}
		f.Truncate(0)
		fmt.Fprintf(f, "pid %d\ndebate %q\n", os.Getpid(), debateID)
		var once sync.Once
		return func() error {
			var err error
			once.Do(func() {
				err = release(f, name)
				if err != nil {
					err = fmt.Errorf("sqlitestore: unlock debate %q: %w", debateID, err)
				}
			})
			return err
		}, nil
	}
	return nil, fmt.Errorf("sqlitestore: lock debate %q: %s keeps being replaced", debateID, name)
}

// lockName is the lock file of a debate in dir: a hash of the ID, which
// may hold any character, names it.
func lockName(dir, debateID string) string {
	h := sha256.Sum256([]byte(debateID))
	return filepath.Join(dir, hex.EncodeToString(h[:16])+".lock")
}

// current reports whether f, just locked, is still the file at name: not
// removed by the holder we waited on, who removes it before it unlocks.
func current(f *os.File, name string) bool {
	held, err := f.Stat()
	if err != nil {
		return false
	}
	now, err := os.Stat(name)
	return err == nil && os.SameFile(held, now)
}
