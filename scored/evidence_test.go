package scored

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm/llmtest"
)

const goodEvidence = `{
  "evaluations": {
    "problem": {"score": 7, "evidence": ["40% of clinics report double-booking weekly"]},
    "market":  {"score": 4.5}
  },
  "challenges": [
    {"category": "market", "text": "Two incumbents bundle scheduling for free", "severity": "high"},
    {"text": "The founders have never sold to clinics"}
  ]
}`

func TestParseEvidence(t *testing.T) {
	ev, err := ParseEvidence([]byte(goodEvidence))
	if err != nil {
		t.Fatal(err)
	}
	want := Evidence{
		Evaluations: map[string]Evaluation{
			"problem": {Score: 7, Evidence: []string{"40% of clinics report double-booking weekly"}},
			"market":  {Score: 4.5},
		},
		Challenges: []Challenge{
			{Category: "market", Text: "Two incumbents bundle scheduling for free", Severity: "high"},
			{Text: "The founders have never sold to clinics"},
		},
	}
	if diff := cmp.Diff(want, ev); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestParseEvidenceNamesEveryProblem: a bad evidence file gets an error
// naming each problem by its JSON path, as a person fixing the file needs.
func TestParseEvidenceNamesEveryProblem(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []engine.Violation
	}{
		{"not JSON", `{"evaluations": {"problem": {"score": 7,}}}`,
			[]engine.Violation{{Problem: "not JSON: line 1, column 41: invalid character '}' looking for beginning of object key string"}}},
		{"not JSON on line 3", "{\n  \"evaluations\": {},\n  ]", []engine.Violation{{Problem: "not JSON: line 3, column 3: invalid character ']' looking for beginning of object key string"}}},
		{"empty", ``, []engine.Violation{{Problem: "not JSON: line 1, column 1: unexpected end of JSON input"}}},
		{"array", `[]`, []engine.Violation{{Problem: "want an object, got an array"}}},
		{"null", `null`, []engine.Violation{{Problem: "want an object, got null"}}},
		{"nothing in it", `{}`, []engine.Violation{{Problem: "no evaluations and no challenges: the file holds no evidence"}}},
		{"wrong types", `{"evaluations": {"problem": {"score": "high", "evidence": "one line"}, "market": 5}, "challenges": {}}`,
			[]engine.Violation{
				{Field: `evaluations["market"]`, Problem: "want an object, got the number 5"},
				{Field: `evaluations["problem"].evidence`, Problem: "want an array of strings, got a string"},
				{Field: `evaluations["problem"].score`, Problem: "want a number, got a string"},
				{Field: "challenges", Problem: "want an array, got an object"},
			}},
		{"missing and empty", `{"evaluations": {"problem": {"evidence": ["", "ok", 3]}}, "challenges": [{"text": " "}, {"category": "market"}, 7]}`,
			[]engine.Violation{
				{Field: `evaluations["problem"].score`, Problem: "missing: give the category's score going into the debate"},
				{Field: `evaluations["problem"].evidence[0]`, Problem: "empty"},
				{Field: `evaluations["problem"].evidence[2]`, Problem: "want a string, got the number 3"},
				{Field: "challenges[0].text", Problem: "empty"},
				{Field: "challenges[1].text", Problem: "missing: say what the challenge is"},
				{Field: "challenges[2]", Problem: "want an object, got the number 7"},
			}},
		{"unknown fields", `{"evaluation": {}, "evaluations": {"problem": {"score": 5, "notes": "x"}}, "challenges": [{"text": "t", "severity": 3, "source": "x"}]}`,
			[]engine.Violation{
				{Field: `evaluations["problem"].notes`, Problem: "unknown field; an evaluation has score and evidence"},
				{Field: "challenges[0].severity", Problem: "want a string, got the number 3"},
				{Field: "challenges[0].source", Problem: "unknown field; a challenge has category, text and severity"},
				{Field: "evaluation", Problem: "unknown field; an evidence file has evaluations and challenges"},
			}},
		{"huge number", `{"evaluations": {"problem": {"score": 1e999}}}`,
			[]engine.Violation{{Field: `evaluations["problem"].score`, Problem: "1e999 is out of range"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseEvidence([]byte(tt.doc))
			var ee *EvidenceError
			if !errors.As(err, &ee) || !errors.Is(err, ErrInvalidEvidence) {
				t.Fatalf("err = %v, want an *EvidenceError", err)
			}
			if diff := cmp.Diff(tt.want, ee.Violations); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEvidenceApply(t *testing.T) {
	ev, err := ParseEvidence([]byte(goodEvidence))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ev.Apply(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("applied config invalid: %v", err)
	}
	want := map[string]Evaluation{
		"problem":  {Score: 7, Evidence: []string{"40% of clinics report double-booking weekly"}},
		"solution": {Score: 5.5, Neutral: true},
		"market":   {Score: 4.5},
	}
	if diff := cmp.Diff(want, cfg.Evaluations); diff != "" {
		t.Errorf("evaluations (-want +got):\n%s", diff)
	}
	if len(cfg.Challenges) != 2 {
		t.Errorf("challenges = %v", cfg.Challenges)
	}

	// A config with no evaluations gets neutral ones for what the
	// evidence leaves out.
	cfg, err = Evidence{Evaluations: map[string]Evaluation{"market": {Score: 2}}}.Apply(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if p := cfg.Evaluations["problem"]; !p.Neutral || p.Score != 5.5 || cfg.Evaluations["market"].Score != 2 {
		t.Errorf("evaluations = %v", cfg.Evaluations)
	}

	bad := Evidence{
		Evaluations: map[string]Evaluation{"team": {Score: 5}, "market": {Score: 12}},
		Challenges:  []Challenge{{Category: "legal", Text: "x"}, {Text: "fine"}},
	}
	_, err = bad.Apply(DefaultConfig())
	var ee *EvidenceError
	if !errors.As(err, &ee) {
		t.Fatalf("err = %v, want an *EvidenceError", err)
	}
	wantV := []engine.Violation{
		{Field: `evaluations["market"].score`, Problem: "12 is outside the scale 1..10"},
		{Field: `evaluations["team"]`, Problem: "names no category; the categories are problem, solution, market"},
		{Field: "challenges[0].category", Problem: `"legal" names no category; the categories are problem, solution, market`},
	}
	if diff := cmp.Diff(wantV, ee.Violations); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

// TestEvidenceReachesTheDebate: seed 003's debate runs on the idea's
// evaluation and the red team's challenges —
//
//	export async function runDebate(
//	  ideaContext: IdeaContext,
//	  evaluation: EvaluationResult,
//	  redTeamChallenges: Challenge[],
//
// and "2. **Argument Generation**: - Based on evaluation evidence". An
// evidence file's scores are the rounds' pre-debate scores, its evidence and
// challenges are in every prompt of their round, and a category it leaves
// out is argued from a neutral default that the prompts and the report name
// as such.
func TestEvidenceReachesTheDebate(t *testing.T) {
	ev, err := ParseEvidence([]byte(goodEvidence))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ev.Apply(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	f := llmtest.New()
	f.OnPurpose(PurposeArgument).Reply(words(60))
	f.OnPurpose(PurposeRebuttal).Reply(words(60))
	f.OnPurpose(PurposeVerdict).Reply(validVerdict)
	res, err := engine.Run(t.Context(), f, newFormat(t, cfg), testIdea)
	if err != nil {
		t.Fatal(err)
	}
	pre := map[string]float64{}
	for _, rd := range res.Detail.Rounds {
		pre[rd.Category.ID] = rd.PreScore
	}
	if diff := cmp.Diff(map[string]float64{"problem": 7, "solution": 5.5, "market": 4.5}, pre); diff != "" {
		t.Errorf("pre-debate scores (-want +got):\n%s", diff)
	}
	seen := map[string]int{}
	for _, req := range f.Requests() {
		user := req.Messages[1].Content
		switch {
		case strings.Contains(user, "Category: Problem Validity"):
			seen["problem"]++
			if !strings.Contains(user, "40% of clinics report double-booking weekly") {
				t.Errorf("%s request of the problem round lacks its evidence", req.Purpose)
			}
		case strings.Contains(user, "Category: Market Opportunity"):
			seen["market"]++
			if !strings.Contains(user, "[high] Two incumbents bundle scheduling for free") {
				t.Errorf("%s request of the market round lacks its challenge", req.Purpose)
			}
		case strings.Contains(user, "Category: Solution Fit"):
			seen["solution"]++
			if !strings.Contains(user, "5.5 on a 1 to 10 scale (a neutral default") {
				t.Errorf("%s request of the solution round does not say its score is a neutral default:\n%s", req.Purpose, user)
			}
		}
		if strings.Contains(user, "neutral default") && !strings.Contains(user, "Category: Solution Fit") {
			t.Errorf("%s request calls an evaluated score neutral", req.Purpose)
		}
		if !strings.Contains(user, "The founders have never sold to clinics") {
			t.Errorf("%s request lacks the challenge bearing on every round", req.Purpose)
		}
	}
	if diff := cmp.Diff(map[string]int{"problem": 5, "solution": 5, "market": 5}, seen); diff != "" {
		t.Errorf("requests per round (-want +got):\n%s", diff)
	}
	if got := res.Detail.NeutralCategories(); len(got) != 1 || got[0].ID != "solution" {
		t.Errorf("NeutralCategories = %v, want solution", got)
	}
	md := res.Detail.Markdown(res.Debate)
	for _, want := range []string{"- **Starting scores:** neutral defaults (the middle of the scale, no evaluation supplied) for Solution Fit",
		"**Score:** 5.5 → "} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
	if strings.Count(md, "(from a neutral default)") != 1 {
		t.Errorf("Markdown marks %d rounds as from a neutral default, want 1", strings.Count(md, "(from a neutral default)"))
	}
}

func FuzzParseEvidence(f *testing.F) {
	for _, s := range []string{goodEvidence, `{}`, `[]`, `{"evaluations": {"x": {"score": 1e999}}}`,
		`{"challenges": [{"text": "t", "category": 1}]}`, `{"evaluations": {"p": {"score": 3, "evidence": ["a", null]}}}`, `{`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		ev, err := ParseEvidence([]byte(doc))
		if err != nil {
			var ee *EvidenceError
			if !errors.As(err, &ee) || len(ee.Violations) == 0 {
				t.Fatalf("error %v is not an *EvidenceError with violations", err)
			}
			return
		}
		if len(ev.Evaluations) == 0 && len(ev.Challenges) == 0 {
			t.Fatal("empty evidence accepted")
		}
		// What was accepted reads back the same.
		js, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseEvidence(js)
		if err != nil {
			t.Fatalf("re-reading %s: %v", js, err)
		}
		if diff := cmp.Diff(ev, again); diff != "" {
			t.Fatalf("round trip (-first +again):\n%s", diff)
		}
	})
}
