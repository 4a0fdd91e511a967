package main

import (
	"context"
	"errors"
	"net/http"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// spendView is what a debate has spent: GET /api/debates/{id}/spend, and
// the spend of GET /api/debates/{id}. While it runs, its tokens and cost
// are those of the steps stored so far (engine.Summarize), which is all a
// debate played by a worker (-enqueue) tells; once it has ended, those of
// its debate_ended event (engine.Ended), split by purpose and by speaker.
type spendView struct {
	// Usage is the tokens spent so far.
	Usage llm.Usage `json:"usage"`
	// Cost is the money spent so far, at the prices the run was given
	// (the server's -price, or a worker's).
	Cost float64 `json:"cost"`
	// Priced reports that money is worth showing: the server has prices,
	// or the debate cost something.
	Priced bool `json:"priced"`
	// Budget is what a run of this server may spend (-max-tokens,
	// -max-cost); nil without one, and in enqueue mode, where workers
	// keep their own.
	Budget *engine.Budget `json:"budget,omitempty"`
	// Final: the figures are the debate_ended event's.
	Final bool `json:"final"`
	// ByPurpose and BySpeaker split a finished debate's usage by the
	// purpose of the model calls ("" for calls no purpose accounts for)
	// and by the speaker they were made for ("" for the debate itself).
	ByPurpose map[string]llm.Usage `json:"byPurpose,omitempty"`
	BySpeaker map[string]llm.Usage `json:"bySpeaker,omitempty"`
}

// spendOf is what the debate whose records are recs spent (nothing when
// none is stored yet); ended is its debate_ended event's data, nil when it
// has not ended.
func (s *server) spendOf(recs []store.Record, ended *engine.Ended) (*spendView, error) {
	v := &spendView{}
	if ended != nil {
		v.Usage, v.Cost, v.Final = ended.Usage, ended.Cost, true
		v.ByPurpose, v.BySpeaker = ended.UsageByPurpose, ended.UsageBySpeaker
	} else if len(recs) > 0 {
		sum, err := engine.Summarize(recs)
		if err != nil {
			return nil, err
		}
		v.Usage, v.Cost = sum.Usage, sum.Cost
	}
	v.Priced = len(s.prices) > 0 || v.Cost > 0
	if b := s.budget; (b.Tokens > 0 || b.Cost > 0) && s.remote == nil {
		v.Budget = &b
	}
	return v, nil
}

// spendResponse is GET /api/debates/{id}/spend.
type spendResponse struct {
	Status string `json:"status"`
	// Error is why the debate's run stopped (a spent budget, say), when it
	// did.
	Error string     `json:"error,omitempty"`
	Spend *spendView `json:"spend"`
}

// spend answers what a debate has spent, without replaying it: what the
// page polls while the debate runs.
func (s *server) spend(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	resp, status, msg := s.spendNow(r.Context(), id)
	if status != http.StatusOK {
		fail(w, status, msg)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

func (s *server) spendNow(ctx context.Context, id string) (*spendResponse, int, string) {
	run := s.running(id)
	recs, err := s.store.Records(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound) && run != nil:
		v, _ := s.spendOf(nil, nil) // started; nothing stored yet
		return &spendResponse{Status: statusRunning, Spend: v}, http.StatusOK, ""
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrInvalidID):
		return nil, http.StatusNotFound, "no debate " + id
	case err != nil:
		s.logger.Error("read debate", "debate", id, "err", err)
		return nil, http.StatusInternalServerError, "cannot read the debate"
	}
	st, err := readState(recs)
	if err == nil {
		var v *spendView
		if v, err = s.spendOf(recs, st.ended); err == nil {
			resp := &spendResponse{Status: st.status, Spend: v}
			s.liveStatus(ctx, id, run, &resp.Status, &resp.Error)
			return resp, http.StatusOK, ""
		}
	}
	s.logger.Error("read debate", "debate", id, "err", err)
	return nil, http.StatusInternalServerError, "cannot read the debate"
}

// spendOptions are the engine options of the server's prices and budget.
func (s *server) spendOptions() []engine.Option {
	var opts []engine.Option
	if len(s.prices) > 0 {
		opts = append(opts, engine.WithPrices(s.prices))
	}
	if s.budget != (engine.Budget{}) {
		opts = append(opts, engine.WithBudget(s.budget))
	}
	return opts
}
