package scored

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
)

func TestMarkdown(t *testing.T) {
	cat := Category{ID: "problem", Name: "Problem | Validity", AdvocatePosition: "Real\n# problem", ChallengerPosition: "Niche"}
	d := engine.Debate{ID: "idea-1", Proposition: "A clinic scheduler\nwith more lines"}
	out := &Outcome{
		Rounds: []Round{{
			Number: 1, Category: cat,
			Advocate: []Argument{
				{Side: Advocate, Kind: KindArgument, Content: "Evidence one.\n# Not a heading\n\nSecond paragraph."},
				{Side: Advocate, Kind: KindRebuttal, Content: "Advocate rebuts."},
			},
			Challenger: []Argument{
				{Side: Challenger, Kind: KindArgument, Content: "> not a quote"},
				{Side: Challenger, Kind: KindRebuttal, Content: "Challenger rebuts."},
			},
			Verdict:  Verdict{Winner: WinnerAdvocate, Reasoning: "Better grounded.", KeyPoints: []string{"point | one", "point two"}, Confidence: 0.72},
			PreScore: 6.5, PostScore: 7.22, Delta: 0.72,
		}},
		Scores: ScoreCard{Total: 0.72},
	}
	want := `# Scored debate: A clinic scheduler

- **Debate ID:** idea-1
- **Rounds:** 1
- **Total score change:** +0.72

## Scores

| Category | Before | Change | After | Winner | Confidence |
|---|---:|---:|---:|---|---:|
| Problem \| Validity | 6.5 | +0.72 | 7.22 | advocate | 0.72 |

## Round 1: Problem | Validity

**Advocate's position:** Real # problem  
**Challenger's position:** Niche

### Advocate's argument

Evidence one.
\# Not a heading

Second paragraph.

### Challenger's argument

\> not a quote

### Advocate's rebuttal

Advocate rebuts.

### Challenger's rebuttal

Challenger rebuts.

### Verdict

**Winner:** advocate (confidence 0.72)

Better grounded.

**Key points:**

- point | one
- point two

**Score:** 6.5 → 7.22 (+0.72)
`
	if diff := cmp.Diff(want, out.Markdown(d)); diff != "" {
		t.Errorf("markdown (-want +got):\n%s", diff)
	}
}

func TestMarkdownOfStubDebate(t *testing.T) {
	res, err := run(t, llm.NewStub(1), testConfig())
	if err != nil {
		t.Fatal(err)
	}
	md := res.Detail.Markdown(res.Debate)
	for _, want := range []string{
		"# Scored debate: A scheduling assistant for small clinics",
		"## Round 1: Problem Validity", "## Round 2: Solution Fit", "## Round 3: Market Opportunity",
		"| Problem Validity | 6.5 |", "| Solution Fit | 5 |", "| Market Opportunity | 4 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("debate.md lacks %q", want)
		}
	}
	if n := strings.Count(md, "### Verdict"); n != 3 {
		t.Errorf("debate.md has %d verdicts", n)
	}
}
