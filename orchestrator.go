package duelogic

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// Orchestrator runs Duelogic debates with one configuration. It is safe for
// concurrent use: several debates may run at once, each in its own Run or
// Resume call.
type Orchestrator struct {
	cfg     Config
	cat     *Catalog
	client  llm.Client
	store   store.Store
	sink    EventSink
	now     func() time.Time
	logger  *slog.Logger
	hook    func(purpose string, msgs []llm.Message) []llm.Message
	mapping *argumentation.Semantics
	// catalogSet: WithCatalog was given (only the podcast reads a catalog).
	catalogSet bool

	mu      sync.Mutex
	running map[string]*pending
}

// Option configures an [Orchestrator].
type Option func(*Orchestrator)

// WithStore sets where debates are recorded; the default is a new in-memory
// store.
func WithStore(s store.Store) Option { return func(o *Orchestrator) { o.store = s } }

// WithSink sets who hears the events; the default discards them.
func WithSink(s EventSink) Option { return func(o *Orchestrator) { o.sink = s } }

// WithClock sets the clock read for record times and interruption cooldowns;
// the default is time.Now.
func WithClock(now func() time.Time) Option { return func(o *Orchestrator) { o.now = now } }

// WithCatalog sets the frameworks chairs may hold; the default is
// [DefaultCatalog]. The config is validated against it.
// Other formats cannot honour it: [RunFormat] and [ResumeFormat] refuse it
// with [ErrUnsupportedOption].
func WithCatalog(c *Catalog) Option {
	return func(o *Orchestrator) { o.cat, o.catalogSet = c, true }
}

// WithLogger sets the logger for what the engine notices but survives (an
// unparseable evaluation, a rejected interruption, a panicking sink); the
// default discards.
func WithLogger(l *slog.Logger) Option { return func(o *Orchestrator) { o.logger = l } }

// WithPromptHook lets a host see or rewrite the messages of every model call
// before it is sent; purpose is the call's Purpose. The hook must be safe for
// concurrent use and must not retain msgs.
func WithPromptHook(h func(purpose string, msgs []llm.Message) []llm.Message) Option {
	return func(o *Orchestrator) { o.hook = h }
}

// New returns an orchestrator for cfg whose model calls go to client. It
// fails with an error wrapping [ErrInvalidConfig] if cfg is invalid.
func New(cfg Config, client llm.Client, opts ...Option) (*Orchestrator, error) {
	if client == nil {
		return nil, errors.New("duelogic: nil llm.Client")
	}
	o := &Orchestrator{cfg: cfg, client: client, now: time.Now, running: map[string]*pending{}}
	for _, opt := range opts {
		opt(o)
	}
	if o.cat == nil {
		o.cat = DefaultCatalog()
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
	if err := cfg.ValidateCatalog(o.cat); err != nil {
		return nil, err
	}
	return o, nil
}

// Config returns the orchestrator's configuration.
func (o *Orchestrator) Config() Config { return o.cfg }

// Store returns the store the orchestrator records debates in.
func (o *Orchestrator) Store() store.Store { return o.store }

// Result is a finished debate.
type Result struct {
	DebateID string `json:"debateId"`
	// Format names the debate's format ("duelogic", ...).
	Format string `json:"format"`
	Debate Debate `json:"debate"`
	Config Config `json:"config"`
	// Transcript is every utterance in order.
	Transcript []Utterance `json:"transcript"`
	// Usage is the total of every call; UsageBySpeaker splits it by chair
	// position and "arbiter" (which includes evaluations and interrupt
	// checks).
	Usage          llm.Usage            `json:"usage"`
	UsageBySpeaker map[string]llm.Usage `json:"usageBySpeaker"`
	Metrics        Metrics              `json:"metrics"`
	// Interruptions are the interruptions made, in order.
	Interruptions []InterruptCandidate `json:"interruptions,omitempty"`
	// Arguments is the argument map, when WithArgumentMap is on.
	Arguments *ArgumentMap `json:"arguments,omitempty"`
}

// ValidateDebate checks a debate before any model is called: an ID (when
// given) of 1-128 of [A-Za-z0-9._-] not starting with '.', a proposition that
// is valid UTF-8, not blank and at most MaxPropositionRunes, a context of at
// most MaxContextRunes. The error wraps [ErrInvalidDebate].
func ValidateDebate(d Debate) error {
	var probs []string
	if d.ID != "" && !validDebateID(d.ID) {
		probs = append(probs, fmt.Sprintf("id %q: use 1-128 of A-Z a-z 0-9 . _ - not starting with '.'", d.ID))
	}
	switch n := utf8.RuneCountInString(d.Proposition); {
	case !utf8.ValidString(d.Proposition):
		probs = append(probs, "proposition is not valid UTF-8")
	case strings.TrimSpace(d.Proposition) == "":
		probs = append(probs, "proposition is empty")
	case n > MaxPropositionRunes:
		probs = append(probs, fmt.Sprintf("proposition has %d characters; at most %d", n, MaxPropositionRunes))
	}
	if !utf8.ValidString(d.Context) {
		probs = append(probs, "context is not valid UTF-8")
	} else if n := utf8.RuneCountInString(d.Context); n > MaxContextRunes {
		probs = append(probs, fmt.Sprintf("context has %d characters; at most %d", n, MaxContextRunes))
	}
	if len(probs) > 0 {
		return fmt.Errorf("%w: %s", ErrInvalidDebate, strings.Join(probs, "; "))
	}
	return nil
}

func validDebateID(id string) bool {
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

// Run runs debate d from the start and returns its result. It fails before
// any model call when d is invalid ([ErrInvalidDebate]) or its ID is already
// in the store ([ErrDebateExists]). A model error stops the debate with a
// [*TurnError]; a store error or ctx's cancellation stops it too. In every
// case what was said so far stays stored, and [Orchestrator.Resume] finishes
// it.
func (o *Orchestrator) Run(ctx context.Context, d Debate) (*Result, error) {
	d, err := o.newDebate(ctx, d)
	if err != nil {
		return nil, err
	}
	p, release, err := o.claim(d.ID, o.cfg)
	if err != nil {
		return nil, err
	}
	defer release()
	r := o.newRun(d, o.cfg, p, nil)
	r.mapSem = o.mapping
	return r.execute(ctx)
}

// newDebate validates d, gives it an ID when it has none, and checks that the
// store does not hold it yet.
func (o *Orchestrator) newDebate(ctx context.Context, d Debate) (Debate, error) {
	if err := ValidateDebate(d); err != nil {
		return d, err
	}
	if d.ID == "" {
		d.ID = NewDebateID()
	}
	if _, err := o.store.Records(ctx, d.ID); err == nil {
		return d, fmt.Errorf("%w: %s", ErrDebateExists, d.ID)
	} else if !errors.Is(err, store.ErrNotFound) {
		return d, fmt.Errorf("duelogic: look up debate %s: %w", d.ID, err)
	}
	return d, nil
}

// stored is a debate read back from the store for resuming.
type stored struct {
	head    debateRecord
	journal *journal
	lastSeq int64
}

// loadDebate reads debate id's records: its first record, and the rest as a
// journal to replay.
func (o *Orchestrator) loadDebate(ctx context.Context, id string) (stored, error) {
	recs, err := o.store.Records(ctx, id)
	if err != nil {
		return stored{}, fmt.Errorf("duelogic: resume %s: %w", id, err)
	}
	head, err := headOf(id, recs)
	if err != nil {
		return stored{}, err
	}
	j, err := newJournal(recs[1:])
	if err != nil {
		return stored{}, err
	}
	return stored{head: head, journal: j, lastSeq: recs[len(recs)-1].Seq}, nil
}

// headOf decodes the first record of debate id, which must be a debate
// record.
func headOf(id string, recs []store.Record) (debateRecord, error) {
	if recs[0].Type != RecordDebate {
		return debateRecord{}, fmt.Errorf("%w: %s: first record is %q", ErrCorruptLog, id, recs[0].Type)
	}
	head, err := decode[debateRecord](recs[0])
	head.Debate.ID = id
	return head, err
}

// Resume continues a stopped debate from its records: it replays them, using
// the config and debate of the first record, and continues at the next step,
// so no stored utterance is generated again and the finished transcript has
// the shape of an uninterrupted run. Resuming a finished debate returns its
// result without calling a model. The orchestrator's own config is not used;
// its client, store, sink and clock are.
func (o *Orchestrator) Resume(ctx context.Context, debateID string) (*Result, error) {
	st, err := o.loadDebate(ctx, debateID)
	if err != nil {
		return nil, err
	}
	head := st.head
	if head.Format != formatDuelogic {
		return nil, fmt.Errorf("%w: %s is a %q debate; resume it with ResumeFormat", ErrCorruptLog, debateID, head.Format)
	}
	if err := head.Config.ValidateCatalog(o.cat); err != nil {
		return nil, fmt.Errorf("%w: %s: stored config: %v", ErrCorruptLog, debateID, err)
	}
	p, release, err := o.claim(debateID, head.Config)
	if err != nil {
		return nil, err
	}
	defer release()
	r := o.newRun(head.Debate, head.Config, p, st.journal)
	r.rec.seq = st.lastSeq
	if err := r.chargeSide(); err != nil {
		return nil, err
	}
	if head.Mapping {
		r.mapSem = o.mapping
		if r.mapSem == nil {
			r.mapSem = &argumentation.Additive
		}
	}
	return r.execute(ctx)
}

// pending holds the manual interjections waiting for a running debate's next
// turn boundary.
type pending struct {
	cfg    Config // the running debate's config, read-only
	mu     sync.Mutex
	queue  []Interjection
	closed bool // past the last turn boundary: nothing can be delivered
}

// close refuses further interjections: the debate has no turn boundary left.
func (p *pending) close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
}

func (p *pending) drain() []Interjection {
	p.mu.Lock()
	defer p.mu.Unlock()
	q := p.queue
	p.queue = nil
	return q
}

func (o *Orchestrator) claim(id string, cfg Config) (*pending, func(), error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.running[id]; ok {
		return nil, nil, fmt.Errorf("%w: %s", ErrAlreadyRunning, id)
	}
	p := &pending{cfg: cfg}
	o.running[id] = p
	return p, func() {
		o.mu.Lock()
		delete(o.running, id)
		o.mu.Unlock()
	}, nil
}

// MaxInterjectionReasonRunes bounds the reason of a manual interjection.
const MaxInterjectionReasonRunes = 1000

// MaxPendingInterjections bounds the manual interjections waiting for a
// debate's next turn boundary; [Orchestrator.Interject] refuses more with
// [ErrTooManyInterjections] until the debate has delivered them.
const MaxPendingInterjections = 8

// ErrTooManyInterjections: [MaxPendingInterjections] are already waiting for
// the debate's next turn boundary.
var ErrTooManyInterjections = errors.New("duelogic: too many interjections waiting")

// Interject asks the arbiter of a running debate to interject, as the seed's
// POST /api/debates/:id/arbiter/interject does. The interjection is delivered
// at the next turn boundary and recorded like any other; targetChair names the
// chair called out ("" for the last chair who spoke). It fails with
// [ErrNotRunning] when this orchestrator is not running the debate, or the
// debate is past its last turn boundary (the closing has begun), and with
// [ErrTooManyInterjections] when [MaxPendingInterjections] are waiting.
func (o *Orchestrator) Interject(debateID, reason, targetChair string) error {
	reason = strings.TrimSpace(reason)
	switch {
	case reason == "":
		return errors.New("duelogic: interjection needs a reason")
	case utf8.RuneCountInString(reason) > MaxInterjectionReasonRunes:
		return fmt.Errorf("duelogic: interjection reason over %d characters", MaxInterjectionReasonRunes)
	}
	o.mu.Lock()
	p, ok := o.running[debateID]
	o.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w: %s", ErrNotRunning, debateID)
	}
	if _, ok := p.cfg.chair(targetChair); targetChair != "" && !ok {
		return fmt.Errorf("duelogic: interject in %s: no chair at position %q", debateID, targetChair)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return fmt.Errorf("%w: %s is closing; no turn is left to interject at", ErrNotRunning, debateID)
	}
	if len(p.queue) >= MaxPendingInterjections {
		return fmt.Errorf("%w: %d for %s", ErrTooManyInterjections, len(p.queue), debateID)
	}
	p.queue = append(p.queue, Interjection{Type: ViolationManual, Target: targetChair, Reason: reason})
	return nil
}

// Running returns the IDs of the debates this orchestrator is running.
func (o *Orchestrator) Running() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	ids := make([]string, 0, len(o.running))
	for id := range o.running {
		ids = append(ids, id)
	}
	return ids
}
