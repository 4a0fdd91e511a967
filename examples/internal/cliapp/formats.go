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
	// format returns the format the flags configure, with its hooks. To
	// resume a debate the stored configuration replaces the flags'.
	format func(e *env) (engine.Format[R], error)
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
				return nil, configError(err)
			}
			if c, ok := any(f).(engine.Cast); ok && a.name != duelogic.FormatName {
				e.render.SetLabels(c.Label)
			}
			res, err := play(ctx, e, f, d, resumeID)
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
// on the env's client, store and sink. A configuration or debate the
// format rejects is a usage error.
func play[R any](ctx context.Context, e *env, f engine.Format[R], d engine.Debate, resumeID string) (*engine.Result[R], error) {
	opts := []engine.Option{engine.WithStore(e.store), engine.WithSink(e.sink)}
	if resumeID != "" {
		return engine.Resume(ctx, e.client, f, resumeID, opts...)
	}
	res, err := engine.Run(ctx, e.client, f, d, opts...)
	return res, configError(err)
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
// error naming every problem; it returns other errors as they are.
func configError(err error) error {
	var ve *engine.ValidationError
	switch {
	case errors.As(err, &ve):
		var b strings.Builder
		b.WriteString("invalid configuration:")
		for _, v := range ve.Violations {
			fmt.Fprintf(&b, "\n  %s: %s", v.Field, v.Problem)
		}
		return usageError{b.String()}
	case errors.Is(err, engine.ErrInvalidConfig), errors.Is(err, engine.ErrInvalidDebate):
		return usageError{err.Error()}
	}
	return err
}
