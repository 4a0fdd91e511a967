package formal

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var roundRules = turnRules{
	allowed:    []EntryType{TypeNewPoint, TypeRebuttal, TypeConjecture},
	rebuttable: []int{2, 6},
	challenge: []challengeable{
		{seq: 6, index: 0, src: Source{URL: "https://example.org/a", Title: "A", Accessed: "2026-02-20"}},
		{seq: 6, index: 1, src: Source{URL: "https://example.org/b", Title: "B", Accessed: "2026-02-20"}},
		{seq: 2, index: 0, src: Source{URL: "https://example.org/c", Title: "C", Accessed: "2026-02-20"}},
	},
	order: []int{2, 6},
	today: "2026-02-21",
}

var openingRules = turnRules{allowed: []EntryType{TypeOpeningStatement}, today: "2026-02-21"}

func TestParseTurn(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply string
		rules turnRules
		want  turn
	}{
		{
			name:  "plain",
			reply: `{"type": "new_point", "content": " Traffic fell. ", "sources": [{"url": "https://example.org/x", "title": "X", "accessed": "2026-01-02"}], "rebuttal_to_seq": null}`,
			rules: roundRules,
			want:  turn{Type: TypeNewPoint, Content: "Traffic fell.", Sources: []Source{{URL: "https://example.org/x", Title: "X", Accessed: "2026-01-02"}}},
		},
		{
			name:  "fenced, with prose, other spellings",
			reply: "Here is my turn:\n```json\n{\"Type\": \"Rebuttal\", \"Content\": \"No.\", \"rebuttalToSeq\": \"6\", \"Sources\": [{\"URL\": \"https://example.org/x\", \"Title\": \"X\"}]}\n```\nThanks.",
			rules: roundRules,
			want:  turn{Type: TypeRebuttal, Content: "No.", RebuttalToSeq: intp(6), Sources: []Source{{URL: "https://example.org/x", Title: "X", Accessed: "2026-02-21"}}},
		},
		{
			name:  "type left out where only one is allowed",
			reply: `{"content": "I open.", "sources": []}`,
			rules: openingRules,
			want:  turn{Type: TypeOpeningStatement, Content: "I open."},
		},
		{
			name:  "spaced type, rebuttal_to_seq on a point dropped, duplicate source",
			reply: `{"type": "new point", "content": "x", "rebuttal_to_seq": 6, "sources": [{"url": "https://e.org/1", "title": "1"}, {"url": "https://e.org/1", "title": "1"}]}`,
			rules: roundRules,
			want:  turn{Type: TypeNewPoint, Content: "x", Sources: []Source{{URL: "https://e.org/1", Title: "1", Accessed: "2026-02-21"}}},
		},
		{
			name:  "challenge by url",
			reply: `{"type": "conjecture", "content": "[CONJECTURE] x", "source_challenge": {"target_seq": 6, "url": "https://example.org/b", "claim": "It says nothing of it."}}`,
			rules: roundRules,
			want: turn{Type: TypeConjecture, Content: "[CONJECTURE] x", Challenge: &challenge{TargetSeq: 6, Index: 1, Claim: "It says nothing of it.",
				Source: Source{URL: "https://example.org/b", Title: "B", Accessed: "2026-02-20"}}},
		},
		{
			name:  "challenge of an entry's only source without url",
			reply: `{"type": "new_point", "content": "x", "challenge": {"target_seq": 2, "claim": "Wrong."}}`,
			rules: roundRules,
			want:  turn{Type: TypeNewPoint, Content: "x", Challenge: &challenge{TargetSeq: 2, Claim: "Wrong.", Source: Source{URL: "https://example.org/c", Title: "C", Accessed: "2026-02-20"}}},
		},
		{
			// The seed's chair cues a rebuttal of the other side's latest
			// argument: "You may make a `new_point`, `rebuttal` (to seq
			// {PROMOTER_SEQ}), or `conjecture`."
			name:  "rebuttal naming no entry rebuts the latest",
			reply: `{"type": "rebuttal", "content": "No.", "sources": [], "rebuttal_to_seq": null}`,
			rules: roundRules,
			want:  turn{Type: TypeRebuttal, Content: "No.", RebuttalToSeq: intp(6)},
		},
		{
			name:  "clarification request: sources and challenge not read",
			reply: `{"type": "clarification_request", "content": "May I rebut entry 2?", "sources": [{"url": "bad"}], "source_challenge": {"target_seq": 99}}`,
			rules: turnRules{allowed: append(slices.Clone(roundRules.allowed), TypeClarificationRequest), rebuttable: roundRules.rebuttable, challenge: roundRules.challenge},
			want:  turn{Type: TypeClarificationRequest, Content: "May I rebut entry 2?"},
		},
		{
			name:  "null or empty challenge",
			reply: `{"type": "new_point", "content": "x", "source_challenge": {}}`,
			rules: roundRules,
			want:  turn{Type: TypeNewPoint, Content: "x"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseTurn(tc.reply, tc.rules)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("turn (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseTurnRejects(t *testing.T) {
	for _, tc := range []struct {
		name, reply string
		rules       turnRules
		want        []string
	}{
		{"no JSON", "I would rather not.", roundRules, []string{"no JSON object"}},
		{"unknown type", `{"type": "speech", "content": "x"}`, roundRules, []string{`"type" "speech" is not an entry type; want one of: new_point, rebuttal, conjecture`}},
		{"type of another phase", `{"type": "closing_statement", "content": "x"}`, roundRules, []string{`"type" "closing_statement" is not allowed in this phase`}},
		{"round type in the opening", `{"type": "new_point", "content": "x"}`, openingRules, []string{`want one of: opening_statement`}},
		{"type not a string", `{"type": 3, "content": "x"}`, roundRules, []string{`"type" is 3`}},
		{"type left out", `{"content": "x"}`, roundRules, []string{`"type" is missing`}},
		{"no content", `{"type": "new_point", "content": "  "}`, roundRules, []string{`"content" is "  "`}},
		{"long content", `{"type": "new_point", "content": "` + strings.Repeat("x", maxContentRunes+1) + `"}`, roundRules, []string{"at most 6000"}},
		{"rebuttal without seq and nothing to rebut", `{"type": "rebuttal", "content": "x"}`, turnRules{allowed: roundRules.allowed}, []string{`a rebuttal needs "rebuttal_to_seq", one of: none`}},
		{"clarification where none is allowed", `{"type": "clarification_request", "content": "x"}`, roundRules, []string{`"type" "clarification_request" is not allowed in this phase`}},
		{"rebuttal of a wrong seq", `{"type": "rebuttal", "content": "x", "rebuttal_to_seq": 4}`, roundRules, []string{`"rebuttal_to_seq" 4 is not an entry you may rebut`}},
		{"rebuttal with nothing to rebut", `{"type": "rebuttal", "content": "x", "rebuttal_to_seq": 4}`, turnRules{allowed: roundRules.allowed}, []string{"none (make another type of turn)"}},
		{"sources not a list", `{"type": "new_point", "content": "x", "sources": "https://e.org"}`, roundRules, []string{`"sources" is "https://e.org"; want a list`}},
		{"too many sources", `{"type": "new_point", "content": "x", "sources": [{},{},{},{},{},{}]}`, roundRules, []string{"6 sources; cite at most 5"}},
		{"bad sources", `{"type": "new_point", "content": "x", "sources": ["https://e.org", {"url": "e.org/x", "title": "t"}, {"url": "https://e.org/y"}, {"url": "https://e.org/z", "title": "z", "accessed": "yesterday"}]}`, roundRules,
			[]string{"sources[0] is", `sources[1]: url "e.org/x"`, "sources[2]: the title is missing", `sources[3]: accessed "yesterday"`}},
		{"challenge in the opening", `{"content": "x", "source_challenge": {"target_seq": 2, "claim": "c"}}`, openingRules, []string{"a source challenge is not allowed in this phase"}},
		{"challenge of no source", `{"type": "new_point", "content": "x", "source_challenge": {"target_seq": 3, "claim": "c"}}`, roundRules, []string{`"source_challenge.target_seq" 3 names no source you may challenge; want one of: 6, 2`}},
		{"challenge of an unknown url", `{"type": "new_point", "content": "x", "source_challenge": {"target_seq": 6, "url": "https://example.org/z", "claim": "c"}}`, roundRules, []string{`"source_challenge.url" "https://example.org/z" is not a challengeable source of entry 6`}},
		{"challenge without url of two sources", `{"type": "new_point", "content": "x", "source_challenge": {"target_seq": 6, "claim": "c"}}`, roundRules, []string{`"source_challenge.url" ""`}},
		{"challenge without claim", `{"type": "new_point", "content": "x", "source_challenge": {"target_seq": 2}}`, roundRules, []string{`"source_challenge.claim" is missing`}},
		{"challenge not an object", `{"type": "new_point", "content": "x", "source_challenge": "seq 6"}`, roundRules, []string{`"source_challenge" is "seq 6"`}},
		{"everything at once", `{"type": "rebuttal"}`, turnRules{allowed: roundRules.allowed}, []string{`"content" is missing`, `a rebuttal needs "rebuttal_to_seq"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseTurn(tc.reply, tc.rules)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func FuzzParseTurn(f *testing.F) {
	f.Add(`{"type": "rebuttal", "content": "x", "rebuttal_to_seq": 6, "sources": [{"url": "https://e.org/1", "title": "1"}]}`)
	f.Add("```json\n{\"type\": \"new point\", \"content\": \"x\", \"source_challenge\": {\"target_seq\": 6, \"url\": \"https://example.org/b\", \"claim\": \"c\"}}\n```")
	f.Add(`{"content": {"a": [1, 2]}, "sources": [null, 1, "x"], "rebuttal_to_seq": 1e300}`)
	f.Add(`{{{{"type"`)
	f.Fuzz(func(t *testing.T, reply string) {
		for _, r := range []turnRules{roundRules, openingRules} {
			tr, err := parseTurn(reply, r)
			if err != nil {
				continue
			}
			// An accepted turn is one the log accepts.
			if !slices.Contains(r.allowed, tr.Type) || tr.Content == "" || len(tr.Sources) > maxSources ||
				(tr.Type == TypeRebuttal) != (tr.RebuttalToSeq != nil) {
				t.Fatalf("accepted %+v", tr)
			}
			for _, s := range tr.Sources {
				if checkSource(s) != nil || s.Title == "" || s.Accessed == "" {
					t.Fatalf("accepted source %+v", s)
				}
			}
			if c := tr.Challenge; c != nil && (c.Claim == "" || r.challenge == nil) {
				t.Fatalf("accepted challenge %+v", c)
			}
		}
	})
}

func TestViolations(t *testing.T) {
	src := []Source{{URL: "https://e.org", Title: "E"}}
	for _, tc := range []struct {
		turn turn
		want []string
	}{
		{turn{Type: TypeConjecture, Content: "[CONJECTURE] Perhaps."}, nil},
		{turn{Type: TypeConjecture, Content: "Perhaps. [CONJECTURE]"}, []string{"rule 9"}},
		{turn{Type: TypeNewPoint, Content: "Fact.", Sources: src}, nil},
		{turn{Type: TypeNewPoint, Content: "Fact."}, []string{"rule 11"}},
		{turn{Type: TypeNewPoint, Content: "[CONJECTURE] Maybe."}, nil},
		{turn{Type: TypeOpeningStatement, Content: "Fact."}, []string{"rule 11"}},
		{turn{Type: TypeClosingStatement, Content: "In sum."}, nil},
		{turn{Type: TypeRebuttal, Content: "Wrong.", Sources: src}, nil},
		{turn{Type: TypeRebuttal, Content: "[CONJECTURE] Wrong, probably.", Sources: src}, nil},
		{turn{Type: TypeRebuttal, Content: "[CONJECTURE] Wrong, probably."}, []string{"rule 10"}},
		{turn{Type: TypeRebuttal, Content: "Wrong."}, []string{"rule 11"}},
	} {
		got := violations(tc.turn)
		if len(got) != len(tc.want) {
			t.Errorf("%+v: %q, want %q", tc.turn, got, tc.want)
			continue
		}
		for i := range got {
			if !strings.Contains(got[i], tc.want[i]) {
				t.Errorf("%+v: %q, want %q", tc.turn, got[i], tc.want[i])
			}
		}
	}
}

func TestParseQuestions(t *testing.T) {
	got, err := parseQuestions(`{"questions": [{"to": "the Promoter", "question": " Why? "}, "Plain?", {"to": "negative side", "question": "How?"}, {"question": "Dropped?"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	want := []question{{To: "promoter", Text: "Why?"}, {To: "both", Text: "Plain?"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got, _ := parseQuestions(`{"questions": [{"question": ""}, {"to": "detractor", "question": "How?"}]}`); len(got) != 1 || got[0].To != "detractor" {
		t.Errorf("got %+v", got)
	}
	for _, bad := range []string{"none", `{}`, `{"questions": "none"}`} {
		if _, err := parseQuestions(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	if got, err := parseQuestions(`{"questions": []}`); err != nil || len(got) != 0 {
		t.Errorf("no questions: %v, %v", got, err)
	}
}

func TestParseChairDecisions(t *testing.T) {
	if d, err := parseRelay(`{"relay": [2, "1", 2], "reason": "fair"}`, 2); err != nil || !cmp.Equal(d.Relay, []int{1, 2}) || d.Reason != "fair" {
		t.Errorf("relay %+v, %v", d, err)
	}
	for _, bad := range []string{`{"relay": [3]}`, `{"relay": [0]}`, `{"relay": "1"}`, `{}`, `{"relay": [1.5]}`} {
		if _, err := parseRelay(bad, 2); err == nil {
			t.Errorf("relay %s accepted", bad)
		}
	}
	if f, err := parseConclusionCheck(`{"concluded": "yes", "reason": "done"}`); err != nil || !f.End || f.By != EndNaturalConclusion {
		t.Errorf("check %+v, %v", f, err)
	}
	if f, err := parseConclusionCheck(`{"concluded": false}`); err != nil || f.End || f.By != "" {
		t.Errorf("check %+v, %v", f, err)
	}
	if _, err := parseConclusionCheck(`{"concluded": "maybe"}`); err == nil {
		t.Error("maybe accepted")
	}
	for reply, want := range map[string]Verdict{
		`{"outcome": "affirmative_wins", "reason": "r"}`: VerdictAffirmativeWins,
		`{"outcome": "Negative wins", "reason": "r"}`:    VerdictNegativeWins,
		`{"outcome": "DRAW", "reason": "r"}`:             VerdictDraw,
		`{"outcome": "void", "reason": "r"}`:             VerdictVoid,
	} {
		if v, err := parseVerdict(reply); err != nil || v.Verdict != want {
			t.Errorf("%s: %+v, %v", reply, v, err)
		}
	}
	for _, bad := range []string{`{"outcome": "affirmative victory", "reason": "r"}`, `{"outcome": "draw"}`, `{"reason": "r"}`} {
		if _, err := parseVerdict(bad); err == nil {
			t.Errorf("verdict %s accepted", bad)
		}
	}
}

func TestJSONObject(t *testing.T) {
	for reply, want := range map[string]string{
		`{"a": 1}`:                               "1",
		"```json\n{\"a\": 2}\n```":               "2",
		`Sure! {"a": 3} Hope that helps {"a":4}`: "3",
		`{broken {"a": 5}`:                       "5",
		`{"a": "}"} {"a": 6}`:                    "}",
	} {
		m, err := jsonObject(reply)
		if err != nil {
			t.Errorf("%q: %v", reply, err)
			continue
		}
		if got := strings.Trim(describe(m["a"]), `"`); got != want {
			t.Errorf("%q: a = %s, want %s", reply, got, want)
		}
	}
	for _, bad := range []string{"", "no json", "[1, 2]", "{", `{"a": }`} {
		if _, err := jsonObject(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
