package main

import (
	"errors"
	"net/http"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
)

// Manual interjections (the seed's POST /api/debates/:id/arbiter/interject)
// are the one thing the server cannot do through the engine's generic
// surface: only a duelogic.Orchestrator takes them into a running podcast.
// So a format that is the podcast (whatever name it is registered under)
// is played by an orchestrator of its configuration — engine.Run and
// engine.Resume underneath, with the same options — which the run hands
// to the interjection endpoint.

// interjector takes manual interjections into a running debate: the
// podcast's orchestrator.
type interjector interface {
	Interject(debateID, reason, targetChair string) error
}

// podcastOf returns the podcast f is, if it is one.
func podcastOf(f engine.Format[engine.Outcome]) (*duelogic.Podcast, bool) {
	var p *duelogic.Podcast
	_ = engine.Configure(f, engine.ForFormat(func(u any) error {
		p, _ = u.(*duelogic.Podcast)
		return nil
	}))
	return p, p != nil
}

// orchestrator returns an orchestrator of podcast p — its configuration,
// the server's model and opts — and hands run's manual interjections to
// it.
func (s *server) orchestrator(run *debateRun, p *duelogic.Podcast, opts []engine.Option) (*duelogic.Orchestrator, error) {
	o, err := duelogic.New(p.Config, s.client, opts...)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	run.ij = o
	s.mu.Unlock()
	return o, nil
}

// interjectRequest is the seed's ManualInterjectionRequest.
type interjectRequest struct {
	Reason      string `json:"reason"`
	TargetChair string `json:"targetChair,omitempty"`
}

// interject queues a manual interjection: 202, 404 when the debate is not
// a podcast running here, 400 for a bad reason or chair.
func (s *server) interject(w http.ResponseWriter, r *http.Request) {
	var req interjectRequest
	if !decodeBody(w, r, &req) {
		return
	}
	id := r.PathValue("id")
	var ij interjector
	s.mu.Lock()
	if run := s.runs[id]; run != nil {
		ij = run.ij
	}
	s.mu.Unlock()
	if ij == nil {
		fail(w, http.StatusNotFound, "debate "+id+" is not running")
		return
	}
	switch err := ij.Interject(id, req.Reason, req.TargetChair); {
	case errors.Is(err, duelogic.ErrNotRunning):
		fail(w, http.StatusNotFound, "debate "+id+" is not running")
	case err != nil:
		fail(w, http.StatusBadRequest, err.Error())
	default:
		writeJSON(w, http.StatusAccepted, map[string]string{"status": "queued"})
	}
}
