package cliapp

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/events"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// The command plays every format the engine has registered
// ([engine.Formats]) the same way: [engine.Open] with the configuration
// the flags make, then [engine.Run]; a stored debate, whatever its format,
// with [engine.ResumeStored]; the outcome is shown by its verdict and
// written as its documents ([engine.Outcome]). What the command adds to a
// format — its own flags, how they make its configuration, how its
// speeches and questions are shown — is a formatCLI, which the format's
// file adds from its init function; a format linked in without one plays
// with its defaults.

// formatCLI is what the command adds to a registered format.
type formatCLI struct {
	// about says what the format is, for the usage.
	about string
	// flags are the format-specific flags (formatFlags) it reads.
	flags []string
	// fields names the flags that set the format's configuration fields,
	// by the fields' JSON paths as its validation errors name them
	// ("maxRounds": "max-rounds"; a flag with aliases by any of its
	// names), so that an invalid value is reported by the flag given.
	fields map[string]string
	// declare, when set, declares on fs the flags only this format reads
	// (listed in flags too) and returns where their values go, a pointer
	// that config and prepare read back with ownFlags.
	declare func(fs *flag.FlagSet) any
	// question, when set, is called for every fresh debate and returns
	// the question debated when none is given (formal's topic from its
	// --config file, which it reads); "" for none. Its error is a usage
	// error.
	question func(o *options) (string, error)
	// asks: the format finds the question itself when none is given
	// (engine.Proposer: formal's topic prompt, else it asks the person),
	// so none is no usage error; noQuestion is the error it fails with
	// when it finds none, which the command reports as one.
	asks       bool
	noQuestion error
	// observe, when set, is given every event of a fresh debate of the
	// format as it is emitted, beside the renderer (formal writes its
	// topic and output directory back to its --config file).
	observe func(e *env, ev engine.Event)
	// config, when set, sets in p the configuration fields the flags
	// given set (a fresh debate's; a stored one keeps its own).
	config func(e *env, p patch) error
	// live, when set, says which speeches are printed token by token (see
	// render.Renderer.SetLive): a format that generates several at once
	// refuses theirs, so that the output does not depend on which streamed
	// first.
	live func(after *engine.Utterance) bool
	// prepare, when set, is given the format (the value behind the
	// engine.Format, as configured, or as stored for a debate that
	// resumes) before its debate plays: to add the command's hooks to it
	// and to tell the renderer how to name its speakers.
	prepare func(e *env, f any) error
	// follows, when set, says which event each question the format asks
	// comes after (see human.go): given the events stored so far (none for
	// a fresh debate), it returns, for each question asked in turn, a
	// match of that event; nil when the question follows none.
	follows func(stored []engine.Event) func(q engine.Question) func(engine.Event) bool
}

// formatCLIs are the formatCLIs by format name, filled from init.
var formatCLIs = map[string]*formatCLI{}

// addFormat adds what the command knows of the format registered as name;
// called from init.
func addFormat(name string, f *formatCLI) {
	if _, dup := formatCLIs[name]; dup {
		panic("cliapp: addFormat called twice for " + name)
	}
	formatCLIs[name] = f
}

// cliOf is the formatCLI of the format name; an empty one when the command
// knows nothing of it but its name.
func cliOf(name string) *formatCLI {
	if f, ok := formatCLIs[name]; ok {
		return f
	}
	return &formatCLI{}
}

// formatFlags are the flags that only some formats read (those some
// format lists), sorted; giving one to another format is a usage error.
// --no-checkpoints is not among them: a format without checkpoints already
// runs without pausing, so every format accepts it, and a script can pass
// it whatever the format.
func formatFlags() []string {
	var names []string
	for _, f := range formatCLIs {
		for _, n := range f.flags {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	return names
}

// known reports a format the engine has not registered as a usage error
// naming those it has.
func known(name string) error {
	if !slices.Contains(engine.Formats(), name) {
		return usagef("unknown format %q; have %s", name, strings.Join(engine.Formats(), ", "))
	}
	return nil
}

// check rejects the format-specific flags that the format name does not
// read.
func check(name string, o *options) error {
	reads := cliOf(name).flags
	var foreign []string
	for _, n := range formatFlags() {
		if !slices.Contains(reads, n) {
			foreign = append(foreign, n)
		}
	}
	if bad := flagsOnly(o, foreign...); len(bad) > 0 {
		return usagef("%s: not used by the %s format", strings.Join(bad, ", "), name)
	}
	return nil
}

// options are the engine's options for a debate of format name: the env's
// store, sink and clock, the person at the terminal (unless
// --no-checkpoints), and the format's preparation; then, before a stored
// debate plays on, before.
func (e *env) options(name string, stored []engine.Event, before func()) []engine.Option {
	fc := cliOf(name)
	sink := e.sink
	if fc.observe != nil && stored == nil {
		sink = events.FanOut(sink, engine.SinkFunc(func(_ context.Context, ev engine.Event) { fc.observe(e, ev) }))
	}
	if e.budgeted() {
		// The running line, at every segment's end, on stderr.
		sink = events.FanOut(sink, engine.SinkFunc(func(_ context.Context, ev engine.Event) {
			if ev.Type == engine.EventSegmentEnded {
				fmt.Fprintf(e.stderr, "debate: spent so far %s\n", e.spentLine())
			}
		}))
	}
	opts := []engine.Option{engine.WithStore(e.store), engine.WithSink(sink), engine.WithPrices(e.opt.prices), engine.WithBudget(e.opt.budget())}
	if e.now != nil {
		opts = append(opts, engine.WithClock(e.now))
	}
	if e.asks() {
		var follows func(engine.Question) func(engine.Event) bool
		if fc.follows != nil {
			follows = fc.follows(stored)
		}
		opts = append(opts, engine.WithHuman(e.human(follows)))
	}
	opts = append(opts, engine.ForFormat(func(f any) error {
		// The speakers as the format names them; the podcast's chairs
		// by the renderer's config (its prepare).
		if c, ok := f.(engine.Cast); ok {
			e.render.SetLabels(c.Label)
		}
		e.render.SetLive(fc.live)
		if fc.prepare != nil {
			return fc.prepare(e, f)
		}
		return nil
	}))
	if before != nil {
		opts = append(opts, engine.ForFormat(func(any) error { before(); return nil }))
	}
	return opts
}

// start runs debate d in the format name, configured by the flags.
func start(ctx context.Context, e *env, name string, d engine.Debate) (*engine.Result[engine.Outcome], error) {
	if err := known(name); err != nil {
		return nil, err
	}
	if err := check(name, e.opt); err != nil {
		return nil, err
	}
	fc := cliOf(name)
	p := patch{}
	if fc.config != nil {
		if err := fc.config(e, p); err != nil {
			return nil, err
		}
	}
	cfg, err := p.raw()
	if err != nil {
		return nil, err
	}
	f, err := engine.Open(name, cfg)
	if err != nil {
		return nil, configError(err, e.opt, fc.fields)
	}
	res, err := engine.Run(ctx, e.client, f, d, e.options(name, nil, nil)...)
	if fc.noQuestion != nil && errors.Is(err, fc.noQuestion) {
		return nil, usagef("no question to debate")
	}
	if err != nil && res == nil {
		// Before the debate exists: a configuration or debate the
		// format rejects is a usage error.
		err = configError(err, e.opt, fc.fields)
	}
	return res, err
}

// stored is a debate read from the store: its summary and its events.
type stored struct {
	sum    events.Summary
	events []engine.Event
	// spent and cost are what its stored steps spent.
	spent llm.Usage
	cost  float64
}

// load reads the stored debate id.
func load(ctx context.Context, e *env, id string) (stored, error) {
	recs, err := e.store.Records(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return stored{}, fmt.Errorf("no debate %s in %s (debate --list shows them)", id, storeName(e.opt.storeDir))
	}
	if err != nil {
		return stored{}, err
	}
	sum, err := summarize(recs)
	if err != nil {
		return stored{}, err
	}
	evs, err := engine.Replay(recs)
	if err != nil {
		return stored{}, err
	}
	es, err := engine.Summarize(recs)
	if err != nil {
		return stored{}, err
	}
	return stored{sum: sum, events: evs, spent: es.Usage, cost: es.Cost}, nil
}

// playOn continues the stored debate st (stopped, paused, forked or
// finished) with engine.ResumeStored: it shows what was said so far, once
// the format is known, then plays on live; a finished debate gives its
// result without a model call. heading is the line shown between the two.
func playOn(ctx context.Context, e *env, st stored, heading string) (*engine.Result[engine.Outcome], error) {
	e.unattended = st.sum.Debate.Unattended
	e.spend.start(st.spent, st.cost)
	show := func() {
		// The end of a finished debate is left to its outcome, which the
		// result gives.
		for _, ev := range st.events {
			if ev.Type != engine.EventDebateEnded {
				e.sink.Emit(ctx, ev)
			}
		}
		if st.sum.Status == events.StatusFinished {
			fmt.Fprintf(e.stderr, "debate: debate %s had already finished; showing it\n", st.sum.ID)
		} else {
			e.render.Println(heading)
		}
	}
	return engine.ResumeStored(ctx, e.client, st.sum.ID, e.options(st.sum.Format, st.events, show)...)
}

// configError turns a format's invalid configuration or debate into a usage
// error naming every problem; it returns other errors as they are. A field
// that a flag given on the command line set is named by that flag (see
// formatCLI.fields), in the problem too.
func configError(err error, o *options, fields map[string]string) error {
	var ve *engine.ValidationError
	switch {
	case errors.As(err, &ve):
		var lines []string
		for _, v := range ve.Violations {
			lines = append(lines, flagNames(v.Field, o, fields)+": "+replaceFields(v.Problem, o, fields))
		}
		if len(lines) == 1 {
			return usageError{"invalid configuration: " + lines[0]}
		}
		return usageError{"invalid configuration:\n  " + strings.Join(lines, "\n  ")}
	case errors.Is(err, engine.ErrInvalidConfig), errors.Is(err, engine.ErrInvalidDebate):
		return usageError{err.Error()}
	}
	return err
}

// flagNames is the field as the command line names it: the flag given that
// set it ("--max-rounds"), or the field itself.
func flagNames(field string, o *options, fields map[string]string) string {
	name, ok := fields[field]
	if !ok {
		return field
	}
	names := []string{name}
	if slices.Contains(roundsFlags, name) {
		names = roundsFlags
	}
	if f := o.given(names...); f != "" {
		return f
	}
	return field
}

// replaceFields names, in a problem's text, the fields that flags given
// set by those flags ("at least minRounds (5)" → "at least --min-rounds
// (5)"). The text is only shown, never read for what it means.
func replaceFields(problem string, o *options, fields map[string]string) string {
	for field := range fields {
		if strings.ToLower(field) == field {
			continue // a plain word ("rounds"), which the text may use as one
		}
		if f := flagNames(field, o, fields); f != field {
			problem = replaceWord(problem, field, f)
		}
	}
	return problem
}

// replaceWord replaces old in s where it is a whole word.
func replaceWord(s, old, new string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, old)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(old)
		whole := (i == 0 || !isWordByte(s[i-1])) && (end == len(s) || !isWordByte(s[end]))
		b.WriteString(s[:i])
		if whole {
			b.WriteString(new)
		} else {
			b.WriteString(old)
		}
		s = s[end:]
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
