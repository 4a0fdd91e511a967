package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/engine/enginetest"
	"github.com/duelogic/duelogic/llm"
)

// toy is the smallest format: two speakers take turns for Rounds rounds,
// and after each round a judge scores it beside the next one.
type toy struct {
	Rounds int `json:"rounds"`
}

func (*toy) Name() string { return "toy" }

func (t *toy) Validate() error {
	var v engine.ValidationError
	if t.Rounds < 1 || t.Rounds > 5 {
		v.Add("rounds", "%d is outside 1..5", t.Rounds)
	}
	return v.Err()
}

// Play returns how many turns were said.
func (t *toy) Play(ctx context.Context, s *engine.Session) (int, error) {
	n := 0
	err := s.Segment(ctx, "rounds", func(ctx context.Context) error {
		for r := 1; r <= t.Rounds; r++ {
			for _, side := range []string{"pro", "con"} {
				req := llm.Request{Purpose: "opening", Messages: []llm.Message{{Role: llm.User, Content: fmt.Sprintf("%s, round %d: %s", side, r, s.Debate().Proposition)}}}
				if _, err := s.Say(ctx, fmt.Sprintf("r%d:%s", r, side), engine.Utterance{Speaker: side, Segment: "rounds", Kind: engine.KindResponse, Exchange: r}, req); err != nil {
					return err
				}
				n++
			}
		}
		return nil
	})
	return n, err
}

func TestToyKeepsTheContract(t *testing.T) {
	for _, c := range []struct {
		name string
		opts []engine.Option
	}{
		{"plain", nil},
		{"mapped", []engine.Option{engine.WithArgumentMap(argumentation.Additive)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			enginetest.Run(t, func() engine.Format[int] { return &toy{Rounds: 2} }, enginetest.Config{Options: c.opts})
		})
	}
}
