package duelogic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// Orchestrator runs Duelogic podcast debates with one configuration: the
// convenience API over [engine.Run] and [engine.Resume] with a [Podcast],
// which adds manual interjections ([Orchestrator.Interject]). It is safe
// for concurrent use: several debates may run at once, each in its own Run
// or Resume call.
type Orchestrator struct {
	cfg    Config
	cat    *Catalog
	client llm.Client
	store  store.Store
	opts   []Option

	mu      sync.Mutex
	running map[string]*pending
}

// WithStore sets where debates are recorded; the default is a new in-memory
// store. It is [engine.WithStore].
func WithStore(s store.Store) Option { return engine.WithStore(s) }

// WithSink sets who hears the events; the default discards them. It is
// [engine.WithSink].
func WithSink(s EventSink) Option { return engine.WithSink(s) }

// WithClock sets the clock read for record times and interruption
// cooldowns; the default is time.Now. It is [engine.WithClock].
func WithClock(now func() time.Time) Option { return engine.WithClock(now) }

// WithLogger sets the logger for what the engine notices but survives (an
// unparseable evaluation, a rejected interruption, a panicking sink); the
// default discards. It is [engine.WithLogger].
func WithLogger(l *slog.Logger) Option { return engine.WithLogger(l) }

// WithPromptHook lets a host see or rewrite the messages of every model call
// before it is sent. It is [engine.WithPromptHook].
func WithPromptHook(h func(purpose string, msgs []llm.Message) []llm.Message) Option {
	return engine.WithPromptHook(h)
}

// WithArgumentMap turns argument mapping on: after each chair turn the
// arbiter's model turns what was said into speech-act moves, which build the
// debate's argument graph, scored with s; the closing receives the
// strongest surviving arguments and the key clashes, and the Result carries
// the map. It is [engine.WithArgumentMap].
func WithArgumentMap(s argumentation.Semantics) Option { return engine.WithArgumentMap(s) }

// WithCatalog sets the frameworks chairs may hold; the default is
// [DefaultCatalog]. The config is validated against it. Only the podcast
// reads a catalog: engine.Run refuses it for another format with
// [ErrUnsupportedOption].
func WithCatalog(c *Catalog) Option {
	return engine.ForFormat(func(f any) error {
		p, ok := f.(*Podcast)
		if !ok {
			return fmt.Errorf("%w: WithCatalog: only the duelogic podcast reads a catalog", ErrUnsupportedOption)
		}
		p.cat = c
		return nil
	})
}

// New returns an orchestrator for cfg whose model calls go to client, with
// opts for every debate it runs. The fields of cfg left at zero take their
// defaults as [NewPodcast] says (New(Config{}, client) runs the default
// debate). It fails with an error wrapping [ErrInvalidConfig] if cfg is
// invalid.
func New(cfg Config, client llm.Client, opts ...Option) (*Orchestrator, error) {
	if client == nil {
		return nil, errors.New("duelogic: nil llm.Client")
	}
	cfg = cfg.withDefaults()
	p := &Podcast{Config: cfg}
	if err := engine.Configure(p, opts...); err != nil {
		return nil, err
	}
	st := engine.StoreOf(opts...)
	if st == nil {
		st = store.NewMemory()
		opts = append(opts[:len(opts):len(opts)], engine.WithStore(st))
	}
	return &Orchestrator{cfg: cfg, cat: p.cat, client: client, store: st, opts: opts, running: map[string]*pending{}}, nil
}

// Config returns the orchestrator's configuration, its zero fields set
// (see [New]).
func (o *Orchestrator) Config() Config { return o.cfg }

// Store returns the store the orchestrator records debates in.
func (o *Orchestrator) Store() store.Store { return o.store }

// Result is a podcast debate's result as [Orchestrator.Run] and
// [Orchestrator.Resume] return it: the engine's result of a [Podcast]
// (what [engine.Run] returns; res.Result for code that handles any format),
// its fields promoted, with the podcast's metrics at the top as Metrics.
// Detail is the [Outcome]: res.Detail.Config, res.Detail.Interruptions.
// A debate that stopped has its ID, format, debate, transcript and usage
// so far, a nil Detail and zero Metrics (its config is
// [Orchestrator.Config], or the first stored record's for a resumed
// debate).
type Result struct {
	engine.Result[*Outcome]
	// Metrics are the finished debate's metrics, res.Detail.Metrics; zero
	// when it did not finish. JSON has them once, in the detail.
	Metrics Metrics `json:"-"`
}

// resultOf is the orchestrator's result of the engine's (nil for nil).
func resultOf(r *engine.Result[*Outcome]) *Result {
	if r == nil {
		return nil
	}
	res := &Result{Result: *r}
	if r.Detail != nil {
		res.Metrics = r.Detail.Metrics
	}
	return res
}

// ValidateDebate checks a debate before any model is called; it is
// [engine.ValidateDebate].
func ValidateDebate(d Debate) error { return engine.ValidateDebate(d) }

// NewDebateID returns a fresh random debate ID; it is [engine.NewDebateID].
func NewDebateID() string { return engine.NewDebateID() }

// Inspect reads the summary of a stored debate; it is [engine.Inspect].
func Inspect(ctx context.Context, st store.Store, id string) (Summary, error) {
	return engine.Inspect(ctx, st, id)
}

// Run runs debate d from the start and returns its result. It fails before
// any model call when d is invalid ([ErrInvalidDebate]) or its ID is already
// in the store ([ErrDebateExists]). A model error stops the debate with a
// [*TurnError]; a store error or ctx's cancellation stops it too. In every
// case what was said so far stays stored, the result so far (its ID, the
// transcript and usage so far) comes with the error once the debate's first
// record is stored, as engine.Run's does, and [Orchestrator.Resume]
// finishes it.
func (o *Orchestrator) Run(ctx context.Context, d Debate) (*Result, error) {
	if err := ValidateDebate(d); err != nil {
		return nil, err
	}
	if d.ID == "" {
		d.ID = NewDebateID()
	}
	p, release, err := o.claim(d.ID)
	if err != nil {
		return nil, err
	}
	defer release()
	pc := &Podcast{Config: o.cfg, cat: o.cat, pending: p}
	res, err := engine.Run(ctx, o.client, pc, d, o.opts...)
	return resultOf(res), err
}

// Resume continues a stopped debate from its records: it replays them, using
// the config and debate of the first record, and continues at the next step,
// so no stored utterance is generated again and the finished transcript has
// the shape of an uninterrupted run. Resuming a finished debate returns its
// result without calling a model. The orchestrator's own config is not used;
// its client, store, sink, clock and catalog are. Like Run, it returns the
// result so far with an error that stops the debate again.
func (o *Orchestrator) Resume(ctx context.Context, debateID string) (*Result, error) {
	p, release, err := o.claim(debateID)
	if err != nil {
		return nil, err
	}
	defer release()
	pc := &Podcast{cat: o.cat, pending: p}
	res, err := engine.Resume(ctx, o.client, pc, debateID, o.opts...)
	return resultOf(res), err
}

// pending holds the manual interjections waiting for a running debate's next
// turn boundary.
type pending struct {
	mu     sync.Mutex
	cfg    *Config // the running debate's config, once it plays
	queue  []Interjection
	closed bool // past the last turn boundary: nothing can be delivered
}

// open records the config of the debate that plays.
func (p *pending) open(cfg Config) {
	p.mu.Lock()
	p.cfg = &cfg
	p.mu.Unlock()
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

func (o *Orchestrator) claim(id string) (*pending, func(), error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.running[id]; ok {
		return nil, nil, fmt.Errorf("%w: %s", ErrAlreadyRunning, id)
	}
	p := &pending{}
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

// ErrNotRunning: Interject named a debate this orchestrator is not running.
var ErrNotRunning = errors.New("duelogic: debate not running")

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
	p.mu.Lock()
	defer p.mu.Unlock()
	cfg := o.cfg
	if p.cfg != nil {
		cfg = *p.cfg
	}
	if _, ok := cfg.chair(targetChair); targetChair != "" && !ok {
		return fmt.Errorf("duelogic: interject in %s: no chair at position %q", debateID, targetChair)
	}
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

// ConfigOf returns the config stored with a podcast debate's summary, and
// false for a debate of another format or an unreadable spec.
func ConfigOf(s Summary) (Config, bool) {
	var p Podcast
	if s.Format != FormatName || json.Unmarshal(s.Spec, &p) != nil {
		return Config{}, false
	}
	return p.Config, true
}
