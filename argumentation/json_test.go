package argumentation

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestJSONKeys checks the camelCase keys of the types that reach JSON.
func TestJSONKeys(t *testing.T) {
	v := Verdict{
		Winner: "PRO", Sides: []SideScore{{Side: "PRO", Score: 0.75, Surviving: 1, Arguments: 2}},
		Surviving:   []ScoredArgument{{Argument{ID: "A1", Base: 0.5, Text: "t", Side: "PRO", Move: "M1"}, 0.75}},
		Unaddressed: []Challenge{{Move: "W1", Speaker: "OPP", Challenged: "PRO", Proposition: "p", Argument: "A1"}},
		Commitments: []CommitmentStore{{Participant: "PRO", Commitments: []string{"p"}}},
		Metrics:     Metrics{Moves: 3, Attacks: 1},
	}
	b, err := json.Marshal(struct {
		V Verdict     `json:"v"`
		R Relation    `json:"r"`
		P Participant `json:"p"`
		S Scores      `json:"s"`
	}{v, Relation{From: "A2", To: "A1", Kind: Undercut}, Participant{Side: "PRO", Persona: "x"}, Scores{Strength: map[string]float64{"A1": 1}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"winner"`, `"draw"`, `"sides"`, `"side"`, `"score"`, `"surviving"`, `"arguments"`, `"id"`, `"base"`,
		`"text"`, `"move"`, `"validPoints"`, `"unaddressed"`, `"challenged"`, `"proposition"`, `"argument"`, `"participant"`,
		`"commitments"`, `"retracted"`, `"metrics"`, `"moves"`, `"attacks"`, `"unanswered"`, `"converged"`, `"method"`,
		`"from"`, `"to"`, `"type":0`, `"kind":"undercut"`, `"derivation":0`, `"persona"`, `"strength"`, `"iterations"`, `"residual"`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("no key %s in %s", k, b)
		}
	}
	for _, k := range []string{`"ID"`, `"Base"`, `"Winner"`, `"Sides"`, `"Side"`, `"Score"`, `"From"`, `"Metrics"`, `"Participant"`} {
		if strings.Contains(string(b), k) {
			t.Errorf("old key %s in %s", k, b)
		}
	}
}

// TestJSONOldKeys decodes a value stored before the JSON tags, with Go's
// default capitalised keys: encoding/json matches keys case-insensitively.
func TestJSONOldKeys(t *testing.T) {
	const old = `{
	 "Arguments": [{"ID": "A1", "Base": 0.5, "Text": "Cars pollute", "Side": "PRO", "Move": "M1", "Score": 0.75}],
	 "Relations": [{"From": "A2", "To": "A1", "Type": 0, "Kind": "undercut", "Derivation": 0},
	               {"From": "A3", "To": "A1", "Type": 1, "Kind": "rebut", "Derivation": 2}],
	 "Verdict": {"Winner": "PRO", "Draw": false,
	   "Sides": [{"Side": "PRO", "Score": 0.75, "Surviving": 1, "Arguments": 1}],
	   "Surviving": [{"ID": "A1", "Base": 0.5, "Text": "Cars pollute", "Side": "PRO", "Move": "M1", "Score": 0.75}],
	   "Strongest": null, "ValidPoints": null,
	   "Unaddressed": [{"Move": "W1", "Speaker": "OPP", "Challenged": "PRO", "Proposition": "Cars pollute", "Argument": "A1"}],
	   "Concessions": [{"id": "C1", "speaker": "OPP", "act": "concede", "proposition": "Cars pollute"}],
	   "Retractions": null,
	   "Commitments": [{"Participant": "PRO", "Commitments": ["Cars pollute"], "Retracted": ["x"]}],
	   "Metrics": {"Moves": 4, "Arguments": 3, "Attacks": 1, "Rebuts": 0, "Undercuts": 1, "Supports": 1,
	     "Challenges": 1, "Unanswered": 1, "Concessions": 1, "Retractions": 0},
	   "Converged": true, "Method": 3},
	 "Participants": [{"Side": "PRO", "Persona": "Ada"}],
	 "Scores": {"Strength": {"A1": 0.75}, "Iterations": 2, "Converged": true, "Method": 3, "Residual": 0}
	}`
	var got struct {
		Arguments    []ScoredArgument `json:"arguments"`
		Relations    []Relation       `json:"relations"`
		Verdict      Verdict          `json:"verdict"`
		Participants []Participant    `json:"participants"`
		Scores       Scores           `json:"scores"`
	}
	if err := json.Unmarshal([]byte(old), &got); err != nil {
		t.Fatal(err)
	}
	a1 := ScoredArgument{Argument{ID: "A1", Base: 0.5, Text: "Cars pollute", Side: "PRO", Move: "M1"}, 0.75}
	if !reflect.DeepEqual(got.Arguments, []ScoredArgument{a1}) {
		t.Errorf("arguments = %+v", got.Arguments)
	}
	wantRel := []Relation{{From: "A2", To: "A1", Type: Attack, Kind: Undercut}, {From: "A3", To: "A1", Type: Support, Kind: Rebut, Derivation: SecondaryAttack}}
	if !reflect.DeepEqual(got.Relations, wantRel) {
		t.Errorf("relations = %+v", got.Relations)
	}
	want := Verdict{
		Winner:      "PRO",
		Sides:       []SideScore{{Side: "PRO", Score: 0.75, Surviving: 1, Arguments: 1}},
		Surviving:   []ScoredArgument{a1},
		Unaddressed: []Challenge{{Move: "W1", Speaker: "OPP", Challenged: "PRO", Proposition: "Cars pollute", Argument: "A1"}},
		Concessions: []Move{{ID: "C1", Speaker: "OPP", Act: Concede, Proposition: "Cars pollute"}},
		Commitments: []CommitmentStore{{Participant: "PRO", Commitments: []string{"Cars pollute"}, Retracted: []string{"x"}}},
		Metrics:     Metrics{Moves: 4, Arguments: 3, Attacks: 1, Undercuts: 1, Supports: 1, Challenges: 1, Unanswered: 1, Concessions: 1},
		Converged:   true,
		Method:      Exact,
	}
	if !reflect.DeepEqual(got.Verdict, want) {
		t.Errorf("verdict = %+v\nwant %+v", got.Verdict, want)
	}
	if !reflect.DeepEqual(got.Participants, []Participant{{Side: "PRO", Persona: "Ada"}}) {
		t.Errorf("participants = %+v", got.Participants)
	}
	if s := got.Scores; s.Strength["A1"] != 0.75 || s.Iterations != 2 || !s.Converged || s.Method != Exact {
		t.Errorf("scores = %+v", s)
	}

	// Re-encoded, the value has the new keys and decodes to itself.
	b, err := json.Marshal(got.Verdict)
	if err != nil {
		t.Fatal(err)
	}
	var again Verdict
	if err := json.Unmarshal(b, &again); err != nil || !reflect.DeepEqual(again, want) {
		t.Errorf("round trip: %+v, %v", again, err)
	}
}
