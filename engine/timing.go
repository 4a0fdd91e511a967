package engine

import (
	"encoding/json"
	"maps"
	"sync"
	"time"

	"github.com/duelogic/duelogic/internal/jsonsec"
)

// Timing is where the time of a Run or Resume went: how long it took, and
// how long its model calls took, by purpose, as the session's clock
// ([WithClock]) measured them. It counts the calls this Run or Resume made
// (a replayed step took no time; a purpose whose calls took no time is
// left out). Calls that overlap — side steps, the
// checks beside a stream — each count whole, so the calls together may
// take longer than Wall. JSON holds the durations in seconds: {"wall": 95,
// "calls": {"evaluation": 40.5}}.
type Timing struct {
	Wall  time.Duration
	Calls map[string]time.Duration
}

// Share returns the part of the calls' time that went to calls of the
// given purposes, in [0, 1]; 0 when the calls took no time. With the
// purposes of a result's Judgments it is the judgments' share.
func (t Timing) Share(purposes ...string) float64 {
	var of, all time.Duration
	for p, d := range t.Calls {
		all += d
		for _, q := range purposes {
			if p == q {
				of += d
				break
			}
		}
	}
	if all <= 0 {
		return 0
	}
	return float64(of) / float64(all)
}

// timingJSON is Timing as JSON.
type timingJSON struct {
	Wall  jsonsec.Seconds            `json:"wall"`
	Calls map[string]jsonsec.Seconds `json:"calls,omitempty"`
}

// MarshalJSON writes t with its durations in seconds.
func (t Timing) MarshalJSON() ([]byte, error) {
	w := timingJSON{Wall: jsonsec.Seconds(t.Wall)}
	if len(t.Calls) > 0 {
		w.Calls = map[string]jsonsec.Seconds{}
		for p, d := range t.Calls {
			w.Calls[p] = jsonsec.Seconds(d)
		}
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads t as MarshalJSON writes it.
func (t *Timing) UnmarshalJSON(data []byte) error {
	var w timingJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	t.Wall, t.Calls = time.Duration(w.Wall), nil
	if len(w.Calls) > 0 {
		t.Calls = map[string]time.Duration{}
		for p, d := range w.Calls {
			t.Calls[p] = time.Duration(d)
		}
	}
	return nil
}

// clock times a Run or Resume and its model calls.
type clock struct {
	now   func() time.Time
	began time.Time

	mu    sync.Mutex
	calls map[string]time.Duration
}

func newClock(now func() time.Time) *clock {
	return &clock{now: now, began: now(), calls: map[string]time.Duration{}}
}

// call adds the time since start to the calls of purpose; a call that
// took no time on the clock (a pinned one) is not counted.
func (c *clock) call(purpose string, start time.Time) {
	d := c.now().Sub(start)
	if d <= 0 {
		return
	}
	c.mu.Lock()
	c.calls[purpose] += d
	c.mu.Unlock()
}

// timing is the timing so far.
func (c *clock) timing() Timing {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Timing{Wall: c.now().Sub(c.began), Calls: maps.Clone(c.calls)}
}
