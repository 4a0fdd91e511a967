package store

// HasFileLock reports whether JSONL locks its files against other processes
// on this system.
const HasFileLock = hasFileLock
