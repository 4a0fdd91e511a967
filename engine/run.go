package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// Format is a debate format: a plan of steps over a [Session]. The Duelogic
// podcast, the formal, scored, moderated and persuasion debates are
// formats; a host may write its own and check it with package enginetest.
//
// A Format's exported fields are its configuration: [Run] stores them as
// JSON in the debate's first record and [Resume] decodes them back into the
// Format it is given (which must be a pointer), so a resumed debate plays as
// it started. A Format may also implement Validate() error, which Run and
// Resume call before anything is stored or asked, and [Cast], which
// argument mapping reads.
type Format[R any] interface {
	// Name identifies the format in the debate's first record.
	Name() string
	// Play runs the debate and returns the format's own outcome, which
	// becomes [Result.Detail]. On resume the Session replays the stored
	// steps, so Play runs the same code from the start: given the same
	// stored results it must make the same Session calls with the same
	// keys in the same order. Play is called on one goroutine; only
	// [Session.Call] and [Session.SideStep] may be used from others, and
	// Play must wait for those before it returns.
	Play(ctx context.Context, s *Session) (R, error)
}

// Cast is implemented by a format that names its participants; argument
// mapping ([WithArgumentMap]) uses it. Without it (or when Participants is
// empty), every speaker but [SpeakerArbiter] and [SpeakerHuman] is mapped, named as is, and extraction calls carry no
// model ID.
type Cast interface {
	// Participants returns the speakers whose turns are mapped, in order.
	Participants() []string
	// Label names a speaker for prompts and the map's report.
	Label(speaker string) string
	// JudgeModel is the model ID that extracts arguments.
	JudgeModel() string
}

// Proposer is implemented by a format that finds the proposition of a
// debate given without one (formal: its topic prompt, else it asks the
// person, seed 001's Step B). When d.Proposition is blank, [Run] calls
// Propose before it checks the debate, with the debate's [Human] (nil
// without [WithHuman], or when d is unattended); the proposition it
// returns is debated, and its error stops Run before anything is stored.
type Proposer interface {
	Propose(ctx context.Context, d Debate, h Human) (string, error)
}

// Result is a finished debate of a format with outcome type R.
type Result[R any] struct {
	DebateID string `json:"debateId"`
	// Format is the format's name.
	Format string `json:"format"`
	Debate Debate `json:"debate"`
	// Transcript is everything said, in order, as amended by the format
	// (evaluations, interruption marks).
	Transcript []Utterance `json:"transcript"`
	// Usage is the total of every call of the debate, including those
	// made before a resume; UsageBySpeaker splits it by the speaker each
	// step was charged to.
	Usage          llm.Usage            `json:"usage"`
	UsageBySpeaker map[string]llm.Usage `json:"usageBySpeaker"`
	// UsageByPurpose splits Usage by the llm.Request.Purpose of the calls
	// (speeches, evaluations, interruption checks...), as each call
	// reported it (a cut speech's estimated). A step whose usage no call
	// of the debate's client reported — one recorded by an engine before
	// purposes were kept — is counted under "".
	UsageByPurpose map[string]llm.Usage `json:"usageByPurpose,omitempty"`
	// Cost is the money the debate's calls cost at the prices of
	// [WithPrices], including those made before a resume (0 without
	// prices).
	Cost float64 `json:"cost,omitempty"`
	// Detail is the format's own outcome (metrics, verdict, documents...).
	Detail R `json:"detail"`
	// Arguments is the argument map, when [WithArgumentMap] is on.
	Arguments *ArgumentMap `json:"arguments,omitempty"`
	// Timing is how long this Run or Resume took, and its model calls by
	// purpose: Timing.Share(purposes of Judgments...) is the judgments'
	// part of the model's time.
	Timing Timing `json:"timing,omitzero"`
	// Judgments counts, by purpose, how the replies of the debate's
	// judgments ([Judge]) were read: at the first ask, after the one
	// re-ask, or not at all (the format's default applied), and how many
	// were cut at their token cap. Like Usage it includes the judgments
	// made before a resume.
	Judgments map[string]JudgmentCounts `json:"judgments,omitempty"`
}

// Limits of a [Debate].
const (
	MaxPropositionRunes = 2000
	MaxContextRunes     = 20000
)

// ValidateDebate checks a debate before any model is called: an ID (when
// given) of 1-128 of [A-Za-z0-9._-] not starting with '.', a proposition that
// is valid UTF-8, not blank and at most MaxPropositionRunes, a context of at
// most MaxContextRunes. The error is a [*DebateError] naming every problem
// by field ("id", "proposition", "context"); it wraps [ErrInvalidDebate].
func ValidateDebate(d Debate) error {
	e := &DebateError{}
	if d.ID != "" && !ValidID(d.ID) {
		e.add("id", "%q: use 1-128 of A-Z a-z 0-9 . _ - not starting with '.'", d.ID)
	}
	switch n := utf8.RuneCountInString(d.Proposition); {
	case !utf8.ValidString(d.Proposition):
		e.add("proposition", "is not valid UTF-8")
	case strings.TrimSpace(d.Proposition) == "":
		e.add("proposition", "is empty")
	case n > MaxPropositionRunes:
		e.add("proposition", "has %d characters; at most %d", n, MaxPropositionRunes)
	}
	if !utf8.ValidString(d.Context) {
		e.add("context", "is not valid UTF-8")
	} else if n := utf8.RuneCountInString(d.Context); n > MaxContextRunes {
		e.add("context", "has %d characters; at most %d", n, MaxContextRunes)
	}
	if len(e.Violations) > 0 {
		return e
	}
	return nil
}

// ValidID reports whether id may name a debate: 1-128 of [A-Za-z0-9._-],
// not starting with '.' (so it is safe as a file name).
func ValidID(id string) bool {
	if id == "" || len(id) > 128 || id[0] == '.' {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// NewDebateID returns a fresh random debate ID ("dl-" and 16 hex digits).
func NewDebateID() string {
	var b [8]byte
	rand.Read(b[:])
	return "dl-" + hex.EncodeToString(b[:])
}

// Run plays a debate of format f from the start, with client for the model
// calls, and returns its result. It fails before any model call when d is
// invalid ([ErrInvalidDebate]), f's configuration is invalid
// ([ErrInvalidConfig]), an option cannot be honoured
// ([ErrUnsupportedOption]), d's ID is already in the store
// ([ErrDebateExists]) or this process plays it already
// ([ErrAlreadyRunning]). When the store is a [store.Locker], Run holds the
// debate's lock while it plays (released when it returns, even by a panic)
// and fails with an error wrapping store.ErrLocked if another process holds
// it. A model error stops the debate with a [*TurnError]; a
// store error or ctx's cancellation stops it too. In every case what was
// said so far stays stored, and [Resume] finishes it.
func Run[R any](ctx context.Context, client llm.Client, f Format[R], d Debate, opts ...Option) (*Result[R], error) {
	s, err := newSettings(client, opts)
	if err != nil {
		return nil, err
	}
	if err := s.check(f); err != nil {
		return nil, err
	}
	if err := s.configure(f); err != nil {
		return nil, err
	}
	if p, ok := underlying(f).(Proposer); ok && strings.TrimSpace(d.Proposition) == "" {
		h := s.human
		if d.Unattended {
			h = nil
		}
		prop, err := p.Propose(ctx, d, h)
		if err != nil {
			return nil, err
		}
		d.Proposition = prop
	}
	if err := ValidateDebate(d); err != nil {
		return nil, err
	}
	if d.ID == "" {
		d.ID = NewDebateID()
	}
	d.ForkOf, d.ForkAt = "", 0 // only Fork makes a fork
	release, err := claim(ctx, s.store, d.ID)
	if err != nil {
		return nil, err
	}
	defer release()
	if _, err := s.store.Records(ctx, d.ID); err == nil {
		return nil, fmt.Errorf("%w: %s", ErrDebateExists, d.ID)
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("engine: look up debate %s: %w", d.ID, err)
	}
	spec, err := json.Marshal(underlying(f))
	if err != nil {
		return nil, fmt.Errorf("engine: encode %s configuration: %w", f.Name(), err)
	}
	h := head{Version: recordVersion, Format: f.Name(), Debate: d, Spec: spec}
	if s.mapping != nil {
		h.Mapping = s.mapping.String()
	}
	return play(ctx, newSession(s, d, nil, s.mapping), f, &h)
}

// Resume continues a stopped debate of format f from its records: the
// stored configuration is decoded into f (a pointer), Play replays the
// stored steps and continues at the first one not stored, so nothing stored
// is generated again and the finished transcript has the shape of an
// uninterrupted run. Resuming a finished debate returns its result without
// calling a model or growing its log. Like Run, Resume holds the debate's
// lock of a [store.Locker] store while it plays (store.ErrLocked when
// another process holds it).
func Resume[R any](ctx context.Context, client llm.Client, f Format[R], debateID string, opts ...Option) (*Result[R], error) {
	if isNil(StoreOf(opts...)) {
		return nil, fmt.Errorf("engine: resume %s: no store: pass WithStore with the store the debate was recorded in", debateID)
	}
	s, err := newSettings(client, opts)
	if err != nil {
		return nil, err
	}
	if err := s.check(f); err != nil {
		return nil, err
	}
	release, err := claim(ctx, s.store, debateID)
	if err != nil {
		return nil, err
	}
	defer release()
	recs, err := s.store.Records(ctx, debateID)
	if err != nil {
		return nil, fmt.Errorf("engine: resume %s: %w", debateID, err)
	}
	h, err := headOf(recs)
	if err != nil {
		return nil, err
	}
	if h.Format != f.Name() {
		return nil, fmt.Errorf("%w: %s is a %q debate, not %q", ErrCorruptLog, debateID, h.Format, f.Name())
	}
	zeroConfig(underlying(f))
	if err := json.Unmarshal(h.Spec, underlying(f)); err != nil {
		return nil, fmt.Errorf("%w: %s: stored %s configuration: %v", ErrCorruptLog, debateID, f.Name(), err)
	}
	if err := s.configure(f); err != nil {
		if errors.Is(err, ErrInvalidConfig) {
			return nil, fmt.Errorf("%w: %s: stored configuration: %w", ErrCorruptLog, debateID, err)
		}
		return nil, err
	}
	j, err := newJournal(recs[1:])
	if err != nil {
		return nil, err
	}
	var sem *argumentation.Semantics
	if h.Mapping == "" && s.mapping != nil {
		return nil, fmt.Errorf("%w: WithArgumentMap: debate %s was played without an argument map, and Resume does not start one midway", ErrUnsupportedOption, debateID)
	}
	if h.Mapping != "" {
		if sem = s.mapping; sem == nil {
			stored, err := argumentation.ParseSemantics(h.Mapping)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: mapping semantics: %v", ErrCorruptLog, debateID, err)
			}
			sem = &stored
		}
	}
	ss := newSession(s, h.Debate, j, sem)
	ss.rec.seq = recs[len(recs)-1].Seq
	if err := ss.chargeSide(); err != nil {
		return nil, err
	}
	return play(ctx, ss, f, nil)
}

// headOf decodes the first record of a debate.
func headOf(recs []store.Record) (head, error) {
	if len(recs) == 0 {
		return head{}, fmt.Errorf("%w: no records", ErrCorruptLog)
	}
	id := recs[0].DebateID
	if recs[0].Type != RecordDebate {
		return head{}, fmt.Errorf("%w: %s: the records do not start with a debate record (the first is %q)", ErrCorruptLog, id, recs[0].Type)
	}
	en, err := decode[entry](recs[0])
	if err != nil {
		return head{}, err
	}
	var h head
	if err := json.Unmarshal(en.Value, &h); err != nil || h.Version != recordVersion {
		return head{}, fmt.Errorf("%w: %s: a debate record of layout version %d; this engine reads version %d", ErrCorruptLog, id, h.Version, recordVersion)
	}
	h.Debate.ID = id
	return h, nil
}

// endKey is the key of a debate's last record.
const endKey = "end"

// play runs f on s; h is the head record to write, nil when resuming. Once
// the debate exists, an error comes with the result so far (see [Run]).
func play[R any](ctx context.Context, s *Session, f Format[R], h *head) (res *Result[R], err error) {
	s.rec.start(ctx)
	mctx, cancel := context.WithCancel(ctx)
	s.startMapper(mctx, f)
	stopped := false
	defer func() {
		if !stopped { // Play panicked: the mapper and the writer still end first
			cancel()
			s.finishMapping()
			s.rec.stop()
		}
	}()
	res, err = playSteps(ctx, s, f, h)
	if err != nil {
		cancel()
	}
	if merr := s.finishMapping(); err == nil && merr != nil {
		err = merr
	}
	cancel()
	stopped = true
	if serr := s.rec.stop(); serr != nil && err == nil {
		err = serr
	}
	if err != nil {
		if h != nil && s.rec.stored.Load() == 0 {
			return nil, err // the debate's first record was not stored: no debate
		}
		return soFar[R](s, f.Name()), err
	}
	return res, nil
}

// soFar is the result of a debate that stopped: everything but its
// outcome.
func soFar[R any](s *Session, name string) *Result[R] {
	res := &Result[R]{
		DebateID: s.d.ID, Format: name, Debate: s.d, Transcript: s.Transcript(),
		UsageBySpeaker: map[string]llm.Usage{}, UsageByPurpose: map[string]llm.Usage{}, Judgments: s.Judgments(), Timing: s.rec.clock.timing(),
	}
	s.usageMu.Lock()
	for sp, u := range s.usage {
		res.UsageBySpeaker[sp] = u
		res.Usage = res.Usage.Add(u)
	}
	for p, u := range s.purposes {
		res.UsageByPurpose[p] = u
	}
	res.Cost = s.cost + s.rec.meter.loose()
	s.usageMu.Unlock()
	return res
}

func playSteps[R any](ctx context.Context, s *Session, f Format[R], h *head) (*Result[R], error) {
	if h != nil {
		if _, err := s.step(ctx, RecordDebate, RecordDebate, "", h, func(int64) *Announcement {
			return &Announcement{Type: EventDebateStarted}
		}); err != nil {
			return nil, err
		}
	}
	detail, err := f.Play(ctx, s)
	if perr := s.finishPlay(); perr != nil {
		return nil, perr
	}
	if err != nil {
		return nil, err
	}
	am, err := s.ArgumentMap(ctx)
	if err != nil {
		return nil, err
	}
	res := soFar[R](s, f.Name())
	res.Detail, res.Arguments = detail, am
	const key = endKey
	if s.j.nextIs(key) {
		return res, s.j.skip(key)
	}
	raw, err := json.Marshal(detail)
	if err != nil {
		return nil, fmt.Errorf("engine: encode the %s outcome: %w", f.Name(), err)
	}
	ended := Ended{Format: f.Name(), Usage: res.Usage, UsageBySpeaker: res.UsageBySpeaker, UsageByPurpose: res.UsageByPurpose, Cost: res.Cost, Detail: raw, Arguments: am, Judgments: res.Judgments}
	if o, ok := any(detail).(Outcome); ok && !isNil(o) {
		v := o.Verdict()
		ended.Verdict = &v
	}
	if _, err := s.step(ctx, key, RecordDebateEnded, "", nil, func(int64) *Announcement {
		return &Announcement{Type: EventDebateEnded, Data: ended}
	}); err != nil {
		return nil, err
	}
	if s.j.replaying() {
		return nil, fmt.Errorf("%w: records after the end of debate %s", ErrCorruptLog, s.d.ID)
	}
	return res, nil
}

// running holds the debates being played in this process, by store and ID.
var running sync.Map

type runKey struct {
	store any
	id    string
}

// claim marks debate id of st as being played until release is called; a
// second claim fails with [ErrAlreadyRunning]. A store whose dynamic type is
// not comparable is told apart by its type alone. When st is a
// [store.Locker], claim also takes the debate's lock, failing with an error
// wrapping store.ErrLocked when another process holds it; release unlocks.
// An unlock that fails is not reported: the debate is over either way, and a
// Locker frees the lock of a holder that is gone.
func claim(ctx context.Context, st store.Store, id string) (release func(), err error) {
	var k any = st
	if !reflect.TypeOf(st).Comparable() {
		k = reflect.TypeOf(st)
	}
	key := runKey{k, id}
	if _, loaded := running.LoadOrStore(key, struct{}{}); loaded {
		return nil, fmt.Errorf("%w: %s", ErrAlreadyRunning, id)
	}
	l, ok := st.(store.Locker)
	if !ok {
		return func() { running.Delete(key) }, nil
	}
	unlock, err := l.Lock(ctx, id)
	if err != nil {
		running.Delete(key)
		return nil, fmt.Errorf("engine: lock debate %s: %w", id, err)
	}
	return func() {
		_ = unlock()
		running.Delete(key)
	}, nil
}

// zeroConfig zeroes the exported fields of the struct f points to, so that
// the stored configuration decoded into it is all there is: a field the
// stored JSON leaves out does not keep the caller's value. Unexported fields
// (hooks given to the format's constructor) stay.
func zeroConfig(f any) {
	v := reflect.ValueOf(f)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return
	}
	v = v.Elem()
	for i := 0; i < v.NumField(); i++ {
		if v.Type().Field(i).IsExported() {
			v.Field(i).SetZero()
		}
	}
}
