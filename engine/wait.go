package engine

import (
	"context"
	"encoding/json"
	"sync"
	"time"
)

// EventWaiting announces that a model call of the debate waits before it
// is sent — for a provider's slot or rate, say — and then that the wait is
// over; its Data is a [Wait], its Segment and Speaker the call's. A client
// that holds calls back announces it with [AnnounceWait]. Like
// [EventToken] it announces no record: it carries Seq 0 and [Replay] does
// not give it back.
const EventWaiting EventType = "waiting"

// Wait is the Data of an [EventWaiting].
type Wait struct {
	// Purpose is the waiting call's (llm.Request.Purpose).
	Purpose string `json:"purpose"`
	// For says what the call waits for ("a slot of provider openai").
	For string `json:"for"`
	// Over: the wait is over, the call goes on (or gave up); Seconds is
	// how long it waited, by the debate's clock.
	Over    bool    `json:"over,omitempty"`
	Seconds float64 `json:"seconds,omitempty"`
}

// callKey is the context key of a model call's [callInfo].
type callKey struct{}

// callInfo is what a client may learn of the debate's model call it
// serves: its debate ([DebateOf]), and where to announce its waits
// ([AnnounceWait]).
type callInfo struct {
	r       *recorder
	seg     Segment
	speaker string
	purpose string
}

// AnnounceWait tells the debate whose model call ctx is the context of
// that the call waits for what, as an [EventWaiting]; over announces that
// the wait is over, with how long it took by the debate's clock
// ([WithClock]). A client wrapper that holds calls back (a limit on a
// provider's calls in flight, a rate) calls it from the call, and over
// once (later calls do nothing). For any other context it announces
// nothing and over does nothing.
func AnnounceWait(ctx context.Context, what string) (over func()) {
	w, ok := ctx.Value(callKey{}).(*callInfo)
	if !ok {
		return func() {}
	}
	since := w.r.now()
	w.announce(ctx, Wait{Purpose: w.purpose, For: what}, since)
	var once sync.Once
	return func() {
		once.Do(func() {
			now := w.r.now()
			w.announce(ctx, Wait{Purpose: w.purpose, For: what, Over: true, Seconds: now.Sub(since).Seconds()}, now)
		})
	}
}

// announce emits d at time at.
func (w *callInfo) announce(ctx context.Context, d Wait, at time.Time) {
	data, err := json.Marshal(d)
	if err != nil {
		return
	}
	w.r.emit(ctx, Event{Type: EventWaiting, Segment: w.seg, Speaker: w.speaker, Data: data, Time: at})
}

// Transient reports whether e announces no stored record: a token of a
// speech being said, or a call's wait. Such events carry Seq 0 and are not
// replayed.
func (e Event) Transient() bool { return e.Seq == 0 }
