package duelogic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
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

func (e *TurnError) Error() string {
	return fmt.Sprintf("duelogic: %s segment, %s (%s): %v", e.Segment, e.Speaker, e.Purpose, e.Err)
}

// Unwrap returns the cause.
func (e *TurnError) Unwrap() error { return e.Err }

// keyed is the part every record's Data shares.
type keyed struct {
	Key string `json:"key"`
}

// journal holds the records of a debate being resumed: main-sequence records
// are consumed in order, side records (argument moves, written concurrently
// with the main flow) are found by key.
type journal struct {
	main []store.Record
	keys []string
	pos  int
	side map[string]store.Record
}

func newJournal(recs []store.Record) (*journal, error) {
	j := &journal{side: map[string]store.Record{}}
	for _, r := range recs {
		var k keyed
		if err := json.Unmarshal(r.Data, &k); err != nil || k.Key == "" {
			return nil, fmt.Errorf("%w: record %d (%s) has no key", ErrCorruptLog, r.Seq, r.Type)
		}
		if r.Type == RecordMoves {
			j.side[k.Key] = r
			continue
		}
		j.main = append(j.main, r)
		j.keys = append(j.keys, k.Key)
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

// recorder appends a debate's records and announces them.
type recorder struct {
	id     string
	st     store.Store
	sink   EventSink
	now    func() time.Time
	logger *slog.Logger
	seq    int64
}

// append stores a record of typ holding data (which must marshal to an
// object with a "key"), then returns it; nothing is emitted.
func (r *recorder) append(ctx context.Context, typ string, data any) (store.Record, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return store.Record{}, fmt.Errorf("duelogic: encode %s record: %w", typ, err)
	}
	rec := store.Record{DebateID: r.id, Seq: r.seq + 1, Time: r.now(), Type: typ, Data: raw}
	if err := r.st.Append(ctx, rec); err != nil {
		return store.Record{}, fmt.Errorf("duelogic: store %s record %d of %s: %w", typ, rec.Seq, r.id, err)
	}
	r.seq = rec.Seq
	return rec, nil
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
// as EventToken when stream is set and the client can stream.
func (r *recorder) call(ctx context.Context, c llm.Client, req llm.Request, seg Segment, speaker string, stream bool) (llm.Response, error) {
	var resp llm.Response
	var err error
	if stream {
		resp, err = llm.Stream(ctx, c, req, func(delta string) error {
			r.emit(ctx, Event{Type: EventToken, Segment: seg, Speaker: speaker, Delta: delta})
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
