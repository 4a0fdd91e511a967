package engine_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/engine/enginetest"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
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

// A mistake in how Run or Resume is called is an error that says what is
// missing, not a panic or a misleading "not found".
func TestRunAndResumeRejectMisuse(t *testing.T) {
	d := engine.Debate{Proposition: "Is a toy a format?"}
	stub := llm.NewStub(1)
	for _, tc := range []struct {
		name string
		call func() error
		want string
	}{
		{"Run, nil format", func() error {
			_, err := engine.Run[int](t.Context(), stub, nil, d)
			return err
		}, "engine: nil Format"},
		{"Run, nil *toy", func() error {
			_, err := engine.Run(t.Context(), stub, (*toy)(nil), d)
			return err
		}, "engine: nil Format (*engine_test.toy)"},
		{"Resume, nil format", func() error {
			_, err := engine.Resume[int](t.Context(), stub, nil, "dl-0123456789abcdef", engine.WithStore(store.NewMemory()))
			return err
		}, "engine: nil Format"},
		{"Resume, no store", func() error {
			_, err := engine.Resume(t.Context(), stub, &toy{}, "dl-0123456789abcdef")
			return err
		}, "engine: resume dl-0123456789abcdef: no store: pass WithStore with the store the debate was recorded in"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if err == nil || err.Error() != tc.want {
				t.Errorf("err %v, want %q", err, tc.want)
			}
		})
	}
}

// purposeToy is a toy that names the purposes of its calls.
type purposeToy struct{ toy }

func (*purposeToy) Purposes() []string { return []string{"opening"} }

// A cap for a purpose the format never uses is refused before any call;
// caps for its purposes, and for argument extraction, are taken.
func TestMaxTokensForUnknownPurpose(t *testing.T) {
	for _, tc := range []struct {
		name    string
		f       func() engine.Format[int]
		caps    map[string]int
		refused bool
	}{
		{"known", func() engine.Format[int] { return &purposeToy{toy{Rounds: 1}} }, map[string]int{"opening": 50, engine.PurposeArgumentExtraction: 300}, false},
		{"misspelt", func() engine.Format[int] { return &purposeToy{toy{Rounds: 1}} }, map[string]int{"openning": 50}, true},
		{"format that names none", func() engine.Format[int] { return &toy{Rounds: 1} }, map[string]int{"openning": 50}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			c := llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
				calls++
				return llm.NewStub(1).Complete(ctx, req)
			})
			_, err := engine.Run(t.Context(), c, tc.f(), engine.Debate{Proposition: "Is a toy a format?"}, engine.WithMaxTokens(tc.caps))
			if got := errors.Is(err, engine.ErrUnsupportedOption); got != tc.refused || (tc.refused && calls != 0) || (!tc.refused && err != nil) {
				t.Errorf("err %v after %d calls; refused: %v, want %v", err, calls, got, tc.refused)
			}
		})
	}
}
