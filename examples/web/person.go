package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/moderated"
	"github.com/duelogic/duelogic/store"
)

// The page's person is asked nothing while a debate waits in memory: a
// debate started from the page pauses at every question it has for its
// person (pause), and the pause is stored, so the page shows the question
// (engine.Pending), in this server or in one started after it. The answer,
// POSTed, resumes the debate with a Human that gives it to that question
// and pauses at the next (answering).

// errWaitForPage pauses a debate until the page answers.
var errWaitForPage = fmt.Errorf("%w: waiting for the page", engine.ErrPaused)

// pause is the page's person before anyone answered: every question pauses
// the debate.
var pause engine.Human = engine.HumanFunc(func(context.Context, engine.Question) (engine.Answer, error) {
	return engine.Answer{}, errWaitForPage
})

// answering is the page's person who answered question q with a: it gives
// a to q, once, and pauses the debate at any other question.
type answering struct {
	q engine.Question
	a engine.Answer

	mu    sync.Mutex
	given bool
}

// Ask answers the question the page answered, and pauses at any other.
func (h *answering) Ask(_ context.Context, q engine.Question) (engine.Answer, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.given || q.Kind != h.q.Kind || q.Text != h.q.Text || !slices.Equal(q.Choices, h.q.Choices) {
		return engine.Answer{}, errWaitForPage
	}
	h.given = true
	return h.a, nil
}

// maxAnswerRunes bounds the text of an answer: what moderated keeps of
// guidance, feedback or a clarification (it would cut the rest).
const maxAnswerRunes = moderated.MaxGuidanceRunes

// tooLong is a violation of field when text has more than maxAnswerRunes
// characters.
func tooLong(field, text string) []engine.Violation {
	if n := utf8.RuneCountInString(text); n > maxAnswerRunes {
		return []engine.Violation{{Field: field, Problem: fmt.Sprintf("%d characters; at most %d", n, maxAnswerRunes)}}
	}
	return nil
}

// answerQuestion answers the question a debate is paused at and resumes
// it: 202, 400 for an answer the question does not allow, 404 for an
// unknown debate, 409 when the debate waits for no answer.
func (s *server) answerQuestion(w http.ResponseWriter, r *http.Request) {
	var a engine.Answer // {choice, text}: the question's choice, and free text
	if !decodeBody(w, r, &a) {
		return
	}
	a.Text = strings.TrimSpace(a.Text)
	if vs := tooLong("text", a.Text); len(vs) > 0 {
		writeJSON(w, http.StatusBadRequest, apiError{Error: "invalid answer", Violations: vs})
		return
	}
	s.answer(w, r, "", "choice", a)
}

// The seed's endpoints for what a moderated debate asks — its clarifying
// question, its checkpoints, the approval of its synthesis — are answers
// to questions of those kinds.

// checkpointRequest is a person's decision at a checkpoint.
type checkpointRequest struct {
	Action   moderated.Action `json:"action"`
	Guidance string           `json:"guidance,omitempty"`
}

// checkpoint answers the checkpoint question a debate is paused at and
// resumes it: 202, 400 for a bad decision, 404 for an unknown debate, 409
// when the debate is not waiting at a checkpoint.
func (s *server) checkpoint(w http.ResponseWriter, r *http.Request) {
	var req checkpointRequest
	if !decodeBody(w, r, &req) {
		return
	}
	var vs []engine.Violation
	req.Guidance = strings.TrimSpace(req.Guidance)
	switch req.Action {
	case moderated.Continue, moderated.End:
		if req.Guidance != "" {
			vs = append(vs, engine.Violation{Field: "guidance", Problem: "only the guide action takes guidance"})
		}
	case moderated.Guide:
		if req.Guidance == "" {
			vs = append(vs, engine.Violation{Field: "guidance", Problem: "empty: say what the next round should address"})
		}
		vs = append(vs, tooLong("guidance", req.Guidance)...)
	default:
		vs = append(vs, engine.Violation{Field: "action", Problem: fmt.Sprintf("%q: want continue, guide or end", req.Action)})
	}
	if len(vs) > 0 {
		writeJSON(w, http.StatusBadRequest, apiError{Error: "invalid decision", Violations: vs})
		return
	}
	s.answer(w, r, engine.QuestionCheckpoint, "action", engine.Answer{Choice: string(req.Action), Text: req.Guidance})
}

// clarificationRequest is a person's answer to the moderator's clarifying
// question.
type clarificationRequest struct {
	// Answer is the answer; "" (or none) keeps the moderator's
	// assumption.
	Answer string `json:"answer"`
}

// clarification answers the clarifying question a debate is paused at and
// resumes it: 202, 400 for a bad answer, 404 for an unknown debate, 409
// when the debate is not waiting for that answer.
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
	s.answer(w, r, engine.QuestionClarification, "answer", engine.Answer{Text: answer})
}

// approvalRequest is a person's review of the synthesis.
type approvalRequest struct {
	// Approve approves the synthesis (true) or rejects it (false).
	Approve *bool `json:"approve"`
	// Feedback is the person's reason or comment, optional; it goes into
	// the synthesis document's Status line.
	Feedback string `json:"feedback,omitempty"`
}

// approval approves or rejects the synthesis a debate is paused at and
// resumes it: 202, 400 for a bad review, 404 for an unknown debate, 409
// when the debate is not waiting for it.
func (s *server) approval(w http.ResponseWriter, r *http.Request) {
	var req approvalRequest
	if !decodeBody(w, r, &req) {
		return
	}
	feedback := strings.TrimSpace(req.Feedback)
	vs := tooLong("feedback", feedback)
	if req.Approve == nil {
		vs = append(vs, engine.Violation{Field: "approve", Problem: "missing: true approves the synthesis, false rejects it"})
	}
	if len(vs) > 0 {
		writeJSON(w, http.StatusBadRequest, apiError{Error: "invalid review", Violations: vs})
		return
	}
	a := engine.Answer{Choice: moderated.ChoiceReject, Text: feedback}
	if *req.Approve {
		a.Choice = moderated.ChoiceApprove
	}
	s.answer(w, r, engine.QuestionApproval, "approve", a)
}

// answer resumes the debate the request names, which must be paused at a
// question of kind ("": any), with the page's answer a to it: 202, 400
// when the question does not allow a (naming choiceField), 404 for an
// unknown debate, 409 (saying what the debate is doing or waiting for)
// otherwise.
func (s *server) answer(w http.ResponseWriter, r *http.Request, kind, choiceField string, a engine.Answer) {
	id := r.PathValue("id")
	st, ok := s.stopped(w, r, id)
	if !ok {
		return
	}
	q := st.question
	if q == nil || (kind != "" && q.Kind != kind) {
		msg := "debate " + id + " is not waiting for an answer"
		if kind != "" {
			msg += " to a " + kind + " question"
		}
		if q != nil {
			msg += ": " + pending(id, q)
		} else {
			msg += ": it is stopped (POST /api/debates/" + id + "/resume continues it)"
		}
		fail(w, http.StatusConflict, msg)
		return
	}
	if (len(q.Choices) == 0 && a.Choice != "") || (len(q.Choices) > 0 && !slices.Contains(q.Choices, a.Choice)) {
		problem := fmt.Sprintf("%q: the question takes no choice", a.Choice)
		if len(q.Choices) > 0 {
			problem = fmt.Sprintf("%q: want one of %s", a.Choice, strings.Join(q.Choices, ", "))
		}
		writeJSON(w, http.StatusBadRequest, apiError{Error: "invalid answer", Violations: []engine.Violation{{Field: choiceField, Problem: problem}}})
		return
	}
	s.resumeStopped(w, r, id, st, &answering{q: *q, a: a})
}

// answerPath is the endpoint that answers a question of kind: the seed's
// own for the questions it names, POST …/answer for any other.
func answerPath(kind string) string {
	if slices.Contains([]string{engine.QuestionClarification, engine.QuestionCheckpoint, engine.QuestionApproval}, kind) {
		return kind
	}
	return "answer"
}

// pending says what question paused debate id waits for, and how to answer
// it.
func pending(id string, q *engine.Question) string {
	return fmt.Sprintf("it waits for an answer to its %s question (POST /api/debates/%s/%s)", q.Kind, id, answerPath(q.Kind))
}

// resumeDebate continues a stopped debate: 202, 404 for an unknown debate,
// 409 for one that is running, finished or paused for its person. The
// debate asks its person again, unless it is unattended.
func (s *server) resumeDebate(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	st, ok := s.stopped(w, r, id)
	if !ok {
		return
	}
	if st.question != nil {
		fail(w, http.StatusConflict, "debate "+id+" is paused for its person: "+pending(id, st.question))
		return
	}
	h := pause
	if legacyUnattended(st.sum.Spec) {
		h = nil // stored by an earlier version with checkpoints off
	}
	s.resumeStopped(w, r, id, st, h)
}

// stopped reads debate id, which must be stored, not running here, not
// finished and of a registered format; it answers the request otherwise.
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
	case !registered(st.sum.Format):
		fail(w, http.StatusConflict, fmt.Sprintf("debate %s is of a format this server does not play (%q)", id, st.sum.Format))
		return nil, false
	case st.status == statusFinished:
		fail(w, http.StatusConflict, "debate "+id+" is finished")
		return nil, false
	}
	return st, true
}

// resumeStopped continues stopped debate id in the background, its person
// answered by h (nil: nobody), and answers 202; in enqueue mode, it queues
// the debate's job again, with h's answer.
func (s *server) resumeStopped(w http.ResponseWriter, r *http.Request, id string, st *debateState, h engine.Human) {
	f, err := openStored(st.sum.Format, st.sum.Spec)
	if err != nil {
		s.logger.Error("open a stored debate's format", "debate", id, "err", err)
		fail(w, http.StatusInternalServerError, "cannot read the debate's configuration")
		return
	}
	if s.remote != nil {
		s.requeue(w, r, id, st.sum.Format, h)
		return
	}
	d := st.sum.Debate
	d.ID = id
	if !s.answerStart(w, s.resume(d, f, h)) {
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{
		"id": id, "format": st.sum.Format, "status": statusRunning,
		"events": "/api/debates/" + id + "/events",
	})
}
