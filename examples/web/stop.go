package main

import (
	"errors"
	"net/http"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/jobs/riverjobs"
	"github.com/duelogic/duelogic/store"
)

// errStopRequested is why a run stopped from the page (POST
// /api/debates/{id}/stop) stopped: the cause its context is cancelled
// with, and what the debate's view gives as its error.
var errStopRequested = errors.New("stopped on request from the page")

// stopDebate stops a running debate; what it said stays stored and
// POST /api/debates/{id}/resume finishes it. Here, the run is cancelled
// (with errStopRequested) and the answer waits for it to return; in
// enqueue mode, the debate's job is cancelled (riverjobs.Queue.Cancel) and
// the worker playing it abandons it within moments. 202 when the debate
// stops, 404 for an unknown debate, 409 (saying why) when it is not
// running: finished, paused for its person, stopped already, or one that
// ended by itself before the stop reached it.
func (s *server) stopDebate(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if s.remote != nil {
		s.cancelJob(w, r, id)
		return
	}
	run := s.running(id)
	if run == nil {
		s.notRunning(w, r, id)
		return
	}
	// A run cancelled before its first record is stored would leave no
	// debate to resume.
	if _, err := s.store.Records(r.Context(), id); errors.Is(err, store.ErrNotFound) {
		fail(w, http.StatusConflict, "debate "+id+" is starting: stop it once it has begun")
		return
	}
	run.stop(errStopRequested)
	select {
	case <-run.done:
	case <-r.Context().Done():
		return // the stop is under way; nobody waits for the answer
	}
	// The run may have ended, paused or failed by itself just before the
	// stop reached it: what it came to decides the answer.
	switch err := run.err; {
	case errors.Is(err, errStopRequested):
		writeJSON(w, http.StatusAccepted, map[string]any{
			"id": id, "format": run.format, "status": statusStopped, "error": err.Error(),
		})
	case err == nil:
		tooLate(w, id, "finished")
	case errors.Is(err, engine.ErrPaused):
		tooLate(w, id, "paused for its person")
	default:
		fail(w, http.StatusConflict, "debate "+id+" stopped before the stop reached it: "+err.Error())
	}
}

// cancelJob stops debate id in enqueue mode: its job is cancelled, and the
// debate shows as stopped once its worker has let it go.
func (s *server) cancelJob(w http.ResponseWriter, r *http.Request, id string) {
	q := s.remote.q
	err := q.Cancel(r.Context(), id)
	switch {
	case errors.Is(err, riverjobs.ErrNoJob):
		s.notRunning(w, r, id)
		return
	case err != nil:
		s.logger.Error("cancel debate", "debate", id, "err", err)
		fail(w, http.StatusInternalServerError, "cannot cancel the debate")
		return
	}
	// The job may have completed as it was cancelled (a job already
	// completed is left as it is): the queue says what the debate came to.
	st, err := q.Status(r.Context(), id)
	if err != nil {
		s.logger.Error("cancel debate", "debate", id, "err", err)
		fail(w, http.StatusInternalServerError, "cannot read the debate")
		return
	}
	switch st.Status {
	case riverjobs.StatusFinished:
		tooLate(w, id, "finished")
		return
	case riverjobs.StatusPaused:
		tooLate(w, id, "paused for its person")
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{
		"id": id, "format": st.Format, "status": statusStopped, "error": "cancelled",
	})
}

// tooLate answers a stop of debate id, which came to what ("finished")
// by itself before the stop reached it: 409.
func tooLate(w http.ResponseWriter, id, what string) {
	fail(w, http.StatusConflict, "debate "+id+" "+what+" before the stop reached it")
}

// notRunning answers a stop of debate id, which is not running: 404 when
// it is unknown, 409 saying what it is otherwise.
func (s *server) notRunning(w http.ResponseWriter, r *http.Request, id string) {
	recs, err := s.store.Records(r.Context(), id)
	switch {
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrInvalidID):
		fail(w, http.StatusNotFound, "no debate "+id)
		return
	case err != nil:
		s.logger.Error("read debate", "debate", id, "err", err)
		fail(w, http.StatusInternalServerError, "cannot read the debate")
		return
	}
	st, err := readState(recs)
	if err != nil {
		s.logger.Error("read debate", "debate", id, "err", err)
		fail(w, http.StatusInternalServerError, "cannot read the debate")
		return
	}
	msg := "debate " + id + " is not running: "
	switch {
	case st.status == statusFinished:
		msg += "it is finished"
	case st.question != nil:
		msg += "it is paused for its person: " + pending(id, st.question)
	default:
		msg += "it is stopped already (POST /api/debates/" + id + "/resume continues it)"
	}
	fail(w, http.StatusConflict, msg)
}
