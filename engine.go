package duelogic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// Record types the engine writes. Every record's Data is a JSON object with a
// "key" naming the step of the debate that wrote it; Resume replays records by
// key, so the flow that wrote a log can walk it again.
const (
	RecordDebate         = "debate"
	RecordSegmentStarted = "segment_started"
	RecordSegmentEnded   = "segment_ended"
	RecordUtterance      = "utterance"
	RecordEvaluation     = "evaluation"
	RecordInterruption   = "interruption"
	RecordMoves          = "moves"
	RecordDebateEnded    = "debate_ended"
)

// Sentinel errors callers branch on.
var (
	// ErrInvalidDebate: the Debate (ID, proposition, context) is unusable.
	ErrInvalidDebate = errors.New("duelogic: invalid debate")
	// ErrDebateExists: Run was given the ID of a debate the store holds.
	ErrDebateExists = errors.New("duelogic: debate already exists")
	// ErrNotRunning: Interject named a debate this orchestrator is not running.
	ErrNotRunning = errors.New("duelogic: debate not running")
	// ErrAlreadyRunning: Run or Resume of a debate this orchestrator is running.
	ErrAlreadyRunning = errors.New("duelogic: debate already running")
	// ErrCorruptLog: the stored records do not describe a debate this engine
	// can continue.
	ErrCorruptLog = errors.New("duelogic: corrupt debate log")
)

// TurnError is the error that stops a debate when a model call fails: it names
// the segment, the speaker and the purpose of the call, and wraps the cause.
// Everything said before it is stored; [Orchestrator.Resume] continues.
type TurnError struct {
	Segment Segment
	Speaker string
	Purpose string
	Err     error
}

// Error says where the debate stopped and why.
func (e *TurnError) Error() string {
	return fmt.Sprintf("duelogic: %s segment, %s (%s): %v", e.Segment, e.Speaker, e.Purpose, e.Err)
}

// Unwrap returns the cause.
func (e *TurnError) Unwrap() error { return e.Err }

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
// record it announces is stored, so the debate's next model call does not wait
// for the store or the sink. The first store error is sticky: the writer
// stores and emits nothing after it, and the next append returns it.
type recorder struct {
	id     string
	st     store.Store
	sink   EventSink
	now    func() time.Time
	logger *slog.Logger

	seqMu sync.Mutex // orders Seq assignment with queueing, for side records
	seq   int64      // last Seq handed out

	q    chan queued
	done chan struct{}
	mu   sync.Mutex
	err  error
}

// queued is a record to append, an event to emit after it, or both.
type queued struct {
	rec *store.Record
	ev  *Event
}

// start runs the writer until stop. Appends use ctx without its cancellation:
// what the debate produced before it was cancelled is still stored.
func (r *recorder) start(ctx context.Context) {
	r.q = make(chan queued, 256)
	r.done = make(chan struct{})
	go func() {
		defer close(r.done)
		actx := context.WithoutCancel(ctx)
		for it := range r.q {
			if r.failed() != nil {
				continue
			}
			if it.rec != nil {
				if err := r.st.Append(actx, *it.rec); err != nil {
					r.fail(fmt.Errorf("duelogic: store %s record %d of %s: %w", it.rec.Type, it.rec.Seq, r.id, err))
					continue
				}
			}
			if it.ev != nil {
				r.emit(ctx, *it.ev)
			}
		}
	}()
}

// stop waits until everything queued is stored and emitted, and returns the
// store's error, if any.
func (r *recorder) stop() error {
	close(r.q)
	<-r.done
	return r.failed()
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

// append queues a record of typ holding data (which must marshal to an
// object with a "key") and returns it as it will be stored.
func (r *recorder) append(ctx context.Context, typ string, data any) (store.Record, error) {
	return r.appendWith(ctx, typ, data, nil)
}

// appendWith is append that also queues the event announcing the record,
// built by event (when not nil) from the record as it will be stored, with
// no other record or event between them: records and events stay in Seq
// order even when side steps append from other goroutines.
func (r *recorder) appendWith(ctx context.Context, typ string, data any, event func(store.Record) *Event) (store.Record, error) {
	if err := r.failed(); err != nil {
		return store.Record{}, err
	}
	if err := ctx.Err(); err != nil {
		return store.Record{}, err
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return store.Record{}, fmt.Errorf("duelogic: encode %s record: %w", typ, err)
	}
	r.seqMu.Lock()
	defer r.seqMu.Unlock()
	rec := store.Record{DebateID: r.id, Seq: r.seq + 1, Time: r.now(), Type: typ, Data: raw}
	r.seq = rec.Seq
	r.q <- queued{rec: &rec}
	if event != nil {
		if e := event(rec); e != nil {
			e.Seq = rec.Seq
			r.q <- queued{ev: e}
		}
	}
	return rec, nil
}

// announce queues an event, emitted once everything queued before it is
// stored.
func (r *recorder) announce(e Event) {
	r.seqMu.Lock()
	defer r.seqMu.Unlock()
	r.q <- queued{ev: &e}
}

// emit gives e to the sink, recovering a panic so a faulty sink cannot stop
// the debate or reach the store.
func (r *recorder) emit(ctx context.Context, e Event) {
	e.DebateID = r.id
	if e.Time.IsZero() {
		e.Time = r.now()
	}
	defer func() {
		if p := recover(); p != nil {
			r.logger.Error("duelogic: event sink panicked", "debate", r.id, "event", e.Type, "panic", p)
		}
	}()
	r.sink.Emit(ctx, e)
}

// call sends one request and returns the reply, streaming tokens to the sink
// as EventToken when stream is set.
func (r *recorder) call(ctx context.Context, c llm.Client, req llm.Request, seg Segment, speaker string, stream bool) (llm.Response, error) {
	if err := r.failed(); err != nil {
		return llm.Response{}, err
	}
	var resp llm.Response
	var err error
	if stream {
		resp, err = llm.Stream(ctx, c, req, func(delta string) error {
			r.announce(Event{Type: EventToken, Segment: seg, Speaker: speaker, Delta: delta})
			return nil
		})
	} else {
		resp, err = c.Complete(ctx, req)
	}
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
