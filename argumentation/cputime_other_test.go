//go:build !unix

package argumentation

import "time"

func cpuTime() (time.Duration, bool) { return 0, false }
