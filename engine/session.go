package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// Session is the engine's machinery for one debate being played: stored,
// replay-aware steps, utterances generated with streaming, segments, side
// work, and events announced after the records they describe. A [Format]
// plays on it.
//
// Every stored step has a key, unique in the debate, that names it. When a
// debate resumes, a step whose key is stored returns the stored result
// instead of running again, and is charged its stored usage.
//
// The engine runs at most one step ahead of the store: before each model
// call it waits until the records queued before the previous call are
// stored, so a failing store stops the debate after the calls already in
// flight.
type Session struct {
	o      *settings
	d      Debate
	j      *journal
	rec    *recorder
	stream bool

	transcript []Utterance
	index      map[int64]int
	usageMu    sync.Mutex
	cost       float64 // what the stored steps cost; guarded by usageMu
	usage      map[string]llm.Usage
	purposes   map[string]llm.Usage      // guarded by usageMu
	judgments  map[string]JudgmentCounts // guarded by usageMu

	mapSem *argumentation.Semantics // nil: no argument mapping
	mapper *mapper

	stateMu  sync.Mutex       // guards keys, subjects, played and calls
	keys     map[string]bool  // the step keys used so far
	subjects map[int64]string // the step keys of the utterances, by seq
	played   bool             // Play has returned: no more model calls
	calls    int              // the format's calls in flight
}

// claim marks key as used by a step of this play; a key used twice is an
// error of the format ([ErrMisuse]).
func (s *Session) claim(key string) error {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	if s.keys[key] {
		return fmt.Errorf("%w: step key %q used twice", ErrMisuse, key)
	}
	s.keys[key] = true
	return nil
}

// reserved are the record types the engine writes itself.
var reserved = []string{RecordDebate, RecordSegmentStarted, RecordSegmentEnded, RecordUtterance, RecordMoves, RecordDebateEnded, RecordAsked}

// checkType refuses a format's step of a record type the engine owns.
func checkType(key, typ string) error {
	if slices.Contains(reserved, typ) {
		return fmt.Errorf("%w: step %q: record type %q is the engine's own", ErrMisuse, key, typ)
	}
	return nil
}

func newSession(o *settings, d Debate, j *journal, sem *argumentation.Semantics) *Session {
	_, streams := o.client.(llm.Streamer)
	return &Session{
		o: o, d: d, j: j, stream: streams, mapSem: sem,
		rec: &recorder{id: d.ID, st: o.store, sink: o.sink, now: o.now, logger: o.logger, clock: newClock(o.now),
			meter: &meter{prices: o.prices}},
		index: map[int64]int{},
		usage: map[string]llm.Usage{}, purposes: map[string]llm.Usage{},
		keys: map[string]bool{}, subjects: map[int64]string{},
	}
}

// DebateID is the debate's ID.
func (s *Session) DebateID() string { return s.d.ID }

// Debate is the debate being played.
func (s *Session) Debate() Debate { return s.d }

// Resuming reports whether stored steps remain to be replayed.
func (s *Session) Resuming() bool { return s.j.replaying() }

// Next reports whether the next stored step, while resuming, has key: a
// format that takes an optional step (one that happened only if a host asked
// for it) replays it when Next says so.
func (s *Session) Next(key string) bool { return s.j.nextIs(key) }

// Now reads the session's clock ([WithClock]).
func (s *Session) Now() time.Time { return s.rec.now() }

// RecordTime is the Time of the debate's latest main-sequence record,
// stored in this run or replayed: a clock that a resumed debate reads the
// same as the run it resumes, for decisions a format makes anew on resume
// (the podcast's interruption cooldowns, judged while a response streams).
// Before any record it is [Session.Now].
func (s *Session) RecordTime() time.Time {
	s.rec.mu.Lock()
	t := s.rec.mainTime
	s.rec.mu.Unlock()
	if t.IsZero() && s.j != nil {
		t = s.j.lastTime
	}
	if t.IsZero() {
		return s.Now()
	}
	return t
}

// Logger is the session's logger ([WithLogger]).
func (s *Session) Logger() *slog.Logger { return s.o.logger }

// Streams reports whether the client streams, so that [Session.Say]
// sends tokens to the sink as they come.
func (s *Session) Streams() bool { return s.stream }

// Segment brackets body with segment_started and segment_ended records and
// events (replayed like any step).
func (s *Session) Segment(ctx context.Context, seg Segment, body func(context.Context) error) error {
	if err := s.mark(ctx, RecordSegmentStarted, EventSegmentStarted, seg); err != nil {
		return err
	}
	if err := body(ctx); err != nil {
		return err
	}
	return s.mark(ctx, RecordSegmentEnded, EventSegmentEnded, seg)
}

func (s *Session) mark(ctx context.Context, typ string, ev EventType, seg Segment) error {
	_, err := s.step(ctx, typ+":"+string(seg), typ, "", seg, func(int64) *Announcement {
		return &Announcement{Type: ev, Segment: seg}
	})
	return err
}

// Say returns the utterance stored under key or, when there is none, calls
// the model with req (streaming tokens to the sink when the client can),
// stores the utterance u with the trimmed reply as its Content and the
// reply's model as its Model, and announces it ([EventUtterance]). u's
// Speaker, Segment and Kind say who speaks and where; usage is charged to
// the Speaker. An empty reply is asked for once more, telling the model it
// was empty; a second is a [*TurnError] wrapping [ErrEmptyReply].
func (s *Session) Say(ctx context.Context, key string, u Utterance, req llm.Request) (Utterance, error) {
	if err := s.claim(key); err != nil {
		return u, err
	}
	return s.say(ctx, key, u, req)
}

// say is Say for a key already claimed.
func (s *Session) say(ctx context.Context, key string, u Utterance, req llm.Request) (Utterance, error) {
	if got, ok, err := s.replayed(key); err != nil || ok {
		return got, err
	}
	if err := s.mapFailure(); err != nil {
		return u, err
	}
	if err := s.checkBudget(); err != nil {
		return u, err
	}
	req = s.hooked(req)
	ctx, spent := withSpending(s.speaking(ctx, key))
	resp, err := s.rec.call(ctx, s.o.client, req, u.Segment, u.Speaker, s.stream)
	if err != nil {
		return u, err
	}
	if strings.TrimSpace(resp.Content) == "" {
		if resp, err = s.askAgain(ctx, req, resp, u); err != nil {
			return u, err
		}
	}
	u.Content = strings.TrimSpace(resp.Content)
	u.Model = req.Model
	if resp.Model != "" {
		u.Model = resp.Model
	}
	u.Truncated = s.Truncated(req, resp, u.Segment, u.Speaker)
	return s.keepWatched(ctx, key, u, resp.Usage, spent, nil, nil)
}

// emptyReask is what a model that answered a speech with nothing is told
// when asked once more.
const emptyReask = "Your reply was empty. Say your part now, in plain prose, as asked above."

// askAgain asks once more for the speech of u whose first reply, first,
// was empty, telling the model so, and returns the second reply with the
// usage of both; a second empty reply is a [*TurnError] wrapping
// [ErrEmptyReply].
func (s *Session) askAgain(ctx context.Context, req llm.Request, first llm.Response, u Utterance) (llm.Response, error) {
	s.Logger().Warn("engine: the model answered a speech with nothing; asking once more",
		"debate", s.DebateID(), "segment", u.Segment, "speaker", u.Speaker, "purpose", req.Purpose)
	again := req
	again.Messages = append(slices.Clone(req.Messages), llm.Message{Role: llm.User, Content: emptyReask})
	resp, err := s.rec.call(ctx, s.o.client, again, u.Segment, u.Speaker, s.stream)
	if err != nil {
		return resp, err
	}
	resp.Usage = resp.Usage.Add(first.Usage)
	if strings.TrimSpace(resp.Content) == "" {
		return resp, &TurnError{Segment: u.Segment, Speaker: u.Speaker, Purpose: req.Purpose,
			Err: fmt.Errorf("%w: the model answered nothing, twice", ErrEmptyReply)}
	}
	return resp, nil
}

// Record stores an utterance that no model produced — a ruling, a
// moderator's announcement, a turn generated by a side step — under key
// (or replays it) and announces it.
func (s *Session) Record(ctx context.Context, key string, u Utterance) (Utterance, error) {
	return s.RecordCharged(ctx, key, u, llm.Usage{})
}

// RecordCharged is [Session.Record] for an utterance whose generation cost
// usage (charged to its Speaker), made outside [Session.Say].
func (s *Session) RecordCharged(ctx context.Context, key string, u Utterance, usage llm.Usage) (Utterance, error) {
	if err := s.claim(key); err != nil {
		return u, err
	}
	if got, ok, err := s.replayed(key); err != nil || ok {
		return got, err
	}
	if err := s.mapFailure(); err != nil {
		return u, err
	}
	return s.keepWatched(ctx, key, u, usage, &spending{}, nil, nil)
}

// keepWatched stores the utterance u, whose calls spent (their usage
// usage, a replace standing for what its speech's calls reported when not
// nil), and announces it. For an utterance that had checks beside it (w
// not nil), their outcome is stored in the same record and their usage
// charged to w.Speaker.
func (s *Session) keepWatched(ctx context.Context, key string, u Utterance, usage llm.Usage, spent *spending, replace *purposeUsage, w *watchEntry) (Utterance, error) {
	u.Seq = 0
	raw, err := json.Marshal(u)
	if err != nil {
		return u, fmt.Errorf("engine: encode utterance %s: %w", key, err)
	}
	all := usage
	if w != nil {
		all = all.Add(w.Usage)
	}
	cost, purposes := spent.paid(all, replace)
	rec, err := s.rec.appendEntry(ctx, RecordUtterance, entry{Key: key, Speaker: u.Speaker, Usage: usage, Cost: cost, Purposes: purposes, Value: raw, Watch: w},
		func(seq int64) *Announcement {
			cp := u
			cp.Seq = seq
			return &Announcement{Type: EventUtterance, Segment: u.Segment, Speaker: u.Speaker, Utterance: &cp, saysValue: true}
		})
	if err != nil {
		return u, err
	}
	u.Seq = rec.Seq
	s.noteSubject(u.Seq, key)
	s.add(u, usage)
	s.chargeCost(cost)
	s.chargePurposes(purposes)
	if w != nil {
		s.charge(w.Speaker, w.Usage)
		s.countJudgments(w.Judgments)
	}
	return u, nil
}

// replayed takes the stored utterance of key, if the log holds it.
func (s *Session) replayed(key string) (Utterance, bool, error) {
	u, _, ok, err := s.replayedEntry(key)
	return u, ok, err
}

// replayedEntry is replayed that also returns the record's entry.
func (s *Session) replayedEntry(key string) (Utterance, entry, bool, error) {
	rec, ok, err := s.j.must(key)
	if err != nil || !ok {
		return Utterance{}, entry{}, false, err
	}
	en, err := decode[entry](rec)
	if err != nil {
		return Utterance{}, en, false, err
	}
	var u Utterance
	if err := json.Unmarshal(en.Value, &u); err != nil {
		return Utterance{}, en, false, fmt.Errorf("%w: record %d (%s): %v", ErrCorruptLog, rec.Seq, rec.Type, err)
	}
	u.Seq = rec.Seq
	s.noteSubject(u.Seq, key)
	s.add(u, en.Usage)
	s.chargeCost(en.Cost)
	s.chargePurposes(en.purposesOf())
	if w := en.Watch; w != nil {
		s.charge(w.Speaker, w.Usage)
		s.countJudgments(w.Judgments)
	}
	return u, en, true, nil
}

func (s *Session) add(u Utterance, usage llm.Usage) {
	s.index[u.Seq] = len(s.transcript)
	s.transcript = append(s.transcript, u)
	s.charge(u.Speaker, usage)
	s.mapTurn(u)
}

// Amend changes the transcript's utterance seq (an evaluation, an
// interruption mark) with change; the stored record is not changed, so a
// format amends again on replay from its own stored steps. It reports
// whether the utterance exists.
func (s *Session) Amend(seq int64, change func(*Utterance)) bool {
	i, ok := s.index[seq]
	if ok {
		change(&s.transcript[i])
	}
	return ok
}

// Call sends one request to the model and returns its reply; nothing is
// stored (store what matters of it with [Session.Step]). It may be called
// from several goroutines at once. A model failure is a [*TurnError] naming
// seg and speaker; after a store failure Call returns that error, unsent.
func (s *Session) Call(ctx context.Context, req llm.Request, seg Segment, speaker string) (llm.Response, error) {
	if err := s.enter(ctx, req.Purpose); err != nil {
		return llm.Response{}, err
	}
	defer s.leave(ctx)
	return s.rec.call(ctx, s.o.client, s.hooked(req), seg, speaker, false)
}

// enter counts a model call of the format in flight; a call after Play
// returned is an error ([ErrMisuse]).
func (s *Session) enter(ctx context.Context, purpose string) error {
	if ctx.Value(engineWork{}) != nil {
		return nil
	}
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	if s.played {
		return fmt.Errorf("%w: a %q call after Play returned", ErrMisuse, purpose)
	}
	s.calls++
	return nil
}

func (s *Session) leave(ctx context.Context) {
	if ctx.Value(engineWork{}) != nil {
		return
	}
	s.stateMu.Lock()
	s.calls--
	s.stateMu.Unlock()
}

// engineWork marks the context of the engine's own calls (argument
// mapping), which may outlive Play: they are not the format's.
type engineWork struct{}

// finishPlay marks Play as returned: no step or call may follow. It fails
// when a call Play started is still running ([ErrMisuse]).
func (s *Session) finishPlay() error {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	s.played = true
	if s.calls > 0 {
		return fmt.Errorf("%w: %d Session.Call(s) still running after Play returned; Play must wait for its calls", ErrMisuse, s.calls)
	}
	return nil
}

// CallStreamed is [Session.Call] for a reply the debate will say as it is
// (a speech stored by the format's own step): when the client streams, the
// reply's text goes to the sink as [EventToken] events while it is
// generated, so that a front end shows it as it comes. The utterance the
// format stores afterwards replaces what was streamed. Like Call, it may
// be called from several goroutines at once; token events carry speaker.
func (s *Session) CallStreamed(ctx context.Context, req llm.Request, seg Segment, speaker string) (llm.Response, error) {
	if err := s.enter(ctx, req.Purpose); err != nil {
		return llm.Response{}, err
	}
	defer s.leave(ctx)
	return s.rec.call(ctx, s.o.client, s.hooked(req), seg, speaker, s.stream)
}

// hooked applies the host's token caps ([WithMaxTokens]) to req, passes
// its messages through the host's prompt hook, and keys it to the debate
// for a provider's prompt cache (llm.Request.CacheKey).
func (s *Session) hooked(req llm.Request) llm.Request {
	if req.CacheKey == "" {
		req.CacheKey = s.d.ID
	}
	if c, ok := s.o.maxTokens[req.Purpose]; ok {
		req.MaxTokens = c
	}
	if s.o.hook != nil {
		req.Messages = s.o.hook(req.Purpose, req.Messages)
	}
	return req
}

// charge adds usage to speaker's account; side steps call it from other
// goroutines.
func (s *Session) charge(speaker string, usage llm.Usage) {
	s.usageMu.Lock()
	s.usage[speaker] = s.usage[speaker].Add(usage)
	s.usageMu.Unlock()
}

// StepFunc produces a step's value (anything that marshals to JSON) and the
// tokens it cost.
type StepFunc func(ctx context.Context) (value any, usage llm.Usage, err error)

// Step is a stored, replay-aware step of the main flow: when the log holds
// key, the stored value is decoded into out (a pointer, or nil); otherwise
// produce runs, its value is decoded into out — so a fresh run and a resumed
// one see the same value — and stored as a record of type typ, and
// announce, when not nil, describes the event announcing the record (given
// its Seq; it may read out), emitted once the record is stored. speaker is
// charged the usage. Step reports whether the value was replayed.
func (s *Session) Step(ctx context.Context, key, typ, speaker string, out any, produce StepFunc, announce func(seq int64) *Announcement) (bool, error) {
	if err := checkType(key, typ); err != nil {
		return false, err
	}
	return s.mainStep(ctx, key, typ, speaker, out, produce, announce)
}

// mainStep is Step for any record type, the engine's own included.
func (s *Session) mainStep(ctx context.Context, key, typ, speaker string, out any, produce StepFunc, announce func(seq int64) *Announcement) (bool, error) {
	if err := s.claim(key); err != nil {
		return false, err
	}
	if rec, ok, err := s.j.must(key); err != nil {
		return false, err
	} else if ok {
		en, err := decode[entry](rec)
		if err != nil {
			return false, err
		}
		s.charge(en.Speaker, en.Usage)
		s.chargeCost(en.Cost)
		s.chargePurposes(en.purposesOf())
		s.countJudgments(en.Judgments)
		return true, decodeValue(rec, en, out)
	}
	if err := s.mapFailure(); err != nil {
		return false, err
	}
	if err := s.checkBudget(); err != nil {
		return false, err
	}
	return false, s.freshStep(ctx, entry{Key: key, Speaker: speaker}, typ, out, produce, announce)
}

// SideStep is Step for work that runs beside the main flow, on any
// goroutine: its record's place in the log depends on timing, so on resume it
// is found by key alone (and its usage was charged when the log was loaded,
// whether or not the resumed Play asks for it again).
func (s *Session) SideStep(ctx context.Context, key, typ, speaker string, out any, produce StepFunc, announce func(seq int64) *Announcement) (bool, error) {
	if err := checkType(key, typ); err != nil {
		return false, err
	}
	return s.sideStep(ctx, key, typ, speaker, out, produce, announce)
}

// sideStep is SideStep for any record type, the engine's own included.
func (s *Session) sideStep(ctx context.Context, key, typ, speaker string, out any, produce StepFunc, announce func(seq int64) *Announcement) (bool, error) {
	if err := s.claim(key); err != nil {
		return false, err
	}
	if rec, ok := s.j.sideRecord(key); ok {
		en, err := decode[entry](rec)
		if err != nil {
			return false, err
		}
		return true, decodeValue(rec, en, out)
	}
	if err := s.checkBudget(); err != nil {
		return false, err
	}
	ctx = context.WithValue(ctx, sideKey{}, true)
	defer s.rec.sideBegin()()
	return false, s.freshStep(ctx, entry{Key: key, Side: true, Speaker: speaker}, typ, out, produce, announce)
}

// step stores value under key (or skips it when replayed), announcing it.
func (s *Session) step(ctx context.Context, key, typ, speaker string, value any, announce func(int64) *Announcement) (bool, error) {
	return s.mainStep(ctx, key, typ, speaker, nil, func(context.Context) (any, llm.Usage, error) {
		return value, llm.Usage{}, nil
	}, announce)
}

// decodeValue decodes the value of a step's record into out (when not nil).
func decodeValue(rec store.Record, en entry, out any) error {
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(en.Value, out); err != nil {
		return fmt.Errorf("%w: record %d (%s): %v", ErrCorruptLog, rec.Seq, rec.Type, err)
	}
	return nil
}

// chargeSide charges the usage of every stored side step when a debate
// resumes, so the result's usage counts every call that was paid for, even
// a side step the resumed flow never asks for again.
func (s *Session) chargeSide() error {
	if s.j == nil {
		return nil
	}
	for _, rec := range s.j.side {
		en, err := decode[entry](rec)
		if err != nil {
			return err
		}
		s.charge(en.Speaker, en.Usage)
		s.chargeCost(en.Cost)
		s.chargePurposes(en.purposesOf())
		s.countJudgments(en.Judgments)
	}
	return nil
}

func (s *Session) freshStep(ctx context.Context, e entry, typ string, out any, produce StepFunc, announce func(int64) *Announcement) error {
	pctx, judged := withTally(ctx)
	pctx, spent := withSpending(pctx)
	v, usage, err := produce(pctx)
	if err != nil {
		return err
	}
	e.Judgments = judged.counts()
	e.Cost, e.Purposes = spent.paid(usage, nil)
	if e.Value, err = json.Marshal(v); err != nil {
		return fmt.Errorf("engine: encode step %s: %w", e.Key, err)
	}
	e.Usage = usage
	// out holds the value as stored before the event is built, so the
	// event may read it.
	if out != nil {
		if err := json.Unmarshal(e.Value, out); err != nil {
			return fmt.Errorf("engine: decode step %s: %w", e.Key, err)
		}
	}
	if _, err := s.rec.appendEntry(ctx, typ, e, announce); err != nil {
		return err
	}
	s.charge(e.Speaker, usage)
	s.chargeCost(e.Cost)
	s.chargePurposes(e.Purposes)
	s.countJudgments(e.Judgments)
	return nil
}

// Transcript returns the utterances so far (a copy).
func (s *Session) Transcript() []Utterance { return append([]Utterance(nil), s.transcript...) }

// Utterance returns the utterance stored with seq.
func (s *Session) Utterance(seq int64) (Utterance, bool) {
	i, ok := s.index[seq]
	if !ok {
		return Utterance{}, false
	}
	return s.transcript[i], true
}

// Len is the number of utterances so far.
func (s *Session) Len() int { return len(s.transcript) }

// Tail returns (a copy of) the last n utterances, fewer when fewer were
// said: what a prompt's window of recent turns needs, without copying the
// whole transcript every turn.
func (s *Session) Tail(n int) []Utterance {
	return append([]Utterance(nil), s.transcript[max(0, len(s.transcript)-n):]...)
}
