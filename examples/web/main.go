// Command web serves a page to start debates of every format linked in,
// watch them live, answer what a debate asks its person (a moderated
// debate's clarifying question, checkpoints and the approval of its
// synthesis) and read finished ones back, over the seed's HTTP API:
//
//	GET  /api/formats                       every registered format (engine.Formats) with its default config
//	POST /api/debates/{format}              start a debate: {proposition, context? (or propositionContext?),
//	                                        config?, argumentMap?, checkpoints?}; 201 with its ID and config
//	GET  /api/duelogic/chairs               the frameworks and perspectives a podcast chair may hold
//	GET  /api/duelogic/presets              the podcast's preset matchups
//	GET  /api/duelogic/models               the models of the defaults and presets
//	GET  /api/duelogic/defaults             the podcast's default config
//	GET  /api/debates                       the history: format, status, proposition, dates
//	POST /api/debates/{id}/arbiter/interject  a manual interjection into a running podcast: {reason, targetChair?}
//	POST /api/debates/{id}/answer           answer the question a debate waits for: {choice?, text?}
//	POST /api/debates/{id}/clarification    answer a clarifying question: {answer} ("" keeps the assumption)
//	POST /api/debates/{id}/checkpoint       decide a checkpoint: {action, guidance?}
//	POST /api/debates/{id}/approval         approve or reject a synthesis: {approve, feedback?}
//	POST /api/debates/{id}/resume           continue a stopped debate
//	POST /api/debates/{id}/stop             stop a running debate; resume finishes it
//	GET  /api/debates/{id}                  status, transcript, outcome, verdict, argument map, documents,
//	                                        the question a paused debate waits for
//	GET  /api/debates/{id}/spend            what it spent: tokens and money so far, by purpose and speaker once ended
//	GET  /api/debates/{id}/documents/{name} a document (Markdown) to download
//	GET  /api/debates/{id}/events           the debate's events (Server-Sent Events; ?after=SEQ)
//
// The server knows no format by name: every format registers itself with
// the engine, and the server starts a debate with engine.Open and
// engine.Run, resumes it with engine.ResumeStored, and reads a finished
// one's verdict and documents from its engine.Outcome. A config that is
// not valid gets a 400 answer listing the format's violations.
//
// A debate started from the page pauses whenever it asks its person
// something (an engine.Human that returns engine.ErrPaused): a moderated
// debate's clarifying question when the question is too vague, each
// checkpoint, and the approval of its synthesis. The pause is stored, so
// no debate waits in the server's memory, and one paused before a restart
// is answered from the page after it; GET /api/debates/{id} shows the
// question it waits for (engine.Pending: its kind, text and choices), and
// the answer resumes it with a person who gives that answer to that
// question and pauses at the next. An answer to a question the debate is
// not asking gets a 409 saying what it does wait for. Started with
// "checkpoints": false the debate is unattended (engine.Debate.Unattended,
// stored with it): nobody is asked anything, also when it is resumed after
// a stop. The page sets no follow-up ("Would you like me to create a
// workflow from this decision?"): no workflow system stands behind it; the
// reviewed synthesis is the debate's synthesis.md. The server keeps only
// the debates it is running; finished ones are read back from the store.
//
// It is a module of its own (its test drives a browser), so run it from its
// directory, or with go -C from the repository root:
//
//	cd examples/web && go run . -addr 127.0.0.1:8080
//	go -C examples/web run . -addr 127.0.0.1:8080
//
// The model is the offline stub, pausing -stub-delay per word so that the
// debate streams at a readable pace, unless -base-url (or DUELOGIC_BASE_URL)
// names an OpenAI-compatible API, whose key is read from DUELOGIC_API_KEY.
// Debates are kept in memory, as JSONL files in the directory -store
// names, in PostgreSQL when -store is a postgres:// URL (package
// store/pgstore: the tables of every format, and debates that
// examples/worker can finish), or in a SQLite file when it is sqlite:FILE
// (package store/sqlitestore: the same tables). With -enqueue (and -store postgres://...) the server plays no
// debate itself: a new debate, and the answer to a paused one, are queued
// for workers (examples/worker, package jobs/riverjobs) on any machine, and
// a debate's page follows what the worker stores, each event within
// milliseconds of its commit (pgstore.Feed: LISTEN/NOTIFY); the tokens of
// a remote debate's utterance being spoken are not relayed, the utterance
// appears whole once stored, and a podcast takes no manual interjection.
// -price MODEL=IN[/CACHED]/OUT (repeatable; the CLI's syntax) prices the
// model calls, and -max-tokens / -max-cost stop a debate that has spent
// that much (engine.WithBudget): the page shows the running tokens and
// money, the stop and its reason, and at the end the usage by purpose and
// by speaker. With -otlp URL, or OTEL_EXPORTER_OTLP_ENDPOINT (or a
// signal's own endpoint) in the environment, every debate is a span and
// every model call a child span of it (package otel/otelduelogic),
// exported with metrics and the evaluations' log records over OTLP/HTTP;
// what is left is flushed at exit.
// On SIGINT or
// SIGTERM the server stops taking debates, waits up to -grace for the running
// ones to finish, stops the others (they stay stored and resumable), and exits.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/examples/internal/otlp"
	"github.com/duelogic/duelogic/jobs/riverjobs"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/openai"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/pgstore"
	"github.com/duelogic/duelogic/store/sqlitestore"
	"github.com/jackc/pgx/v5/pgxpool"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, stop, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case errors.As(err, new(usageError)):
		fmt.Fprintln(os.Stderr, "web:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "web:", err)
		os.Exit(1)
	}
}

// usageError is a mistake on the command line.
type usageError struct{ error }

// run serves until ctx is done, then shuts down gracefully. unsignal
// restores the default signal handling once shutting down starts, so that a
// second Ctrl-C ends the program at once.
func run(ctx context.Context, unsignal func(), args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := flag.NewFlagSet("web", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "the address to listen on")
	dir := fs.String("store", "", "keep debates as JSONL files in this directory, in the PostgreSQL database of a postgres:// URL, or in the SQLite file of sqlite:FILE (default: in memory)")
	baseURL := fs.String("base-url", getenv("DUELOGIC_BASE_URL"), "an OpenAI-compatible API (default $DUELOGIC_BASE_URL; empty: the offline stub)")
	seed := fs.Int64("seed", 1, "the stub model's seed")
	delay := fs.Duration("stub-delay", 25*time.Millisecond, "the stub model's pause per word")
	grace := fs.Duration("grace", 30*time.Second, "how long a shutdown waits for running debates")
	prices := engine.Prices{}
	fs.Var(prices, "price", "a model's price, `MODEL=IN[/CACHED]/OUT` dollars per million tokens (MODEL * for any other model); repeatable")
	maxCost := fs.Float64("max-cost", 0, "stop a debate that has cost this many dollars, at -price (0: no limit)")
	maxTokens := fs.Int("max-tokens", 0, "stop a debate that has spent this many tokens (0: no limit)")
	otlpURL := fs.String("otlp", "", "export traces, metrics and logs over OTLP/HTTP to this base URL (e.g. http://127.0.0.1:4318); also on when $OTEL_EXPORTER_OTLP_ENDPOINT (or a signal's own endpoint) is set")
	enqueue := fs.Bool("enqueue", false, "with -store postgres://...: enqueue debates for workers (examples/worker) instead of playing them here")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected arguments %q", fs.Args())}
	}
	if *maxCost < 0 || math.IsNaN(*maxCost) || math.IsInf(*maxCost, 0) {
		return usageError{fmt.Errorf("-max-cost %v: want a number of dollars, 0 for no limit", *maxCost)}
	}
	if *maxTokens < 0 {
		return usageError{fmt.Errorf("-max-tokens %d: must not be negative", *maxTokens)}
	}
	if *maxCost > 0 && len(prices) == 0 {
		return usageError{errors.New("-max-cost needs the models' prices: -price MODEL=IN/OUT")}
	}
	if u, err := url.Parse(*otlpURL); *otlpURL != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
		return usageError{fmt.Errorf("-otlp %q: want an http:// or https:// URL", *otlpURL)}
	}
	if *enqueue && !isPostgres(*dir) {
		return usageError{errors.New("-enqueue needs -store postgres://...: the queue is in the debates' database")}
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))

	var client llm.Client
	if *baseURL != "" {
		if !strings.HasPrefix(*baseURL, "http://") && !strings.HasPrefix(*baseURL, "https://") {
			return usageError{fmt.Errorf("-base-url %q: want an http:// or https:// URL", *baseURL)}
		}
		client = openai.New(openai.Config{BaseURL: *baseURL, APIKey: getenv("DUELOGIC_API_KEY"), Logger: logger})
	} else {
		stub := llm.NewStub(*seed)
		stub.TokenDelay = *delay
		client = stub
	}
	var st store.Store = store.NewMemory()
	switch {
	case isPostgres(*dir):
		pg, err := pgstore.Open(ctx, *dir)
		if err != nil {
			return fmt.Errorf("-store: %w", err)
		}
		defer pg.Close()
		st = pg
	case strings.HasPrefix(*dir, "sqlite:"):
		path := strings.TrimPrefix(*dir, "sqlite:")
		if path == "" {
			return usageError{errors.New("-store sqlite: needs a file: -store sqlite:debates.db")}
		}
		sq, err := sqlitestore.Open(ctx, path)
		if err != nil {
			return fmt.Errorf("-store: %w", err)
		}
		defer sq.Close()
		st = sq
	case *dir != "":
		js, err := store.OpenJSONL(*dir)
		if err != nil {
			return err
		}
		defer js.Close()
		st = js
	}

	s := newServer(client, st, logger)
	s.prices, s.budget = prices, engine.Budget{Tokens: *maxTokens, Cost: *maxCost}
	if otlp.Wanted(*otlpURL, getenv) {
		tel, err := otlp.New(ctx, *otlpURL, "duelogic-web")
		if err != nil {
			return err
		}
		defer func() {
			// Flush what the debates left, even after a cancelled ctx.
			sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := tel.Shutdown(sctx); err != nil {
				logger.Warn("opentelemetry shutdown", "err", err)
			}
		}()
		provider := "duelogic.stub"
		if *baseURL != "" {
			provider = "openai"
		}
		s.instrument(tel.Options(), provider)
		logger.Info("exporting OpenTelemetry over OTLP/HTTP", "endpoint", cmp.Or(*otlpURL, "from the environment"))
	}
	if *enqueue {
		stopFeed, err := enqueueMode(ctx, s, st.(*pgstore.Store), *dir, logger)
		if err != nil {
			return err
		}
		defer stopFeed()
	}
	// Requests' contexts derive from streams, which ends the event streams
	// when the server shuts down.
	streams, endStreams := context.WithCancel(context.Background())
	defer endStreams()
	srv := &http.Server{
		Handler:           s.routes(),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return streams },
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "duelogic web: listening on http://%s\n", ln.Addr())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	unsignal()
	logger.Info("shutting down", "grace", *grace)
	s.shutdown(*grace)
	endStreams()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	return nil
}

// enqueueMode puts s in enqueue mode on the database of pg, whose DSN is
// dsn: a queue that enqueues (no worker), and a feed of the appends, which
// runs until the returned function is called.
func enqueueMode(ctx context.Context, s *server, pg *pgstore.Store, dsn string, logger *slog.Logger) (func(), error) {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("-enqueue: %w", err)
	}
	q, err := riverjobs.New(ctx, pool, riverjobs.Config{Store: pg, Logger: logger})
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("-enqueue: %w", err)
	}
	feed := pgstore.NewFeed(pg)
	feed.Logger = logger
	fctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		feed.Run(fctx)
	}()
	s.enqueueTo(q, pg, feed)
	return func() {
		cancel()
		<-done
		pool.Close()
	}, nil
}

// isPostgres reports whether a -store value names a PostgreSQL database.
func isPostgres(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}
