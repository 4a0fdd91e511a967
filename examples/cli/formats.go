package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/duelogic/duelogic"
)

// format is an entry of the format registry: how the CLI starts and resumes
// a debate of one format. Adding a format is one entry (usually in its own
// file) whose run and resume call the format package.
type format struct {
	name  string
	about string
	// flags are the format-specific flags (of formatFlags) it reads.
	flags []string
	// metrics prints the Duelogic metrics at the end.
	metrics bool
	// summary, when set, is printed at the end: the outcome in a few lines.
	summary func(o *outcome) string
	// run starts debate d; resume continues debate id. Both nil: the
	// format is not in this build.
	run    func(ctx context.Context, e *env, d duelogic.Debate) (*outcome, error)
	resume func(ctx context.Context, e *env, id string) (*outcome, error)
}

// outcome is what a format's run left.
type outcome struct {
	// id is the debate's ID.
	id string
	// result is the engine's result, when the format returns it: its
	// transcript is written as <id>.md unless docs has "md".
	result *duelogic.Result
	// paused: the debate stopped at a checkpoint on purpose.
	paused bool
	// docs are the format's own documents by file name suffix: "md" is
	// written as <id>.md, "summary.md" as <id>.summary.md.
	docs map[string]string
	// full is the format's whole result, written as <id>.json; nil: result.
	full any
}

// formatFlags are the flags that only some formats read; giving one to
// another format is a usage error. --no-checkpoints is not among them: a
// format without checkpoints already runs without pausing, so every format
// accepts it, and a script can pass it whatever the format.
var formatFlags = []string{"preset", "chairs", "perspectives", "max-rounds", "exchanges", "rounds", "perspective"}

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
		if f.name == name && f.run != nil {
			return f, nil
		}
	}
	return nil, usagef("unknown format %q", name)
}

// check rejects format-specific flags the format does not read.
func (f *format) check(o *options) error {
	var foreign []string
	for _, n := range formatFlags {
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
// error naming every problem.
func configError(err error) error {
	var ve *duelogic.ValidationError
	switch {
	case errors.As(err, &ve):
		var b strings.Builder
		b.WriteString("invalid configuration:")
		for _, v := range ve.Violations {
			fmt.Fprintf(&b, "\n  %s: %s", v.Field, v.Problem)
		}
		return usageError{b.String()}
	case errors.Is(err, duelogic.ErrInvalidConfig), errors.Is(err, duelogic.ErrInvalidDebate):
		return usageError{err.Error()}
	}
	return err
}
