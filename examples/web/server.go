package main

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/events"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/otel/otelduelogic"
	"github.com/duelogic/duelogic/store"
)

//go:embed static
var staticFS embed.FS

// maxBody bounds request bodies; a config with six chairs and personas, or
// a scored idea with its evidence, is well under it.
const maxBody = 64 << 10

// maxRecentErrors bounds how many stopped runs' errors the server keeps
// to show; older ones are forgotten (the debates stay in the store).
const maxRecentErrors = 256

// server is the web front end: the seed's API over the library for every
// format, the SSE stream of each debate, the history, and the page. It
// keeps in memory only the debates it is running, and the history lines
// of at most maxListedFinished finished debates: everything else is read
// back from the store.
type server struct {
	client llm.Client
	store  store.Store
	hub    *events.Hub
	sse    *events.SSE
	logger *slog.Logger
	// opts are engine options every run and resume gets beside the
	// server's own (store, sink, logger, the page's person, argument
	// mapping): a test's engine.ForFormat, say.
	opts []engine.Option
	// prices and budget price and bound every run and resume (-price,
	// -max-tokens, -max-cost); nil and zero: none.
	prices map[string]engine.Price
	budget engine.Budget
	// otel, when not nil, traces every run and resume
	// (otelduelogic.StartDebate) with these options; see instrument.
	otel []otelduelogic.Option
	// remote, when set, is enqueue mode (enqueueTo): workers play the
	// debates, the server follows them.
	remote *remote

	// ctx is the debates' lifetime: cancelled when a shutdown's grace
	// period is over.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	closing bool
	runs    map[string]*debateRun // the debates running here
	errs    map[string]string     // why recent runs stopped, at most maxRecentErrors
	errIDs  []string              // errs' keys, oldest first

	// finished keeps the history items of finished debates.
	finished finishedItems
	// outcomes keeps the outcomes of finished debates read lately (a
	// finished debate's log never changes), at most maxOutcomes, so that
	// its view and its documents do not replay the debate each time.
	outcomes map[string]engine.Outcome
}

// maxOutcomes bounds server.outcomes; when it is full it starts over.
const maxOutcomes = 256

// debateRun is a debate running in this server.
type debateRun struct {
	debate engine.Debate
	// format names the debate's format; config and labels describe it
	// (describe), as they were when the run began: what the view shows
	// until the first record is stored.
	format string
	config json.RawMessage
	labels map[string]string
	// ij takes manual interjections (podcasts), once the run has made it;
	// s.mu guards it.
	ij interjector
	// stop cancels the run's context with its cause (stopDebate).
	stop context.CancelCauseFunc
	// done is closed when the run has returned and err, why it stopped
	// (nil when it ended, engine.ErrPaused when it paused), is set.
	done chan struct{}
	err  error
}

func newServer(client llm.Client, st store.Store, logger *slog.Logger) *server {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	hub := events.NewHub(4096)
	ctx, cancel := context.WithCancel(context.Background())
	return &server{
		client: client, store: st, hub: hub, logger: logger, ctx: ctx, cancel: cancel,
		sse:  &events.SSE{Hub: hub, Store: st, Retry: time.Second, Logger: logger},
		runs: map[string]*debateRun{}, errs: map[string]string{},
	}
}

// instrument traces, measures and logs the server's debates and model
// calls with OpenTelemetry: every model call through a client from
// otelduelogic.WrapClient, every run and resume in a debate span. provider
// is the gen_ai.provider.name of the server's model. Call it before the
// server serves.
func (s *server) instrument(opts []otelduelogic.Option, provider string) {
	s.otel = opts
	s.client = otelduelogic.WrapClient(s.client, append(slices.Clip(opts), otelduelogic.WithProvider(provider))...)
}

// routes is the server's handler.
func (s *server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/duelogic/chairs", s.serveJSON(func() any { return duelogic.DefaultCatalog().All() }))
	mux.HandleFunc("GET /api/duelogic/presets", s.serveJSON(func() any { return duelogic.Presets() }))
	mux.HandleFunc("GET /api/duelogic/models", s.serveJSON(func() any { return duelogic.Models() }))
	mux.HandleFunc("GET /api/duelogic/defaults", s.serveJSON(func() any { return duelogic.DefaultConfig() }))
	mux.HandleFunc("GET /api/formats", s.serveJSON(formatList))
	mux.HandleFunc("POST /api/debates/{format}", s.createDebate)
	mux.HandleFunc("GET /api/debates", s.listDebates)
	mux.HandleFunc("POST /api/debates/{id}/arbiter/interject", s.interject)
	mux.HandleFunc("POST /api/debates/{id}/clarification", s.clarification)
	mux.HandleFunc("POST /api/debates/{id}/checkpoint", s.checkpoint)
	mux.HandleFunc("POST /api/debates/{id}/approval", s.approval)
	mux.HandleFunc("POST /api/debates/{id}/answer", s.answerQuestion)
	mux.HandleFunc("POST /api/debates/{id}/resume", s.resumeDebate)
	mux.HandleFunc("POST /api/debates/{id}/stop", s.stopDebate)
	mux.HandleFunc("GET /api/debates/{id}", s.getDebate)
	mux.HandleFunc("GET /api/debates/{id}/spend", s.spend)
	mux.HandleFunc("GET /api/debates/{id}/documents/{name}", s.document)
	mux.Handle("GET /api/debates/{id}/events", afterParam(http.HandlerFunc(s.events)))
	static, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET /", http.FileServerFS(static))
	return secure(mux)
}

// afterParam lets a page that cannot set headers on an EventSource ask for
// the events after a Seq with ?after=N, as the Last-Event-ID header does.
func afterParam(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if after := r.URL.Query().Get("after"); after != "" && r.Header.Get("Last-Event-ID") == "" {
			r = r.Clone(r.Context())
			r.Header.Set("Last-Event-ID", after)
		}
		h.ServeHTTP(w, r)
	})
}

// secure sets headers that keep the page from running anything it did not
// ship: no inline script, no third-party origin.
func secure(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		h.ServeHTTP(w, r)
	})
}

func (s *server) serveJSON(v func() any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { writeJSON(w, http.StatusOK, v()) }
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// apiError is the body of every error answer; Violations lists the fields
// of an invalid request.
type apiError struct {
	Error      string             `json:"error"`
	Violations []engine.Violation `json:"violations,omitempty"`
}

func fail(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, apiError{Error: msg})
}

// decodeBody decodes a size-limited JSON body into v, rejecting unknown
// fields; it answers the request and reports false on failure.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("more than one JSON value")
	}
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		fail(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body over %d bytes", tooBig.Limit))
		return false
	case err != nil:
		fail(w, http.StatusBadRequest, "malformed JSON body: "+err.Error())
		return false
	}
	return true
}

// createRequest starts a debate of any format; it is also the seed's
// CreateDuelogicDebateRequest (POST /api/debates/duelogic), whose
// background is propositionContext.
type createRequest struct {
	Proposition string `json:"proposition"`
	// Context is background text, or an object of named background
	// fields.
	Context json.RawMessage `json:"context,omitempty"`
	// PropositionContext is Context as the seed's podcast request names
	// it.
	PropositionContext json.RawMessage `json:"propositionContext,omitempty"`
	// Config is the format's configuration (its JSON, the object
	// engine.Open takes), whose fields left out keep the format's
	// defaults (GET /api/formats).
	Config json.RawMessage `json:"config,omitempty"`
	// ArgumentMap maps the debaters' turns into an argument graph; default
	// true.
	ArgumentMap *bool `json:"argumentMap,omitempty"`
	// Checkpoints: the debate asks the page's person what it has for them
	// (a moderated debate's clarifying question, its checkpoints, the
	// approval of its synthesis), pausing until the page answers; default
	// true. False: the debate is unattended (engine.Debate.Unattended,
	// stored with it): nobody is asked anything, every question takes its
	// default answer, also when it is resumed after a stop.
	Checkpoints *bool `json:"checkpoints,omitempty"`
}

// createDebate starts a debate of the format the path names, in the
// background: 201 with its ID and configuration, 400 listing every problem
// of the request, 404 for a format that is not registered.
func (s *server) createDebate(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("format")
	if !registered(name) {
		fail(w, http.StatusNotFound, fmt.Sprintf("no format %q; have %s", name, strings.Join(engine.Formats(), ", ")))
		return
	}
	var req createRequest
	if !decodeBody(w, r, &req) {
		return
	}
	var vs []engine.Violation
	ctxField, raw := "context", req.Context
	if len(req.PropositionContext) > 0 {
		if len(req.Context) > 0 {
			vs = append(vs, engine.Violation{Field: "context", Problem: "give context or propositionContext, not both"})
		}
		ctxField, raw = "propositionContext", req.PropositionContext
	}
	background, err := contextText(raw)
	if err != nil {
		vs = append(vs, engine.Violation{Field: ctxField, Problem: err.Error()})
	}
	vs = append(vs, debateViolations(req.Proposition, background, ctxField)...)
	f, cvs, err := openRequested(name, req.Config)
	if err != nil {
		cvs = append(cvs, engine.Violation{Field: "config", Problem: err.Error()})
	}
	if vs = append(vs, cvs...); len(vs) > 0 {
		writeJSON(w, http.StatusBadRequest, apiError{Error: "invalid debate", Violations: vs})
		return
	}
	d := engine.Debate{ID: engine.NewDebateID(), Proposition: req.Proposition, Context: background,
		Unattended: req.Checkpoints != nil && !*req.Checkpoints}
	config, _ := describe(f, nil) // before the run plays f
	mapArgs := req.ArgumentMap == nil || *req.ArgumentMap
	if s.remote != nil {
		if !s.enqueue(w, r, name, req.Config, d, mapArgs) {
			return
		}
	} else if !s.answerStart(w, s.start(d, f, mapArgs)) {
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{
		"id": d.ID, "format": name, "status": events.StatusRunning, "config": config,
		"events": "/api/debates/" + d.ID + "/events",
	})
}

// debateViolations checks a debate's proposition and background, naming
// the background's field ctxField.
func debateViolations(proposition, background, ctxField string) []engine.Violation {
	var vs []engine.Violation
	if err := engine.ValidateDebate(engine.Debate{Proposition: proposition}); err != nil {
		vs = append(vs, engine.Violation{Field: "proposition", Problem: problem(err)})
	}
	if err := engine.ValidateDebate(engine.Debate{Proposition: "-", Context: background}); err != nil {
		vs = append(vs, engine.Violation{Field: ctxField, Problem: problem(err)})
	}
	return vs
}

// start plays new debate d of format f in the background; mapArgs turns
// argument mapping on. Whatever the debate asks its person pauses it
// (pause): the page answers from the store.
func (s *server) start(d engine.Debate, f engine.Format[engine.Outcome], mapArgs bool) error {
	return s.launch(d, f, func(ctx context.Context, run *debateRun, opts []engine.Option) error {
		opts = append(opts, engine.WithHuman(pause))
		if mapArgs {
			opts = append(opts, engine.WithArgumentMap(argumentation.Additive))
		}
		if p, ok := podcastOf(f); ok {
			o, err := s.orchestrator(run, p, opts)
			if err != nil {
				return err
			}
			_, err = o.Run(ctx, d)
			return err
		}
		_, err := engine.Run(ctx, s.client, f, d, opts...)
		return err
	})
}

// resume continues stored debate d, of format f, in the background with
// engine.ResumeStored; h answers its person (nil: nobody is asked, every
// question takes its default answer).
func (s *server) resume(d engine.Debate, f engine.Format[engine.Outcome], h engine.Human) error {
	return s.launch(d, f, func(ctx context.Context, run *debateRun, opts []engine.Option) error {
		if h != nil {
			opts = append(opts, engine.WithHuman(h))
		}
		if p, ok := podcastOf(f); ok {
			o, err := s.orchestrator(run, p, opts)
			if err != nil {
				return err
			}
			_, err = o.Resume(ctx, d.ID)
			return err
		}
		_, err := engine.ResumeStored(ctx, s.client, d.ID, opts...)
		return err
	})
}

// answerStart answers a request whose debate could not start; it reports
// whether it started.
func (s *server) answerStart(w http.ResponseWriter, err error) bool {
	switch {
	case err == nil:
		return true
	case errors.Is(err, errClosing):
		fail(w, http.StatusServiceUnavailable, err.Error())
	case errors.Is(err, errRunning):
		fail(w, http.StatusConflict, err.Error())
	default:
		s.logger.Error("start debate", "err", err)
		fail(w, http.StatusInternalServerError, "cannot start the debate")
	}
	return false
}

// problem is the problem a debate validation error names.
func problem(err error) string {
	var de *engine.DebateError
	if errors.As(err, &de) && len(de.Violations) > 0 {
		return de.Violations[0].Problem
	}
	return err.Error()
}

// contextText turns a propositionContext into text: a string as it is, an
// object as "name: value" lines.
func contextText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var text string
	if err := json.Unmarshal(raw, &text); err == nil {
		return text, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return "", errors.New("want a string or an object")
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		v := string(fields[k])
		var s string
		if json.Unmarshal(fields[k], &s) == nil {
			v = s
		}
		fmt.Fprintf(&b, "%s: %s\n", k, v)
	}
	return strings.TrimSpace(b.String()), nil
}

var (
	errClosing = errors.New("the server is shutting down")
	errRunning = errors.New("the debate is running")
)

// launch runs play for debate d of format f in the background, until it
// returns or the server's grace period is over, with the engine options
// every run gets. The run is forgotten when it returns.
func (s *server) launch(d engine.Debate, f engine.Format[engine.Outcome], play func(ctx context.Context, run *debateRun, opts []engine.Option) error) error {
	ctx, stop := context.WithCancelCause(s.ctx)
	run := &debateRun{debate: d, format: f.Name(), stop: stop, done: make(chan struct{})}
	run.config, run.labels = describe(f, nil)
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		stop(nil)
		return errClosing
	}
	if s.runs[d.ID] != nil {
		s.mu.Unlock()
		stop(nil)
		return errRunning
	}
	s.runs[d.ID] = run
	s.wg.Add(1)
	s.mu.Unlock()
	s.hub.Open(d.ID)
	sink := engine.EventSink(s.hub)
	var span *otelduelogic.Debate
	if s.otel != nil {
		ctx, span = otelduelogic.StartDebate(ctx, d.ID, s.otel...)
		sink = span.Sink(sink)
	}
	opts := slices.Concat([]engine.Option{engine.WithStore(s.store), engine.WithSink(sink), engine.WithLogger(s.logger)}, s.spendOptions(), s.opts)
	go func() {
		defer s.wg.Done()
		err := func() (err error) {
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("debate %s panicked: %v", d.ID, p)
				}
			}()
			return play(ctx, run, opts)
		}()
		if err != nil && !errors.Is(err, engine.ErrPaused) && errors.Is(context.Cause(ctx), errStopRequested) {
			// Stopped from the page (stopDebate), not failed.
			err = errStopRequested
		}
		stop(nil)
		if span != nil {
			if errors.Is(err, engine.ErrPaused) {
				span.End(nil) // waiting for its person is no failure
			} else {
				span.End(err)
			}
		}
		switch {
		case errors.Is(err, engine.ErrPaused):
			s.logger.Info("debate paused for its person", "debate", d.ID)
		case err != nil:
			s.logger.Warn("debate stopped", "debate", d.ID, "err", err)
		}
		s.mu.Lock()
		delete(s.runs, d.ID)
		s.remember(d.ID, err)
		s.mu.Unlock()
		run.err = err
		close(run.done)
		s.hub.Close(d.ID, err)
	}()
	return nil
}

// remember keeps why debate id's run stopped (nothing for one that ended
// or paused), forgetting the oldest beyond maxRecentErrors. s.mu is held.
func (s *server) remember(id string, err error) {
	if _, ok := s.errs[id]; ok {
		delete(s.errs, id)
		s.errIDs = slices.DeleteFunc(s.errIDs, func(x string) bool { return x == id })
	}
	if err == nil || errors.Is(err, engine.ErrPaused) {
		return
	}
	s.errs[id] = err.Error()
	s.errIDs = append(s.errIDs, id)
	if len(s.errIDs) > maxRecentErrors {
		delete(s.errs, s.errIDs[0])
		s.errIDs = s.errIDs[1:]
	}
}

// running returns the run of debate id, nil when it is not running here.
func (s *server) running(id string) *debateRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runs[id]
}

// shutdown stops taking debates and waits for the running ones to finish;
// after grace it cancels them (they stay stored and resumable) and waits
// for them to return.
func (s *server) shutdown(grace time.Duration) {
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		s.logger.Warn("grace period over: stopping the running debates")
		s.cancel()
		<-done
	}
	s.cancel()
	if s.remote != nil {
		s.remote.wg.Wait()
	}
}
