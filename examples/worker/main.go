// Command worker finishes the unfinished debates of a PostgreSQL database,
// of every format linked in: run several of them, on one machine or many,
// against one database, and each debate is played by one worker at a time.
//
//	worker -dsn postgres://app@db/duelogic
//
// A worker lists the unfinished debates (pgstore's Unfinished), resumes each
// one it can lock with engine.ResumeStored — its format and configuration
// are read from the store, so the worker knows no format by name: every
// format registers itself with the engine, and linking it is enough — and
// exits once none is left that it can play. A debate another worker holds
// is skipped (store.ErrLocked). A debate's questions for a person — a
// moderated debate's clarifying question, its checkpoints, the approval of
// its synthesis — wait for the person (the CLI or the web page that
// started it): the worker's person is absent (an engine.Human that returns
// engine.ErrPaused), so it plays a debate only up to its next question,
// where it pauses again ("paused <id>"), and leaves one that already waits
// for an answer (engine.Pending) as it is. An unattended debate
// (engine.Debate.Unattended: the web page's checkpoints off, also as
// earlier versions of the page stored it) asks nobody, and the worker
// plays it to its end. A worker that dies mid-debate loses nothing
// committed: its lock is freed with its connection and another worker
// resumes the debate where the log ends.
//
// The model is the offline stub (llm.NewStub), optionally slowed down by
// -delay per call: the example is about the store, not the model.
//
// The stub streams, so a podcast's interruptions cut responses mid-stream
// as they would have in the process that started the debate.
//
// For each debate it finished it prints "played <id> <calls>", the number of
// model calls it made for it, then "verdict <id> <summary>", the one line
// of its outcome's engine.Verdict; with -v it also prints "call <n>" before
// each model call.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/internal/sleep"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/pgstore"

	// The formats the worker plays: each registers itself with the engine.
	_ "github.com/duelogic/duelogic"
	_ "github.com/duelogic/duelogic/formal"
	_ "github.com/duelogic/duelogic/moderated"
	_ "github.com/duelogic/duelogic/persuasion"
	_ "github.com/duelogic/duelogic/scored"
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
	paused := map[string]bool{} // debates waiting for a person
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
			if errors.Is(err, engine.ErrPaused) {
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

// absent is the person of the debates a worker plays: not here. Every
// question pauses the debate (stored), for the person who started it.
var absent = engine.HumanFunc(func(context.Context, engine.Question) (engine.Answer, error) {
	return engine.Answer{}, fmt.Errorf("%w: the worker leaves the question to the debate's person", engine.ErrPaused)
})

// play resumes one debate with engine.ResumeStored: its stored format and
// configuration, and its person absent. It returns false when another
// worker holds the debate, and an error wrapping engine.ErrPaused when the
// debate waits for its person: it already did (it is left as it is), or
// it paused at its next question.
func (w *worker) play(ctx context.Context, id string) (bool, error) {
	recs, err := w.st.Records(ctx, id)
	if err != nil {
		return false, fmt.Errorf("resume %s: %w", id, err)
	}
	if q, ok := engine.Pending(recs); ok {
		return false, fmt.Errorf("resume %s: %w: it waits for an answer to its %s question", id, engine.ErrPaused, q.Kind)
	}
	sum, err := engine.Summarize(recs)
	if err != nil {
		return false, fmt.Errorf("resume %s: %w", id, err)
	}
	c := &counting{Client: w.model, w: w}
	opts := []engine.Option{engine.WithStore(w.st)}
	if !legacyUnattended(sum.Spec) {
		opts = append(opts, engine.WithHuman(absent))
	}
	res, err := engine.ResumeStored(ctx, c, id, opts...)
	switch {
	case errors.Is(err, store.ErrLocked):
		return false, nil
	case errors.Is(err, engine.ErrPaused):
		return false, err
	case err != nil:
		return false, fmt.Errorf("resume %s: %w", id, err)
	}
	w.printf("played %s %d\n", id, c.n.Load())
	w.printf("verdict %s %s\n", id, res.Detail.Verdict().Summary)
	return true, nil
}

// legacyUnattended reports whether spec, a debate's stored configuration,
// is the wrapper earlier versions of the web page stored for a moderated
// debate started with checkpoints off — {"config": {...}, "unattended":
// true} — rather than engine.Debate.Unattended: such a debate is played
// with nobody to ask, to its end.
func legacyUnattended(spec json.RawMessage) bool {
	var w struct {
		Config     json.RawMessage `json:"config"`
		Unattended bool            `json:"unattended"`
	}
	return json.Unmarshal(spec, &w) == nil && w.Unattended && len(w.Config) > 0
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
