package duelogic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// Format is a debate format played on a [Session]: the Duelogic podcast is
// one (run by [Orchestrator]); the formal, scored, moderated and persuasion
// debates are others, and hosts may write their own.
//
// A Format's exported fields are its configuration. [RunFormat] stores them as
// JSON in the debate's first record and [ResumeFormat] decodes them back into
// the Format it is given, so a resumed debate runs as it started.
type Format interface {
	// Name identifies the format in the debate's first record.
	Name() string
	// Play runs the debate. On resume the Session replays the stored steps,
	// so Play runs the same code from the start: given the same stored
	// results it must make the same Session calls with the same keys in the
	// same order. Play is called on one goroutine; only [Session.Call] and
	// [Session.SideStep] may be used from others, and Play must wait for
	// those before it returns.
	Play(ctx context.Context, s *Session) error
}

// Session is the engine's machinery for one debate of a [Format]: stored,
// replay-aware steps, utterances generated with streaming, segments, and
// events announced after the records they describe.
//
// Every stored step has a key, unique in the debate, that names it. When a
// debate resumes, a step whose key is stored returns the stored result instead
// of running again.
type Session struct {
	r *run
}

// RunFormat plays a debate of format f from the start, with client for the
// model calls and the options' store, sink, clock, logger and prompt hook. It
// fails before any model call when d is invalid or its ID is taken.
func RunFormat(ctx context.Context, client llm.Client, f Format, d Debate, opts ...Option) (*Result, error) {
	o, err := formatEngine(client, f, opts)
	if err != nil {
		return nil, err
	}
	if d, err = o.newDebate(ctx, d); err != nil {
		return nil, err
	}
	spec, err := json.Marshal(f)
	if err != nil {
		return nil, fmt.Errorf("duelogic: encode %s format: %w", f.Name(), err)
	}
	r := o.newRun(d, Config{}, &pending{}, nil)
	return r.playFormat(ctx, f, spec)
}

// ResumeFormat continues a stopped debate of format f from its records: the
// stored configuration is decoded into f (which must be a pointer), and
// f.Play replays the stored steps and continues at the first one not stored.
// Resuming a finished debate returns its result without calling a model.
func ResumeFormat(ctx context.Context, client llm.Client, f Format, debateID string, opts ...Option) (*Result, error) {
	o, err := formatEngine(client, f, opts)
	if err != nil {
		return nil, err
	}
	st, err := o.loadDebate(ctx, debateID)
	if err != nil {
		return nil, err
	}
	if st.head.Format != f.Name() {
		return nil, fmt.Errorf("%w: %s is not a %q debate (format %q)", ErrCorruptLog, debateID, f.Name(), st.head.Format)
	}
	if err := json.Unmarshal(st.head.Spec, f); err != nil {
		return nil, fmt.Errorf("%w: %s: stored %s configuration: %v", ErrCorruptLog, debateID, f.Name(), err)
	}
	r := o.newRun(st.head.Debate, Config{}, &pending{}, st.journal)
	r.rec.seq = st.lastSeq
	if err := r.chargeSide(); err != nil {
		return nil, err
	}
	return r.playFormat(ctx, f, nil)
}

// ErrUnsupportedOption: an option was given to a format that cannot honour
// it; the debate does not start rather than run without it.
var ErrUnsupportedOption = errors.New("duelogic: option not supported by this format")

// formatEngine is newEngine for [RunFormat] and [ResumeFormat]: it refuses
// the options only the podcast honours.
func formatEngine(client llm.Client, f Format, opts []Option) (*Orchestrator, error) {
	o, err := newEngine(client, opts)
	if err != nil {
		return nil, err
	}
	var bad []string
	if o.catalogSet {
		bad = append(bad, "WithCatalog")
	}
	if o.mapping != nil {
		bad = append(bad, "WithArgumentMap")
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("%w: the %s format cannot honour %s", ErrUnsupportedOption, f.Name(), strings.Join(bad, ", "))
	}
	return o, nil
}

func newEngine(client llm.Client, opts []Option) (*Orchestrator, error) {
	if client == nil {
		return nil, errors.New("duelogic: nil llm.Client")
	}
	o := &Orchestrator{client: client, now: time.Now, cat: DefaultCatalog()}
	for _, opt := range opts {
		opt(o)
	}
	if o.store == nil {
		o.store = store.NewMemory()
	}
	if o.sink == nil {
		o.sink = discardSink{}
	}
	if o.logger == nil {
		o.logger = slog.New(slog.DiscardHandler)
	}
	return o, nil
}

// playFormat runs f; spec is nil when resuming.
func (r *run) playFormat(ctx context.Context, f Format, spec json.RawMessage) (*Result, error) {
	r.rec.start(ctx)
	stopped := false
	defer func() {
		if !stopped { // Play panicked: the writer still ends before the panic goes on
			r.rec.stop()
		}
	}()
	res, err := func() (*Result, error) {
		if spec != nil {
			rec, err := r.rec.append(ctx, RecordDebate, debateRecord{
				Key: RecordDebate, Version: recordVersion, Format: f.Name(), Debate: r.d, Spec: spec,
			})
			if err != nil {
				return nil, err
			}
			r.rec.announce(Event{Type: EventDebateStarted, Seq: rec.Seq})
		}
		s := &Session{r: r}
		if err := f.Play(ctx, s); err != nil {
			return nil, err
		}
		res := r.result()
		res.Format = f.Name()
		res.Metrics = Metrics{}
		const key = "end"
		if _, ok, err := r.j.must(key); err != nil || ok {
			return res, err
		}
		rec, err := r.rec.append(ctx, RecordDebateEnded, endedRecord{Key: key, Usage: res.Usage})
		if err != nil {
			return nil, err
		}
		r.rec.announce(Event{Type: EventDebateEnded, Seq: rec.Seq, Result: res})
		if r.j.replaying() {
			return nil, fmt.Errorf("%w: records after the end of debate %s", ErrCorruptLog, r.d.ID)
		}
		return res, nil
	}()
	stopped = true
	if serr := r.rec.stop(); serr != nil {
		return nil, serr
	}
	return res, err
}

// DebateID is the debate's ID.
func (s *Session) DebateID() string { return s.r.d.ID }

// Debate is the debate being played.
func (s *Session) Debate() Debate { return s.r.d }

// Resuming reports whether stored steps remain to be replayed.
func (s *Session) Resuming() bool { return s.r.j.replaying() }

// Now reads the session's clock ([WithClock]).
func (s *Session) Now() time.Time { return s.r.rec.now() }

// Logger is the session's logger ([WithLogger]).
func (s *Session) Logger() *slog.Logger { return s.r.o.logger }

// Segment brackets body with segment_started and segment_ended records and
// events (replayed like any step).
func (s *Session) Segment(ctx context.Context, seg Segment, body func(context.Context) error) error {
	return s.r.segment(ctx, seg, body)
}

// Say returns the utterance stored under key or, when there is none, calls
// the model with req (streaming tokens to the sink when the client can),
// stores the utterance u with the reply as its Content, and announces it.
// u's Speaker, Segment and Kind say who speaks and where.
func (s *Session) Say(ctx context.Context, key string, u Utterance, req llm.Request) (Utterance, error) {
	if got, ok, err := s.r.replayed(key); err != nil || ok {
		return got, err
	}
	req = s.r.hooked(req)
	usage, err := s.r.generate(ctx, &u, req)
	if err != nil {
		return u, err
	}
	return s.r.keep(ctx, key, u, usage, nil)
}

// Record stores an utterance that no model produced — a ruling, a
// moderator's announcement — under key (or replays it) and announces it.
func (s *Session) Record(ctx context.Context, key string, u Utterance) (Utterance, error) {
	if got, ok, err := s.r.replayed(key); err != nil || ok {
		return got, err
	}
	return s.r.keep(ctx, key, u, llm.Usage{}, nil)
}

// Call sends one request to the model and returns its reply; nothing is
// stored (store what matters of it with [Session.Step]). It may be called
// from several goroutines at once. A model failure is a [*TurnError] naming
// seg and speaker; after a store failure Call returns that error, unsent.
func (s *Session) Call(ctx context.Context, req llm.Request, seg Segment, speaker string) (llm.Response, error) {
	return s.r.rec.call(ctx, s.r.o.client, s.r.hooked(req), seg, speaker, false)
}

// stepRecord is the Data of a step's record.
type stepRecord struct {
	Key     string          `json:"key"`
	Side    bool            `json:"side,omitempty"`
	Speaker string          `json:"speaker,omitempty"`
	Usage   llm.Usage       `json:"usage"`
	Value   json.RawMessage `json:"value"`
	// Event is the event that announced the step, so that a replay of the
	// log gives exactly the events emitted live.
	Event *storedEvent `json:"event,omitempty"`
}

// storedEvent is an event as a step's record keeps it (its DebateID, Seq
// and Time are the record's).
type storedEvent struct {
	Type      EventType       `json:"type"`
	Segment   Segment         `json:"segment,omitempty"`
	Speaker   string          `json:"speaker,omitempty"`
	Utterance *Utterance      `json:"utterance,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
}

// StepFunc produces a step's value (anything that marshals to JSON) and the
// tokens it cost.
type StepFunc func(ctx context.Context) (value any, usage llm.Usage, err error)

// Step is a stored, replay-aware step of the main flow: when the log holds
// key, the stored value is decoded into out (a pointer, or nil); otherwise
// produce runs, its value is decoded into out — so a fresh run and a resumed
// one see the same value — and stored as a record of type typ, and event,
// when not nil, builds the event announcing the record (given its Seq; it may
// read out), queued right behind the record. speaker is charged the usage.
// Step reports whether the value was replayed.
func (s *Session) Step(ctx context.Context, key, typ, speaker string, out any, produce StepFunc, event func(seq int64) *Event) (bool, error) {
	if rec, ok, err := s.r.j.must(key); err != nil {
		return false, err
	} else if ok {
		return true, s.r.replayStep(rec, out)
	}
	return false, s.r.freshStep(ctx, stepRecord{Key: key, Speaker: speaker}, typ, out, produce, event)
}

// SideStep is Step for work that runs beside the main flow, on any
// goroutine: its record's place in the log depends on timing, so on resume it
// is found by key alone.
func (s *Session) SideStep(ctx context.Context, key, typ, speaker string, out any, produce StepFunc, event func(seq int64) *Event) (bool, error) {
	if rec, ok := s.r.j.sideRecord(key); ok {
		// Its usage was charged when the log was loaded (chargeSide):
		// a stored side step is paid for whether or not the replay
		// asks for it again.
		return true, decodeStep(rec, out)
	}
	ctx = context.WithValue(ctx, sideKey{}, true)
	defer s.r.rec.sideBegin()()
	return false, s.r.freshStep(ctx, stepRecord{Key: key, Side: true, Speaker: speaker}, typ, out, produce, event)
}

func (r *run) replayStep(rec store.Record, out any) error {
	sr, err := decode[stepRecord](rec)
	if err != nil {
		return err
	}
	r.charge(sr.Speaker, sr.Usage)
	return decodeStep(rec, out)
}

// decodeStep decodes the value of a step's record into out (when not nil).
func decodeStep(rec store.Record, out any) error {
	sr, err := decode[stepRecord](rec)
	if err != nil {
		return err
	}
	if out != nil {
		if err := json.Unmarshal(sr.Value, out); err != nil {
			return fmt.Errorf("%w: record %d (%s): %v", ErrCorruptLog, rec.Seq, rec.Type, err)
		}
	}
	return nil
}

// chargeSide charges the usage of every stored side step when a debate
// resumes, so the result's usage counts every call that was paid for, even
// a side step the resumed flow never asks for again (one cancelled before
// it was waited for).
func (r *run) chargeSide() error {
	if r.j == nil {
		return nil
	}
	for _, rec := range r.j.side {
		sr, err := decode[stepRecord](rec)
		if err != nil {
			return err
		}
		r.charge(sr.Speaker, sr.Usage)
	}
	return nil
}

func (r *run) freshStep(ctx context.Context, sr stepRecord, typ string, out any, produce StepFunc, event func(int64) *Event) error {
	v, usage, err := produce(ctx)
	if err != nil {
		return err
	}
	if sr.Value, err = json.Marshal(v); err != nil {
		return fmt.Errorf("duelogic: encode step %s: %w", sr.Key, err)
	}
	sr.Usage = usage
	// out holds the value as stored before the event is built, so the
	// event may read it.
	if out != nil {
		if err := json.Unmarshal(sr.Value, out); err != nil {
			return fmt.Errorf("duelogic: decode step %s: %w", sr.Key, err)
		}
	}
	if err := r.rec.appendStep(ctx, typ, sr, event); err != nil {
		return err
	}
	r.charge(sr.Speaker, usage)
	return nil
}

// Transcript returns the utterances so far (a copy).
func (s *Session) Transcript() []Utterance { return append([]Utterance(nil), s.r.transcript...) }

// Utterance returns the utterance stored with seq.
func (s *Session) Utterance(seq int64) (Utterance, bool) {
	i, ok := s.r.index[seq]
	if !ok {
		return Utterance{}, false
	}
	return s.r.transcript[i], true
}
