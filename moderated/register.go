package moderated

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/duelogic/duelogic/engine"
)

// The format registers itself with the engine, so that linking the package
// is enough for [engine.Open] and [engine.ResumeStored].
func init() { engine.Register(FormatName, open) }

// open makes the format from its configuration as JSON: [DefaultConfig]
// with the fields config gives; an unknown field, a value of the wrong kind
// or an invalid configuration is an [*engine.ValidationError].
func open(config json.RawMessage) (engine.Format[engine.Outcome], error) {
	if err := unknownFields(config); err != nil {
		return nil, err
	}
	cfg := DefaultConfig()
	if err := engine.DecodeConfig(FormatName, config, &cfg); err != nil {
		return nil, err
	}
	f, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return engine.Erase(f), nil
}

// unknownFields returns an [*engine.ValidationError] naming, by path, every
// field of config that [Config] does not have ("colour",
// "customPerspectives[1].colour"), or nil. (Config decodes itself, so the
// engine's check for unknown fields does not reach it.)
func unknownFields(config json.RawMessage) error {
	v := &engine.ValidationError{Format: FormatName}
	walkUnknown(config, reflect.TypeFor[Config](), "", v)
	return v.Err()
}

// walkUnknown adds to v the fields of raw, a JSON value of Go type t at
// path, that t does not have. Values that do not decode are left to the
// decoder to report.
func walkUnknown(raw json.RawMessage, t reflect.Type, path string, v *engine.ValidationError) {
	switch t.Kind() {
	case reflect.Struct:
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			f, ok := jsonField(t, k)
			if !ok {
				v.Add(p, "unknown field")
				continue
			}
			walkUnknown(m[k], f.Type, p, v)
		}
	case reflect.Slice:
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return
		}
		for i, item := range items {
			walkUnknown(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i), v)
		}
	}
}

// jsonField finds the field of struct type t that encoding/json decodes key
// into: the exact name first, then one equal under case folding.
func jsonField(t reflect.Type, key string) (reflect.StructField, bool) {
	var folded *reflect.StructField
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
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
