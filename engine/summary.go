package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// Summary describes a stored debate without replaying it: what a list of
// debates, or a front end about to resume one, needs.
type Summary struct {
	ID     string `json:"id"`
	Format string `json:"format"`
	Debate Debate `json:"debate"`
	// Spec is the format's stored configuration (its exported fields, as
	// JSON).
	Spec json.RawMessage `json:"spec,omitempty"`
	// Mapped reports whether the debate maps its arguments.
	Mapped bool `json:"mapped,omitempty"`
	// Records counts the stored records; Finished reports whether the last
	// one ends the debate.
	Records  int  `json:"records"`
	Finished bool `json:"finished"`
	// Started and Updated are the times of the first and last records.
	Started time.Time `json:"started"`
	Updated time.Time `json:"updated"`
	// Usage and Cost are what the stored steps spent: what a Resume
	// starts counting from ([Result].Usage, [Result].Cost).
	Usage llm.Usage `json:"usage,omitzero"`
	Cost  float64   `json:"cost,omitempty"`
}

// Inspect reads the summary of debate id from st. It fails with an error
// wrapping store.ErrNotFound for an unknown debate and [ErrCorruptLog] for
// records that do not start with a debate record.
func Inspect(ctx context.Context, st store.Store, id string) (Summary, error) {
	recs, err := st.Records(ctx, id)
	if err != nil {
		return Summary{}, fmt.Errorf("engine: inspect %s: %w", id, err)
	}
	return Summarize(recs)
}

// Summarize reads the summary of a debate from its records, as
// store.Store.Records returns them. It fails with an error wrapping
// [ErrCorruptLog] when they do not start with a debate record.
func Summarize(recs []store.Record) (Summary, error) {
	h, err := headOf(recs)
	if err != nil {
		return Summary{}, err
	}
	last := recs[len(recs)-1]
	sum := Summary{
		ID: h.Debate.ID, Format: h.Format, Debate: h.Debate, Spec: h.Spec, Mapped: h.Mapping != "",
		Records: len(recs), Finished: last.Type == RecordDebateEnded,
		Started: recs[0].Time, Updated: last.Time,
	}
	for _, rec := range recs[1:] {
		en, err := decode[entry](rec)
		if err != nil {
			return Summary{}, err
		}
		sum.Usage = sum.Usage.Add(en.Usage)
		if en.Watch != nil {
			sum.Usage = sum.Usage.Add(en.Watch.Usage)
		}
		sum.Cost += en.Cost
	}
	return sum, nil
}
