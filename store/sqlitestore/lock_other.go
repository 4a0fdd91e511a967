//go:build !(darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd)

package sqlitestore

import (
	"errors"
	"os"
	"sync"
)

// held is the lock files this process holds, on a system without
// flock(2): Lock excludes the Locks of this process only.
var held sync.Map

// tryLock takes f's name in this process's table of locks if it is free.
func tryLock(f *os.File) (bool, error) {
	_, taken := held.LoadOrStore(f.Name(), true)
	return !taken, nil
}

// release frees what tryLock took, closes f and removes the file at name
// (when name is not ""; Windows cannot remove an open file).
func release(f *os.File, name string) error {
	held.Delete(f.Name())
	err := f.Close()
	if name != "" {
		if rerr := os.Remove(name); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
			err = rerr
		}
	}
	return err
}
