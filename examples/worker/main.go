// Command worker finishes the unfinished debates of a PostgreSQL database,
// of every format: run several of them, on one machine or many, against one
// database, and each debate is played by one worker at a time.
//
//	worker -dsn postgres://app@db/duelogic
//
// A worker lists the unfinished debates (pgstore's Unfinished), resumes each
// one it can lock (a debate another worker holds is skipped: the engine's
// Resume fails with store.ErrLocked), and exits once none is left that it
// can play. A moderated debate's questions for a person — its clarifying
// question, its checkpoints, the approval of its synthesis — wait for the
// person (the CLI or the web page that started it): the worker plays one
// only up to its next question, where it pauses again ("paused <id>"), and
// leaves it; one the web page started with checkpoints off asks nobody, and
// the worker plays it to its end. A worker
// that dies mid-debate loses nothing committed: its lock is freed with its
// connection and another worker resumes the debate where the log ends.
//
// The model is the offline stub (llm.NewStub), optionally slowed down by
// -delay per call: the example is about the store, not the model.
//
// The stub streams, so a podcast's interruptions cut responses mid-stream
// as they would have in the process that started the debate.
//
// For each debate it finished it prints "played <id> <calls>", the number of
// model calls it made for it; with -v it also prints "call <n>" before each
// model call.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/formal"
	"github.com/duelogic/duelogic/internal/sleep"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/moderated"
	"github.com/duelogic/duelogic/persuasion"
	"github.com/duelogic/duelogic/scored"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/pgstore"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	dsn := fs.String("dsn", os.Getenv("DUELOGIC_PG_DSN"), "PostgreSQL database (default $DUELOGIC_PG_DSN)")
	seed := fs.Int64("seed", 1, "seed of the stub model")
	delay := fs.Duration("delay", 0, "time each model call takes")
	poll := fs.Duration("poll", 20*time.Millisecond, "wait between looks at debates other workers hold")
	verbose := fs.Bool("v", false, "print a line before each model call")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dsn == "" {
		return errors.New("no database: give -dsn or set DUELOGIC_PG_DSN")
	}
	st, err := pgstore.Open(ctx, *dsn)
	if err != nil {
		return err
	}
	defer st.Close()
	w := &worker{st: st, out: out, model: &slowStub{Client: llm.NewStub(*seed), delay: *delay}, verbose: *verbose}
	return w.loop(ctx, *poll)
}

type worker struct {
	st      *pgstore.Store
	model   llm.Client
	verbose bool

	mu  sync.Mutex // out
	out io.Writer
}

func (w *worker) printf(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	fmt.Fprintf(w.out, format, args...)
}

// loop resumes unfinished debates until there are none it can play.
func (w *worker) loop(ctx context.Context, poll time.Duration) error {
	paused := map[string]bool{} // moderated debates waiting for a person
	for {
		ids, err := w.st.Unfinished(ctx)
		if err != nil {
			return err
		}
		ids = slices.DeleteFunc(ids, func(id string) bool { return paused[id] })
		if len(ids) == 0 {
			return nil
		}
		played := false
		for _, id := range ids {
			ok, err := w.play(ctx, id)
			if errors.Is(err, moderated.ErrPaused) {
				paused[id] = true
				w.printf("paused %s\n", id)
				played = true
				continue
			}
			if err != nil {
				return err
			}
			played = played || ok
		}
		if !played { // every one is held by another worker
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(poll):
			}
		}
	}
}

// play resumes one debate with its stored format and configuration; false
// when another worker holds it.
func (w *worker) play(ctx context.Context, id string) (bool, error) {
	sum, err := engine.Inspect(ctx, w.st, id)
	if err != nil {
		return false, err
	}
	c := &counting{Client: w.model, w: w}
	// Resume plays the stored configuration: the ones given here are
	// replaced by it.
	opts := []engine.Option{engine.WithStore(w.st)}
	switch sum.Format {
	case duelogic.FormatName:
		var o *duelogic.Orchestrator
		o, err = duelogic.New(duelogic.DefaultConfig(), c, duelogic.WithStore(w.st),
			duelogic.WithLogger(slog.New(slog.DiscardHandler)))
		if err == nil {
			_, err = o.Resume(ctx, id)
		}
	case formal.FormatName:
		f, ferr := formal.New(formal.DefaultConfig())
		err = resume(ctx, c, id, opts, f, ferr)
	case scored.FormatName:
		f, ferr := scored.New(scored.DefaultConfig())
		err = resume(ctx, c, id, opts, f, ferr)
	case moderated.FormatName:
		f, ferr := moderated.New(moderated.DefaultConfig(), moderatedHooks(sum.Spec)...)
		err = resume(ctx, c, id, opts, f, ferr)
	case persuasion.FormatName:
		f, ferr := persuasion.New(persuasion.DefaultConfig())
		err = resume(ctx, c, id, opts, f, ferr)
	default:
		return false, fmt.Errorf("resume %s: unknown format %q", id, sum.Format)
	}
	switch {
	case errors.Is(err, store.ErrLocked):
		return false, nil
	case errors.Is(err, moderated.ErrPaused):
		return false, err
	case err != nil:
		return false, fmt.Errorf("resume %s: %w", id, err)
	}
	w.printf("played %s %d\n", id, c.n.Load())
	return true, nil
}

// resume continues debate id in format f (made by a format's New, whose
// error it passes on).
func resume[R any](ctx context.Context, c llm.Client, id string, opts []engine.Option, f engine.Format[R], err error) error {
	if err != nil {
		return err
	}
	_, err = engine.Resume(ctx, c, f, id, opts...)
	return err
}

// moderatedHooks are a worker's answers to a moderated debate's questions
// for a person (its clarifying question, checkpoints and the approval of
// its synthesis): each pauses the debate, which waits for the person who
// started it — unless it was started unattended (the web page stores
// {"unattended": true} beside the configuration when checkpoints are off),
// when nobody is asked and the worker plays it to its end.
func moderatedHooks(spec json.RawMessage) []moderated.Option {
	var page struct {
		Unattended bool `json:"unattended"`
	}
	if json.Unmarshal(spec, &page) == nil && page.Unattended {
		return nil
	}
	return []moderated.Option{
		moderated.WithClarifier(moderated.ClarifyFunc(func(context.Context, moderated.Clarification) (string, error) {
			return "", moderated.ErrPaused
		})),
		moderated.WithCheckpointer(moderated.CheckpointFunc(func(context.Context, moderated.State) (moderated.Decision, error) {
			return moderated.Decision{}, moderated.ErrPaused
		})),
		moderated.WithApprover(moderated.ApproveFunc(func(context.Context, moderated.Synthesis) (moderated.Approval, error) {
			return moderated.Approval{}, moderated.ErrPaused
		})),
	}
}

// counting counts a debate's model calls.
type counting struct {
	llm.Client
	w *worker
	n atomic.Int64
}

func (c *counting) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	c.count()
	return c.Client.Complete(ctx, req)
}

// Stream streams through the model when it streams.
func (c *counting) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	c.count()
	return llm.Stream(ctx, c.Client, req, onDelta)
}

func (c *counting) count() {
	n := c.n.Add(1)
	if c.w.verbose {
		c.w.printf("call %d\n", n)
	}
}

// slowStub is the stub model taking delay per call.
type slowStub struct {
	llm.Client
	delay time.Duration
}

func (s *slowStub) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := sleep.For(ctx, s.delay); err != nil {
		return llm.Response{}, err
	}
	return s.Client.Complete(ctx, req)
}

// Stream streams the stub's answer after the delay.
func (s *slowStub) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	if err := sleep.For(ctx, s.delay); err != nil {
		return llm.Response{}, err
	}
	return llm.Stream(ctx, s.Client, req, onDelta)
}
