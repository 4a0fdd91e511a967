package duelogic

import (
	"math"
	"regexp"
	"strings"
	"unicode"

	"github.com/duelogic/duelogic/internal/stubtext"
	"github.com/duelogic/duelogic/llm"
)

// The arbiter's JSON judgements: "evaluation", "interrupt_check".
func init() {
	llm.RegisterStub(PurposeEvaluation, writeStubEvaluation)
	llm.RegisterStub(PurposeInterruptCheck, writeStubInterruptCheck)
}

// stubUnderReview returns the text a judgement is about: the <response> block,
// else the last user message.
func stubUnderReview(c *llm.StubCall) string {
	if r, ok := c.Tag("response"); ok {
		return r
	}
	return c.LastUser()
}

func stubContainsAny(text string, phrases []string) bool {
	text = strings.ToLower(text)
	for _, p := range phrases {
		if strings.Contains(text, p) {
			return true
		}
	}
	return false
}

// The reply to "evaluation": the seed's ResponseEvaluation.
type stubMandate struct {
	Attempted bool   `json:"attempted"`
	Quality   string `json:"quality"`
	Notes     string `json:"notes"`
}

type stubEvaluation struct {
	CritiquesOpponent    bool        `json:"critiquesOpponent"`
	Substantive          bool        `json:"substantive"`
	AdherenceScore       int         `json:"adherenceScore"`
	SteelManning         stubMandate `json:"steelManning"`
	SelfCritique         stubMandate `json:"selfCritique"`
	FrameworkConsistency struct {
		Consistent bool     `json:"consistent"`
		Violations []string `json:"violations"`
	} `json:"frameworkConsistency"`
	IntellectualHonesty struct {
		Score  string   `json:"score"`
		Issues []string `json:"issues"`
	} `json:"intellectualHonesty"`
	RequiresInterjection bool   `json:"requiresInterjection"`
	InterjectionReason   string `json:"interjectionReason"`
}

// stubSubstantiveWords is the fewest words of a response the stub's
// "evaluation" calls substantive.
const stubSubstantiveWords = 60

// stubCutNote is how an evaluation prompt says the response was cut off:
// [CutNote] up to the interrupter's name.
var stubCutNote, _, _ = strings.Cut(CutNote, "%s")

// writeStubEvaluation judges the response by the phrases the stub's chairs use:
// it critiques an opponent exactly when it has a critique phrase, and is
// substantive when it has at least stubSubstantiveWords words (a response cut
// off early is not); steel-manning and self-critique are "absent" exactly
// when their phrases are missing, and their absence is a violation only where
// they are owed (a critique, a substantive response; no self-critique is
// owed by a response the prompt says was cut off, see [CutNote]). Now and
// then (5% each) it also finds framework drift or evasion.
func writeStubEvaluation(c *llm.StubCall) string {
	text := stubUnderReview(c)
	critiques := stubContainsAny(text, stubCritiquePhrases)
	substantive := stubtext.Words(text) >= stubSubstantiveWords
	cut := strings.Contains(c.Prompt(), stubCutNote)
	steel := stubContainsAny(text, stubSteelPhrases)
	self := stubContainsAny(text, stubBlindPhrases)
	drift := c.Roll("framework drift") < 0.05
	evasion := c.Roll("evasion") < 0.05

	e := stubEvaluation{CritiquesOpponent: critiques, Substantive: substantive}
	score := 84 + c.Intn(13)
	var reasons []string
	mandate := func(present bool, label string, strong, adequate, absent string) stubMandate {
		switch {
		case !present:
			return stubMandate{Quality: "absent", Notes: absent}
		case c.Roll(label) < 0.6:
			return stubMandate{Attempted: true, Quality: "strong", Notes: strong}
		default:
			score -= 5
			return stubMandate{Attempted: true, Quality: "adequate", Notes: adequate}
		}
	}
	e.SteelManning = mandate(steel, "steel-manning quality",
		"Stated the opposing view in terms its own advocates would accept before critiquing it.",
		"Acknowledged the opposing view, though the restatement was brief.",
		"Critiqued the opposing view without first stating it at its best.")
	absentSelf := "Did not acknowledge any limitation of its own framework."
	if cut {
		absentSelf = "Cut off before any acknowledgement of its own framework's limits; not counted against it."
	}
	e.SelfCritique = mandate(self, "self-critique quality",
		"Named a concrete weakness of its own framework and engaged with it.",
		"Mentioned a limitation of its own framework without exploring it.",
		absentSelf)
	e.FrameworkConsistency.Consistent = !drift
	e.FrameworkConsistency.Violations = []string{}
	e.IntellectualHonesty.Issues = []string{}
	if !steel && critiques {
		score -= 30
		reasons = append(reasons, "Steel-manning absent: the chair critiqued an opponent without stating the strongest form of their position.")
		e.IntellectualHonesty.Issues = append(e.IntellectualHonesty.Issues, "Engaged a weaker version of the opposing argument.")
	}
	if !self && substantive && !cut {
		score -= 25
		reasons = append(reasons, "Self-critique absent: the chair did not acknowledge any weakness of its own framework.")
	}
	if drift {
		score -= 15
		reasons = append(reasons, "Framework inconsistency: the central argument came from outside the assigned framework.")
		e.FrameworkConsistency.Violations = append(e.FrameworkConsistency.Violations, "Leaned on reasoning from outside its assigned framework to make its central point.")
	}
	if evasion {
		score -= 10
		reasons = append(reasons, "Evasion: a direct challenge from an opponent went unanswered.")
		e.IntellectualHonesty.Issues = append(e.IntellectualHonesty.Issues, "Sidestepped a direct challenge from an opponent.")
	}
	switch len(e.IntellectualHonesty.Issues) {
	case 0:
		e.IntellectualHonesty.Score = "high"
	case 1:
		e.IntellectualHonesty.Score = "medium"
	default:
		e.IntellectualHonesty.Score = "low"
	}
	e.AdherenceScore = min(max(score, 0), 100)
	e.RequiresInterjection = len(reasons) > 0
	e.InterjectionReason = strings.Join(reasons, " ")
	return stubtext.JSON(e)
}

// The reply to "interrupt_check".
type stubInterrupt struct {
	ShouldInterrupt           bool    `json:"shouldInterrupt"`
	InterruptingChairPosition *string `json:"interruptingChairPosition"`
	Reason                    string  `json:"reason"`
	TriggerContent            string  `json:"triggerContent"`
	Urgency                   float64 `json:"urgency"`
	SuggestedOpener           string  `json:"suggestedOpener"`
}

// stubOpeners are the suggested openers for each interruption reason, in the
// seed's order of reasons.
var stubOpeners = []struct {
	reason  string
	openers []string
}{
	{"factual_correction", []string{"Hold on, that's not quite right—", "Let me correct the record—", "That misstates what my framework holds—"}},
	{"straw_man_detected", []string{"Wait, that's not my actual position—", "Nobody on my side argues that—", "You're answering a weaker argument—"}},
	{"direct_challenge", []string{"I have to push back there—", "I can't let that pass—", "No, and here is why—"}},
	{"clarification_needed", []string{"Can you unpack that claim—", "Help me understand that step—", "What exactly do you mean—"}},
	{"strong_agreement", []string{"Yes, and this matters—", "Exactly, let me build on that—", "That's the key insight here—"}},
	{"pivotal_point", []string{"This is our real disagreement—", "Here is the crux—", "Let's not rush past this—"}},
}

// writeStubInterruptCheck asks for an interruption in about a quarter of the
// checks (half, as a straw-man call, when the response does not steel-man),
// by one of the chairs listed under "Other chairs who could interrupt:".
func writeStubInterruptCheck(c *llm.StubCall) string {
	text := stubUnderReview(c)
	candidates := stubInterrupters(c)
	steel := stubContainsAny(text, stubSteelPhrases)

	chance := 0.25
	reason := stubOpeners[c.Intn(len(stubOpeners))]
	if !steel {
		chance = 0.5
		reason = stubOpeners[1]
	}
	out := stubInterrupt{
		Reason:          reason.reason,
		TriggerContent:  stubPhrase(c, text),
		SuggestedOpener: c.Pick(reason.openers),
	}
	if len(candidates) > 0 && c.Roll("interrupt") < chance {
		pos := candidates[c.Intn(len(candidates))].position
		out.ShouldInterrupt = true
		out.InterruptingChairPosition = &pos
		out.Urgency = 0.72 + 0.23*c.Roll("urgency")
	} else {
		out.Urgency = 0.45 * c.Roll("urgency")
	}
	out.Urgency = math.Round(out.Urgency*100) / 100
	return stubtext.JSON(out)
}

var stubCouldInterrupt = regexp.MustCompile(`(?i)could interrupt`)

// stubInterrupters returns the chairs, with positions, listed after the line
// "Other chairs who could interrupt:", or anywhere in the prompt if there is
// no such line.
func stubInterrupters(c *llm.StubCall) []stubChair {
	p := c.Prompt()
	if loc := stubCouldInterrupt.FindStringIndex(p); loc != nil {
		rest := p[loc[0]:]
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			var block []string
			for _, line := range strings.Split(rest[nl+1:], "\n") {
				if _, ok := parseStubChair(line); !ok && strings.TrimSpace(line) != "" {
					break
				}
				block = append(block, line)
			}
			p = strings.Join(block, "\n")
		}
	}
	var out []stubChair
	for _, ch := range stubChairs(p) {
		if ch.position != "" {
			out = append(out, ch)
		}
	}
	return out
}

// stubPhrase returns a run of four to eight words of text, cut from one of its
// sentences, so that it occurs in text exactly.
func stubPhrase(c *llm.StubCall, text string) string {
	sentences := stubSentences(text)
	if len(sentences) == 0 {
		return ""
	}
	s := sentences[c.Intn(len(sentences))]
	type span struct{ start, end int }
	var words []span
	inWord := false
	for i, r := range s {
		switch space := unicode.IsSpace(r); {
		case !space && !inWord:
			words = append(words, span{start: i})
			inWord = true
		case space && inWord:
			words[len(words)-1].end = i
			inWord = false
		}
	}
	if inWord {
		words[len(words)-1].end = len(s)
	}
	n := min(len(words), 4+c.Intn(5))
	first := c.Intn(len(words) - n + 1)
	p := s[words[first].start:words[first+n-1].end]
	return strings.TrimLeft(strings.TrimRight(p, `,;:.!?—"')`), `"'(`)
}

// stubSentences splits text into its sentences, each a trimmed substring.
func stubSentences(text string) []string {
	var out []string
	start := 0
	flush := func(end int) {
		if s := strings.TrimSpace(text[start:end]); s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			flush(i + 1)
		case '.', '?', '!':
			if i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\n' {
				flush(i + 1)
			}
		}
	}
	flush(len(text))
	return out
}
