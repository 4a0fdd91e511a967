package formal_test

import (
	"strings"
	"testing"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/engine/enginetest"
	"github.com/duelogic/duelogic/formal"
	"github.com/duelogic/duelogic/llm"
)

// TestFormatKeepsTheEngineContract runs engine/enginetest on the default
// debate (its rounds trimmed to two, so that failing the store after every
// record stays quick), plain and with its arguments mapped, and on a debate
// of another stub seed in which a debater asks the chair for a
// clarification, the chair upholds a point of order, and a debater is
// disqualified for a fabricated source.
func TestFormatKeepsTheEngineContract(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   []engine.Option
		client func() llm.Client
	}{
		{"plain", nil, nil},
		{"mapped", []engine.Option{engine.WithArgumentMap(argumentation.Additive)}, nil},
		{"clarification, point of order and disqualification", nil, func() llm.Client { return llm.NewStub(conformanceSeed) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			enginetest.Run(t, func() engine.Format[*formal.Outcome] {
				cfg := formal.DefaultConfig()
				cfg.MinRounds, cfg.MaxRounds = 1, 2
				f, err := formal.New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				return f
			}, enginetest.Config{Options: tc.opts, Client: tc.client})
		})
	}
}

// conformanceSeed is the stub's seed of the conformance suite's third
// debate.
const conformanceSeed = 69

// The conformance suite's third debate has what its name says.
func TestConformanceDebateHasAClarificationAndADisqualification(t *testing.T) {
	cfg := formal.DefaultConfig()
	cfg.MinRounds, cfg.MaxRounds = 1, 2
	f, err := formal.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(t.Context(), llm.NewStub(conformanceSeed), f, engine.Debate{Proposition: "Cities should ban private cars from their centres."})
	if err != nil {
		t.Fatal(err)
	}
	n, upheld := 0, 0
	for _, e := range res.Detail.Entries {
		if e.Type == formal.TypeClarificationRequest {
			n++
		}
		if e.Type == formal.TypeRuling && strings.Contains(e.Content, "point of order by") && strings.Contains(e.Content, "Upheld") {
			upheld++
		}
	}
	if n == 0 || upheld == 0 || len(res.Detail.Disqualified) == 0 {
		t.Errorf("%d clarification requests, %d points of order upheld, disqualified %v", n, upheld, res.Detail.Disqualified)
	}
}
