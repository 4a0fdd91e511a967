// Command worker plays the debates queued in a PostgreSQL database, as jobs
// of River (jobs/riverjobs), until it is stopped: run several, on one
// machine or many, against one database, and they share the queue.
//
//	worker -dsn postgres://app@db/duelogic -base-url http://llm:8080/v1 -concurrency 4
//	worker -dsn postgres://app@db/duelogic -stub -stub-delay 5ms
//
// Debates are queued by the full CLI build (examples/pgcli: debate --store
// postgres://... --enqueue "question"), or by a host with riverjobs.Enqueue;
// the debate's format and configuration are stored with it, so the worker
// knows no format by name: every format linked in registers itself with the
// engine.
//
// The model is an OpenAI-compatible API at -base-url (or
// $DUELOGIC_BASE_URL), the key read from $DUELOGIC_API_KEY; -model seats one
// model in every seat (a local server that serves one). -stub plays the
// offline stub model instead, -stub-delay per call, for demonstrations.
// -provider-limit N keeps at most N calls in flight to the provider across
// every worker of the database, and -provider-rate M lets at most M calls
// to it begin in any minute across them all (a call needs both).
//
// An attempt plays a debate for at most -attempt, then stops at its next
// step and goes back to the queue (the log replays, so resuming costs no
// call); a worker that dies leaves its debates to River's rescue, after
// -attempt + -stop-grace and a few seconds more. A debate that asks its
// person a question waits, paused, for the answer (debate --store ...
// --resume, or an answer requeued with riverjobs.Requeue).
//
// -price MODEL=IN[/CACHED]/OUT (repeatable; the CLI's syntax) prices the
// model calls: the records and the debate_ended event carry what a debate
// cost, which the web page (examples/web -enqueue) shows. With -otlp URL,
// or OTEL_EXPORTER_OTLP_ENDPOINT (or a signal's own endpoint) in the
// environment, each attempt at a debate is a span, each model call a
// child span of it (package otel/otelduelogic), exported with metrics and
// the evaluations' log records over OTLP/HTTP, flushed at exit.
//
// SIGTERM or SIGINT stops the worker: it fetches no more debates, those
// playing stop at their next step and go back to the queue, and what still
// plays after -stop-timeout is cancelled (and goes back to the queue too).
//
// It prints a line per attempt: "played <id> <calls>" and "verdict <id>
// <summary>" for a debate it finished, "paused <id> <question>",
// "snoozed <id>", "cancelled <id>", "failed <id>: <why>" (not retried) or
// "retry <id>: <why>".
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/examples/internal/otlp"
	"github.com/duelogic/duelogic/internal/sleep"
	"github.com/duelogic/duelogic/jobs/riverjobs"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/openai"
	"github.com/duelogic/duelogic/otel/otelduelogic"
	"github.com/duelogic/duelogic/store/pgstore"
	"github.com/jackc/pgx/v5/pgxpool"

	// The formats the worker plays: each registers itself with the engine.
	_ "github.com/duelogic/duelogic"
	_ "github.com/duelogic/duelogic/formal"
	_ "github.com/duelogic/duelogic/moderated"
	_ "github.com/duelogic/duelogic/persuasion"
	_ "github.com/duelogic/duelogic/scored"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		stop()
		os.Exit(1)
	}
}

// options are the command's flags.
type options struct {
	dsn, baseURL, model, id string
	stub                    bool
	seed                    int64
	stubDelay               time.Duration
	concurrency, limit      int
	rate                    int
	attempt, grace, stop    time.Duration
	verbose                 bool
	prices                  engine.Prices
	budget                  engine.Budget
	otlp                    string
}

func parse(args []string, getenv func(string) string, stderr io.Writer) (*options, error) {
	o := &options{prices: engine.Prices{}}
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.dsn, "dsn", getenv("DUELOGIC_PG_DSN"), "PostgreSQL database (default $DUELOGIC_PG_DSN)")
	fs.StringVar(&o.baseURL, "base-url", getenv("DUELOGIC_BASE_URL"), "an OpenAI-compatible API (default $DUELOGIC_BASE_URL); the key is read from $DUELOGIC_API_KEY")
	fs.StringVar(&o.model, "model", getenv("DUELOGIC_MODEL"), "seat this model ID in every seat (default $DUELOGIC_MODEL; empty: the debates' own)")
	fs.BoolVar(&o.stub, "stub", false, "play the offline stub model (a demonstration), not -base-url")
	fs.Int64Var(&o.seed, "seed", 1, "the stub model's seed")
	fs.DurationVar(&o.stubDelay, "stub-delay", 0, "the time each call to the stub model takes")
	fs.IntVar(&o.concurrency, "concurrency", riverjobs.DefaultConcurrency, "debates played at once")
	fs.IntVar(&o.limit, "provider-limit", 0, "at most this many model calls in flight to the provider across every worker of the database (0: no limit)")
	fs.IntVar(&o.rate, "provider-rate", 0, "at most this many model calls to the provider begin in any minute across every worker of the database (0: no limit)")
	fs.DurationVar(&o.attempt, "attempt", riverjobs.DefaultAttemptLimit, "how long an attempt plays a debate before it goes back to the queue")
	fs.DurationVar(&o.grace, "stop-grace", riverjobs.DefaultStopGrace, "how long the calls under way when an attempt ends may take")
	fs.DurationVar(&o.stop, "stop-timeout", 30*time.Second, "on SIGTERM, how long debates may take to stop at their next step before they are cancelled")
	fs.StringVar(&o.id, "id", "", "this worker's name in the job list (default host-pid)")
	fs.BoolVar(&o.verbose, "v", false, "log each wait for a provider slot or the provider's rate, and River's notes")
	fs.IntVar(&o.budget.Tokens, "max-tokens", 0, "stop a debate that has spent this many tokens (0: no limit); it stays stopped until queued again (debate --requeue) for workers with a larger budget")
	fs.Float64Var(&o.budget.Cost, "max-cost", 0, "stop a debate that has cost this many dollars at -price (0: no limit)")
	fs.Var(o.prices, "price", "a model's price, `MODEL=IN[/CACHED]/OUT` dollars per million tokens (MODEL * for any other model); repeatable: the debates' records and debate_ended event carry their cost")
	fs.StringVar(&o.otlp, "otlp", "", "export traces, metrics and logs over OTLP/HTTP to this base URL (e.g. http://127.0.0.1:4318); also on when $OTEL_EXPORTER_OTLP_ENDPOINT (or a signal's own endpoint) is set")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	switch {
	case fs.NArg() > 0:
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	case o.dsn == "":
		return nil, errors.New("no database: give -dsn or set DUELOGIC_PG_DSN")
	case o.stub && o.baseURL != "" && isSet(fs, "base-url"):
		return nil, errors.New("-stub and -base-url: give one")
	case !o.stub && o.baseURL == "":
		return nil, errors.New("no model: give -base-url (or set DUELOGIC_BASE_URL), or -stub for the offline stub")
	case !o.stub && !strings.HasPrefix(o.baseURL, "http://") && !strings.HasPrefix(o.baseURL, "https://"):
		return nil, fmt.Errorf("-base-url %q: want an http:// or https:// URL", o.baseURL)
	case o.concurrency < 1:
		return nil, fmt.Errorf("-concurrency %d: want at least 1", o.concurrency)
	case o.limit < 0:
		return nil, fmt.Errorf("-provider-limit %d: must not be negative", o.limit)
	case o.rate < 0:
		return nil, fmt.Errorf("-provider-rate %d: must not be negative", o.rate)
	case o.attempt <= 0 || o.grace <= 0 || o.stop <= 0:
		return nil, errors.New("-attempt, -stop-grace and -stop-timeout must be positive")
	case o.budget.Tokens < 0 || o.budget.Cost < 0 || math.IsNaN(o.budget.Cost) || math.IsInf(o.budget.Cost, 0):
		return nil, errors.New("-max-tokens and -max-cost must be numbers, 0 for no limit")
	case o.budget.Cost > 0 && len(o.prices) == 0:
		return nil, errors.New("-max-cost needs the models' prices: -price MODEL=IN/OUT")
	case o.otlp != "" && !strings.HasPrefix(o.otlp, "http://") && !strings.HasPrefix(o.otlp, "https://"):
		return nil, fmt.Errorf("-otlp %q: want an http:// or https:// URL", o.otlp)
	}
	return o, nil
}

func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// model is the client the options name, and its provider's name (for
// -provider-limit and -provider-rate).
func (o *options) client(getenv func(string) string) (llm.Client, string) {
	if o.stub {
		return &slowStub{Client: llm.NewStub(o.seed), delay: o.stubDelay}, "stub"
	}
	provider := o.baseURL
	if u, err := url.Parse(o.baseURL); err == nil {
		provider = u.Host
	}
	var c llm.Client = openai.New(openai.Config{BaseURL: o.baseURL, APIKey: getenv("DUELOGIC_API_KEY")})
	if o.model != "" {
		c = &seated{Client: c, model: o.model}
	}
	return c, provider
}

// run is the command: it plays debates until ctx ends, then stops within
// -stop-timeout.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	o, err := parse(args, getenv, stderr)
	if err != nil {
		return err
	}
	level := slog.LevelWarn
	if o.verbose {
		level = slog.LevelInfo
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	st, err := pgstore.Open(ctx, o.dsn)
	if err != nil {
		return err
	}
	defer st.Close()
	pool, err := pgxpool.New(ctx, o.dsn)
	if err != nil {
		return fmt.Errorf("database: %w", err)
	}
	defer pool.Close()
	model, provider := o.client(getenv)
	var engineOpts []func(id string) []engine.Option
	if len(o.prices) > 0 {
		prices := engine.WithPrices(o.prices)
		engineOpts = append(engineOpts, func(string) []engine.Option { return []engine.Option{prices} })
	}
	if o.budget != (engine.Budget{}) {
		budget := engine.WithBudget(o.budget)
		engineOpts = append(engineOpts, func(string) []engine.Option { return []engine.Option{budget} })
	}
	p := &printer{w: stdout}
	report := p.report
	if otlp.Wanted(o.otlp, getenv) {
		tel, err := otlp.New(ctx, o.otlp, "duelogic-worker")
		if err != nil {
			return err
		}
		defer func() {
			// Flush what the attempts left, even after a cancelled ctx.
			sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := tel.Shutdown(sctx); err != nil {
				logger.Warn("opentelemetry shutdown", "err", err)
			}
		}()
		spans := newDebateSpans(tel.Options())
		genai := "openai"
		if o.stub {
			genai = "duelogic.stub"
		}
		model = spans.client(otelduelogic.WrapClient(model, append(tel.Options(), otelduelogic.WithProvider(genai))...))
		engineOpts = append(engineOpts, spans.options)
		report = func(r riverjobs.Report) {
			spans.report(r)
			p.report(r)
		}
	}
	if o.limit > 0 || o.rate > 0 {
		if err := riverjobs.Migrate(ctx, pool); err != nil {
			return err
		}
		lim := riverjobs.NewLimiter(pool, riverjobs.LimiterConfig{Holder: o.id, Logger: logger})
		model = lim.LimitProvider(provider, riverjobs.Limits{InFlight: o.limit, Rate: o.rate}, model)
	}
	q, err := riverjobs.New(ctx, pool, riverjobs.Config{
		Store: st, Model: model, Concurrency: o.concurrency, AttemptLimit: o.attempt, StopGrace: o.grace,
		ID: o.id, Logger: logger, Report: report,
		Options: func(id string) []engine.Option {
			var opts []engine.Option
			for _, f := range engineOpts {
				opts = append(opts, f(id)...)
			}
			return opts
		},
	})
	if err != nil {
		return err
	}
	// The worker's own context: ctx ending asks for the graceful stop
	// below, not River's hard one.
	if err := q.Start(context.WithoutCancel(ctx)); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "worker: playing the debates queued in %s, %d at once; SIGTERM stops\n", redacted(o.dsn), o.concurrency)
	select {
	case <-ctx.Done():
	case <-q.Stopped():
		return errors.New("the job client stopped")
	}
	fmt.Fprintf(stderr, "worker: stopping: debates stop at their next step (at most %v)\n", o.stop)
	return q.Shutdown(o.stop)
}

// printer prints each attempt's line.
type printer struct {
	mu sync.Mutex
	w  io.Writer
}

func (p *printer) report(r riverjobs.Report) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch r.Outcome {
	case riverjobs.OutcomeFinished:
		fmt.Fprintf(p.w, "played %s %d\nverdict %s %s\n", r.DebateID, r.Calls, r.DebateID, r.Verdict)
	case riverjobs.OutcomeFailed, riverjobs.OutcomeRetry:
		fmt.Fprintf(p.w, "%s %s: %v\n", r.Outcome, r.DebateID, r.Err)
	default:
		fmt.Fprintf(p.w, "%s %s\n", r.Outcome, r.DebateID)
	}
}

// redacted is dsn with its password masked.
func redacted(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		if strings.Contains(dsn, "password") {
			return "the database"
		}
		return dsn
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.Redacted()
}

// seated is a client that seats one model in every request.
type seated struct {
	llm.Client
	model string
}

func (s *seated) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	req.Model = s.model
	return s.Client.Complete(ctx, req)
}

// Stream streams through the model, when it streams.
func (s *seated) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	req.Model = s.model
	return llm.Stream(ctx, s.Client, req, onDelta)
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
