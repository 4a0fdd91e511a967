package main

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// outcomeOf returns the outcome of a finished debate, whose records are
// recs, as engine.ResumeStored gives it: resuming a finished debate replays
// its records and returns its result without calling a model or storing
// anything. The replay reads a private copy of recs (frozen), so it takes
// no lock of the server's store, never meets a run of the debate, and
// cannot write; its model (noModel) answers nothing.
func outcomeOf(ctx context.Context, recs []store.Record) (engine.Outcome, error) {
	if len(recs) == 0 {
		return nil, errors.New("no records")
	}
	id := recs[0].DebateID
	res, err := engine.ResumeStored(ctx, noModel{}, id, engine.WithStore(&frozen{id: id, recs: recs}))
	if err != nil {
		return nil, fmt.Errorf("replay debate %s: %w", id, err)
	}
	if res.Detail == nil {
		return nil, fmt.Errorf("replay debate %s: no outcome", id)
	}
	return res.Detail, nil
}

// errFrozen: something tried to change a frozen store.
var errFrozen = errors.New("web: a finished debate's replay tried to store a record")

// frozen is a store.Store holding one debate's records, which it never
// changes.
type frozen struct {
	id   string
	recs []store.Record
}

// Append refuses every record.
func (f *frozen) Append(context.Context, store.Record) error { return errFrozen }

// Records returns a copy of the debate's records.
func (f *frozen) Records(_ context.Context, id string) ([]store.Record, error) {
	if id != f.id {
		return nil, fmt.Errorf("%w: %s", store.ErrNotFound, id)
	}
	return slices.Clone(f.recs), nil
}

// Debates returns the one debate's ID.
func (f *frozen) Debates(context.Context) ([]string, error) { return []string{f.id}, nil }

// errNoModel: a replay asked a model; a finished debate's never does.
var errNoModel = errors.New("web: a finished debate's replay called a model")

// noModel is the model of a replay: it answers nothing.
type noModel struct{}

// Complete fails with errNoModel.
func (noModel) Complete(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, errNoModel
}
