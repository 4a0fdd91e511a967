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

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/events"
	"github.com/duelogic/duelogic/examples/internal/render"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// The statuses of a debate as the page shows them: the store's finished
// and stopped, a debate running in this server, and a debate paused for
// its person.
const (
	statusRunning  = string(events.StatusRunning)
	statusFinished = string(events.StatusFinished)
	statusStopped  = string(events.StatusStopped)
	statusPaused   = "paused"
)

// debateState is what a stored debate's records say about it.
type debateState struct {
	sum    events.Summary
	status string
	// question is the question a paused debate waits for its person to
	// answer (engine.Pending); nil when it is not paused.
	question *engine.Question
	// ended is the debate_ended record's data of a finished debate.
	ended *engine.Ended
}

// readState reads a debate's records.
func readState(recs []store.Record) (*debateState, error) {
	sum, err := events.Summarize(recs)
	if err != nil {
		return nil, err
	}
	st := &debateState{sum: sum, status: string(sum.Status)}
	if sum.Status == events.StatusFinished {
		if ended, ok := dataOf[engine.Ended](recs[len(recs)-1]); ok {
			st.ended = &ended
		}
	} else if q, ok := engine.Pending(recs); ok {
		st.status, st.question = statusPaused, &q
	}
	return st, nil
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
	if s.remote != nil {
		// Enqueue mode: the queue knows what workers play.
		list, err := s.remote.q.List(r.Context())
		if err != nil {
			s.logger.Error("list debates", "err", err)
			fail(w, http.StatusInternalServerError, "cannot list the debates")
			return
		}
		status := make(map[string]string, len(list))
		for _, qs := range list {
			status[qs.DebateID] = pageStatus(qs)
		}
		for i := range items {
			if st, ok := status[items[i].ID]; ok && items[i].Status != statusFinished {
				items[i].Status = st
			}
		}
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
	// Unattended: nobody is asked anything (started with checkpoints
	// off).
	Unattended bool `json:"unattended,omitempty"`
	// Config is the format's configuration: the object engine.Open takes.
	Config json.RawMessage `json:"config,omitempty"`
	// Labels name the speakers.
	Labels map[string]string `json:"labels,omitempty"`
	// Mapped reports whether the debate maps its arguments.
	Mapped     bool               `json:"mapped"`
	Transcript []engine.Utterance `json:"transcript"`
	Usage      *llm.Usage         `json:"usage,omitempty"`
	// Spend is what the debate has spent so far, or in all once it has
	// ended (GET /api/debates/{id}/spend).
	Spend *spendView `json:"spend,omitempty"`
	// Detail is a finished debate's outcome, the format's Result.Detail.
	Detail json.RawMessage `json:"detail,omitempty"`
	// Verdict is how a finished debate ended (its outcome's
	// engine.Verdict): Summary is one line, whatever the format.
	Verdict *engine.Verdict `json:"verdict,omitempty"`
	// Arguments is the argument map of a finished debate that maps its
	// arguments: the moves, the scored arguments and relations, and the
	// verdict.
	Arguments *engine.ArgumentMap `json:"arguments,omitempty"`
	// Waiting is the kind of the question a paused debate waits for its
	// person to answer (Question.Kind): "clarification"
	// (POST /api/debates/{id}/clarification), "checkpoint" (…/checkpoint),
	// "approval" (…/approval), or another (…/answer).
	Waiting string `json:"waiting,omitempty"`
	// Question is that question (engine.Pending): its Text, what the
	// person is asked, and its Choices, the first being what happens when
	// nobody answers.
	Question *engine.Question `json:"question,omitempty"`
	// Documents are the names of the debate's documents
	// (GET /api/debates/{id}/documents/{name}).
	Documents []string  `json:"documents"`
	Started   time.Time `json:"started,omitzero"`
	Updated   time.Time `json:"updated,omitzero"`
}

func (s *server) getDebate(w http.ResponseWriter, r *http.Request) {
	v, _, status, msg := s.view(r.Context(), r.PathValue("id"))
	if status != http.StatusOK {
		fail(w, status, msg)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// view reads debate id and its documents by file name; on failure it
// returns the HTTP status and message.
func (s *server) view(ctx context.Context, id string) (*debateView, map[string]string, int, string) {
	run := s.running(id)
	recs, err := s.store.Records(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound) && run != nil:
		// Started; its first record is on its way.
		d := run.debate
		v := &debateView{ID: id, Format: run.format, Status: statusRunning, Proposition: d.Proposition, Context: d.Context,
			Unattended: d.Unattended, Config: run.config, Labels: run.labels, Transcript: []engine.Utterance{}, Documents: []string{}}
		v.Spend, _ = s.spendOf(nil, nil)
		return v, map[string]string{}, http.StatusOK, ""
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrInvalidID):
		return nil, nil, http.StatusNotFound, "no debate " + id
	case err != nil:
		s.logger.Error("read debate", "debate", id, "err", err)
		return nil, nil, http.StatusInternalServerError, "cannot read the debate"
	}
	st, err := readState(recs)
	if err != nil {
		s.logger.Error("read debate", "debate", id, "err", err)
		return nil, nil, http.StatusInternalServerError, "cannot read the debate"
	}
	d := st.sum.Debate
	v := &debateView{ID: id, Format: st.sum.Format, Status: st.status, Proposition: d.Proposition, Context: d.Context,
		Unattended: d.Unattended || legacyUnattended(st.sum.Spec), Mapped: st.sum.Mapped, Question: st.question,
		Started: st.sum.Started, Updated: st.sum.Updated}
	if st.question != nil {
		v.Waiting = st.question.Kind
	}
	v.Transcript = replay(recs)
	if f, err := openStored(st.sum.Format, st.sum.Spec); err != nil {
		s.logger.Warn("read a debate's configuration", "debate", id, "err", err)
	} else {
		v.Config, v.Labels = describe(f, speakers(v.Transcript))
	}
	if s.liveStatus(ctx, id, run, &v.Status, &v.Error) {
		// Resumed: what it waited for is being answered.
		v.Waiting, v.Question = "", nil
	}
	if e := st.ended; e != nil {
		v.Usage, v.Detail, v.Arguments = &e.Usage, e.Detail, e.Arguments
	}
	if v.Spend, err = s.spendOf(recs, st.ended); err != nil {
		s.logger.Error("read debate", "debate", id, "err", err)
		return nil, nil, http.StatusInternalServerError, "cannot read the debate"
	}
	docs := s.documents(ctx, v, st, recs)
	v.Documents = make([]string, 0, len(docs))
	for name := range docs {
		v.Documents = append(v.Documents, name)
	}
	slices.Sort(v.Documents)
	return v, docs, http.StatusOK, ""
}

// liveStatus sets the status of stored debate id, whose stored status is
// *status, to running when it runs here (run is not nil) or, in enqueue
// mode, on a worker, and *errText to why its last run stopped when it
// did; it reports whether the debate is running.
func (s *server) liveStatus(ctx context.Context, id string, run *debateRun, status, errText *string) bool {
	running := run != nil
	if !running && s.remote != nil && *status != statusFinished {
		// Enqueue mode: the queue knows whether a worker plays it.
		if qs, err := s.remote.q.Status(ctx, id); err == nil {
			switch pageStatus(qs) {
			case statusRunning:
				running = true
			case statusStopped:
				*errText = stopReason(qs)
			}
		}
	}
	if running {
		*status = statusRunning
	} else if *errText == "" {
		s.mu.Lock()
		*errText = s.errs[id]
		s.mu.Unlock()
	}
	return running
}

// speakers returns who speaks in a transcript, in order of first word.
func speakers(us []engine.Utterance) []string {
	var out []string
	for _, u := range us {
		if !slices.Contains(out, u.Speaker) {
			out = append(out, u.Speaker)
		}
	}
	return out
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
		case duelogic.EventEvaluation:
			// An evaluation is of the speaker's last utterance.
			ev, _ := duelogic.EvaluationOf(e)
			for i := len(utts) - 1; i >= 0; i-- {
				if utts[i].Speaker == e.Speaker {
					utts[i].Evaluation = ev
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

// documents returns debate v's documents by file name: its transcript
// and, once it finished, its outcome's documents (engine.Outcome), which
// replace the transcript when they hold one; it sets v.Verdict.
func (s *server) documents(ctx context.Context, v *debateView, st *debateState, recs []store.Record) map[string]string {
	label := func(sp string) string {
		if l := v.Labels[sp]; l != "" {
			return l
		}
		return sp
	}
	h := render.Head{ID: v.ID, Format: v.Format, Status: v.Status, Debate: engine.Debate{Proposition: v.Proposition, Context: v.Context}}
	docs := map[string]string{"transcript.md": render.Transcript(h, v.Transcript, label, "")}
	if st.ended == nil {
		return docs
	}
	out, err := s.outcome(ctx, v.ID, recs)
	if err != nil {
		s.logger.Warn("outcome of a finished debate", "debate", v.ID, "err", err)
		return docs
	}
	verdict := out.Verdict()
	v.Verdict = &verdict
	for _, d := range out.Documents() {
		if strings.TrimSpace(d.Markdown) != "" {
			docs[d.Name] = d.Markdown
		}
	}
	return docs
}

// outcome is the outcome of finished debate id, whose records are recs:
// replayed once (outcomeOf), then kept in s.outcomes.
func (s *server) outcome(ctx context.Context, id string, recs []store.Record) (engine.Outcome, error) {
	s.mu.Lock()
	out, ok := s.outcomes[id]
	s.mu.Unlock()
	if ok {
		return out, nil
	}
	out, err := outcomeOf(ctx, recs)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.outcomes == nil || len(s.outcomes) >= maxOutcomes {
		s.outcomes = map[string]engine.Outcome{}
	}
	s.outcomes[id] = out
	s.mu.Unlock()
	return out, nil
}

// document serves one of a debate's documents as a Markdown download.
func (s *server) document(w http.ResponseWriter, r *http.Request) {
	id, name := r.PathValue("id"), r.PathValue("name")
	_, docs, status, msg := s.view(r.Context(), id)
	if status != http.StatusOK {
		fail(w, status, msg)
		return
	}
	text, ok := docs[name]
	if !ok {
		fail(w, http.StatusNotFound, fmt.Sprintf("debate %s has no document %q", id, name))
		return
	}
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": id + "-" + name}))
	w.Write([]byte(text))
}
