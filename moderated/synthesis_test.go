package moderated

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSynthesisMarkdown(t *testing.T) {
	s := Synthesis{
		Title:    "Caching store",
		Date:     time.Date(2025, 12, 5, 23, 0, 0, 0, time.UTC),
		DebateID: "DEB-abc123",
		Rounds:   3,
		Question: "Should we use Redis or PostgreSQL for caching?\n# Not a heading",
		Perspectives: []PerspectiveSummary{
			{Name: "Performance Advocate", KeyArguments: []string{"Redis answers in under a millisecond.", "Tail latency matters"}, TradeOffsAccepted: []string{"Another service to run"}},
			{Name: "Operational Simplicity", KeyArguments: []string{"One database is easier to run"}},
		},
		Agreement:      []string{"All perspectives agreed that caching is needed"},
		Tensions:       []string{"Performance vs Simplicity on p99 latency", "Unresolved: whether 10x growth is likely"},
		Recommendation: "Start with PostgreSQL materialized views; move hot keys to Redis past 5k req/s.",
		Confidence:     ConfidenceMedium,
		Caveats:        []string{"Load may grow faster than planned."},
	}
	want := `# Decision: Caching store

**Date:** 2025-12-05
**Debate ID:** DEB-abc123
**Rounds:** 3
**Perspectives:** Performance Advocate, Operational Simplicity

## Question

Should we use Redis or PostgreSQL for caching?
\# Not a heading

## Perspectives Considered

### Performance Advocate
- Key arguments: Redis answers in under a millisecond; Tail latency matters
- Trade-offs accepted: Another service to run

### Operational Simplicity
- Key arguments: One database is easier to run
- Trade-offs accepted: none recorded

## Points of Agreement

- All perspectives agreed that caching is needed

## Key Tensions

- Performance vs Simplicity on p99 latency
- Unresolved: whether 10x growth is likely

## Recommendation

Start with PostgreSQL materialized views; move hot keys to Redis past 5k req/s.

**Confidence:** Medium
**Caveats:** Load may grow faster than planned

## Dissenting View

No perspective strongly disagrees with the recommendation.
`
	if diff := cmp.Diff(want, s.Markdown()); diff != "" {
		t.Errorf("markdown (-want +got):\n%s", diff)
	}
}

func TestParseSynthesis(t *testing.T) {
	got, err := parseSynthesis("Here:\n" + `{"title":" T ","perspectives":[{"name":"Performance Advocate","key_arguments":["a"],"tradeOffsAccepted":"b"},"junk",{"name":""}],` +
		`"agreement":["x"],"tensions":[],"recommendation":"Do it.","confidence":"HIGH","caveats":"c","dissent":" d "}`)
	if err != nil {
		t.Fatal(err)
	}
	want := Synthesis{Title: "T", Perspectives: []PerspectiveSummary{{Name: "Performance Advocate", KeyArguments: []string{"a"}, TradeOffsAccepted: []string{"b"}}},
		Agreement: []string{"x"}, Recommendation: "Do it.", Confidence: ConfidenceHigh, Caveats: []string{"c"}, Dissent: "d"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("synthesis (-want +got):\n%s", diff)
	}
	for reply, problem := range map[string]string{
		`{"recommendation":"  "}`: "recommendation is empty",
		"no json":                 "no JSON object",
		`{"recommendation":"x","confidence":"certain"}`:   "",
		`{"recommendation":"x","confidence":"low","a":1}`: "",
	} {
		s, err := parseSynthesis(reply)
		switch {
		case problem != "" && (err == nil || !strings.Contains(err.Error(), problem)):
			t.Errorf("parseSynthesis(%q): %v, want %q", reply, err, problem)
		case problem == "" && (err != nil || s.Confidence == ""):
			t.Errorf("parseSynthesis(%q): %+v, %v", reply, s, err)
		}
	}
}

func TestParseAnalysis(t *testing.T) {
	tests := []struct {
		reply, question string
		want            Analysis
	}{
		{`{"domain":"Data","constraints":["ship fast",""],"debaters":2,"perspectives":["Performance Advocate"]}`, "q",
			Analysis{Domain: "data", Constraints: []string{"ship fast"}, Debaters: 2, Suggested: []string{"Performance Advocate"}}},
		{`{"debaters":"7"}`, "q", Analysis{Domain: "general", Debaters: 4}},
		{`{"debaters":0}`, "q", Analysis{Domain: "general", Debaters: 2}},
		{`{"debaters":2.6}`, "q", Analysis{Domain: "general", Debaters: 3}},
		{`{}`, "Redis or PostgreSQL?", Analysis{Domain: "general", Debaters: 2}},
		{`{}`, "How should the plugin system work?", Analysis{Domain: "general", Debaters: 3}},
	}
	for _, tt := range tests {
		got, err := parseAnalysis(tt.reply, tt.question)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("parseAnalysis(%s) (-want +got):\n%s", tt.reply, diff)
		}
	}
	if _, err := parseAnalysis("I would pick two.", "q"); err == nil {
		t.Errorf("prose accepted")
	}
}

// FuzzModeratorReplies feeds arbitrary replies to the moderator's parsers:
// they must not panic, and what they accept must be within bounds.
func FuzzModeratorReplies(f *testing.F) {
	f.Add(analysisTwo)
	f.Add(synthesisOK)
	f.Add(judgeOn)
	f.Add(`{"debaters":1e300,"perspectives":[1,{"a":2}],"summary":{"x":1},"recommendation":["a"]}`)
	f.Add("```json\n{\"offTopic\":\"Performance Advocate\",\"summary\":\"s\"}\n```")
	ps, _ := newPerspectives(DefaultConfig())
	f.Fuzz(func(t *testing.T, reply string) {
		if a, err := parseAnalysis(reply, reply); err == nil {
			if a.Debaters < 2 || a.Debaters > 4 || a.Domain == "" || len(a.Suggested) > 6 {
				t.Fatalf("analysis %+v", a)
			}
			if got := ps.choose(reply, a.Domain, a.Suggested, a.Debaters); len(got) != a.Debaters || !ps.balanced(got) {
				t.Fatalf("choose: %v", got)
			}
		}
		if j, err := parseJudgment(reply, ps.resolve); err == nil && j.Summary == "" {
			t.Fatalf("judgment without summary accepted")
		}
		if s, err := parseSynthesis(reply); err == nil {
			if s.Recommendation == "" || (s.Confidence != ConfidenceHigh && s.Confidence != ConfidenceMedium && s.Confidence != ConfidenceLow) {
				t.Fatalf("synthesis %+v", s)
			}
			md := s.Markdown()
			if strings.Count(md, "\n## ") != 6 {
				t.Fatalf("markdown has %d sections:\n%s", strings.Count(md, "\n## "), md)
			}
		}
	})
}
