// Command worker finishes the unfinished Duelogic podcast debates of a
// PostgreSQL database: run several of them, on one machine or many, against
// one database, and each debate is played by one worker at a time.
//
//	worker -dsn postgres://app@db/duelogic
//
// A worker lists the unfinished debates (pgstore's Unfinished), resumes each
// one it can lock (a debate another worker holds is skipped: the engine's
// Resume fails with store.ErrLocked), and exits once none is left. A worker
// that dies mid-debate loses nothing committed: its lock is freed with its
// connection and another worker resumes the debate where the log ends.
//
// The model is the offline stub (llm.NewStub), optionally slowed down by
// -delay per call: the example is about the store, not the model.
//
// For each debate it resumed it prints "played <id> <calls>", the number of
// model calls it made for it; with -v it also prints "call <n>" before each
// model call.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"time"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
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

// loop resumes unfinished debates until there are none.
func (w *worker) loop(ctx context.Context, poll time.Duration) error {
	for {
		ids, err := w.st.Unfinished(ctx)
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			return nil
		}
		played := false
		for _, id := range ids {
			ok, err := w.play(ctx, id)
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

// play resumes one debate; false when another worker holds it or it is not
// a podcast.
func (w *worker) play(ctx context.Context, id string) (bool, error) {
	sum, err := engine.Inspect(ctx, w.st, id)
	if err != nil {
		return false, err
	}
	if sum.Format != duelogic.FormatName {
		return false, nil
	}
	c := &counting{Client: w.model, w: w}
	// Resume plays the stored config; the one given here is not used.
	o, err := duelogic.New(duelogic.DefaultConfig(), c, duelogic.WithStore(w.st),
		duelogic.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		return false, err
	}
	_, err = o.Resume(ctx, id)
	if errors.Is(err, store.ErrLocked) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("resume %s: %w", id, err)
	}
	w.printf("played %s %d\n", id, c.n.Load())
	return true, nil
}

// counting counts a debate's model calls.
type counting struct {
	llm.Client
	w *worker
	n atomic.Int64
}

func (c *counting) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	n := c.n.Add(1)
	if c.w.verbose {
		c.w.printf("call %d\n", n)
	}
	return c.Client.Complete(ctx, req)
}

// slowStub is the stub model taking delay per call.
type slowStub struct {
	llm.Client
	delay time.Duration
}

func (s *slowStub) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if s.delay > 0 {
		t := time.NewTimer(s.delay)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return llm.Response{}, ctx.Err()
		case <-t.C:
		}
	}
	return s.Client.Complete(ctx, req)
}
