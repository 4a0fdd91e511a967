package cliapp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/examples/internal/render"
)

// format is an entry of the format registry. Make one with define, from
// what differs between formats; the rest is common to every format.
type format struct {
	name  string
	about string
	// flags are the format-specific flags (of formatFlags) it reads.
	flags []string
	// play runs debate d or, when resumeID is set, continues the stored
	// debate resumeID.
	play func(ctx context.Context, e *env, d engine.Debate, resumeID string) (*outcome, error)
}

// adapter is what the CLI knows of a format whose outcome is R: its flags,
// how they become the format, its summary and its documents. Adding a
// format is one adapter (in its own file) and a line in registry.
type adapter[R any] struct {
	name  string
	about string
	flags []string
	// fields names the flags that set the format's configuration fields,
	// by the fields' JSON paths as its validation errors name them
	// ("maxRounds": "max-rounds"; a flag with aliases by any of its
	// names), so that an invalid value is reported by the flag given.
	fields map[string]string
	// format returns the format the flags configure, with its hooks. To
	// resume a debate the stored configuration replaces the flags'.
	format func(e *env) (engine.Format[R], error)
	// live, when set, says which speeches are printed token by token (see
	// render.Renderer.SetLive): a format that generates several at once
	// refuses theirs, so that the output does not depend on which streamed
	// first.
	live func(after *engine.Utterance) bool
	// summary, when set, prints the outcome at the end, in a few lines.
	summary func(r *render.Renderer, res *engine.Result[R])
	// docs, when set, returns the format's own documents by file name
	// suffix ("summary.md" is written as <id>.summary.md); an "md" one
	// replaces the transcript.
	docs func(res *engine.Result[R]) (map[string]string, error)
	// finish, when set, writes what the format writes beside --out's
	// documents (the moderated decision record) and returns the paths.
	finish func(e *env, res *engine.Result[R]) ([]string, error)
	// write, when set, writes the documents to the --out directory dir in
	// the format's own layout, instead of the documents by suffix, and
	// returns the files written.
	write func(res *engine.Result[R], dir string) ([]string, error)
}

// outcome is a finished debate as the CLI shows and writes it.
type outcome struct {
	summary func(r *render.Renderer)
	// docs returns the documents by file name suffix: "json" the engine's
	// result, "md" the transcript, and the format's own.
	docs func() (map[string]string, error)
	// finish, when set, writes the format's own files (see adapter.finish).
	finish func() ([]string, error)
	// write, when set, writes the documents to a directory in the format's
	// own layout (see adapter.write).
	write func(dir string) ([]string, error)
}

// define makes the registry entry of a.
func define[R any](a adapter[R]) *format {
	return &format{name: a.name, about: a.about, flags: a.flags,
		play: func(ctx context.Context, e *env, d engine.Debate, resumeID string) (*outcome, error) {
			f, err := a.format(e)
			if err != nil {
				return nil, configError(err, e.opt, a.fields)
			}
			if c, ok := any(f).(engine.Cast); ok && a.name != duelogic.FormatName {
				e.render.SetLabels(c.Label)
			}
			if a.live != nil {
				e.render.SetLive(a.live)
			}
			res, err := play(ctx, e, f, d, resumeID)
			if err != nil && resumeID == "" {
				// A configuration or debate the format rejects is a
				// usage error; a resumed debate's are stored.
				err = configError(err, e.opt, a.fields)
			}
			if err != nil {
				return nil, err
			}
			o := &outcome{docs: func() (map[string]string, error) {
				docs := map[string]string{"md": transcript(res, title, "")}
				if a.docs != nil {
					own, err := a.docs(res)
					if err != nil {
						return nil, err
					}
					for suffix, text := range own {
						docs[suffix] = text
					}
				}
				js, err := marshal(res)
				docs["json"] = js
				return docs, err
			}}
			if a.summary != nil {
				o.summary = func(r *render.Renderer) { a.summary(r, res) }
			}
			if a.finish != nil {
				o.finish = func() ([]string, error) { return a.finish(e, res) }
			}
			if a.write != nil {
				o.write = func(dir string) ([]string, error) { return a.write(res, dir) }
			}
			return o, nil
		}}
}

// play runs debate d in format f, or resumes the stored debate resumeID,
// on the env's client, store, sink and clock.
func play[R any](ctx context.Context, e *env, f engine.Format[R], d engine.Debate, resumeID string) (*engine.Result[R], error) {
	opts := []engine.Option{engine.WithStore(e.store), engine.WithSink(e.sink)}
	if e.now != nil {
		opts = append(opts, engine.WithClock(e.now))
	}
	if resumeID != "" {
		return engine.Resume(ctx, e.client, f, resumeID, opts...)
	}
	return engine.Run(ctx, e.client, f, d, opts...)
}

// formatFlags are the flags that only some formats read (those some
// format lists); giving one to another format is a usage error.
// --no-checkpoints is not among them: a format without checkpoints already
// runs without pausing, so every format accepts it, and a script can pass
// it whatever the format.
func formatFlags() []string {
	var names []string
	for _, f := range registry {
		for _, n := range f.flags {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return names
}

// registry holds the formats, in the order usage lists them.
var registry = []*format{duelogicFormat, formalFormat, scoredFormat, moderatedFormat, persuasionFormat}

func formatNames() []string {
	var names []string
	for _, f := range registry {
		names = append(names, f.name)
	}
	return names
}

func lookupFormat(name string) (*format, error) {
	for _, f := range registry {
		if f.name == name {
			return f, nil
		}
	}
	return nil, usagef("unknown format %q", name)
}

// check rejects format-specific flags the format does not read.
func (f *format) check(o *options) error {
	var foreign []string
	for _, n := range formatFlags() {
		if !slices.Contains(f.flags, n) {
			foreign = append(foreign, n)
		}
	}
	if bad := flagsOnly(o, foreign...); len(bad) > 0 {
		return usagef("%s: not used by the %s format", strings.Join(bad, ", "), f.name)
	}
	return nil
}

// configError turns a format's invalid configuration or debate into a usage
// error naming every problem; it returns other errors as they are. A field
// that a flag given on the command line set is named by that flag (see
// adapter.fields), in the problem too.
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

// rounds is "1 round" or "n rounds".
func rounds(n int) string {
	if n == 1 {
		return "1 round"
	}
	return fmt.Sprintf("%d rounds", n)
}
