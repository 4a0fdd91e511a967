//go:build !(darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd)

package store

import "os"

// hasFileLock reports whether lockFile locks against other processes: not on
// this system, which has no flock(2). Only the goroutines of one JSONL are
// serialized.
const hasFileLock = false

func lockFile(*os.File) error       { return nil }
func lockFileShared(*os.File) error { return nil }
func unlockFile(*os.File) error     { return nil }

// tryLockFile does not lock: a JSONL's own lock table is all there is.
func tryLockFile(*os.File) (bool, error) { return true, nil }

// syncDir does nothing: not every system can fsync a directory (Windows
// cannot), and those without flock are not the ones this store is tuned for.
func syncDir(*os.Root) error { return nil }
