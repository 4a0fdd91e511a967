package engine

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// Option configures a [Run] or [Resume].
type Option func(*settings)

type settings struct {
	human   Human
	client  llm.Client
	store   store.Store
	sink    EventSink
	nils    []string // options given a nil value
	now     func() time.Time
	logger  *slog.Logger
	hook    func(purpose string, msgs []llm.Message) []llm.Message
	mapping *argumentation.Semantics
	format  []func(f any) error

	maxTokens map[string]int
	prices    map[string]Price
	budget    Budget
}

// WithStore sets where the debate is recorded; the default is a new
// in-memory store (so Resume needs the same store given again). A nil
// store (or a nil pointer of a store type) is an error of Run and Resume.
func WithStore(s store.Store) Option {
	return func(o *settings) {
		if isNil(s) {
			o.nils = append(o.nils, fmt.Sprintf("WithStore(%T(nil))", s))
		}
		o.store = s
	}
}

// WithSink sets who hears the events; the default discards them. A nil
// sink (or a nil pointer of a sink type) is an error of Run and Resume. A
// sink that panics stops the debate with [ErrSinkPanicked].
func WithSink(s EventSink) Option {
	return func(o *settings) {
		if isNil(s) {
			o.nils = append(o.nils, fmt.Sprintf("WithSink(%T(nil))", s))
		}
		o.sink = s
	}
}

// isNil reports whether v is nil or a nil pointer, map, func, chan or
// slice inside an interface: a value that would panic when used.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Func, reflect.Chan, reflect.Slice, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// WithClock sets the clock read for record times and anything a format
// times (cooldowns, timeouts, dates in prompts); the default is time.Now.
// It may be called from several goroutines at once (side steps, streams),
// so it must be safe for concurrent use.
func WithClock(now func() time.Time) Option { return func(o *settings) { o.now = now } }

// WithLogger sets the logger for what the engine notices but survives (an
// unparseable judgment, a panicking sink); the default discards.
func WithLogger(l *slog.Logger) Option { return func(o *settings) { o.logger = l } }

// WithPromptHook lets a host see or rewrite the messages of every model call
// before it is sent; purpose is the call's Purpose. The hook must be safe for
// concurrent use and must not retain msgs.
func WithPromptHook(h func(purpose string, msgs []llm.Message) []llm.Message) Option {
	return func(o *settings) { o.hook = h }
}

// WithArgumentMap turns argument mapping on, for any format: after each turn
// of a participant (not [SpeakerArbiter]) is stored, a model call
// (purpose [PurposeArgumentExtraction], sent to the model [Cast] names)
// turns it into speech-act moves of a Prakken persuasion dialogue. The
// moves are checked against the protocol (an illegal move is recorded, not
// applied) and build the debate's bipolar argument graph, scored with s.
// Extraction runs beside the debate, one turn after another; the moves are
// stored (record type [RecordMoves]) and announced ([EventArgumentMap]);
// Resume rebuilds the graph from them; [Result.Arguments] carries the map
// and a format may read it before its closing ([Session.ArgumentMap]).
//
// Whether a debate maps its arguments is stored with it: Resume maps a
// debate that was mapped (with this option's semantics, or the stored one
// without it); given to a Resume of a debate that was not mapped, the
// option is refused ([ErrUnsupportedOption]) rather than ignored.
func WithArgumentMap(s argumentation.Semantics) Option {
	return func(o *settings) { o.mapping = &s }
}

// WithMaxTokens overrides the completion cap (llm.Request.MaxTokens) of
// the calls of each purpose named in caps; 0 sends no cap (the provider's
// default). Every format caps every call it makes by a documented default
// derived from what the call is for (a speech's word range, a judgment's
// JSON); the caps are not stored with the debate, so a resumed debate uses
// the ones it is given. A negative cap is an error of Run and Resume, and
// so is a cap for a purpose the format does not name ([Purposer]; every
// format of this module names its purposes), so that a misspelt purpose
// is not silently ignored. Calling WithMaxTokens again adds to the caps
// given before.
func WithMaxTokens(caps map[string]int) Option {
	return func(o *settings) {
		if o.maxTokens == nil {
			o.maxTokens = map[string]int{}
		}
		for p, c := range caps {
			o.maxTokens[p] = c
		}
	}
}

// ForFormat returns an Option that configures the format rather than the
// engine: Run and Resume call apply with the Format before anything else
// (on Resume, after the stored configuration is decoded into it). apply
// returns an error wrapping [ErrUnsupportedOption] when the format is not
// one it can configure, and the debate does not start. A format package
// uses it for options a host may also want to pass beside the engine's.
func ForFormat(apply func(f any) error) Option {
	return func(o *settings) { o.format = append(o.format, apply) }
}

func newSettings(client llm.Client, opts []Option) (*settings, error) {
	if isNil(client) {
		return nil, fmt.Errorf("engine: nil llm.Client (%T)", client)
	}
	s := collect(opts)
	if len(s.nils) > 0 {
		return nil, fmt.Errorf("engine: nil option values: %s", strings.Join(s.nils, ", "))
	}
	s.client = client
	for p, c := range s.maxTokens {
		if c < 0 {
			return nil, fmt.Errorf("engine: WithMaxTokens: purpose %q: cap %d is negative", p, c)
		}
	}
	if s.budget.Tokens < 0 || s.budget.Cost < 0 || math.IsNaN(s.budget.Cost) {
		return nil, fmt.Errorf("engine: WithBudget: %+v: a limit is negative", s.budget)
	}
	for m, p := range s.prices {
		if p.Input < 0 || p.CachedInput < 0 || p.Output < 0 {
			return nil, fmt.Errorf("engine: WithPrices: model %q: a price is negative", m)
		}
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.store == nil {
		s.store = store.NewMemory()
	}
	if s.sink == nil {
		s.sink = discardSink{}
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	return s, nil
}

// Purposer is implemented by a [Format] that names the purposes of its
// model calls (llm.Request.Purpose): Run and Resume then reject a
// [WithMaxTokens] cap for a purpose the format never uses — a misspelt
// purpose would otherwise cap nothing — with an error wrapping
// [ErrUnsupportedOption]. [PurposeArgumentExtraction] is every format's.
type Purposer interface {
	Purposes() []string
}

// check rejects a nil format, and caps for purposes a [Purposer] never
// uses.
func (s *settings) check(f any) error {
	f = underlying(f)
	if f == nil {
		return errors.New("engine: nil Format")
	}
	if v := reflect.ValueOf(f); v.Kind() == reflect.Pointer && v.IsNil() {
		return fmt.Errorf("engine: nil Format (%T)", f)
	}
	p, ok := f.(Purposer)
	if !ok {
		return nil
	}
	known := slices.Concat(p.Purposes(), []string{PurposeArgumentExtraction})
	var unknown []string
	for purpose := range s.maxTokens {
		if !slices.Contains(known, purpose) {
			unknown = append(unknown, strconv.Quote(purpose))
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	slices.Sort(known)
	return fmt.Errorf("%w: WithMaxTokens: %s: no call of this format has that purpose; its purposes: %s",
		ErrUnsupportedOption, strings.Join(unknown, ", "), strings.Join(known, ", "))
}

// configure applies the format options to f and validates it.
func (s *settings) configure(f any) error {
	f = underlying(f)
	for _, apply := range s.format {
		if err := apply(f); err != nil {
			return err
		}
	}
	if v, ok := f.(interface{ Validate() error }); ok {
		return v.Validate()
	}
	return nil
}

// Configure applies the format options among opts to f and validates it, as
// Run does before it starts: a front end uses it to report a bad
// configuration before it starts a debate.
func Configure(f any, opts ...Option) error { return collect(opts).configure(f) }

// StoreOf returns the store opts set with [WithStore], nil for none.
func StoreOf(opts ...Option) store.Store { return collect(opts).store }

// collect applies opts to empty settings.
func collect(opts []Option) *settings {
	s := &settings{}
	for _, opt := range opts {
		opt(s)
	}
	return s
}
