package persuasion

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/engine/enginetest"
	"github.com/duelogic/duelogic/llm"
)

// TestStubReadsTheTurnPrompt runs the stub on the openings' prompts, so
// that a change to the prompt that the stub no longer reads fails here.
func TestStubReadsTheTurnPrompt(t *testing.T) {
	d := engine.Debate{Proposition: "Should we adopt Redis for sessions?"}
	const thesis = "We should adopt Redis for sessions"
	proOpening := argumentation.Move{ID: "P1", Speaker: SidePro, Act: argumentation.Claim, Proposition: thesis}
	tests := []struct {
		name  string
		sl    slot
		prior []argumentation.Move
		ok    func(first stubMove) bool
	}{
		{"PRO states its thesis", slot{phase: PhaseOpening, speaker: SpeakerPro}, nil,
			func(m stubMove) bool { return m.Act == "claim" && m.Proposition == thesis && m.Target == "" }},
		{"OPP answers it", slot{phase: PhaseOpening, speaker: SpeakerOpp}, []argumentation.Move{proOpening},
			func(m stubMove) bool {
				return m.Target == "P1" && (m.Act == "why" && m.Proposition == thesis || m.Act == "claim" && m.Proposition == "¬"+thesis && m.Attack == "rebut")
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dlg, err := replay(ProtocolCurrent, tt.prior)
			if err != nil {
				t.Fatal(err)
			}
			req := turnRequest(DefaultConfig(), d, tt.sl, dlg, nil)
			for seed := range int64(30) {
				for _, r := range []llm.Request{req, reasked(req, "{}", "no moves")} {
					resp, err := llm.NewStub(seed).Complete(t.Context(), r)
					if err != nil {
						t.Fatal(err)
					}
					var turn struct {
						Text  string     `json:"text"`
						Moves []stubMove `json:"moves"`
					}
					if err := json.Unmarshal([]byte(resp.Content), &turn); err != nil {
						t.Fatalf("seed %d: %v: %s", seed, err, resp.Content)
					}
					if len(turn.Moves) == 0 || !tt.ok(turn.Moves[0]) || turn.Text == "" {
						t.Errorf("seed %d: turn %s", seed, resp.Content)
					}
				}
			}
		})
	}
}

// reasked is req asked again after reply, as engine.Judge asks.
func reasked(req llm.Request, reply, problem string) llm.Request {
	req.Messages = append(req.Messages[:len(req.Messages):len(req.Messages)],
		llm.Message{Role: llm.Assistant, Content: reply},
		llm.Message{Role: llm.User, Content: engine.ReaskPrefix + problem + ". Reply again with only the JSON object asked for, complete and valid."})
	return req
}

func TestSchemasAreStrict(t *testing.T) {
	enginetest.StrictSchema(t, PurposeTurn, turnSchema(DefaultConfig().MaxMoves, nil))
	enginetest.StrictSchema(t, PurposeTurn, turnSchema(DefaultConfig().MaxMoves, []string{"P1", "O1"}))
	enginetest.StrictSchema(t, PurposeVerdict, json.RawMessage(moderationSchema))
}

// TestStubKeepsNamesCapitalized: a proposition that starts with a name
// keeps its capital inside the stub's sentences ("I hold that Rover and Wag
// …", not "rover and Wag"), while an ordinary first word goes lower-case.
func TestStubKeepsNamesCapitalized(t *testing.T) {
	for _, tt := range []struct{ question, name, lower string }{
		{"Rover and Wag should merge their teams.", "simple: Rover and Wag should merge", "rover and Wag"},
		{"Should we rewrite the billing service in Go?", "we should rewrite", "We should rewrite the billing service in Go."},
	} {
		res, err := run(t.Context(), llm.NewStub(2), Config{}, engine.Debate{Proposition: tt.question})
		if err != nil {
			t.Fatal(err)
		}
		var all strings.Builder
		for _, u := range res.Transcript {
			all.WriteString(u.Content + "\n")
		}
		if !strings.Contains(all.String(), tt.name) || strings.Contains(all.String(), tt.lower) {
			t.Errorf("%q: the transcript says %q or lacks %q:\n%s", tt.question, tt.lower, tt.name, all.String())
		}
	}
}
