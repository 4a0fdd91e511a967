package events

import (
	"context"
	"errors"
	"sync"

	"github.com/duelogic/duelogic/engine"
)

// DefaultBuffer is the number of events a subscriber of a [Hub] made with a
// buffer of 0 may fall behind by before it is dropped.
const DefaultBuffer = 1024

// ErrSlowSubscriber is the Err of a [Subscription] the hub dropped because its
// buffer was full.
var ErrSlowSubscriber = errors.New("events: subscriber dropped: too slow")

// Hub is an [engine.EventSink] that fans the events of the debates it hears
// out to their subscribers, whatever their formats. Give it to the debates
// ([engine.WithSink]), alone or in a [FanOut]; then [Hub.Subscribe] to a
// debate to read its events.
//
// Emit never blocks: each subscription has a bounded buffer, and a subscriber
// whose buffer is full is dropped (its channel closed, its Err
// [ErrSlowSubscriber]) rather than waited for. It can catch up from the store
// and subscribe again, as [SSE] does.
//
// The hub knows a debate from the first event it hears of it, or from
// [Hub.Open], until its debate_ended event or [Hub.Close]. A host should call
// Open before it starts or resumes a debate and Close when the run returns:
// subscribers then learn that a failed debate stopped, and the hub forgets it.
//
// A Hub is safe for concurrent use. The zero value is not usable; call
// [NewHub].
type Hub struct {
	buffer int

	mu      sync.Mutex
	debates map[string]*hubDebate
}

type hubDebate struct {
	last int64 // the highest Seq emitted
	subs map[*Subscription]struct{}
}

// NewHub returns a hub whose subscriptions buffer up to buffer events (0 or
// less: [DefaultBuffer]).
func NewHub(buffer int) *Hub {
	if buffer <= 0 {
		buffer = DefaultBuffer
	}
	return &Hub{buffer: buffer, debates: map[string]*hubDebate{}}
}

// debate returns the state of id, creating it; the caller holds h.mu.
func (h *Hub) debate(id string) *hubDebate {
	d := h.debates[id]
	if d == nil {
		d = &hubDebate{subs: map[*Subscription]struct{}{}}
		h.debates[id] = d
	}
	return d
}

// Open tells the hub that debate id is about to run, so that subscribers
// arriving before its first event wait for it instead of being told the
// debate is not running.
func (h *Hub) Open(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.debate(id)
}

// Close tells the hub that the run of debate id returned with err: the
// debate's subscriptions end with Err err (nil after a debate that finished)
// and the hub forgets the debate.
func (h *Hub) Close(id string, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.end(id, err)
}

// end closes the subscriptions of id; the caller holds h.mu.
func (h *Hub) end(id string, err error) {
	d := h.debates[id]
	if d == nil {
		return
	}
	for s := range d.subs {
		s.stop(err)
	}
	delete(h.debates, id)
}

// Emit gives e to the subscribers of e.DebateID without waiting for any of
// them. After a debate_ended event the debate's subscriptions end.
func (h *Hub) Emit(_ context.Context, e engine.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	d := h.debate(e.DebateID)
	if !e.Transient() && e.Seq > d.last {
		d.last = e.Seq
	}
	for s := range d.subs {
		select {
		case s.c <- e:
		default:
			delete(d.subs, s)
			s.stop(ErrSlowSubscriber)
		}
	}
	if e.Type == engine.EventDebateEnded {
		h.end(e.DebateID, nil)
	}
}

// Subscribe starts reading the events of debate id. The subscription is live
// when the hub knows the debate (see [Hub]); otherwise its channel is already
// closed. Call [Subscription.Close] when done.
func (h *Hub) Subscribe(id string) *Subscription {
	s := &Subscription{h: h, id: id, c: make(chan engine.Event, h.buffer)}
	h.mu.Lock()
	defer h.mu.Unlock()
	d := h.debates[id]
	if d == nil {
		s.stop(nil)
		return s
	}
	s.live, s.last = true, d.last
	d.subs[s] = struct{}{}
	return s
}

// Subscription is one reader's view of a debate's live events.
type Subscription struct {
	h    *Hub
	id   string
	c    chan engine.Event
	live bool
	last int64
	// guarded by h.mu
	done bool
	err  error
}

// Events returns the channel of the debate's events, in the order the hub
// heard them. It is closed when the debate ends, when the hub drops the
// subscriber, or after Close.
func (s *Subscription) Events() <-chan engine.Event { return s.c }

// Live reports whether the hub knew the debate when s subscribed.
func (s *Subscription) Live() bool { return s.live }

// Last is the highest Seq among the debate's events the hub had emitted
// before s subscribed: those events did not reach s, the later ones do.
func (s *Subscription) Last() int64 { return s.last }

// Err says why the channel was closed: nil when the debate finished (or s was
// closed, or was not live), [ErrSlowSubscriber] when the hub dropped s, or the
// error given to [Hub.Close].
func (s *Subscription) Err() error {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	return s.err
}

// Close ends the subscription. It may be called more than once.
func (s *Subscription) Close() {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	if d := s.h.debates[s.id]; d != nil {
		delete(d.subs, s)
	}
	s.stop(nil)
}

// stop closes s's channel once; the caller holds h.mu.
func (s *Subscription) stop(err error) {
	if s.done {
		return
	}
	s.done, s.err = true, err
	close(s.c)
}
