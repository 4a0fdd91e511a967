package riverjobs

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// errCaptured stops the run that wrote a debate's first record.
var errCaptured = errors.New("riverjobs: first record captured")

// firstRecord is the first record engine.Run stores for debate d of format
// f with opts — checked by Run as it checks every debate: f's Validate, the options —
// without storing it or calling a model: the run is stopped after it.
func firstRecord(ctx context.Context, f engine.Format[engine.Outcome], d engine.Debate, opts []engine.Option) (store.Record, error) {
	c := &capture{}
	_, err := engine.Run(ctx, refuse{}, f, d, slices.Concat(opts, []engine.Option{engine.WithStore(c)})...)
	if c.head != nil {
		return *c.head, nil
	}
	if err == nil {
		err = errors.New("the engine stored no first record")
	}
	return store.Record{}, fmt.Errorf("riverjobs: debate %s: %w", d.ID, err)
}

// capture is a store that keeps the first record appended to it and
// refuses the rest.
type capture struct{ head *store.Record }

func (c *capture) Append(_ context.Context, rec store.Record) error {
	if rec.Seq == 1 && c.head == nil {
		c.head = &rec
		return nil
	}
	return errCaptured
}

func (c *capture) Records(_ context.Context, id string) ([]store.Record, error) {
	return nil, fmt.Errorf("%w: debate %q", store.ErrNotFound, id)
}

func (c *capture) Debates(context.Context) ([]string, error) { return nil, nil }

// refuse is a model that refuses every call.
type refuse struct{}

func (refuse) Complete(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, errCaptured
}
