package main

import (
	"bytes"
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
	"github.com/duelogic/duelogic/store"
)

//go:embed static
var staticFS embed.FS

// maxBody bounds request bodies; a config with six chairs and personas is
// well under it.
const maxBody = 64 << 10

// server is the web front end: the seed's API over the library, the SSE
// stream of each debate, and the page.
type server struct {
	client llm.Client
	store  store.Store
	hub    *events.Hub
	sse    *events.SSE
	logger *slog.Logger

	// ctx is the debates' lifetime: cancelled when a shutdown's grace
	// period is over.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	closing bool
	runs    map[string]*debateRun
}

// debateRun is a debate this server started.
type debateRun struct {
	o    *duelogic.Orchestrator
	done bool
	err  error
	res  *duelogic.Result
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
		runs: map[string]*debateRun{},
	}
}

// routes is the server's handler.
func (s *server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/debates/duelogic", s.createDebate)
	mux.HandleFunc("GET /api/duelogic/chairs", s.serveJSON(func() any { return duelogic.DefaultCatalog().All() }))
	mux.HandleFunc("GET /api/duelogic/presets", s.serveJSON(func() any { return duelogic.Presets() }))
	mux.HandleFunc("GET /api/duelogic/models", s.serveJSON(func() any { return duelogic.Models() }))
	mux.HandleFunc("GET /api/duelogic/defaults", s.serveJSON(func() any { return duelogic.DefaultConfig() }))
	mux.HandleFunc("POST /api/debates/{id}/arbiter/interject", s.interject)
	mux.HandleFunc("GET /api/debates/{id}", s.getDebate)
	mux.Handle("GET /api/debates/{id}/events", s.sse)
	static, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET /", http.FileServerFS(static))
	return secure(mux)
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
	Error      string               `json:"error"`
	Violations []duelogic.Violation `json:"violations,omitempty"`
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

// createRequest is the seed's CreateDuelogicDebateRequest.
type createRequest struct {
	Proposition string `json:"proposition"`
	// PropositionContext is background text, or an object of named
	// background fields.
	PropositionContext json.RawMessage `json:"propositionContext,omitempty"`
	// Config is a Partial<DuelogicConfig>, decoded over the defaults.
	Config json.RawMessage `json:"config,omitempty"`
}

// strictConfig has Config's fields without its decoder, to find unknown
// fields.
type strictConfig duelogic.Config

// createDebate starts a Duelogic debate in the background: 201 with its ID
// and config, or 400 listing every problem of the request.
func (s *server) createDebate(w http.ResponseWriter, r *http.Request) {
	var req createRequest
	if !decodeBody(w, r, &req) {
		return
	}
	var vs []duelogic.Violation
	cfg := duelogic.DefaultConfig()
	if len(req.Config) > 0 && string(req.Config) != "null" {
		dec := json.NewDecoder(bytes.NewReader(req.Config))
		dec.DisallowUnknownFields()
		var probe strictConfig
		if err := dec.Decode(&probe); err != nil {
			fail(w, http.StatusBadRequest, "config: "+strings.TrimPrefix(err.Error(), "json: "))
			return
		}
		if err := json.Unmarshal(req.Config, &cfg); err != nil {
			fail(w, http.StatusBadRequest, "config: "+err.Error())
			return
		}
	}
	background, err := contextText(req.PropositionContext)
	if err != nil {
		vs = append(vs, duelogic.Violation{Field: "propositionContext", Problem: err.Error()})
	}
	if err := duelogic.ValidateDebate(duelogic.Debate{Proposition: req.Proposition}); err != nil {
		vs = append(vs, duelogic.Violation{Field: "proposition", Problem: problem(err)})
	}
	if err := duelogic.ValidateDebate(duelogic.Debate{Proposition: "-", Context: background}); err != nil {
		vs = append(vs, duelogic.Violation{Field: "propositionContext", Problem: problem(err)})
	}
	var ve *duelogic.ValidationError
	if err := cfg.Validate(); errors.As(err, &ve) {
		vs = append(vs, ve.Violations...)
	}
	if len(vs) > 0 {
		writeJSON(w, http.StatusBadRequest, apiError{Error: "invalid debate", Violations: vs})
		return
	}
	d := duelogic.Debate{ID: duelogic.NewDebateID(), Proposition: req.Proposition, Context: background}
	if err := s.start(cfg, d); err != nil {
		if errors.Is(err, errClosing) {
			fail(w, http.StatusServiceUnavailable, err.Error())
			return
		}
		s.logger.Error("start debate", "err", err)
		fail(w, http.StatusInternalServerError, "cannot start the debate")
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{
		"id": d.ID, "status": events.StatusRunning, "config": cfg,
		"events": "/api/debates/" + d.ID + "/events",
	})
}

// problem is a debate validation error without its sentinel's prefix.
func problem(err error) string {
	return strings.TrimPrefix(err.Error(), duelogic.ErrInvalidDebate.Error()+": ")
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

var errClosing = errors.New("the server is shutting down")

// start runs debate d with cfg in the background, until it ends or the
// server's grace period is over.
func (s *server) start(cfg duelogic.Config, d duelogic.Debate) error {
	o, err := duelogic.New(cfg, s.client, duelogic.WithStore(s.store), duelogic.WithSink(s.hub),
		duelogic.WithLogger(s.logger), duelogic.WithArgumentMap(argumentation.Additive))
	if err != nil {
		return err
	}
	run := &debateRun{o: o}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return errClosing
	}
	s.runs[d.ID] = run
	s.wg.Add(1)
	s.mu.Unlock()
	s.hub.Open(d.ID)
	go func() {
		defer s.wg.Done()
		res, err := o.Run(s.ctx, d)
		if err != nil {
			s.logger.Warn("debate stopped", "debate", d.ID, "err", err)
		}
		s.mu.Lock()
		run.done, run.err, run.o, run.res = true, err, nil, res
		s.mu.Unlock()
		s.hub.Close(d.ID, err)
	}()
	return nil
}

// running returns the orchestrator running debate id, if any.
func (s *server) running(id string) (*duelogic.Orchestrator, *debateRun) {
	s.mu.Lock()
	defer s.mu.Unlock()
	run := s.runs[id]
	if run == nil || run.done {
		return nil, run
	}
	return run.o, run
}

// interjectRequest is the seed's ManualInterjectionRequest.
type interjectRequest struct {
	Reason      string `json:"reason"`
	TargetChair string `json:"targetChair,omitempty"`
}

// interject queues a manual interjection: 202, 404 when the debate is not
// running here, 400 for a bad reason or chair.
func (s *server) interject(w http.ResponseWriter, r *http.Request) {
	var req interjectRequest
	if !decodeBody(w, r, &req) {
		return
	}
	id := r.PathValue("id")
	o, _ := s.running(id)
	if o == nil {
		fail(w, http.StatusNotFound, "debate "+id+" is not running")
		return
	}
	switch err := o.Interject(id, req.Reason, req.TargetChair); {
	case errors.Is(err, duelogic.ErrNotRunning):
		fail(w, http.StatusNotFound, "debate "+id+" is not running")
	case err != nil:
		fail(w, http.StatusBadRequest, strings.TrimPrefix(err.Error(), "duelogic: "))
	default:
		writeJSON(w, http.StatusAccepted, map[string]string{"status": "queued"})
	}
}

// debateView is GET /api/debates/{id}: the debate as stored, with its status.
type debateView struct {
	ID          string               `json:"id"`
	Format      string               `json:"format"`
	Status      events.Status        `json:"status"`
	Error       string               `json:"error,omitempty"`
	Proposition string               `json:"proposition"`
	Context     string               `json:"propositionContext,omitempty"`
	Config      *duelogic.Config     `json:"config,omitempty"`
	Transcript  []duelogic.Utterance `json:"transcript"`
	Metrics     *duelogic.Metrics    `json:"metrics"`
	Usage       *llm.Usage           `json:"usage,omitempty"`
	// Arguments is the argument map of a finished debate: the moves, the
	// scored arguments and relations, and the verdict.
	Arguments *duelogic.ArgumentMap `json:"arguments,omitempty"`
}

func (s *server) getDebate(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	o, run := s.running(id)
	recs, err := s.store.Records(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) && o != nil {
		recs, err = nil, nil // started; its first record is on its way
	}
	switch {
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrInvalidID):
		fail(w, http.StatusNotFound, "no debate "+id)
		return
	case err != nil:
		s.logger.Error("read debate", "debate", id, "err", err)
		fail(w, http.StatusInternalServerError, "cannot read the debate")
		return
	}
	v := debateView{ID: id, Format: "duelogic", Status: events.StatusRunning, Transcript: []duelogic.Utterance{}}
	if len(recs) > 0 {
		sum, err := events.Summarize(recs)
		if err != nil {
			fail(w, http.StatusInternalServerError, "cannot read the debate")
			return
		}
		v.Format, v.Status, v.Config = sum.Format, sum.Status, sum.Config
		v.Proposition, v.Context = sum.Debate.Proposition, sum.Debate.Context
	}
	if o != nil {
		v.Status = events.StatusRunning
	} else if run != nil && run.err != nil {
		v.Error = run.err.Error()
	}
	v.Transcript, v.Metrics, v.Usage = replay(recs)
	if v.Status == events.StatusFinished {
		v.Arguments = s.argumentMap(r.Context(), id, v.Config, run)
	}
	writeJSON(w, http.StatusOK, v)
}

// argumentMap returns a finished debate's argument map: the one its run
// returned, or, for a debate stored before this server started, the one
// replaying its records rebuilds (a finished debate calls no model).
func (s *server) argumentMap(ctx context.Context, id string, cfg *duelogic.Config, run *debateRun) *duelogic.ArgumentMap {
	if run != nil && run.res != nil {
		return run.res.Arguments
	}
	if cfg == nil {
		return nil // not a Duelogic debate
	}
	o, err := duelogic.New(*cfg, s.client, duelogic.WithStore(s.store), duelogic.WithArgumentMap(argumentation.Additive))
	if err != nil {
		return nil
	}
	res, err := o.Resume(ctx, id)
	if err != nil {
		s.logger.Warn("rebuild argument map", "debate", id, "err", err)
		return nil
	}
	return res.Arguments
}

// replay rebuilds a debate's transcript from its records: the utterances
// with their evaluations and interruption marks, and the metrics and usage
// once it ended.
func replay(recs []store.Record) ([]duelogic.Utterance, *duelogic.Metrics, *llm.Usage) {
	utts := []duelogic.Utterance{}
	index := map[int64]int{}
	var metrics *duelogic.Metrics
	var usage *llm.Usage
	for _, rec := range recs {
		e, ok := events.FromRecord(rec)
		if !ok {
			continue
		}
		switch e.Type {
		case duelogic.EventUtterance:
			index[e.Seq] = len(utts)
			utts = append(utts, *e.Utterance)
		case duelogic.EventEvaluation:
			// An evaluation is of the speaker's last utterance.
			for i := len(utts) - 1; i >= 0; i-- {
				if utts[i].Speaker == e.Speaker {
					utts[i].Evaluation = e.Evaluation
					break
				}
			}
		case duelogic.EventInterruption:
			if i, ok := index[e.Utterance.Seq]; ok {
				utts[i].Interrupted, utts[i].InterruptedBy = true, e.Speaker
			}
		case duelogic.EventDebateEnded:
			ended, err := engine.DataAs[engine.Ended](e)
			if err != nil {
				continue
			}
			var out duelogic.Outcome
			if json.Unmarshal(ended.Detail, &out) == nil {
				metrics = &out.Metrics
			}
			usage = &ended.Usage
		}
	}
	return utts, metrics, usage
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
}
