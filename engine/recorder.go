package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// keyed is the part every record's Data shares. Side records are written
// concurrently with the main flow (argument moves, say), so their place in the
// log is not fixed; Resume finds them by key.
type keyed struct {
	Key  string `json:"key"`
	Side bool   `json:"side,omitempty"`
}

// journal holds the records of a debate being resumed: main-sequence records
// are consumed in order, side records (argument moves, written concurrently
// with the main flow) are found by key.
type journal struct {
	main []store.Record
	keys []string
	pos  int
	side map[string]store.Record
	// finished: the log ends the debate, so no side step may run anew.
	finished bool
	// lastTime is the Time of the last main record taken.
	lastTime time.Time
}

func newJournal(recs []store.Record) (*journal, error) {
	j := &journal{side: map[string]store.Record{}}
	for _, r := range recs {
		var k keyed
		if err := json.Unmarshal(r.Data, &k); err != nil || k.Key == "" {
			return nil, fmt.Errorf("%w: record %d (%s) has no key", ErrCorruptLog, r.Seq, r.Type)
		}
		if k.Side {
			j.side[k.Key] = r
			continue
		}
		j.main = append(j.main, r)
		j.keys = append(j.keys, k.Key)
		j.finished = r.Type == RecordDebateEnded
	}
	return j, nil
}

// replaying reports whether stored main-sequence records remain.
func (j *journal) replaying() bool { return j != nil && j.pos < len(j.main) }

// take consumes the next main record if it has key.
func (j *journal) take(key string) (store.Record, bool) {
	if !j.replaying() || j.keys[j.pos] != key {
		return store.Record{}, false
	}
	r := j.main[j.pos]
	j.pos++
	j.lastTime = r.Time
	return r, true
}

// done reports whether the log holds the end of the debate.
func (j *journal) done() bool { return j != nil && j.finished }

// sideRecord returns the side record of key, if stored.
func (j *journal) sideRecord(key string) (store.Record, bool) {
	if j == nil {
		return store.Record{}, false
	}
	r, ok := j.side[key]
	return r, ok
}

// must consumes the next main record, which must have key when replaying.
func (j *journal) must(key string) (store.Record, bool, error) {
	if !j.replaying() {
		return store.Record{}, false, nil
	}
	if r, ok := j.take(key); ok {
		return r, true, nil
	}
	r := j.main[j.pos]
	return store.Record{}, false, fmt.Errorf("%w: record %d has key %q, the debate expects %q", ErrCorruptLog, r.Seq, j.keys[j.pos], key)
}

// recorder appends a debate's records and announces them. A single writer
// goroutine appends the records in order and emits each event after the
// record it announces is stored, so the debate's next model call does not
// wait for the store or the sink. The first store error is sticky: the writer
// stores and emits nothing after it, and the next append or call returns it.
//
// Pacing keeps the debate at most one step ahead of the store: before a
// model call, the records queued before the previous call began must be
// stored (see pace), so a failing store costs at most the calls already in
// flight. Before a streamed call everything queued must be emitted (flush),
// so the tokens of an utterance follow the events before it; the tokens
// themselves go straight to the sink and never wait behind a store write.
//
// No lock is held while the writer appends or while a caller waits: the
// queue is a slice guarded by mu, its length bounded by pacing (one step's
// records) and by maxQueued.
type recorder struct {
	id     string
	st     store.Store
	sink   EventSink
	now    func() time.Time
	logger *slog.Logger

	mu       sync.Mutex
	seq      int64        // last Seq handed out
	stored   atomic.Int64 // last Seq the store took
	mainTime time.Time    // Time of the last main-sequence record
	q        []queued     // waiting for the writer
	queued   int64        // items ever queued
	done     int64        // items the writer has finished
	mark     int64        // queued when the last model call began
	side     int64        // queued up to the last side record
	sides    int          // side steps under way
	closed   bool
	err      error
	wake     chan struct{} // the writer has work (capacity 1)
	advance  chan struct{} // closed and replaced whenever done grows
	exited   chan struct{}

	emitMu sync.Mutex // one Emit at a time: the writer's and the tokens'

	clock *clock // times the run and its calls
	meter *meter // prices the calls
}

// maxQueued bounds the writer's backlog; an append past it waits.
const maxQueued = 1024

// queued is a record to append, an event to emit after it, or both.
type queued struct {
	rec *store.Record
	ev  *Event
}

// start runs the writer until stop. Appends use ctx without its cancellation:
// what the debate produced before it was cancelled is still stored.
func (r *recorder) start(ctx context.Context) {
	r.wake = make(chan struct{}, 1)
	r.advance = make(chan struct{})
	r.exited = make(chan struct{})
	go r.write(ctx)
}

func (r *recorder) write(ctx context.Context) {
	defer close(r.exited)
	actx := context.WithoutCancel(ctx)
	for {
		r.mu.Lock()
		batch, closed, failed := r.q, r.closed, r.err != nil
		r.q = nil
		r.mu.Unlock()
		if len(batch) == 0 {
			if closed {
				return
			}
			<-r.wake
			continue
		}
		for _, it := range batch {
			if !failed && it.rec != nil {
				if err := r.st.Append(actx, *it.rec); err != nil {
					r.fail(fmt.Errorf("engine: store %s record %d of %s: %w", it.rec.Type, it.rec.Seq, r.id, err))
					failed = true
				} else {
					r.stored.Store(it.rec.Seq)
				}
			}
			if !failed && it.ev != nil {
				r.emit(ctx, *it.ev)
			}
			r.mu.Lock()
			r.done++
			close(r.advance)
			r.advance = make(chan struct{})
			r.mu.Unlock()
		}
	}
}

// stop waits until everything queued is stored and emitted, and returns the
// store's error, if any.
func (r *recorder) stop() error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.signal()
	<-r.exited
	return r.failed()
}

func (r *recorder) signal() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

func (r *recorder) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = err
	}
}

func (r *recorder) failed() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// waitFor blocks until the writer has finished the first n items queued, the
// store has failed, or ctx is done.
func (r *recorder) waitFor(ctx context.Context, n int64) error {
	for {
		r.mu.Lock()
		done, err, adv := r.done, r.err, r.advance
		r.mu.Unlock()
		if err != nil {
			return err
		}
		if done >= n {
			return nil
		}
		select {
		case <-adv:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// pace is called before a model call: it waits until the side steps under
// way have queued their records, and then until the records queued before
// the previous call began, and every side record queued so far, are stored.
// So the main flow runs at most one step ahead of the store, side work
// overlaps at most one main call, and a store failure wastes only the calls
// in flight when it happens.
func (r *recorder) pace(ctx context.Context) error {
	r.mu.Lock()
	target := r.mark
	r.mark = r.queued
	r.mu.Unlock()
	for {
		r.mu.Lock()
		busy, err, adv := r.sides > 0, r.err, r.advance
		target = max(target, r.side)
		r.mu.Unlock()
		if err != nil {
			return err
		}
		if !busy {
			return r.waitFor(ctx, target)
		}
		select {
		case <-adv:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// sideBegin registers a side step under way until the returned func is
// called (see pace).
func (r *recorder) sideBegin() (end func()) {
	r.mu.Lock()
	r.sides++
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		r.sides--
		close(r.advance)
		r.advance = make(chan struct{})
		r.mu.Unlock()
	}
}

// flush waits until everything queued so far is stored and emitted.
func (r *recorder) flush(ctx context.Context) error {
	r.mu.Lock()
	target := r.queued
	r.mark = target
	r.mu.Unlock()
	return r.waitFor(ctx, target)
}

// room waits (without a lock) while the writer's backlog is full.
func (r *recorder) room(ctx context.Context) error {
	r.mu.Lock()
	backlog := r.queued - maxQueued
	r.mu.Unlock()
	if backlog <= 0 {
		return nil
	}
	return r.waitFor(ctx, backlog)
}

// appendEntry queues a record of typ holding e and the event announcing
// it (built by ann, when not nil, from the record's Seq), keeping the event
// in the record so that [Replay] gives it back exactly. It returns the
// record as it will be stored.
func (r *recorder) appendEntry(ctx context.Context, typ string, e entry, ann func(seq int64) *Announcement) (store.Record, error) {
	return r.appendRecord(ctx, typ, func(rec *store.Record) (*Event, error) {
		var ev *Event
		if ann != nil {
			if a := ann(rec.Seq); a != nil {
				se, err := a.stored()
				if err != nil {
					return nil, fmt.Errorf("the %s event of step %s: %w", a.Type, e.Key, err)
				}
				e.Event = se
				ev = se.event(rec, e.Value)
			}
		}
		raw, err := json.Marshal(e)
		rec.Data = raw
		return ev, err
	})
}

// appendRecord queues a record of typ, whose Data encode fills in from the
// record's Seq and Time, and the event encode returns (when not nil) right
// behind it. Seq assignment, encoding and queueing happen under one lock
// hold, which never blocks, so records and events stay in Seq order even
// when side steps append from other goroutines.
func (r *recorder) appendRecord(ctx context.Context, typ string, encode func(rec *store.Record) (*Event, error)) (store.Record, error) {
	if err := r.failed(); err != nil {
		return store.Record{}, err
	}
	if err := ctx.Err(); err != nil {
		return store.Record{}, err
	}
	if err := r.room(ctx); err != nil {
		return store.Record{}, err
	}
	r.mu.Lock()
	rec := store.Record{DebateID: r.id, Seq: r.seq + 1, Time: r.now(), Type: typ}
	ev, err := encode(&rec)
	if err != nil {
		r.mu.Unlock()
		return store.Record{}, fmt.Errorf("engine: encode %s record: %w", typ, err)
	}
	r.seq = rec.Seq
	r.q = append(r.q, queued{rec: &rec})
	r.queued++
	if isSide(ctx) {
		r.side = r.queued
	} else {
		r.mainTime = rec.Time
	}
	if ev != nil {
		r.q = append(r.q, queued{ev: ev})
		r.queued++
	}
	r.mu.Unlock()
	r.signal()
	return rec, nil
}

// emit gives e to the sink, recovering a panic so a faulty sink cannot stop
// the debate or reach the store.
func (r *recorder) emit(ctx context.Context, e Event) {
	e.DebateID = r.id
	r.emitMu.Lock()
	defer r.emitMu.Unlock()
	defer func() {
		if p := recover(); p != nil {
			r.logger.Error("engine: event sink panicked; the debate stops", "debate", r.id, "event", e.Type, "seq", e.Seq, "panic", p)
			r.fail(fmt.Errorf("%w: debate %s, %s event (seq %d): %v", ErrSinkPanicked, r.id, e.Type, e.Seq, p))
		}
	}()
	r.sink.Emit(ctx, e)
}

// sideKey marks the context of a side step's work (see [Session.SideStep]).
type sideKey struct{}

// isSide reports whether ctx is a side step's: side steps run beside the
// main flow, several at once, so each of their calls waits until everything
// queued is stored (flush) rather than pacing one step behind, which keeps
// what a store failure wastes to the calls already in flight.
func isSide(ctx context.Context) bool { return ctx.Value(sideKey{}) != nil }

// watchKey marks the context of a check made while an utterance streams
// (see [Session.SayWatched]).
type watchKey struct{}

// isWatch reports whether ctx is a mid-stream check's: the stream it
// watches has already waited for the main records, so the check only
// settles (see settle).
func isWatch(ctx context.Context) bool { return ctx.Value(watchKey{}) != nil }

// settle is called before a mid-stream check: it waits until the side steps
// under way have queued their records and every side record queued so far
// is stored, so a store failure met by a side step beside the stream stops
// the checks before they are sent (the stream and the side step are the
// only calls it wastes). It does not move the pacing mark.
func (r *recorder) settle(ctx context.Context) error {
	for {
		r.mu.Lock()
		busy, err, adv, target := r.sides > 0, r.err, r.advance, r.side
		r.mu.Unlock()
		if err != nil {
			return err
		}
		if !busy {
			return r.waitFor(ctx, target)
		}
		select {
		case <-adv:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// hold makes the next paced call wait until everything queued so far is
// stored: after an utterance whose stream had checks beside it, so that a
// store failure wastes no more calls than after a plain one.
func (r *recorder) hold() {
	r.mu.Lock()
	r.mark = r.queued
	r.mu.Unlock()
}

// call sends one request and returns the reply, streaming tokens to the sink
// as EventToken when stream is set. It first paces the debate against the
// store (see [recorder]).
func (r *recorder) call(ctx context.Context, c llm.Client, req llm.Request, seg Segment, speaker string, stream bool) (llm.Response, error) {
	var tap func(string) (string, error)
	if stream {
		tap = func(delta string) (string, error) { return delta, nil }
	}
	return r.tapped(ctx, c, req, seg, speaker, tap)
}

// tapped is call with the stream going through tap, when not nil: tap
// returns the part of each delta the sink is given and an error that stops
// the stream.
func (r *recorder) tapped(ctx context.Context, c llm.Client, req llm.Request, seg Segment, speaker string, tap func(string) (string, error)) (llm.Response, error) {
	wait := r.pace
	switch {
	case isWatch(ctx):
		wait = r.settle
	case tap != nil || isSide(ctx):
		wait = r.flush
	}
	if err := wait(ctx); err != nil {
		if ctx.Err() != nil {
			return llm.Response{}, &TurnError{Segment: seg, Speaker: speaker, Purpose: req.Purpose, Err: err}
		}
		return llm.Response{}, err
	}
	// A call whose context is done is never sent: a client that ignores
	// its context would be asked (and paid) for a reply nothing stores.
	if err := ctx.Err(); err != nil {
		return llm.Response{}, &TurnError{Segment: seg, Speaker: speaker, Purpose: req.Purpose, Err: err}
	}
	ctx = context.WithValue(ctx, callKey{}, &callInfo{r: r, seg: seg, speaker: speaker, purpose: req.Purpose})
	var resp llm.Response
	var err error
	defer r.clock.call(req.Purpose, r.now())
	if tap != nil {
		resp, err = llm.Stream(ctx, c, req, func(delta string) error {
			said, err := tap(delta)
			if said != "" {
				r.emit(ctx, Event{Type: EventToken, Segment: seg, Speaker: speaker, Delta: said, Time: r.now()})
			}
			return err
		})
	} else {
		resp, err = c.Complete(ctx, req)
	}
	r.meter.spend(ctx, req, resp)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return resp, &TurnError{Segment: seg, Speaker: speaker, Purpose: req.Purpose, Err: err}
	}
	return resp, nil
}

func decode[T any](rec store.Record) (T, error) {
	var v T
	if err := json.Unmarshal(rec.Data, &v); err != nil {
		return v, fmt.Errorf("%w: record %d (%s): %v", ErrCorruptLog, rec.Seq, rec.Type, err)
	}
	return v, nil
}

// nextIs reports whether the next stored main record, when replaying, has
// key.
func (j *journal) nextIs(key string) bool {
	return j.replaying() && j.keys[j.pos] == key
}

// skip consumes the record of key and checks that nothing follows it.
func (j *journal) skip(key string) error {
	if _, ok := j.take(key); !ok || j.replaying() {
		return fmt.Errorf("%w: records after the end of the debate", ErrCorruptLog)
	}
	return nil
}

// DebateOf returns the ID of the debate whose model call ctx is the context
// of, and false for any other context: a client (or a client wrapper that
// traces or meters calls) learns which debate a request belongs to.
func DebateOf(ctx context.Context) (string, bool) {
	w, ok := ctx.Value(callKey{}).(*callInfo)
	if !ok || w.r.id == "" {
		return "", false
	}
	return w.r.id, true
}
