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
// paused for its person.
const (
	statusRunning  = string(events.StatusRunning)
	statusFinished = string(events.StatusFinished)
	statusStopped  = string(events.StatusStopped)
	statusPaused   = "paused"
)

// What a paused moderated debate waits for from the page's person.
const (
	waitClarification = "clarification" // an answer to the moderator's clarifying question
	waitCheckpoint    = "checkpoint"    // a decision at the checkpoint after a round
	waitApproval      = "approval"      // the approval or rejection of the synthesis
)

// debateState is what a stored debate's records say about it.
type debateState struct {
	sum    events.Summary
	format *webFormat // nil for a format this server does not know
	status string
	// waiting is what a paused debate waits for (waitCheckpoint, …); ""
	// when it is not paused.
	waiting string
	// checkpoint is the checkpoint a paused debate waits at.
	checkpoint *moderated.CheckpointOutcome
	// clarification is the clarifying question a paused debate waits to
	// have answered: the question and the moderator's assumption.
	clarification *moderated.Clarification
	// synthesis is the synthesis a paused debate waits to have approved
	// or rejected.
	synthesis *moderated.Synthesis
	// ended is the debate_ended record's data of a finished debate.
	ended *engine.Ended
	// unattended: a moderated debate started with checkpoints off, which
	// asks nobody anything.
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
	// A pause is the last record of a stopped debate: the question the
	// debate stopped at, stored unanswered.
	switch {
	case sum.Status == events.StatusFinished:
		if ended, ok := dataOf[engine.Ended](last); ok {
			st.ended = &ended
		}
	case last.Type == moderated.RecordCheckpoint:
		if cp, ok := dataOf[moderated.CheckpointOutcome](last); ok && cp.Paused {
			st.status, st.waiting, st.checkpoint = statusPaused, waitCheckpoint, &cp
		}
	case last.Type == moderated.RecordClarification:
		if c, ok := dataOf[moderated.Clarification](last); ok && c.Paused {
			st.status, st.waiting, st.clarification = statusPaused, waitClarification, &c
		}
	case last.Type == moderated.RecordApproval:
		if a, ok := dataOf[moderated.ApprovalOutcome](last); ok && a.Paused {
			st.status, st.waiting = statusPaused, waitApproval
			for i := len(recs) - 1; i >= 0; i-- {
				if recs[i].Type == moderated.RecordSynthesis {
					if syn, ok := dataOf[moderated.Synthesis](recs[i]); ok {
						st.synthesis = &syn
					}
					break
				}
			}
		}
	}
	if sum.Format == moderated.FormatName {
		st.unattended = unattended(sum.Spec, recs)
	}
	return st, nil
}

// unattended reports whether a moderated debate was started with
// checkpoints off: its stored configuration says so (moderatedSpec), or,
// for a debate stored before the page stored that, one of its checkpoints
// was decided without anyone.
func unattended(spec json.RawMessage, recs []store.Record) bool {
	var sp moderatedSpec
	if json.Unmarshal(spec, &sp) == nil && sp.Unattended {
		return true
	}
	for _, rec := range recs {
		if rec.Type != moderated.RecordCheckpoint {
			continue
		}
		if cp, ok := dataOf[moderated.CheckpointOutcome](rec); ok && cp.Auto {
			return true
		}
	}
	return false
}

// dataOf decodes the data of the event a record announces.
func dataOf[T any](rec store.Record) (T, bool) {
	e, ok := events.FromRecord(rec)
	if !ok {
		var zero T
		return zero, false
	}
	v, err := engine.DataAs[T](e)
	return v, err == nil
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
	// Waiting is what a paused moderated debate waits for from its
	// person: "clarification" (POST /api/debates/{id}/clarification),
	// "checkpoint" (…/checkpoint) or "approval" (…/approval).
	Waiting string `json:"waiting,omitempty"`
	// Checkpoint is the checkpoint a paused debate waits at.
	Checkpoint *moderated.CheckpointOutcome `json:"checkpoint,omitempty"`
	// Clarification is the clarifying question a paused debate waits to
	// have answered: the question, and what the moderator assumes without
	// an answer.
	Clarification *moderated.Clarification `json:"clarification,omitempty"`
	// Synthesis is the synthesis a paused debate waits to have approved or
	// rejected (a finished debate's is in Detail).
	Synthesis *moderated.Synthesis `json:"synthesis,omitempty"`
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
		Context: st.sum.Debate.Context, Mapped: st.sum.Mapped, Waiting: st.waiting, Checkpoint: st.checkpoint,
		Clarification: st.clarification, Synthesis: st.synthesis, Started: st.sum.Started, Updated: st.sum.Updated}
	if st.format != nil {
		v.Config, v.Labels, err = st.format.describe(st.sum.Spec)
		if err != nil {
			s.logger.Warn("read a debate's configuration", "debate", id, "err", err)
		}
	}
	if run != nil {
		// Resumed: what it waited for is being answered.
		v.Status, v.Waiting, v.Checkpoint, v.Clarification, v.Synthesis = statusRunning, "", nil, nil, nil
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

// The page's person is asked nothing while a debate waits in memory: a
// moderated debate started from the page pauses at every question it has
// for its person — the clarifying question, each checkpoint, the approval
// of the synthesis — and the pause is stored (so the page shows the
// question, in this server or in one started after it). The answer,
// POSTed, resumes the debate with hooks that give it and pause at the next
// question.

// errWaitForPage pauses a moderated debate until the page answers.
var errWaitForPage = fmt.Errorf("%w: waiting for the page", moderated.ErrPaused)

// pageAnswer is the page's answer to the question a paused moderated
// debate waits for: at most one of its fields is set.
type pageAnswer struct {
	// clarification answers the clarifying question; "" keeps the
	// moderator's assumption.
	clarification *string
	// checkpoint decides the checkpoint after a round.
	checkpoint *checkpointAnswer
	// approval approves or rejects the synthesis.
	approval *moderated.Approval
}

// checkpointAnswer is the page's decision at the checkpoint after round.
type checkpointAnswer struct {
	round    int
	decision moderated.Decision
}

// pageClarifier answers the clarifying question with answer, or, when nil,
// pauses the debate.
func pageClarifier(answer *string) moderated.Clarifier {
	return moderated.ClarifyFunc(func(context.Context, moderated.Clarification) (string, error) {
		if answer == nil {
			return "", errWaitForPage
		}
		return *answer, nil
	})
}

// pageCheckpointer answers the checkpoint a answers with a's decision, and
// every other one by pausing the debate.
func pageCheckpointer(a *checkpointAnswer) moderated.Checkpointer {
	return moderated.CheckpointFunc(func(_ context.Context, st moderated.State) (moderated.Decision, error) {
		if a != nil && st.Round == a.round {
			return a.decision, nil
		}
		return moderated.Decision{}, errWaitForPage
	})
}

// pageApprover answers the approval of the synthesis with a, or, when nil,
// pauses the debate.
func pageApprover(a *moderated.Approval) moderated.Approver {
	return moderated.ApproveFunc(func(context.Context, moderated.Synthesis) (moderated.Approval, error) {
		if a == nil {
			return moderated.Approval{}, errWaitForPage
		}
		return *a, nil
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
		vs = append(vs, tooLong("guidance", req.Guidance)...)
	default:
		vs = append(vs, duelogic.Violation{Field: "action", Problem: fmt.Sprintf("%q: want continue, guide or end", req.Action)})
	}
	if len(vs) > 0 {
		writeJSON(w, http.StatusBadRequest, apiError{Error: "invalid decision", Violations: vs})
		return
	}
	s.answer(w, r, waitCheckpoint, func(st *debateState) pageAnswer {
		return pageAnswer{checkpoint: &checkpointAnswer{round: st.checkpoint.Round,
			decision: moderated.Decision{Action: req.Action, Guidance: req.Guidance}}}
	})
}

// clarificationRequest is a person's answer to the moderator's clarifying
// question.
type clarificationRequest struct {
	// Answer is the answer; "" (or none) keeps the moderator's
	// assumption.
	Answer string `json:"answer"`
}

// clarification answers the clarifying question a moderated debate is
// paused at and resumes it: 202, 400 for a bad answer, 404 for an unknown
// debate, 409 when the debate is not waiting for that answer.
func (s *server) clarification(w http.ResponseWriter, r *http.Request) {
	var req clarificationRequest
	if !decodeBody(w, r, &req) {
		return
	}
	answer := strings.TrimSpace(req.Answer)
	if vs := tooLong("answer", answer); len(vs) > 0 {
		writeJSON(w, http.StatusBadRequest, apiError{Error: "invalid answer", Violations: vs})
		return
	}
	s.answer(w, r, waitClarification, func(*debateState) pageAnswer { return pageAnswer{clarification: &answer} })
}

// approvalRequest is a person's review of the synthesis.
type approvalRequest struct {
	// Approve approves the synthesis (true) or rejects it (false).
	Approve *bool `json:"approve"`
	// Feedback is the person's reason or comment, optional; it goes into
	// the synthesis document's Status line.
	Feedback string `json:"feedback,omitempty"`
}

// approval approves or rejects the synthesis a moderated debate is paused
// at and resumes it, to its end: 202, 400 for a bad review, 404 for an
// unknown debate, 409 when the debate is not waiting for it.
func (s *server) approval(w http.ResponseWriter, r *http.Request) {
	var req approvalRequest
	if !decodeBody(w, r, &req) {
		return
	}
	feedback := strings.TrimSpace(req.Feedback)
	vs := tooLong("feedback", feedback)
	if req.Approve == nil {
		vs = append(vs, duelogic.Violation{Field: "approve", Problem: "missing: true approves the synthesis, false rejects it"})
	}
	if len(vs) > 0 {
		writeJSON(w, http.StatusBadRequest, apiError{Error: "invalid review", Violations: vs})
		return
	}
	a := moderated.Approval{Status: moderated.Rejected, Note: feedback}
	if *req.Approve {
		a.Status = moderated.Approved
	}
	s.answer(w, r, waitApproval, func(*debateState) pageAnswer { return pageAnswer{approval: &a} })
}

// tooLong is a violation of field when text has more than
// moderated.MaxGuidanceRunes characters (the moderated package would cut
// it).
func tooLong(field, text string) []duelogic.Violation {
	if n := utf8.RuneCountInString(text); n > moderated.MaxGuidanceRunes {
		return []duelogic.Violation{{Field: field, Problem: fmt.Sprintf("%d characters; at most %d", n, moderated.MaxGuidanceRunes)}}
	}
	return nil
}

// answer resumes the debate the request names, which must be paused
// waiting for want, with the page's answer: 202, 404 for an unknown
// debate, 409 (saying what the debate is doing or waiting for) otherwise.
func (s *server) answer(w http.ResponseWriter, r *http.Request, want string, answer func(*debateState) pageAnswer) {
	id := r.PathValue("id")
	st, ok := s.stopped(w, r, id)
	if !ok {
		return
	}
	if st.waiting != want {
		what := map[string]string{
			waitClarification: "an answer to a clarifying question",
			waitCheckpoint:    "a decision at a checkpoint",
			waitApproval:      "the approval of its synthesis",
		}[want]
		msg := "debate " + id + " is not waiting for " + what
		switch {
		case st.waiting != "":
			msg += ": " + pending(id, st)
		case st.sum.Format != moderated.FormatName:
			msg += ": it is a " + st.sum.Format + " debate, which asks nobody anything"
		default:
			msg += ": it is stopped (POST /api/debates/" + id + "/resume continues it)"
		}
		fail(w, http.StatusConflict, msg)
		return
	}
	s.resume(w, id, st, hooks{attended: true, answer: answer(st)})
}

// pending says what paused debate id waits for and how to answer it.
func pending(id string, st *debateState) string {
	switch st.waiting {
	case waitClarification:
		return "it waits for an answer to the moderator's clarifying question (POST /api/debates/" + id + "/clarification)"
	case waitCheckpoint:
		return fmt.Sprintf("it waits at the checkpoint after round %d (POST /api/debates/%s/checkpoint)", st.checkpoint.Round, id)
	case waitApproval:
		return "it waits for the approval of its synthesis (POST /api/debates/" + id + "/approval)"
	}
	return ""
}

// resumeDebate continues a stopped debate: 202, 404 for an unknown debate,
// 409 for one that is running, finished or paused for its person. A
// moderated debate asks its person again, unless it was started with
// checkpoints off.
func (s *server) resumeDebate(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	st, ok := s.stopped(w, r, id)
	if !ok {
		return
	}
	if st.waiting != "" {
		fail(w, http.StatusConflict, "debate "+id+" is paused for its person: "+pending(id, st))
		return
	}
	s.resume(w, id, st, hooks{attended: !st.unattended})
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
