package persuasion

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
)

func FuzzParseTurn(f *testing.F) {
	for _, seed := range []string{
		reply("Go it is.", claim(thesis)),
		legalScript.opp[1],
		`{"moves": [{"act": "since", "proposition": "φ", "reasons": "ψ", "target": 3, "text": "φ because ψ"}]}`,
		`[{"act": "why", "proposition": "φ", "target": "P1"}]`,
		`{"act": "claim", "proposition": "φ", "text": "I say φ."}`,
		"Sure:\n```json\n{\"text\": [\"one\", \"two\"], \"moves\": [{\"act\": \"argue\", \"proposition\": \"x\", \"reasons\": [\"y\"]}]}\n```",
		`{"statement": "s", "moves": [{"act": "concede", "proposition": "p", "attack": "none"}],}`,
		`{"moves": [{"act": "shout", "proposition": "p"}]}`,
		`{"text": "no moves"}`,
		"no JSON at all",
		`{"moves": [{"act": "claim", "proposition": "p", "round": "1.5"}]}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		turn, err := ParseTurn(s)
		if err != nil {
			if !errors.Is(err, argumentation.ErrParse) {
				t.Fatalf("error %v does not wrap ErrParse", err)
			}
			return
		}
		texts := 0
		for _, m := range turn.Moves {
			if !m.Act.Valid() {
				t.Fatalf("invalid act %q", m.Act)
			}
			if m.Text != strings.TrimSpace(m.Text) {
				t.Fatalf("move text %q is not trimmed", m.Text)
			}
			if m.Text != "" {
				texts++
			}
		}
		if texts > 0 && turn.Text == "" {
			t.Fatalf("moves have text but the turn has none: %+v", turn)
		}
		if turn.Text != "" && len(turn.Moves) > 0 && texts == 0 {
			t.Fatalf("the turn's text was not given to a move: %+v", turn)
		}
		again, err := ParseTurn(s)
		if err != nil || again.Text != turn.Text || len(again.Moves) != len(turn.Moves) {
			t.Fatalf("ParseTurn is not deterministic")
		}
	})
}

func FuzzParseModeration(f *testing.F) {
	for _, seed := range []string{
		validModeration,
		`{"rationale": ["a", "b"], "consensus_solution": "c", "conditions_for_revisiting": "d"}`,
		`{"rationale": "r"}`,
		"```json\n{\"Rationale\": \"r\", \"Consensus\": \"c\", \"Conditions\": [\"x\", 5, \"\"]}\n```",
		"nothing",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseModeration(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidModeration) {
				t.Fatalf("error %v does not wrap ErrInvalidModeration", err)
			}
			return
		}
		if m.Rationale == "" || m.Consensus == "" || len(m.Conditions) == 0 || len(m.Conditions) > maxConditions {
			t.Fatalf("accepted %+v", m)
		}
		for _, c := range m.Conditions {
			if c == "" || strings.ContainsAny(c, "\n\r") {
				t.Fatalf("condition %q", c)
			}
		}
	})
}

func TestParseTurn(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		text      string
		moveTexts []string
		err       error
	}{
		{"object", reply("Said.", claim("p")), "Said.", []string{"Said."}, nil},
		{"move texts joined", `{"moves": [{"act": "claim", "proposition": "p", "text": " one "}, {"act": "claim", "proposition": "q", "text": "two"}]}`,
			"one\n\ntwo", []string{"one", "two"}, nil},
		{"turn text kept apart", `{"text": "all", "moves": [{"act": "claim", "proposition": "p", "text": "one"}, {"act": "claim", "proposition": "q"}]}`,
			"all", []string{"one", ""}, nil},
		{"paragraphs", `{"text": ["a", "b"], "moves": [{"act": "claim", "proposition": "p"}]}`, "a\n\nb", []string{"a\n\nb"}, nil},
		{"statement", `{"statement": "s", "moves": [{"act": "claim", "proposition": "p"}]}`, "s", []string{"s"}, nil},
		{"array", `[{"act": "claim", "proposition": "p", "text": "t"}]`, "t", []string{"t"}, nil},
		{"single move", `{"act": "claim", "proposition": "p", "text": "t"}`, "t", []string{"t"}, nil},
		{"fenced", "```json\n" + reply("x", claim("p")) + "\n```", "x", []string{"x"}, nil},
		{"unknown act", `{"moves": [{"act": "shout", "proposition": "p"}]}`, "", nil, argumentation.ErrParse},
		{"prose", "I claim p.", "", nil, argumentation.ErrParse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turn, err := ParseTurn(tt.in)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			var texts []string
			for _, m := range turn.Moves {
				texts = append(texts, m.Text)
			}
			if turn.Text != tt.text || strings.Join(texts, "|") != strings.Join(tt.moveTexts, "|") {
				t.Errorf("text %q, move texts %q; want %q, %q", turn.Text, texts, tt.text, tt.moveTexts)
			}
		})
	}
}

// FuzzOpen: any configuration opens or is a ValidationError; one that opens
// is stored under the current names only and opens again as the same
// Config.
func FuzzOpen(f *testing.F) {
	for _, seed := range []string{
		`{}`,
		`{"rounds": 1, "pro": {"model": "m"}}`,
		`{"maxRounds": 3, "rounds": 2, "opp": {"modelId": "a", "model": "b"}}`,
		`{"PRO": {"MODEL": "x"}, "Rounds": 4}`,
		`{"mod": {"colour": 1}}`,
		`{"rounds": "two"}`,
		`{"config": {"rounds": 1}}`,
		`[1]`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, config string) {
		opened, err := engine.Open(FormatName, json.RawMessage(config))
		if err != nil {
			var ve *engine.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Open(%s): %v, not a ValidationError", config, err)
			}
			return
		}
		spec := storedSpec(t, opened)
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(spec, &fields); err != nil {
			t.Fatal(err)
		}
		if fields["rounds"] != nil || bytes.Contains(spec, []byte(`"model"`)) {
			t.Errorf("stored under an old name: %s", spec)
		}
		again, err := engine.Open(FormatName, spec)
		if err != nil {
			t.Fatalf("the stored configuration %s does not open: %v", spec, err)
		}
		if diff := cmp.Diff(configOf(t, spec), configOf(t, storedSpec(t, again))); diff != "" {
			t.Errorf("reopened (-stored +reopened):\n%s", diff)
		}
	})
}
