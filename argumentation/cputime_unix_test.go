//go:build unix

package argumentation

import (
	"syscall"
	"time"
)

// cpuTime returns the process's user+system CPU time, which unlike wall
// time does not count the time a busy or oversubscribed machine spends
// running something else.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
