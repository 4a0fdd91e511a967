//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

package sqlitestore

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive flock(2) on f if no one holds one, and reports
// whether it did.
func tryLock(f *os.File) (bool, error) {
	conn, err := f.SyscallConn()
	if err != nil {
		return false, err
	}
	var ferr error
	err = conn.Control(func(fd uintptr) {
		for {
			ferr = syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB)
			if ferr != syscall.EINTR {
				return
			}
		}
	})
	switch {
	case err != nil:
		return false, err
	case errors.Is(ferr, syscall.EWOULDBLOCK):
		return false, nil
	case ferr != nil:
		return false, &os.PathError{Op: "flock", Path: f.Name(), Err: ferr}
	}
	return true, nil
}

// release frees the lock tryLock took on f: it removes the file at name
// (when name is not ""), while still holding the lock, so that a process
// that opened it meanwhile sees it was replaced (see current), and closes
// f, which frees the flock.
func release(f *os.File, name string) error {
	var rerr error
	if name != "" {
		if rerr = os.Remove(name); errors.Is(rerr, os.ErrNotExist) {
			rerr = nil
		}
	}
	return errors.Join(rerr, f.Close())
}
