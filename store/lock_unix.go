//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

package store

import (
	"os"
	"syscall"
)

// hasFileLock reports whether lockFile locks against other processes.
const hasFileLock = true

// lockFile takes an exclusive flock(2) on f, waiting for it as long as it
// takes. The lock belongs to f's open file description, so it also excludes
// another open of the same file in this process.
func lockFile(f *os.File) error {
	return flock(f, syscall.LOCK_EX)
}

// lockFileShared takes a shared flock(2) on f, for reading, waiting for it
// as long as it takes: it excludes lockFile, not other readers.
func lockFileShared(f *os.File) error {
	return flock(f, syscall.LOCK_SH)
}

// tryLockFile takes an exclusive flock(2) on f if no one holds one, and
// reports whether it did.
func tryLockFile(f *os.File) (bool, error) {
	err := flock(f, syscall.LOCK_EX|syscall.LOCK_NB)
	if pe, ok := err.(*os.PathError); ok && pe.Err == syscall.EWOULDBLOCK {
		return false, nil
	}
	return err == nil, err
}

// unlockFile releases the lock lockFile took. Closing f releases it too.
func unlockFile(f *os.File) error {
	return flock(f, syscall.LOCK_UN)
}

func flock(f *os.File, how int) error {
	conn, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	err = conn.Control(func(fd uintptr) {
		for {
			ferr = syscall.Flock(int(fd), how)
			if ferr != syscall.EINTR {
				return
			}
		}
	})
	if err != nil {
		return err
	}
	if ferr != nil {
		return &os.PathError{Op: "flock", Path: f.Name(), Err: ferr}
	}
	return nil
}

// syncDir fsyncs the root directory, making the entries of new files in it
// durable.
func syncDir(root *os.Root) error {
	d, err := root.Open(".")
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
