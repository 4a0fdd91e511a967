package eval

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/duelogic/duelogic/internal/stubtext"
	"github.com/duelogic/duelogic/llm"
)

// The offline stub model (llm.Stub) is not a model: it answers the arms'
// questions by a documented rule, so that a run is reproducible offline
// and its numbers exercise the harness. They are never findings about
// debate.
//
// The stub works out the gold answer of the questions it can read — the
// arithmetic of [Arithmetic] and the claims of [Claims] — and then:
//
//   - a first answer (PurposeAnswer: the single arm, each
//     self-consistency sample, each debater in round 0) is right with
//     probability StubAccuracy, drawn from a hash of the request, so the
//     same request always gets the same answer; a wrong number is off by
//     ±1, ±2, ±5 or ±10, a wrong choice is another choice;
//   - a revision (PurposeRevise: a debater in rounds 1..R) draws a fresh
//     first answer with probability StubRethink and otherwise takes the
//     majority of its own previous answer and the others' (a tie keeps
//     its own).
//
// A question it cannot read gets a random choice, or "unknown".
//
// The arms of [FormatArms] play their formats' own stub replies, which do
// not read the question: the persuasion and claim-strength arms' answers
// on the stub come from those scripted dialogues, unrelated to the gold
// answer (about chance). The moderated arm's reading of the
// recommendation (PurposeReadRecommendation) is answered like a first
// answer: right with probability StubAccuracy, whatever the
// recommendation said.
const (
	StubAccuracy = 0.6
	StubRethink  = 0.2
)

func init() {
	llm.RegisterStub(PurposeAnswer, writeStubAnswer)
	llm.RegisterStub(PurposeRevise, writeStubAnswer)
	llm.RegisterStub(PurposeReadRecommendation, writeStubAnswer)
}

var (
	stubExpr  = regexp.MustCompile(`(\d+(?:\s*[-+*]\s*\d+)+)`)
	stubClaim = regexp.MustCompile(`(\d+(?:\s*[-+*]\s*\d+)+)\s*=\s*(-?\d+)`)
)

// stubEval evaluates a sum of products of non-negative integers: + - and *
// with the usual precedence.
func stubEval(expr string) (int, bool) {
	expr = strings.ReplaceAll(expr, " ", "")
	total, term, sign := 0, 0, 1
	num, haveNum, mul := 0, false, false
	flush := func() {
		if mul {
			term *= num
		} else {
			term = num
		}
	}
	for i := 0; i <= len(expr); i++ {
		if i < len(expr) && expr[i] >= '0' && expr[i] <= '9' {
			if num > 1e9 {
				return 0, false
			}
			num = num*10 + int(expr[i]-'0')
			haveNum = true
			continue
		}
		if !haveNum {
			return 0, false
		}
		flush()
		num, haveNum = 0, false
		if i == len(expr) || expr[i] != '*' {
			total += sign * term
			mul = false
		}
		if i == len(expr) {
			break
		}
		switch expr[i] {
		case '*':
			mul = true
		case '+':
			sign = 1
		case '-':
			sign = -1
		default:
			return 0, false
		}
	}
	return total, true
}

// stubTask is what the stub reads of a request: the question's gold
// answer (when it can work it out), the choices, and how.
type stubTask struct {
	gold    string
	choices []string
	working string // how the gold answer follows, for the reasoning
	numeric bool
}

func readStubTask(c *llm.StubCall) stubTask {
	q, _ := c.Tag("question")
	var t stubTask
	if text, ok := c.Tag("choices"); ok {
		for _, l := range strings.Split(text, "\n") {
			if l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "- ")); l != "" {
				t.choices = append(t.choices, l)
			}
		}
	}
	yesNo := slices.ContainsFunc(t.choices, func(s string) bool { return Normalize(s) == "yes" }) &&
		slices.ContainsFunc(t.choices, func(s string) bool { return Normalize(s) == "no" })
	if m := stubClaim.FindStringSubmatch(q); m != nil && yesNo {
		v, ok := stubEval(m[1])
		shown, err := strconv.Atoi(m[2])
		if ok && err == nil {
			t.gold = "no"
			if v == shown {
				t.gold = "yes"
			}
			t.working = m[1] + " = " + strconv.Itoa(v)
			t.gold = t.choiceFor(t.gold)
			return t
		}
	}
	if m := stubExpr.FindString(q); m != "" && len(t.choices) == 0 {
		if v, ok := stubEval(m); ok {
			t.gold, t.numeric = strconv.Itoa(v), true
			t.working = m + " = " + t.gold
		}
	}
	return t
}

// choiceFor returns the choice equal to s, as written.
func (t stubTask) choiceFor(s string) string {
	for _, ch := range t.choices {
		if Normalize(ch) == Normalize(s) {
			return ch
		}
	}
	return s
}

// fresh draws a first answer and its reasoning.
func (t stubTask) fresh(c *llm.StubCall) (answer, reasoning string) {
	right := c.Roll("right") < StubAccuracy
	switch {
	case t.gold == "" && len(t.choices) > 0:
		return c.Pick(t.choices), "The question is beyond this offline stub; it picks a choice at random."
	case t.gold == "":
		return "unknown", "The question is beyond this offline stub."
	case right && t.numeric:
		return t.gold, "Multiplying first: " + t.working + "."
	case right:
		return t.gold, "Multiplying first: " + t.working + ", so the answer is " + t.gold + "."
	case t.numeric:
		offs := []int{-10, -5, -2, -1, 1, 2, 5, 10}
		v, _ := strconv.Atoi(t.gold)
		wrong := strconv.Itoa(v + offs[c.Intn(len(offs))])
		return wrong, "Working left to right with a slip, the result comes to " + wrong + "."
	default:
		var others []string
		for _, ch := range t.choices {
			if Normalize(ch) != Normalize(t.gold) {
				others = append(others, ch)
			}
		}
		wrong := c.Pick(others)
		return wrong, "Working left to right with a slip, the answer comes out as " + wrong + "."
	}
}

// stubAnswers reads the "Answer: x" lines of a fenced block.
func stubAnswers(c *llm.StubCall, tag string) []string {
	text, _ := c.Tag(tag)
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if a, ok := strings.CutPrefix(strings.TrimSpace(l), "Answer: "); ok && a != "(none)" {
			out = append(out, a)
		}
	}
	return out
}

func writeStubAnswer(c *llm.StubCall) string {
	t := readStubTask(c)
	answer, reasoning := t.fresh(c)
	if c.Request().Purpose == PurposeRevise && c.Roll("rethink") >= StubRethink {
		group := append(stubAnswers(c, "your_answer"), stubAnswers(c, "other_answers")...)
		if m, _ := Majority(group); m != "" {
			answer = m
			if len(t.choices) > 0 {
				answer = t.choiceFor(m)
			}
			reasoning = "Having read the other agents' reasoning, I go with the answer most of us reached: " + answer + "."
		}
	}
	return stubtext.JSON(answerReply{Reasoning: reasoning, Answer: answer})
}
