package scored

import (
	"strings"

	"github.com/duelogic/duelogic/internal/stubtext"
	"github.com/duelogic/duelogic/llm"
)

// The offline stub model's answers (llm.Stub) to this package's requests,
// written from the prompts of prompt.go: the advocate's and the challenger's
// arguments and rebuttals, and the arbiter's verdict on each category.
func init() {
	llm.RegisterStub(PurposeArgument, writeStubArgument)
	llm.RegisterStub(PurposeRebuttal, writeStubRebuttal)
	llm.RegisterStub(PurposeVerdict, writeStubVerdict)
}

// stubRetried reports whether the request asks again after an unusable
// reply ("That reply cannot be used: ..."); the stub then answers properly.
func stubRetried(c *llm.StubCall) bool { return strings.Contains(c.LastUser(), "cannot be used") }

// stubProposition returns the debated proposition of the prompt, shortened to
// about limit characters and quoted, or fallback when the prompt has none.
func stubProposition(c *llm.StubCall, limit int, fallback string) string {
	p, _ := c.Tag("proposition")
	return stubtext.Quote(p, limit, fallback)
}

// stubTagLines returns the lines of a fenced block, list markers removed.
func stubTagLines(c *llm.StubCall, name string) []string {
	text, ok := c.Tag(name)
	if !ok {
		return nil
	}
	var out []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "-*• "))
		if l != "" && !strings.HasPrefix(l, "(") {
			out = append(out, l)
		}
	}
	return out
}

// stubClause makes a sentence fit inside another: no final stop, first
// letter lower-cased unless it starts an acronym.
func stubClause(s string) string {
	s = strings.TrimRight(strings.TrimSpace(s), ".!;:")
	if len(s) > 1 && !(s[1] >= 'A' && s[1] <= 'Z') {
		s = stubtext.LowerFirst(s)
	}
	return s
}

// stubVars reads a scored round's prompt.
func stubVars(c *llm.StubCall) (side string, vars map[string]string) {
	side = strings.ToLower(c.Field("role"))
	if side != "challenger" {
		side = "advocate"
	}
	cat := c.Field("category")
	if cat == "" {
		cat = "this category"
	}
	evidence := stubTagLines(c, "evidence")
	challenges := stubTagLines(c, "challenges")
	vars = map[string]string{
		"P":    stubProposition(c, 80, "the idea"),
		"cat":  cat,
		"pos":  stubClause(c.Field(side + "'s position")),
		"opp":  "challenger",
		"ev":   "the thin evaluation record",
		"ev2":  "",
		"chal": "the problem may matter to fewer people than the pitch assumes",
	}
	if side == "challenger" {
		vars["opp"] = "advocate"
	}
	if vars["pos"] == "" {
		vars["pos"] = "my side of this round holds up"
	}
	if len(evidence) > 0 {
		picked := c.PickN(evidence, 2)
		quote := func(s string) string { return `"` + strings.TrimRight(stubtext.Shorten(s, 160), ".") + `"` }
		vars["ev"] = quote(picked[0])
		if len(picked) > 1 {
			vars["ev2"] = quote(picked[1])
		}
	}
	if len(challenges) > 0 {
		ch := c.Pick(challenges)
		if i := strings.IndexByte(ch, ']'); strings.HasPrefix(ch, "[") && i > 0 {
			ch = strings.TrimSpace(ch[i+1:])
		}
		vars["chal"] = stubClause(stubtext.Shorten(ch, 160))
	}
	return side, vars
}

func writeStubArgument(c *llm.StubCall) string {
	side, vars := stubVars(c)
	if !stubRetried(c) && c.Roll("thin argument") < 0.05 {
		return "The evidence speaks for itself."
	}
	var p1, p2 []string
	if side == "advocate" {
		p1 = []string{
			stubtext.Expand(c.Pick([]string{
				"On {cat}, my position is plain: {pos}.",
				"Let me make the case on {cat}: {pos}.",
				"When it comes to {cat}, the record supports one conclusion: {pos}.",
			}), vars),
			stubtext.Expand(c.Pick([]string{
				"The evaluation evidence backs this directly: {ev}.",
				"Look at what the evaluation found: {ev}.",
				"Start with the evidence, which records {ev}.",
			}), vars),
			stubIf(vars["ev2"] != "", stubtext.Expand(c.Pick([]string{
				"It also notes {ev2}, which points the same way.",
				"Add to that {ev2}, and the picture is consistent.",
			}), vars)),
			c.Pick([]string{
				"Those are not anecdotes; they describe a pattern that a real product can build on.",
				"Taken together, they show demand that exists before anyone has marketed to it.",
				"That is exactly the kind of signal a score in this category should reward.",
			}),
		}
		p2 = []string{
			stubtext.Expand(c.Pick([]string{
				"The strongest objection is that {chal}.",
				"The red team will say that {chal}, and that deserves an answer.",
			}), vars),
			c.Pick([]string{
				"But the evidence already accounts for that risk: the people it describes are not hypothetical, and the cost of the status quo is paid today.",
				"That risk is real but bounded, and nothing in the evaluation suggests it is fatal; it is a reason to focus the launch, not to abandon the idea.",
			}),
		}
	} else {
		p1 = []string{
			stubtext.Expand(c.Pick([]string{
				"On {cat}, I take the opposite view: {pos}.",
				"Here is the red team's case on {cat}: {pos}.",
				"On {cat}, the optimism outruns the evidence, because {pos}.",
			}), vars),
			stubtext.Expand(c.Pick([]string{
				"The challenge nobody has answered is that {chal}.",
				"Start with the red team's challenge: {chal}.",
			}), vars),
			stubtext.Expand(c.Pick([]string{
				"The evaluation cites {ev}, but that is a weaker claim than it sounds once you ask who was asked and how.",
				"Yes, the evidence notes {ev}; it does not show that anyone will change what they do, or pay, because of it.",
			}), vars),
			c.Pick([]string{
				"Interest in a survey is not commitment, and commitment is what this category should measure.",
				"A score that rewards enthusiasm rather than behaviour will mislead everyone who relies on it.",
			}),
		}
		p2 = []string{
			c.Pick([]string{
				"The advocate will answer that the signal is early and will grow.",
				"The obvious reply is that every new idea starts with thin evidence.",
			}),
			c.Pick([]string{
				"Perhaps, but a score should reflect what is known now, and what is known now leaves the central risk untested.",
				"That is a reason for humility, not for a higher score: until the risk is tested, the cautious reading is the honest one.",
			}),
		}
	}
	return stubtext.Join(p1, p2)
}

func writeStubRebuttal(c *llm.StubCall) string {
	side, vars := stubVars(c)
	arg, _ := c.Tag("argument")
	vars["claim"] = strings.ReplaceAll(stubtext.Snippet(stubtext.FromSecondSentence(arg), 110), `"`, "'")
	if vars["claim"] == "" {
		vars["claim"] = "the other side has made its case"
	}
	p := []string{
		stubtext.Expand(c.Pick([]string{
			`The {opp} opened with "{claim}", and I want to take that seriously.`,
			`Let me answer the {opp} directly, starting from "{claim}".`,
		}), vars),
		c.Pick([]string{
			"Part of that point is fair, and I concede it: the evidence is not complete, and no honest reading says otherwise.",
			"There is something right in that, and I grant it: one piece of evidence rarely settles a category on its own.",
		}),
	}
	if side == "advocate" {
		p = append(p,
			stubtext.Expand("But that case skips the evidence that matters most: {ev}.", vars),
			c.Pick([]string{
				"A challenge that ignores what the evaluation actually found is a worry, not a refutation.",
				"Worries about scale or adoption are reasons to plan carefully, not reasons to lower the score.",
			}),
			stubtext.Expand("So my position stands: {pos}.", vars))
	} else {
		p = append(p,
			stubtext.Expand("But the argument leans on one finding, {ev}, and asks it to carry far more weight than it can.", vars),
			stubtext.Expand("Meanwhile the challenge that {chal} is still unanswered.", vars),
			stubtext.Expand("So my position stands: {pos}.", vars))
	}
	return stubtext.Join(p)
}

type stubVerdict struct {
	Winner     string   `json:"winner"`
	Reasoning  string   `json:"reasoning"`
	KeyPoints  []string `json:"keyPoints"`
	Confidence float64  `json:"confidence"`
}

func writeStubVerdict(c *llm.StubCall) string {
	_, vars := stubVars(c)
	v := stubVerdict{Confidence: float64(55+c.Intn(36)) / 100}
	switch r := c.Roll("winner"); {
	case r < 0.45:
		v.Winner = "advocate"
		v.Reasoning = stubtext.Expand("The advocate tied each claim about {cat} to the evaluation evidence and answered the red-team challenge directly; the challenger's objection remained plausible but untested.", vars)
	case r < 0.85:
		v.Winner = "challenger"
		v.Reasoning = stubtext.Expand("The challenger showed that the evidence on {cat} supports a weaker claim than the advocate made, and the advocate's rebuttal did not answer the central challenge.", vars)
	default:
		v.Winner = "draw"
		v.Reasoning = stubtext.Expand("Both sides argued from the evidence on {cat} and each conceded a fair point; neither showed the other's central claim to be wrong.", vars)
	}
	v.KeyPoints = []string{
		stubtext.Expand("Evidence weighed: {ev}", vars),
		stubtext.Expand("Open challenge: {chal}", vars),
	}
	if !stubRetried(c) && c.Roll("invalid verdict") < 0.15 {
		switch c.Intn(3) {
		case 0:
			v.KeyPoints = []string{" "} // in the schema's shape, and still no point
		case 1:
			v.KeyPoints = []string{"  ", " "}
		default:
			v.Reasoning = " "
		}
	}
	return stubtext.JSON(v)
}

// stubIf returns s when ok, else "" (which stubJoin drops).
func stubIf(ok bool, s string) string {
	if ok {
		return s
	}
	return ""
}
