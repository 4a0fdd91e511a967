package formal_test

import (
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
// clarification and one is disqualified for a fabricated source.
func TestFormatKeepsTheEngineContract(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   []engine.Option
		client func() llm.Client
	}{
		{"plain", nil, nil},
		{"mapped", []engine.Option{engine.WithArgumentMap(argumentation.Additive)}, nil},
		{"clarification and disqualification", nil, func() llm.Client { return llm.NewStub(15) }},
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

// The conformance suite's third debate has what its name says.
func TestConformanceDebateHasAClarificationAndADisqualification(t *testing.T) {
	cfg := formal.DefaultConfig()
	cfg.MinRounds, cfg.MaxRounds = 1, 2
	f, err := formal.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(t.Context(), llm.NewStub(15), f, engine.Debate{Proposition: "Cities should ban private cars from their centres."})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range res.Detail.Entries {
		if e.Type == formal.TypeClarificationRequest {
			n++
		}
	}
	if n == 0 || len(res.Detail.Disqualified) == 0 {
		t.Errorf("%d clarification requests, disqualified %v", n, res.Detail.Disqualified)
	}
}
