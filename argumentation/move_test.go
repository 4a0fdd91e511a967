package argumentation

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseMoves(t *testing.T) {
	claim := Move{Speaker: "PRO", Act: Claim, Proposition: "φ"}
	tests := []struct {
		name string
		in   string
		want []Move
	}{
		{"array", `[{"act":"claim","proposition":"φ","speaker":"PRO"}]`, []Move{claim}},
		{"object", `{"moves":[{"act":"claim","proposition":"φ","speaker":"PRO"}]}`, []Move{claim}},
		{"single move", `{"act":"claim","proposition":"φ","speaker":"PRO"}`, []Move{claim}},
		{"fenced with prose", "Here you go:\n```json\n[{\"act\":\"CLAIM\",\"proposition\":\"φ\",\"speaker\":\" PRO \"}]\n```\nDone.", []Move{claim}},
		{"fence on one line", "```[{\"act\":\"claim\",\"proposition\":\"φ\",\"speaker\":\"PRO\"}]```", []Move{claim}},
		{"unclosed fence", "```json\n{\"moves\": [{\"act\":\"claim\",\"proposition\":\"φ\",\"speaker\":\"PRO\"}]}", []Move{claim}},
		{"prose and trailing text", `The moves are [{"act":"claim","proposition":"φ","speaker":"PRO"}] as asked.`, []Move{claim}},
		{"fence inside a string", `[{"act":"claim","proposition":"φ","speaker":"PRO","text":"see ` + "```" + `"}]`,
			[]Move{{Speaker: "PRO", Act: Claim, Proposition: "φ", Text: "see ```"}}},
		{"numeric target and round, one reason, attack alias", `[{"act":"since","proposition":"φ","reasons":"S","target":2,"round":"1","attack":"Rebutting","speaker":"OPP","id":7}]`,
			[]Move{{ID: "7", Speaker: "OPP", Act: Since, Proposition: "φ", Reasons: []string{"S"}, Target: "2", Round: 1, Attack: "rebut"}}},
		{"argue is since, null fields", `[{"act":"argue","proposition":"φ","reasons":["a","b"],"target":null,"attack":null,"speaker":"PRO"}]`,
			[]Move{{Speaker: "PRO", Act: Since, Proposition: "φ", Reasons: []string{"a", "b"}}}},
		{"empty list", `{"moves": []}`, []Move{}},
		{"integral float round", `[{"act":"claim","proposition":"φ","speaker":"PRO","round":2.0}]`,
			[]Move{{Speaker: "PRO", Act: Claim, Proposition: "φ", Round: 2}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseMoves([]byte(tc.in))
			if err != nil {
				t.Fatalf("ParseMoves: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseMovesErrors(t *testing.T) {
	for _, in := range []string{
		"",
		"no json here",
		`{"foo": 1}`,
		`[{"act":"shout","proposition":"φ","speaker":"PRO"}]`,
		`[{"act":"claim","attack":"sideways","proposition":"φ","speaker":"PRO"}]`,
		`[{"act":"claim","round":-1,"proposition":"φ","speaker":"PRO"}]`,
		`[{"act":"claim","round":1.5,"proposition":"φ","speaker":"PRO"}]`,
		`[{"proposition":"φ","speaker":"PRO"}]`,
		`[{"act":"claim","target":{"x":1},"proposition":"φ","speaker":"PRO"}]`,
		`[{"act":"claim","reasons":[1],"proposition":"φ","speaker":"PRO"}]`,
		`[1, 2]`,
		"```json\n[{\"act\":\n```",
	} {
		if _, err := ParseMoves([]byte(in)); !errors.Is(err, ErrParse) {
			t.Errorf("ParseMoves(%q) error = %v, want ErrParse", in, err)
		}
	}
}

func TestMoveString(t *testing.T) {
	m := Move{ID: "M3", Speaker: "PRO", Act: Since, Proposition: "φ", Reasons: []string{"a", "b"}, Target: "M2", Attack: "rebut"}
	if got, want := m.String(), `M3 PRO since "φ" {"a", "b"} -> M2 (rebut)`; got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
	if got, want := (Move{Speaker: "OPP", Act: Why, Proposition: "a"}).String(), `OPP why "a"`; got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
}

func TestNegation(t *testing.T) {
	tests := []struct{ in, norm, neg string }{
		{"φ", "φ", "¬φ"},
		{"¬φ", "¬φ", "φ"},
		{"¬ ¬φ", "φ", "¬φ"},
		{"~  a\n b ", "¬a b", "a b"},
		{"Not a negation", "Not a negation", "¬Not a negation"},
		{"¬", "", ""},
		{"", "", ""},
	}
	for _, tc := range tests {
		if got := Normalize(tc.in); got != tc.norm {
			t.Errorf("Normalize(%q) = %q, want %q", tc.in, got, tc.norm)
		}
		if got := Negate(tc.in); got != tc.neg {
			t.Errorf("Negate(%q) = %q, want %q", tc.in, got, tc.neg)
		}
	}
}

func FuzzParseMoves(f *testing.F) {
	for _, s := range []string{
		`[{"act":"claim","proposition":"φ","speaker":"PRO"}]`,
		`{"moves":[{"act":"since","proposition":"φ","reasons":["a"],"target":1,"speaker":"PRO","attack":"undercut"}]}`,
		"```json\n{\"act\":\"why\",\"proposition\":\"a\",\"target\":\"M1\",\"speaker\":\"OPP\"}\n```",
		`prose [` + "```",
		`{"moves": null}`,
		`[{"act":"claim","reasons":"x","round":"3","id":1.5}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		moves, err := ParseMoves(data)
		if err != nil {
			if !errors.Is(err, ErrParse) {
				t.Fatalf("error %v does not wrap ErrParse", err)
			}
			return
		}
		// What parsed survives a round trip through the canonical form.
		b, err := json.Marshal(moves)
		if err != nil {
			t.Fatalf("Marshal(%+v): %v", moves, err)
		}
		again, err := ParseMoves(b)
		if err != nil {
			t.Fatalf("re-parse of %s: %v", b, err)
		}
		if diff := cmp.Diff(moves, again); diff != "" {
			t.Fatalf("round trip of %s (-first +second):\n%s", b, diff)
		}
	})
}
