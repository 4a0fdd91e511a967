package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/formal"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/moderated"
	"github.com/duelogic/duelogic/persuasion"
	"github.com/duelogic/duelogic/scored"
	"github.com/duelogic/duelogic/store"
)

// webFormat is what the server knows of a debate format: its defaults for
// the page's form, how a request's config becomes a runnable format, how a
// stored debate is resumed, described and turned into documents.
type webFormat struct {
	name  string
	about string
	// defaults is the configuration the form starts from.
	defaults func() any
	// build decodes config over the defaults and makes the format with
	// the server's hooks; the violations name every problem.
	build func(config json.RawMessage, h hooks) (runner, []engine.Violation)
	// blank is the format to resume a stored debate with: the stored
	// configuration replaces its own.
	blank func(h hooks) runner
	// describe reads a stored debate's spec: the configuration to show and
	// the names of the speakers.
	describe func(spec json.RawMessage) (config any, labels map[string]string, err error)
	// docs returns the documents of a finished debate, by file name, from
	// the Detail of its debate_ended record.
	docs func(d engine.Debate, detail json.RawMessage) (map[string]string, error)
}

// hooks are the server's behaviour a format may need.
type hooks struct {
	// attended: a moderated debate asks the page's person its clarifying
	// question, each checkpoint and the approval of its synthesis, pausing
	// until the page answers; false (checkpoints off): it asks nobody
	// anything and runs to its end.
	attended bool
	// answer is the page's answer that resumes a paused moderated debate.
	answer pageAnswer
	// verifier checks a formal debate's sources; nil: the default.
	verifier func(judge formal.SourceVerifier) formal.SourceVerifier
}

// runEnv is what a run needs from the server.
type runEnv struct {
	client llm.Client
	store  store.Store
	sink   engine.EventSink
	logger *slog.Logger
	// opts are further engine options (argument mapping).
	opts []engine.Option
	// interjector receives the podcast's orchestrator before it runs.
	interjector func(interjector)
}

func (e runEnv) options() []engine.Option {
	return append([]engine.Option{engine.WithStore(e.store), engine.WithSink(e.sink), engine.WithLogger(e.logger)}, e.opts...)
}

// interjector takes manual interjections into a running debate: the
// podcast's orchestrator.
type interjector interface {
	Interject(debateID, reason, targetChair string) error
}

// runner plays a debate of one format.
type runner interface {
	run(ctx context.Context, e runEnv, d engine.Debate) error
	resume(ctx context.Context, e runEnv, id string) error
	// spec is the configuration as the debate's first record stores it.
	spec() (json.RawMessage, error)
}

// formatRunner plays an engine.Format.
type formatRunner[R any] struct{ f engine.Format[R] }

func (r formatRunner[R]) run(ctx context.Context, e runEnv, d engine.Debate) error {
	_, err := engine.Run(ctx, e.client, r.f, d, e.options()...)
	return err
}

func (r formatRunner[R]) spec() (json.RawMessage, error) { return json.Marshal(r.f) }

func (r formatRunner[R]) resume(ctx context.Context, e runEnv, id string) error {
	_, err := engine.Resume(ctx, e.client, r.f, id, e.options()...)
	return err
}

// podcastRunner plays the podcast through an orchestrator, which takes
// manual interjections.
type podcastRunner struct{ cfg duelogic.Config }

func (r podcastRunner) orchestrator(e runEnv) (*duelogic.Orchestrator, error) {
	o, err := duelogic.New(r.cfg, e.client, e.options()...)
	if err != nil {
		return nil, err
	}
	if e.interjector != nil {
		e.interjector(o)
	}
	return o, nil
}

func (r podcastRunner) spec() (json.RawMessage, error) {
	return json.Marshal(struct {
		Config duelogic.Config `json:"config"`
	}{r.cfg})
}

func (r podcastRunner) run(ctx context.Context, e runEnv, d engine.Debate) error {
	o, err := r.orchestrator(e)
	if err != nil {
		return err
	}
	_, err = o.Run(ctx, d)
	return err
}

func (r podcastRunner) resume(ctx context.Context, e runEnv, id string) error {
	o, err := r.orchestrator(e)
	if err != nil {
		return err
	}
	_, err = o.Resume(ctx, id)
	return err
}

// formats are the formats the page offers, in its order.
var formats = []*webFormat{
	{
		name:     duelogic.FormatName,
		about:    "The Duelogic podcast: chairs hold philosophical frameworks, an arbiter keeps them honest, interruptions.",
		defaults: func() any { return duelogic.DefaultConfig() },
		build: func(raw json.RawMessage, _ hooks) (runner, []engine.Violation) {
			cfg := duelogic.DefaultConfig()
			vs := decodeConfig(raw, &cfg)
			if vs = merge(vs, violations(cfg.Validate())); len(vs) > 0 {
				return nil, vs
			}
			return podcastRunner{cfg}, nil
		},
		blank: func(hooks) runner { return podcastRunner{duelogic.DefaultConfig()} },
		describe: func(spec json.RawMessage) (any, map[string]string, error) {
			var p duelogic.Podcast
			if err := json.Unmarshal(spec, &p); err != nil {
				return nil, nil, err
			}
			return p.Config, labels(&p, nil), nil
		},
		docs: func(_ engine.Debate, detail json.RawMessage) (map[string]string, error) {
			return nil, nil // the transcript, with the metrics, is every format's
		},
	},
	{
		name:     formal.FormatName,
		about:    "A formal debate: a neutral chair, a promoter and a detractor who must source their claims, a verifier, an audience, documents.",
		defaults: func() any { return formal.DefaultConfig() },
		build: func(raw json.RawMessage, h hooks) (runner, []engine.Violation) {
			cfg := formal.DefaultConfig()
			vs := decodeConfig(raw, &cfg)
			if cfg.OutputDir != "" {
				vs = append(vs, engine.Violation{Field: "outputDir", Problem: "cannot be set from the page: the documents are downloaded from it"})
			}
			f, err := formal.New(cfg, formalOptions(h)...)
			if vs = merge(vs, violations(err)); len(vs) > 0 {
				return nil, vs
			}
			return formatRunner[*formal.Outcome]{f}, nil
		},
		blank: func(h hooks) runner {
			f, _ := formal.New(formal.DefaultConfig(), formalOptions(h)...)
			return formatRunner[*formal.Outcome]{f}
		},
		describe: func(spec json.RawMessage) (any, map[string]string, error) {
			var f formal.Format
			if err := json.Unmarshal(spec, &f); err != nil {
				return nil, nil, err
			}
			if nf, err := formal.New(f.Config); err == nil {
				f = *nf
			}
			extra := []string{string(formal.SpeakerAudience), string(formal.SpeakerVerifier), string(formal.SpeakerReporter), string(formal.SpeakerAssessor)}
			return f.Config, labels(&f, extra), nil
		},
		docs: func(_ engine.Debate, detail json.RawMessage) (map[string]string, error) {
			var o formal.Outcome
			if err := json.Unmarshal(detail, &o); err != nil {
				return nil, err
			}
			d := o.Docs
			return map[string]string{formal.FileTranscript: d.Transcript, formal.FileSummary: d.Summary,
				formal.FileBlogPost: d.BlogPost, formal.FileAssessorReport: d.AssessorReport}, nil
		},
	},
	{
		name:     scored.FormatName,
		about:    "A scored debate: an advocate and a challenger argue each category of an evaluated idea; the arbiter's verdicts move its scores.",
		defaults: func() any { return scored.DefaultConfig() },
		build: func(raw json.RawMessage, _ hooks) (runner, []engine.Violation) {
			cfg := scored.DefaultConfig()
			vs := decodeConfig(raw, &cfg)
			f, err := scored.New(cfg)
			if vs = merge(vs, violations(err)); len(vs) > 0 {
				return nil, vs
			}
			return formatRunner[*scored.Outcome]{f}, nil
		},
		blank: func(hooks) runner { return formatRunner[*scored.Outcome]{&scored.Format{}} },
		describe: func(spec json.RawMessage) (any, map[string]string, error) {
			var f scored.Format
			if err := json.Unmarshal(spec, &f); err != nil {
				return nil, nil, err
			}
			if nf, err := scored.New(f.Config); err == nil {
				f = *nf
			}
			return f.Config, labels(&f, nil), nil
		},
		docs: func(d engine.Debate, detail json.RawMessage) (map[string]string, error) {
			var o scored.Outcome
			if err := json.Unmarshal(detail, &o); err != nil {
				return nil, err
			}
			return map[string]string{"debate.md": o.Markdown(d)}, nil
		},
	},
	{
		name:     moderated.FormatName,
		about:    "A moderated debate: engineering perspectives argue rounds until they converge; you steer at checkpoints; a moderator writes the synthesis.",
		defaults: func() any { return moderated.DefaultConfig() },
		build: func(raw json.RawMessage, h hooks) (runner, []engine.Violation) {
			cfg := moderated.DefaultConfig()
			vs := decodeConfig(raw, &cfg)
			f, err := moderated.New(cfg, moderatedOptions(h)...)
			if vs = merge(vs, violations(err)); len(vs) > 0 {
				return nil, vs
			}
			return formatRunner[*moderated.Outcome]{&pageModerated{f: f, unattended: !h.attended}}, nil
		},
		blank: func(h hooks) runner {
			f, _ := moderated.New(moderated.DefaultConfig(), moderatedOptions(h)...)
			return formatRunner[*moderated.Outcome]{&pageModerated{f: f, unattended: !h.attended}}
		},
		describe: func(spec json.RawMessage) (any, map[string]string, error) {
			var f moderated.Format
			if err := json.Unmarshal(spec, &f); err != nil {
				return nil, nil, err
			}
			if nf, err := moderated.New(f.Config); err == nil {
				f = *nf
			}
			// The moderator seats the perspectives during the debate:
			// name every one the debate could seat.
			var extra []string
			for _, p := range duelogic.Perspectives() {
				extra = append(extra, string(p.ID))
			}
			for _, p := range f.Config.CustomPerspectives {
				extra = append(extra, string(p.ID))
			}
			return f.Config, labels(&f, extra), nil
		},
		docs: func(_ engine.Debate, detail json.RawMessage) (map[string]string, error) {
			var o moderated.Outcome
			if err := json.Unmarshal(detail, &o); err != nil {
				return nil, err
			}
			return map[string]string{"synthesis.md": o.Synthesis.Markdown()}, nil
		},
	},
	{
		name:     persuasion.FormatName,
		about:    "A persuasion dialogue: PRO and OPP make protocol-checked speech acts; the verdict is computed from the argument graph.",
		defaults: func() any { return persuasion.DefaultConfig() },
		build: func(raw json.RawMessage, _ hooks) (runner, []engine.Violation) {
			cfg := persuasion.DefaultConfig()
			vs := decodeConfig(raw, &cfg)
			f, err := persuasion.New(cfg)
			if vs = merge(vs, violations(err)); len(vs) > 0 {
				return nil, vs
			}
			return formatRunner[*persuasion.Outcome]{f}, nil
		},
		blank: func(hooks) runner { return formatRunner[*persuasion.Outcome]{&persuasion.Format{}} },
		describe: func(spec json.RawMessage) (any, map[string]string, error) {
			var f persuasion.Format
			if err := json.Unmarshal(spec, &f); err != nil {
				return nil, nil, err
			}
			if nf, err := persuasion.New(f.Config); err == nil {
				f = *nf
			}
			return f.Config, labels(&f, nil), nil
		},
		docs: func(_ engine.Debate, detail json.RawMessage) (map[string]string, error) {
			var o persuasion.Outcome
			if err := json.Unmarshal(detail, &o); err != nil {
				return nil, err
			}
			return map[string]string{"report.md": o.Markdown}, nil
		},
	},
}

func lookupFormat(name string) *webFormat {
	for _, f := range formats {
		if f.name == name {
			return f
		}
	}
	return nil
}

func formalOptions(h hooks) []formal.Option {
	if h.verifier != nil {
		return []formal.Option{formal.WithVerifier(h.verifier)}
	}
	return nil
}

// moderatedOptions are the hooks through which a moderated debate asks the
// page's person, when it does. The page sets no follow-up
// (moderated.WithFollowUp): the seed's "Would you like me to create a
// workflow from this decision?" hands the decision to a workflow system,
// and none stands behind the page; the reviewed synthesis is the
// debate's synthesis.md document, to download.
func moderatedOptions(h hooks) []moderated.Option {
	if !h.attended {
		return nil
	}
	return []moderated.Option{
		moderated.WithClarifier(pageClarifier(h.answer.clarification)),
		moderated.WithCheckpointer(pageCheckpointer(h.answer.checkpoint)),
		moderated.WithApprover(pageApprover(h.answer.approval)),
	}
}

// pageModerated is a moderated debate as the page plays it: the format,
// whose stored configuration (moderatedSpec) also keeps whether the page's
// person is asked anything, so that a debate started with checkpoints off
// never pauses, even when it is resumed after a stop.
type pageModerated struct {
	f          *moderated.Format
	unattended bool
}

// moderatedSpec is a pageModerated's stored configuration: the moderated
// format's, and the page's choice.
type moderatedSpec struct {
	Config moderated.Config `json:"config"`
	// Unattended: started with checkpoints off.
	Unattended bool `json:"unattended,omitempty"`
}

// Name is the moderated format's name.
func (p *pageModerated) Name() string { return p.f.Name() }

// Play plays the moderated debate.
func (p *pageModerated) Play(ctx context.Context, s *engine.Session) (*moderated.Outcome, error) {
	return p.f.Play(ctx, s)
}

// Validate validates the moderated format's configuration.
func (p *pageModerated) Validate() error { return p.f.Validate() }

// Participants are the moderated format's (engine.Cast).
func (p *pageModerated) Participants() []string { return p.f.Participants() }

// Label names a speaker as the moderated format does.
func (p *pageModerated) Label(speaker string) string { return p.f.Label(speaker) }

// Purposes are the moderated format's (engine.Purposer).
func (p *pageModerated) Purposes() []string { return p.f.Purposes() }

// JudgeModel is the moderated format's.
func (p *pageModerated) JudgeModel() string { return p.f.JudgeModel() }

// MarshalJSON stores the configuration and the page's choice.
func (p *pageModerated) MarshalJSON() ([]byte, error) {
	return json.Marshal(moderatedSpec{Config: p.f.Config, Unattended: p.unattended})
}

// UnmarshalJSON reads a stored configuration back (engine.Resume); one
// stored by the moderated format itself, without the page's choice, is
// read as attended.
func (p *pageModerated) UnmarshalJSON(b []byte) error {
	var sp moderatedSpec
	if err := json.Unmarshal(b, &sp); err != nil {
		return err
	}
	p.f.Config, p.unattended = sp.Config, sp.Unattended
	return nil
}

// labels names the speakers of a format's debate: its participants, the
// host, the human and extra, as the format labels them.
func labels(f any, extra []string) map[string]string {
	c, ok := f.(engine.Cast)
	if !ok {
		return nil
	}
	m := map[string]string{}
	for _, sp := range slices.Concat(c.Participants(), []string{engine.SpeakerArbiter, engine.SpeakerHuman}, extra) {
		m[sp] = c.Label(sp)
	}
	return m
}

// violations returns the violations of a configuration error; any other
// error is one violation of the whole config.
func violations(err error) []engine.Violation {
	if err == nil {
		return nil
	}
	var ve *engine.ValidationError
	if errors.As(err, &ve) {
		return ve.Violations
	}
	return []engine.Violation{{Field: "config", Problem: err.Error()}}
}

// merge adds to vs the violations of more whose fields vs does not name.
func merge(vs, more []engine.Violation) []engine.Violation {
	for _, v := range more {
		if !slices.ContainsFunc(vs, func(w engine.Violation) bool { return w.Field == v.Field }) {
			vs = append(vs, v)
		}
	}
	return vs
}

// decodeConfig decodes a request's config over dst, which holds the
// defaults: the fields it names replace the defaults', a map or list it
// names replaces the default one whole. It returns a violation for every
// field dst does not have and for values of the wrong kind.
func decodeConfig(raw json.RawMessage, dst any) []engine.Violation {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] != '{' {
		return []engine.Violation{{Field: "config", Problem: "want a JSON object"}}
	}
	var vs []engine.Violation
	for _, f := range unknownFields(raw, reflect.TypeOf(dst), "") {
		vs = append(vs, engine.Violation{Field: f, Problem: "unknown field"})
	}
	clearNamedMaps(raw, reflect.ValueOf(dst).Elem())
	err := json.Unmarshal(raw, dst)
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "config"
		}
		vs = append(vs, engine.Violation{Field: field, Problem: fmt.Sprintf("want a %s, not a %s", kindName(te.Type), te.Value)})
	default:
		vs = append(vs, violations(err)...)
	}
	return vs
}

// kindName names a Go type as JSON would.
func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.String:
		return "string"
	case reflect.Slice, reflect.Array:
		return "list"
	case reflect.Map, reflect.Struct:
		return "object"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "whole number"
	case reflect.Float32, reflect.Float64:
		return "number"
	}
	return t.String()
}

// clearNamedMaps empties the top-level map fields of v that raw names, so
// that decoding replaces them rather than adding to the defaults' entries.
func clearNamedMaps(raw json.RawMessage, v reflect.Value) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil || v.Kind() != reflect.Struct {
		return
	}
	for name, f := range jsonFields(v.Type()) {
		if f.Type.Kind() != reflect.Map {
			continue
		}
		for k := range obj {
			if strings.EqualFold(k, name) {
				v.FieldByIndex(f.Index).SetZero()
			}
		}
	}
}

// unknownFields returns the paths of the object keys in raw that t (a
// struct, or lists and maps of them) has no field for, matched as
// encoding/json matches them (ignoring case).
func unknownFields(raw json.RawMessage, t reflect.Type, path string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	var out []string
	switch t.Kind() {
	case reflect.Struct:
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return nil // not an object: decoding says so
		}
		fields := jsonFields(t)
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			f, ok := fields[k]
			if !ok {
				for name, g := range fields {
					if strings.EqualFold(name, k) {
						f, ok = g, true
						break
					}
				}
			}
			if !ok {
				out = append(out, join(k))
				continue
			}
			out = append(out, unknownFields(obj[k], f.Type, join(k))...)
		}
	case reflect.Slice, reflect.Array:
		var list []json.RawMessage
		if json.Unmarshal(raw, &list) != nil {
			return nil
		}
		for i, e := range list {
			out = append(out, unknownFields(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i))...)
		}
	case reflect.Map:
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return nil
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			out = append(out, unknownFields(obj[k], t.Elem(), fmt.Sprintf("%s[%q]", path, k))...)
		}
	}
	return out
}

// jsonFields returns the JSON fields of struct type t by name, with those
// of embedded structs promoted, as encoding/json sees them.
func jsonFields(t reflect.Type) map[string]reflect.StructField {
	m := map[string]reflect.StructField{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for n, g := range jsonFields(ft) {
					if _, ok := m[n]; !ok {
						g.Index = append([]int{i}, g.Index...)
						m[n] = g
					}
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
		m[name] = f
	}
	return m
}
