package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/duelogic/duelogic/llm"
)

// ErrUnknownFormat: no format is registered under the name given to [Open]
// or stored with a debate given to [ResumeStored].
var ErrUnknownFormat = errors.New("engine: unknown format")

// Opener makes a format from its configuration, as JSON: nil or "{}" give
// the format's defaults, a field left out takes its default, and a bad
// configuration is a [*ValidationError].
type Opener func(config json.RawMessage) (Format[Outcome], error)

var (
	registryMu sync.RWMutex
	registry   = map[string]Opener{}
)

// Register makes a format available by name to [Open] and [ResumeStored],
// the way database/sql drivers register themselves: each format package
// calls it from its init function, so linking the package is enough. name
// must be the Name() of the formats open returns. Register panics if name
// is empty, open is nil or name is registered twice: programming errors.
func Register(name string, open func(config json.RawMessage) (Format[Outcome], error)) {
	if name == "" || open == nil {
		panic("engine: Register: empty name or nil open")
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[name]; dup {
		panic("engine: Register called twice for format " + name)
	}
	registry[name] = open
}

// opener returns the Opener registered as name.
func opener(name string) (Opener, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	open, ok := registry[name]
	return open, ok
}

// Formats returns the names of the registered formats, sorted: the five
// built in ("duelogic", "formal", "moderated", "persuasion", "scored")
// when their packages are linked.
func Formats() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Open returns the format registered as name, configured by config: a JSON
// object whose fields are the format's configuration (those left out take
// its defaults); nil, "null" or "{}" give its defaults. An unknown name
// fails with an error wrapping [ErrUnknownFormat] that lists the known
// ones; a config that is not a JSON object, or an invalid one, with a
// [*ValidationError] naming the fields.
func Open(name string, config json.RawMessage) (Format[Outcome], error) {
	open, ok := opener(name)
	if !ok {
		return nil, fmt.Errorf("%w: %q (registered: %v)", ErrUnknownFormat, name, Formats())
	}
	config = bytes.TrimSpace(config)
	if len(config) == 0 || bytes.Equal(config, []byte("null")) {
		config = json.RawMessage("{}")
	}
	if config[0] != '{' || !json.Valid(config) {
		ve := &ValidationError{Format: name}
		ve.Add("config", "not a JSON object")
		return nil, ve
	}
	f, err := open(config)
	if err != nil {
		return nil, err
	}
	if f.Name() != name {
		return nil, fmt.Errorf("engine: the format registered as %q is named %q", name, f.Name())
	}
	return f, nil
}

// DecodeConfig decodes a format's configuration from JSON into cfg (a
// pointer to a struct), which holds the defaults: fields the JSON leaves out
// keep them, as encoding/json does (so a map given is merged into the
// default map; a format that wants it replaced clears it first). Every
// field cfg does not have, at any depth, is named by its path, as
// [UnknownFields] names it; a value of the wrong type is named too; either
// is a [*ValidationError] of format. A format's [Opener] uses it.
func DecodeConfig(format string, config json.RawMessage, cfg any) error {
	if err := UnknownFields(format, config, cfg); err != nil {
		return err
	}
	ve := &ValidationError{Format: format}
	dec := json.NewDecoder(bytes.NewReader(config))
	dec.DisallowUnknownFields()
	if err := dec.Decode(cfg); err != nil {
		var te *json.UnmarshalTypeError
		var own *ValidationError
		switch {
		case errors.As(err, &own): // the configuration's own UnmarshalJSON
			own.Format = format
			return own
		case errors.As(err, &te) && te.Field != "":
			ve.Add(te.Field, "%s is not a %s", te.Value, te.Type)
		default:
			ve.Add("config", "%v", err)
		}
		return ve
	}
	return nil
}

// UnknownFields returns a [*ValidationError] of format naming, by path,
// every field of config, at any depth, that the struct cfg points to has
// no field for ("colour", "customPerspectives[1].colour"), or nil. Names
// match as encoding/json matches them (exactly, else under case folding;
// an embedded struct's fields are its own). The struct cfg points to is
// checked by its fields even when it has its own UnmarshalJSON; a value
// inside it whose type has one (a [json.RawMessage], a [time.Time], a type
// that still reads the names of earlier versions) decodes itself and is not
// looked into.
func UnknownFields(format string, config json.RawMessage, cfg any) error {
	t := reflect.TypeOf(cfg)
	if t == nil || t.Kind() != reflect.Pointer {
		return nil
	}
	ve := &ValidationError{Format: format}
	walkUnknown(config, t.Elem(), "", ve)
	return ve.Err()
}

// unmarshaler is the interface of a type that decodes itself.
var unmarshaler = reflect.TypeFor[json.Unmarshaler]()

// walkUnknown adds to ve the fields of raw, a JSON value of Go type t at
// path, that t does not have. Values that do not decode are left to the
// decoder to report; below the top, a value that decodes itself is its
// own to check.
func walkUnknown(raw json.RawMessage, t reflect.Type, path string, ve *ValidationError) {
	if path != "" && (t.Implements(unmarshaler) || reflect.PointerTo(t).Implements(unmarshaler)) {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return
		}
		keys := slices.Sorted(maps.Keys(m))
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			f, ok := jsonField(t, k)
			if !ok {
				ve.Add(p, "no such field")
				continue
			}
			walkUnknown(m[k], f.Type, p, ve)
		}
	case reflect.Slice:
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return
		}
		for i, item := range items {
			walkUnknown(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i), ve)
		}
	case reflect.Map:
		var m map[string]json.RawMessage
		if t.Key().Kind() != reflect.String || json.Unmarshal(raw, &m) != nil {
			return
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			walkUnknown(m[k], t.Elem(), fmt.Sprintf("%s[%q]", path, k), ve)
		}
	}
}

// jsonField finds the field of struct type t that encoding/json decodes key
// into: the exact name first, then one equal under case folding; the
// fields of an embedded struct without a name of its own count as t's.
func jsonField(t reflect.Type, key string) (reflect.StructField, bool) {
	var folded *reflect.StructField
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if tag == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				if ef, ok := jsonField(ft, key); ok {
					return ef, true
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if name == key {
			return f, true
		}
		if folded == nil && strings.EqualFold(name, key) {
			folded = &f
		}
	}
	if folded != nil {
		return *folded, true
	}
	return reflect.StructField{}, false
}

// ConfigOpener returns the [Opener] of a format whose configuration is a C:
// config (JSON) is decoded over defaults() by decode — nil decodes with
// [DecodeConfig] under name — and the format is build's, which validates
// it. Every built-in format registers one:
//
//	engine.Register(FormatName, engine.ConfigOpener(FormatName, DefaultConfig, nil,
//		func(c Config) (engine.Format[*Outcome], error) { return New(c) }))
func ConfigOpener[C any, R Outcome](name string, defaults func() C, decode func(config json.RawMessage, cfg *C) error,
	build func(C) (Format[R], error)) Opener {
	if decode == nil {
		decode = func(config json.RawMessage, cfg *C) error { return DecodeConfig(name, config, cfg) }
	}
	return func(config json.RawMessage) (Format[Outcome], error) {
		cfg := defaults()
		if err := decode(config, &cfg); err != nil {
			return nil, err
		}
		f, err := build(cfg)
		if err != nil {
			return nil, err
		}
		return Erase(f), nil
	}
}

// Erase returns f as a Format[Outcome], for an [Opener]: its outcome is
// handed on as an Outcome, and everything else — its name, its stored
// configuration, its Validate, [Cast] and [Purposer] methods, format
// options ([ForFormat]) — is f's.
func Erase[R Outcome](f Format[R]) Format[Outcome] {
	if e, ok := any(f).(Format[Outcome]); ok {
		return e
	}
	return erased[R]{f}
}

// erased is a Format[R] seen as a Format[Outcome].
type erased[R Outcome] struct{ f Format[R] }

func (e erased[R]) Name() string { return e.f.Name() }

func (e erased[R]) Play(ctx context.Context, s *Session) (Outcome, error) {
	r, err := e.f.Play(ctx, s)
	if err != nil {
		return nil, err
	}
	return r, nil
}

func (e erased[R]) underlying() any { return e.f }

// MarshalJSON is the configuration of the format Erase wraps.
func (e erased[R]) MarshalJSON() ([]byte, error) { return json.Marshal(e.f) }

// underlying returns the format an [Erase] wraps, or f itself: what the
// engine encodes, decodes, validates and asks for a [Cast].
func underlying(f any) any {
	if u, ok := f.(interface{ underlying() any }); ok {
		return u.underlying()
	}
	return f
}

// ResumeStored continues a stopped debate of any registered format, like
// [Resume]: the format's name and configuration are read from the debate's
// first record in the store (WithStore is required). A format that is not
// registered fails with [ErrUnknownFormat].
func ResumeStored(ctx context.Context, client llm.Client, debateID string, opts ...Option) (*Result[Outcome], error) {
	st := StoreOf(opts...)
	if isNil(st) {
		return nil, fmt.Errorf("engine: resume %s: no store: pass WithStore with the store the debate was recorded in", debateID)
	}
	recs, err := st.Records(ctx, debateID)
	if err != nil {
		return nil, fmt.Errorf("engine: resume %s: %w", debateID, err)
	}
	h, err := headOf(recs)
	if err != nil {
		return nil, err
	}
	open, ok := opener(h.Format)
	if !ok {
		return nil, fmt.Errorf("%w: debate %s is a %q debate (registered: %v)", ErrUnknownFormat, debateID, h.Format, Formats())
	}
	f, err := open(json.RawMessage("{}"))
	if err != nil {
		return nil, fmt.Errorf("engine: resume %s: open format %q: %w", debateID, h.Format, err)
	}
	return Resume(ctx, client, f, debateID, opts...)
}
