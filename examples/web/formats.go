package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/duelogic/duelogic/engine"

	// The formats the page offers: each registers itself with the engine
	// (engine.Formats, engine.Open, engine.ResumeStored), so linking it is
	// all the server does for it. The podcast, package duelogic, is linked
	// by its catalog endpoints and its manual interjections.
	_ "github.com/duelogic/duelogic/formal"
	_ "github.com/duelogic/duelogic/moderated"
	_ "github.com/duelogic/duelogic/persuasion"
	_ "github.com/duelogic/duelogic/scored"
)

// formatInfo describes a format for the page's picker and form.
type formatInfo struct {
	Name string `json:"name"`
	// Defaults is the configuration the form starts from: the format's
	// defaults, as engine.Open takes them.
	Defaults json.RawMessage `json:"defaults"`
}

// formatList is every registered format with its defaults, in
// engine.Formats' order.
func formatList() any {
	out := []formatInfo{}
	for _, name := range engine.Formats() {
		f, err := engine.Open(name, nil)
		if err != nil {
			continue // a format whose defaults do not open cannot be offered
		}
		b, err := json.Marshal(f)
		if err != nil {
			continue
		}
		out = append(out, formatInfo{Name: name, Defaults: b})
	}
	return out
}

// registered reports whether a format of that name is linked in.
func registered(name string) bool { return slices.Contains(engine.Formats(), name) }

// hostOnly are the configuration fields (top level, matched ignoring case,
// as encoding/json matches them) a debate started from the page may not
// set, whatever its format: where the server writes files is the host's
// business, not a visitor's.
var hostOnly = []string{"outputDir"}

// openRequested opens format name with a request's configuration: the
// violations name every problem the page should show (the host-only fields
// it sets, then the format's own), and err is any other failure
// (engine.ErrUnknownFormat for an unknown name).
func openRequested(name string, config json.RawMessage) (f engine.Format[engine.Outcome], vs []engine.Violation, err error) {
	var top map[string]json.RawMessage
	if json.Unmarshal(config, &top) == nil {
		keys := make([]string, 0, len(top))
		for k := range top {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if slices.ContainsFunc(hostOnly, func(h string) bool { return strings.EqualFold(h, k) }) {
				vs = append(vs, engine.Violation{Field: k, Problem: "cannot be set from the page"})
			}
		}
	}
	f, err = engine.Open(name, config)
	var ve *engine.ValidationError
	switch {
	case errors.As(err, &ve):
		return nil, merge(vs, ve.Violations), nil
	case err != nil:
		return nil, nil, err
	case len(vs) > 0:
		return nil, vs, nil
	}
	return f, nil, nil
}

// openStored opens the format of a stored debate with its stored
// configuration, as engine.ResumeStored does: the format's defaults, then
// the stored configuration decoded over them by the format itself, so a
// configuration stored in an earlier shape still reads.
func openStored(name string, spec json.RawMessage) (engine.Format[engine.Outcome], error) {
	f, err := engine.Open(name, nil)
	if err != nil {
		return nil, err
	}
	if len(spec) == 0 {
		return f, nil
	}
	if err := engine.Configure(f, engine.ForFormat(func(u any) error { return json.Unmarshal(spec, u) })); err != nil {
		return nil, fmt.Errorf("the stored %s configuration: %w", name, err)
	}
	return f, nil
}

// describe returns what the page shows of format f: its configuration (the
// object engine.Open takes) and the names of speakers — its participants,
// the host, the human and those of speakers — as the format labels them
// (none when the format names nobody, engine.Cast).
func describe(f engine.Format[engine.Outcome], speakers []string) (config json.RawMessage, labels map[string]string) {
	config, err := json.Marshal(f)
	if err != nil {
		config = nil
	}
	_ = engine.Configure(f, engine.ForFormat(func(u any) error {
		c, ok := u.(engine.Cast)
		if !ok {
			return nil
		}
		labels = map[string]string{}
		for _, sp := range slices.Concat(c.Participants(), []string{engine.SpeakerArbiter, engine.SpeakerHuman}, speakers) {
			labels[sp] = c.Label(sp)
		}
		return nil
	}))
	return config, labels
}

// legacyUnattended reports whether spec, a stored configuration, is the
// wrapper earlier versions of this server stored for a moderated debate
// started with checkpoints off — {"config": {...}, "unattended": true} —
// rather than engine.Debate.Unattended: such a debate is resumed with
// nobody to ask.
func legacyUnattended(spec json.RawMessage) bool {
	var w struct {
		Config     json.RawMessage `json:"config"`
		Unattended bool            `json:"unattended"`
	}
	return json.Unmarshal(spec, &w) == nil && w.Unattended && len(w.Config) > 0
}

// merge adds to vs the violations of more whose fields vs does not name.
func merge(vs, more []engine.Violation) []engine.Violation {
	for _, v := range more {
		if !slices.ContainsFunc(vs, func(w engine.Violation) bool { return strings.EqualFold(w.Field, v.Field) }) {
			vs = append(vs, v)
		}
	}
	return vs
}
