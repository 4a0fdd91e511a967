package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/jobs/riverjobs"
	"github.com/duelogic/duelogic/store/pgstore"
)

// In enqueue mode (-enqueue, with -store postgres://...) the server plays
// no debate itself: a new debate, and the answer to a paused one's
// question, go to the River queue of package jobs/riverjobs, and workers
// (examples/worker), on this machine or others, play them. The page
// follows a debate a worker plays from the store: one pgstore.Feed (one
// LISTEN connection) tells the server of every record appended, and one
// follower per debate watched turns the new records into the events the
// hub gives to every page that watches it. Only stored events reach the
// page this way, each within a few milliseconds of its commit; the tokens
// of an utterance being spoken are not relayed (the worker's process has
// them, not the database), so an utterance appears whole when it is
// stored.

// statusPoll is how often a follower asks the queue whether its debate's
// job was cancelled or failed, which adds no record to announce it.
const statusPoll = 2 * time.Second

// remote follows the debates workers play, for the server's hub.
type remote struct {
	q    *riverjobs.Queue
	st   *pgstore.Store
	feed *pgstore.Feed

	mu        sync.Mutex
	following map[string]*following
	wg        sync.WaitGroup // the followers
}

// enqueueTo puts the server in enqueue mode: debates go to q, whose store
// is st, and the pages follow them with feed (which the caller runs).
func (s *server) enqueueTo(q *riverjobs.Queue, st *pgstore.Store, feed *pgstore.Feed) {
	s.remote = &remote{q: q, st: st, feed: feed, following: map[string]*following{}}
}

// following is the follower of one debate, shared by the pages that watch
// it.
type following struct {
	watchers int
	cancel   context.CancelFunc
}

// pageStatus is the status the page shows of a debate the queue reports:
// a queued debate is running as far as the page is concerned.
func pageStatus(s riverjobs.Status) string {
	switch s.Status {
	case riverjobs.StatusQueued, riverjobs.StatusRunning:
		return statusRunning
	case riverjobs.StatusPaused:
		return statusPaused
	case riverjobs.StatusFinished:
		return statusFinished
	}
	return statusStopped
}

// stopReason says why a debate the queue reports stopped ("" for none).
func stopReason(s riverjobs.Status) string {
	switch {
	case s.Status == riverjobs.StatusCancelled:
		return "cancelled"
	case s.Status == riverjobs.StatusStopped && s.Error != "":
		return s.Error
	}
	return ""
}

// watch lets the hub relay debate id's stored events while the request
// that watches it lasts, when a worker plays it or it is queued; call the
// returned function when the request is done.
func (s *server) watch(ctx context.Context, id string) func() {
	r := s.remote
	if f := r.join(id); f != nil {
		return func() { s.unwatch(id, f) }
	}
	st, err := r.q.Status(ctx, id)
	if err != nil || pageStatus(st) != statusRunning {
		return func() {}
	}
	// Subscribe, then read: no append after the read goes unnoticed. The
	// hub is open before the request subscribes to it, and its events are
	// those after last, which the request's own read covers.
	sub := r.feed.Subscribe(id)
	recs, err := r.st.RecordsAfter(ctx, id, 0)
	if err != nil {
		sub.Close()
		return func() {}
	}
	var last int64
	if n := len(recs); n > 0 {
		last = recs[n-1].Seq
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if f := r.following[id]; f != nil {
		// Another request started a follower meanwhile.
		sub.Close()
		f.watchers++
		return func() { s.unwatch(id, f) }
	}
	fctx, cancel := context.WithCancel(s.ctx)
	f := &following{watchers: 1, cancel: cancel}
	r.following[id] = f
	s.hub.Open(id)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer sub.Close()
		s.follow(fctx, id, f, sub, last)
	}()
	return func() { s.unwatch(id, f) }
}

// join adds a watcher to debate id's follower, if it has one.
func (r *remote) join(id string) *following {
	r.mu.Lock()
	defer r.mu.Unlock()
	f := r.following[id]
	if f != nil {
		f.watchers++
	}
	return f
}

// unwatch ends a request's watch of debate id; the last one stops its
// follower.
func (s *server) unwatch(id string, f *following) {
	r := s.remote
	r.mu.Lock()
	defer r.mu.Unlock()
	if f.watchers--; f.watchers > 0 {
		return
	}
	f.cancel()
	if r.following[id] == f {
		delete(r.following, id)
		s.hub.Close(id, nil)
	}
}

// errNotPlaying ends the pages' streams of a debate that no worker plays
// any more, and that did not end.
var errNotPlaying = errors.New("no worker plays the debate")

// follow emits on the hub the events of debate id's records after last,
// as the feed announces them, until the debate ends, pauses or stops, or
// ctx ends.
func (s *server) follow(ctx context.Context, id string, f *following, sub *pgstore.Subscription, last int64) {
	r := s.remote
	// end closes the hub's debate with err, unless a newer follower has it.
	end := func(err error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.following[id] == f {
			delete(r.following, id)
			s.hub.Close(id, err)
		}
	}
	tick := time.NewTicker(statusPoll)
	defer tick.Stop()
	for {
		poll := false
		select {
		case <-ctx.Done():
			return
		case <-sub.C():
		case <-tick.C:
			poll = true
		}
		recs, err := r.st.RecordsAfter(ctx, id, last)
		if err != nil {
			if ctx.Err() == nil {
				s.logger.Warn("follow a debate", "debate", id, "err", err)
			}
			continue // the feed wakes again when the database is back
		}
		for _, rec := range recs {
			e, ok, err := engine.EventOf(rec)
			if err != nil {
				end(err)
				return
			}
			last = rec.Seq
			if ok {
				s.hub.Emit(ctx, e)
			}
			if rec.Type == engine.RecordDebateEnded {
				end(nil) // the hub has ended the streams already
				return
			}
		}
		if n := len(recs); n > 0 {
			if _, paused := engine.Pending(recs[n-1:]); paused {
				end(errWaitForPage)
				return
			}
		}
		if poll {
			st, err := r.q.Status(ctx, id)
			if err == nil && pageStatus(st) != statusRunning {
				reason := errNotPlaying
				switch why := stopReason(st); {
				case st.Status == riverjobs.StatusPaused:
					reason = errWaitForPage
				case why != "":
					reason = fmt.Errorf("%w: %s", errNotPlaying, why)
				}
				end(reason)
				return
			}
		}
	}
}

// events streams a debate's events (s.sse); in enqueue mode, those of a
// debate a worker plays are followed from the store while the request
// lasts.
func (s *server) events(w http.ResponseWriter, r *http.Request) {
	if s.remote != nil {
		defer s.watch(r.Context(), r.PathValue("id"))()
	}
	s.sse.ServeHTTP(w, r)
}

// enqueue stores new debate d of format name, configured by config, with
// its job; it answers the request and reports false when it cannot.
func (s *server) enqueue(w http.ResponseWriter, r *http.Request, name string, config []byte, d engine.Debate, mapArgs bool) bool {
	var opts []engine.Option
	if mapArgs {
		opts = append(opts, engine.WithArgumentMap(argumentation.Additive))
	}
	s.mu.Lock()
	closing := s.closing
	s.mu.Unlock()
	if closing {
		fail(w, http.StatusServiceUnavailable, errClosing.Error())
		return false
	}
	if _, err := s.remote.q.Enqueue(r.Context(), name, config, d, opts...); err != nil {
		s.logger.Error("enqueue debate", "debate", d.ID, "err", err)
		fail(w, http.StatusInternalServerError, "cannot enqueue the debate")
		return false
	}
	return true
}

// requeue answers a paused or stopped debate in enqueue mode: its job is
// queued again, with the page's answer if h carries one, and 202 says so.
func (s *server) requeue(w http.ResponseWriter, r *http.Request, id, format string, h engine.Human) {
	var answer *engine.Answer
	if a, ok := h.(*answering); ok {
		answer = &a.a
	}
	err := s.remote.q.Requeue(r.Context(), id, answer)
	switch {
	case errors.Is(err, riverjobs.ErrQueued):
		fail(w, http.StatusConflict, "debate "+id+" is running")
		return
	case errors.Is(err, riverjobs.ErrNotPaused):
		// It was paused when the request was read; a worker has played
		// on since (an answer given twice at once).
		fail(w, http.StatusConflict, "debate "+id+" is not waiting for an answer: it is running")
		return
	case err != nil:
		s.logger.Error("requeue debate", "debate", id, "err", err)
		fail(w, http.StatusInternalServerError, "cannot enqueue the debate")
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{
		"id": id, "format": format, "status": statusRunning,
		"events": "/api/debates/" + id + "/events",
	})
}
