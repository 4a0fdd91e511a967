package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/events"
	"github.com/duelogic/duelogic/examples/internal/render"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/moderated"
	"github.com/duelogic/duelogic/store"
)

// The statuses of a debate as the page shows them: the store's finished
// and stopped, a debate running in this server, and a moderated debate
// waiting at a checkpoint.
const (
	statusRunning  = string(events.StatusRunning)
	statusFinished = string(events.StatusFinished)
	statusStopped  = string(events.StatusStopped)
	statusPaused   = "paused"
)

// debateState is what a stored debate's records say about it.
type debateState struct {
	sum    events.Summary
	format *webFormat // nil for a format this server does not know
	status string
	// checkpoint is the checkpoint a paused debate waits at.
	checkpoint *moderated.CheckpointOutcome
	// ended is the debate_ended record's data of a finished debate.
	ended *engine.Ended
	// unattended: a moderated debate whose checkpoints were decided
	// without anyone (started with checkpoints off).
	unattended bool
}

// readState reads a debate's records.
func readState(recs []store.Record) (*debateState, error) {
	sum, err := events.Summarize(recs)
	if err != nil {
		return nil, err
	}
	st := &debateState{sum: sum, format: lookupFormat(sum.Format), status: string(sum.Status)}
	last := recs[len(recs)-1]
	switch {
	case sum.Status == events.StatusFinished:
		if e, ok := events.FromRecord(last); ok {
			if ended, err := engine.DataAs[engine.Ended](e); err == nil {
				st.ended = &ended
			}
		}
	case last.Type == moderated.RecordCheckpoint:
		if e, ok := events.FromRecord(last); ok {
			if cp, err := engine.DataAs[moderated.CheckpointOutcome](e); err == nil && cp.Paused {
				st.status, st.checkpoint = statusPaused, &cp
			}
		}
	}
	if sum.Format == moderated.FormatName {
		for _, rec := range recs {
			if rec.Type != moderated.RecordCheckpoint {
				continue
			}
			if e, ok := events.FromRecord(rec); ok {
				if cp, err := engine.DataAs[moderated.CheckpointOutcome](e); err == nil && cp.Auto {
					st.unattended = true
				}
			}
		}
	}
	return st, nil
}

// debateItem is a debate in the history: GET /api/debates.
type debateItem struct {
	ID          string    `json:"id"`
	Format      string    `json:"format"`
	Status      string    `json:"status"`
	Proposition string    `json:"proposition"`
	Started     time.Time `json:"started"`
	Updated     time.Time `json:"updated"`
	Utterances  int       `json:"utterances"`
}

// listDebates lists the stored debates, newest first: at most ?limit=N
// (default 100, at most 1000). It reads the records of the debates that
// have not finished; a finished one's item is read once and kept (see
// finishedItems).
func (s *server) listDebates(w http.ResponseWriter, r *http.Request) {
	limit := 100
	if q := r.URL.Query().Get("limit"); q != "" {
		n, err := strconv.Atoi(q)
		if err != nil || n < 1 || n > 1000 {
			fail(w, http.StatusBadRequest, "limit: want a number in 1..1000")
			return
		}
		limit = n
	}
	ids, err := s.store.Debates(r.Context())
	if err != nil {
		s.logger.Error("list debates", "err", err)
		fail(w, http.StatusInternalServerError, "cannot list the debates")
		return
	}
	items, err := s.listItems(r.Context(), ids)
	if err != nil {
		return // the request is gone
	}
	s.mu.Lock()
	for i := range items {
		if s.runs[items[i].ID] != nil {
			items[i].Status = statusRunning
		}
	}
	s.mu.Unlock()
	slices.SortFunc(items, compareListed)
	writeJSON(w, http.StatusOK, items[:min(limit, len(items))])
}

// debateView is GET /api/debates/{id}: the debate as stored, with its
// status.
type debateView struct {
	ID          string `json:"id"`
	Format      string `json:"format"`
	Status      string `json:"status"`
	Error       string `json:"error,omitempty"`
	Proposition string `json:"proposition"`
	Context     string `json:"propositionContext,omitempty"`
	// Config is the format's configuration (a podcast's duelogic.Config,
	// the Config of the other formats).
	Config any `json:"config,omitempty"`
	// Labels name the speakers.
	Labels map[string]string `json:"labels,omitempty"`
	// Mapped reports whether the debate maps its arguments.
	Mapped     bool               `json:"mapped"`
	Transcript []engine.Utterance `json:"transcript"`
	// Metrics are a finished podcast's.
	Metrics *duelogic.Metrics `json:"metrics"`
	Usage   *llm.Usage        `json:"usage,omitempty"`
	// Detail is a finished debate's outcome, the format's Result.Detail.
	Detail json.RawMessage `json:"detail,omitempty"`
	// Arguments is the argument map of a finished debate that maps its
	// arguments: the moves, the scored arguments and relations, and the
	// verdict.
	Arguments *engine.ArgumentMap `json:"arguments,omitempty"`
	// Checkpoint is the checkpoint a paused debate waits at.
	Checkpoint *moderated.CheckpointOutcome `json:"checkpoint,omitempty"`
	// Documents are the names of the debate's documents
	// (GET /api/debates/{id}/documents/{name}).
	Documents []string  `json:"documents"`
	Started   time.Time `json:"started,omitzero"`
	Updated   time.Time `json:"updated,omitzero"`
}

func (s *server) getDebate(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	v, status, msg := s.view(r.Context(), id)
	if status != http.StatusOK {
		fail(w, status, msg)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// view reads debate id; on failure it returns the HTTP status and message.
func (s *server) view(ctx context.Context, id string) (*debateView, int, string) {
	run := s.running(id)
	recs, err := s.store.Records(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound) && run != nil:
		// Started; its first record is on its way.
		v := &debateView{ID: id, Format: run.format.name, Status: statusRunning, Proposition: run.debate.Proposition,
			Context: run.debate.Context, Transcript: []engine.Utterance{}, Documents: []string{}}
		v.Config, v.Labels, _ = run.format.describe(run.spec)
		return v, http.StatusOK, ""
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrInvalidID):
		return nil, http.StatusNotFound, "no debate " + id
	case err != nil:
		s.logger.Error("read debate", "debate", id, "err", err)
		return nil, http.StatusInternalServerError, "cannot read the debate"
	}
	st, err := readState(recs)
	if err != nil {
		s.logger.Error("read debate", "debate", id, "err", err)
		return nil, http.StatusInternalServerError, "cannot read the debate"
	}
	v := &debateView{ID: id, Format: st.sum.Format, Status: st.status, Proposition: st.sum.Debate.Proposition,
		Context: st.sum.Debate.Context, Mapped: st.sum.Mapped, Checkpoint: st.checkpoint,
		Started: st.sum.Started, Updated: st.sum.Updated}
	if st.format != nil {
		v.Config, v.Labels, err = st.format.describe(st.sum.Spec)
		if err != nil {
			s.logger.Warn("read a debate's configuration", "debate", id, "err", err)
		}
	}
	if run != nil {
		v.Status = statusRunning
	} else {
		s.mu.Lock()
		v.Error = s.errs[id]
		s.mu.Unlock()
	}
	v.Transcript = replay(recs)
	if e := st.ended; e != nil {
		v.Usage, v.Detail, v.Arguments = &e.Usage, e.Detail, e.Arguments
		if st.sum.Format == duelogic.FormatName {
			var out duelogic.Outcome
			if json.Unmarshal(e.Detail, &out) == nil {
				v.Metrics = &out.Metrics
			}
		}
	}
	docs := s.documents(v, st)
	v.Documents = make([]string, 0, len(docs))
	for name := range docs {
		v.Documents = append(v.Documents, name)
	}
	slices.Sort(v.Documents)
	return v, http.StatusOK, ""
}

// replay rebuilds a debate's transcript from its records: the utterances
// with their evaluations and interruption marks.
func replay(recs []store.Record) []engine.Utterance {
	utts := []engine.Utterance{}
	index := map[int64]int{}
	for _, rec := range recs {
		e, ok := events.FromRecord(rec)
		if !ok {
			continue
		}
		switch e.Type {
		case engine.EventUtterance:
			index[e.Seq] = len(utts)
			utts = append(utts, *e.Utterance)
		case engine.EventEvaluation:
			// An evaluation is of the speaker's last utterance.
			for i := len(utts) - 1; i >= 0; i-- {
				if utts[i].Speaker == e.Speaker {
					utts[i].Evaluation = e.Evaluation
					break
				}
			}
		case duelogic.EventInterruption:
			if e.Utterance == nil {
				continue
			}
			if i, ok := index[e.Utterance.Seq]; ok {
				utts[i].Interrupted, utts[i].InterruptedBy = true, e.Speaker
			}
		}
	}
	return utts
}

// documents returns debate v's documents by file name: its transcript,
// and once it finished, its format's own documents.
func (s *server) documents(v *debateView, st *debateState) map[string]string {
	label := func(sp string) string {
		if l := v.Labels[sp]; l != "" {
			return l
		}
		return sp
	}
	tail := ""
	if v.Metrics != nil {
		tail = render.MetricsSection(*v.Metrics)
	}
	h := render.Head{ID: v.ID, Format: v.Format, Status: string(v.Status), Debate: engine.Debate{Proposition: v.Proposition, Context: v.Context}}
	docs := map[string]string{"transcript.md": render.Transcript(h, v.Transcript, label, tail)}
	if st.ended == nil || st.format == nil {
		return docs
	}
	own, err := st.format.docs(st.sum.Debate, st.ended.Detail)
	if err != nil {
		s.logger.Warn("documents of a debate", "debate", v.ID, "err", err)
		return docs
	}
	for name, text := range own {
		if strings.TrimSpace(text) != "" {
			docs[name] = text
		}
	}
	return docs
}

// document serves one of a debate's documents as a Markdown download.
func (s *server) document(w http.ResponseWriter, r *http.Request) {
	id, name := r.PathValue("id"), r.PathValue("name")
	v, status, msg := s.view(r.Context(), id)
	if status != http.StatusOK {
		fail(w, status, msg)
		return
	}
	if !slices.Contains(v.Documents, name) {
		fail(w, http.StatusNotFound, fmt.Sprintf("debate %s has no document %q", id, name))
		return
	}
	recs, err := s.store.Records(r.Context(), id)
	if err != nil {
		fail(w, http.StatusInternalServerError, "cannot read the debate")
		return
	}
	st, err := readState(recs)
	if err != nil {
		fail(w, http.StatusInternalServerError, "cannot read the debate")
		return
	}
	text := s.documents(v, st)[name]
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": id + "-" + name}))
	w.Write([]byte(text))
}

// words is s with spaces for underscores and a capital first letter.
func words(s string) string { return render.Title(s) }

// checkpointAnswer is the page's decision at the checkpoint after round.
type checkpointAnswer struct {
	round    int
	decision moderated.Decision
}

// pageCheckpointer answers a moderated debate's checkpoints for the page:
// the checkpoint a answers with a's decision, every other one by pausing
// the debate (it is stored, and the page shows the buttons). So no debate
// waits in memory for a person: POST /api/debates/{id}/checkpoint resumes
// it, in this server or in one started after it.
func pageCheckpointer(a *checkpointAnswer) moderated.Checkpointer {
	return moderated.CheckpointFunc(func(_ context.Context, st moderated.State) (moderated.Decision, error) {
		if a != nil && st.Round == a.round {
			return a.decision, nil
		}
		return moderated.Decision{}, fmt.Errorf("%w: waiting for the page", moderated.ErrPaused)
	})
}

// checkpointRequest is a person's decision at a checkpoint.
type checkpointRequest struct {
	Action   moderated.Action `json:"action"`
	Guidance string           `json:"guidance,omitempty"`
}

// checkpoint answers the checkpoint a moderated debate is paused at and
// resumes it: 202, 400 for a bad decision, 404 for an unknown debate, 409
// when the debate is not waiting at a checkpoint.
func (s *server) checkpoint(w http.ResponseWriter, r *http.Request) {
	var req checkpointRequest
	if !decodeBody(w, r, &req) {
		return
	}
	var vs []duelogic.Violation
	req.Guidance = strings.TrimSpace(req.Guidance)
	switch req.Action {
	case moderated.Continue, moderated.End:
		if req.Guidance != "" {
			vs = append(vs, duelogic.Violation{Field: "guidance", Problem: "only the guide action takes guidance"})
		}
	case moderated.Guide:
		if req.Guidance == "" {
			vs = append(vs, duelogic.Violation{Field: "guidance", Problem: "empty: say what the next round should address"})
		}
		if n := utf8.RuneCountInString(req.Guidance); n > moderated.MaxGuidanceRunes {
			vs = append(vs, duelogic.Violation{Field: "guidance", Problem: fmt.Sprintf("%d characters; at most %d", n, moderated.MaxGuidanceRunes)})
		}
	default:
		vs = append(vs, duelogic.Violation{Field: "action", Problem: fmt.Sprintf("%q: want continue, guide or end", req.Action)})
	}
	if len(vs) > 0 {
		writeJSON(w, http.StatusBadRequest, apiError{Error: "invalid decision", Violations: vs})
		return
	}
	id := r.PathValue("id")
	st, ok := s.stopped(w, r, id)
	if !ok {
		return
	}
	if st.checkpoint == nil {
		fail(w, http.StatusConflict, "debate "+id+" is not waiting at a checkpoint")
		return
	}
	a := &checkpointAnswer{round: st.checkpoint.Round, decision: moderated.Decision{Action: req.Action, Guidance: req.Guidance}}
	s.resume(w, id, st, hooks{checkpointer: pageCheckpointer(a)})
}

// resumeDebate continues a stopped debate: 202, 404 for an unknown debate,
// 409 for one that is running, finished or waiting at a checkpoint.
func (s *server) resumeDebate(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	st, ok := s.stopped(w, r, id)
	if !ok {
		return
	}
	if st.checkpoint != nil {
		fail(w, http.StatusConflict, "debate "+id+" waits at a checkpoint: answer it (POST /api/debates/"+id+"/checkpoint)")
		return
	}
	var h hooks
	if st.sum.Format == moderated.FormatName && !st.unattended {
		h.checkpointer = pageCheckpointer(nil)
	}
	s.resume(w, id, st, h)
}

// stopped reads debate id, which must be stored, not running here and not
// finished; it answers the request otherwise.
func (s *server) stopped(w http.ResponseWriter, r *http.Request, id string) (*debateState, bool) {
	if s.running(id) != nil {
		fail(w, http.StatusConflict, "debate "+id+" is running")
		return nil, false
	}
	recs, err := s.store.Records(r.Context(), id)
	switch {
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrInvalidID):
		fail(w, http.StatusNotFound, "no debate "+id)
		return nil, false
	case err != nil:
		s.logger.Error("read debate", "debate", id, "err", err)
		fail(w, http.StatusInternalServerError, "cannot read the debate")
		return nil, false
	}
	st, err := readState(recs)
	switch {
	case err != nil:
		s.logger.Error("read debate", "debate", id, "err", err)
		fail(w, http.StatusInternalServerError, "cannot read the debate")
		return nil, false
	case st.format == nil:
		fail(w, http.StatusConflict, fmt.Sprintf("debate %s is of a format this server does not play (%q)", id, st.sum.Format))
		return nil, false
	case st.status == statusFinished:
		fail(w, http.StatusConflict, "debate "+id+" is finished")
		return nil, false
	}
	return st, true
}

// resume continues stopped debate id in the background with hooks h and
// answers 202.
func (s *server) resume(w http.ResponseWriter, id string, st *debateState, h hooks) {
	h.verifier = s.verifier
	run := st.format.blank(h)
	d := st.sum.Debate
	d.ID = id
	err := s.launch(st.format, d, nil, func(ctx context.Context, e runEnv) error {
		return run.resume(ctx, e, id)
	})
	if !s.answerStart(w, err) {
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{
		"id": id, "format": st.sum.Format, "status": statusRunning,
		"events": "/api/debates/" + id + "/events",
	})
}
