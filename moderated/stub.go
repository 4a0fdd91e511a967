package moderated

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/duelogic/duelogic/catalog"
	"github.com/duelogic/duelogic/internal/stubtext"
	"github.com/duelogic/duelogic/internal/stubvoice"
	"github.com/duelogic/duelogic/llm"
)

// The offline stub model's answers (llm.Stub) to this package's requests,
// written from the prompts of prompt.go: the moderator's analysis, judgments
// and synthesis, and the debaters' arguments and rebuttals in the voices of
// the catalog's perspectives.
func init() {
	llm.RegisterStub(PurposeClarity, writeStubClarity)
	llm.RegisterStub(PurposeAnalysis, writeStubAnalysis)
	llm.RegisterStub(PurposeArgument, writeStubArgument)
	llm.RegisterStub(PurposeRebuttal, writeStubRebuttal)
	llm.RegisterStub(PurposeJudgment, writeStubJudgment)
	llm.RegisterStub(PurposeSynthesis, writeStubSynthesis)
}

// stubVoices are the stub's voices for the built-in catalog's entries.
var stubVoices = func() *stubvoice.Set {
	var es []stubvoice.Entry
	for _, f := range catalog.DefaultCatalog().All() {
		es = append(es, stubvoice.Entry{ID: string(f.ID), Name: f.Name, Perspective: f.Kind == catalog.KindPerspective})
	}
	return stubvoice.NewSet(es)
}()

// stubRetried reports whether the request asks again after an unusable
// reply; the stub then answers properly.
func stubRetried(c *llm.StubCall) bool { return strings.Contains(c.LastUser(), retryMarker) }

// stubProposition returns the debated proposition of the prompt, shortened to
// about limit characters and quoted, or fallback when the prompt has none.
func stubProposition(c *llm.StubCall, limit int, fallback string) string {
	p, _ := c.Tag("proposition")
	return stubtext.Quote(p, limit, fallback)
}

// stubRound reads "Round: N of at most M", or 1.
func stubRound(c *llm.StubCall) int {
	f := strings.Fields(c.Field("round"))
	if len(f) > 0 {
		if n, err := strconv.Atoi(f[0]); err == nil && n > 0 {
			return n
		}
	}
	return 1
}

// stubEntry is one "[Name — kind]" entry of a moderated transcript.
type stubEntry struct{ name, kind, text string }

// stubEntries reads every transcript entry of text, in order.
func stubEntries(text string) []stubEntry {
	var out []stubEntry
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") && strings.Contains(t, " — ") {
			name, kind, _ := strings.Cut(t[1:len(t)-1], " — ")
			out = append(out, stubEntry{name: name, kind: kind})
			continue
		}
		if len(out) > 0 && t != "" && !strings.HasPrefix(t, "</") && !strings.HasPrefix(t, "<") {
			e := &out[len(out)-1]
			e.text = strings.TrimSpace(e.text + " " + t)
		}
	}
	return out
}

// stubSentenceEnd ends a sentence: its punctuation, then a space.
var stubSentenceEnd = regexp.MustCompile(`[.!?]\s+`)

// stubQuotable is the sentence of a debater's text that a rebuttal quotes:
// the first after its first that quotes nothing itself (a quotation inside
// a quotation would be cut at its own punctuation), else the text from its
// second sentence on.
func stubQuotable(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	var sentences []string
	for len(text) > 0 {
		loc := stubSentenceEnd.FindStringIndex(text)
		if loc == nil {
			sentences = append(sentences, text)
			break
		}
		sentences = append(sentences, text[:loc[0]+1])
		text = text[loc[1]:]
	}
	for i, s := range sentences {
		if i > 0 && !strings.ContainsAny(s, `"“”`) {
			return s
		}
	}
	return stubtext.FromSecondSentence(strings.Join(sentences, " "))
}

// stubKeywordPerspectives are the perspectives the stub moderator suggests
// for words of a question.
var stubKeywordPerspectives = []struct{ words, name string }{
	{"cache caching latency fast speed performance throughput scale real-time", "Performance Advocate"},
	{"auth authentication security secure encrypt password compliance privacy", "Security Advocate"},
	{"user users ui ux frontend customer onboarding mobile", "User Experience"},
	{"deploy deployment ops monitoring debugging kubernetes on-call database postgresql postgres", "Operational Simplicity"},
	{"schema plugin extensible api graphql rest future migration microservices", "Future Flexibility"},
	{"simple simplicity maintain maintainable team ship quickly deadline mvp", "Simplicity Advocate"},
}

func stubHasWord(text string, words string) bool { return stubWordCount(text, words) > 0 }

// stubWordCount is how many of words text uses.
func stubWordCount(text string, words string) int {
	lower := " " + strings.Join(strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-')
	}), " ") + " "
	n := 0
	for _, w := range strings.Fields(words) {
		if strings.Contains(lower, " "+w+" ") {
			n++
		}
	}
	return n
}

// stubVagueWords: a question (with its background) of fewer words than
// this is too vague for the stub moderator.
const stubVagueWords = 5

type stubClarity struct {
	Vague      bool   `json:"vague"`
	Question   string `json:"question"`
	Assumption string `json:"assumption"`
}

// writeStubClarity finds a question vague, deterministically, when it and
// its background are very short ("Which database?"): then it asks what is
// being decided and assumes a choice between the common options.
func writeStubClarity(c *llm.StubCall) string {
	p, _ := c.Tag("proposition")
	bg, _ := c.Tag("context")
	if len(strings.Fields(p+" "+bg)) >= stubVagueWords {
		return stubtext.JSON(stubClarity{})
	}
	q := stubtext.Quote(p, 60, "the question")
	return stubtext.JSON(stubClarity{
		Vague:      true,
		Question:   "What exactly is being decided in " + q + ": which options are on the table, and what matters most to you (speed, cost, safety, ease of running it)?",
		Assumption: "a choice between the common options for " + q + ", judged on cost, risk and the effort to run it",
	})
}

type stubAnalysis struct {
	Domain       string   `json:"domain"`
	Constraints  []string `json:"constraints"`
	Debaters     int      `json:"debaters"`
	Perspectives []string `json:"perspectives"`
}

// writeStubAnalysis suggests perspectives by the question's words.
// Now and then it asks for too many debaters (7), suggests two perspectives
// on the same side of the trade-offs, names one the catalog lacks, or
// (asked without a schema, as an unconstrained model) answers in prose
// first, so the format's clamping, balancing and asking again get
// exercised.
func writeStubAnalysis(c *llm.StubCall) string {
	if !stubRetried(c) && len(c.Request().Schema) == 0 && c.Roll("prose analysis") < 0.08 {
		// Only unconstrained: a server given the schema answers in shape.
		return "Let me think about this question before assigning anyone."
	}
	q, _ := c.Tag("proposition")
	if answer, ok := c.Tag("clarification"); ok {
		q += "\n" + answer
	}
	a := stubAnalysis{Domain: "architecture", Constraints: []string{}, Debaters: 3}
	// The domain whose words the question uses most; ties in this order.
	hits := 0
	for _, d := range []struct{ words, domain string }{
		{"auth authentication security encrypt password compliance privacy", "security"},
		{"user users ui ux frontend onboarding", "ux"},
		{"database cache caching schema postgresql postgres redis data", "data"},
		{"deploy deployment monitoring kubernetes on-call", "operations"},
	} {
		if n := stubWordCount(q, d.words); n > hits {
			a.Domain, hits = d.domain, n
		}
	}
	if stubHasWord(q, "or vs versus") {
		a.Debaters = 2
	}
	if c.Roll("too many debaters") < 0.1 {
		a.Debaters = 7
	}
	if stubHasWord(q, "quickly deadline mvp") || strings.Contains(strings.ToLower(q), "ship fast") {
		a.Constraints = append(a.Constraints, "The team needs to ship fast, so simplicity weighs more")
	}
	if stubHasWord(q, "team") {
		a.Constraints = append(a.Constraints, "The team's existing experience matters")
	}
	for _, k := range stubKeywordPerspectives {
		if stubHasWord(q, k.words) {
			a.Perspectives = append(a.Perspectives, k.name)
		}
	}
	switch r := c.Roll("suggestion quirk"); {
	case r < 0.15:
		a.Perspectives = []string{"Performance Advocate", "User Experience"}
	case r < 0.25:
		a.Perspectives = append([]string{"Chaos Engineer"}, a.Perspectives...)
	}
	if len(a.Perspectives) == 0 {
		a.Perspectives = c.PickN([]string{"Performance Advocate", "Simplicity Advocate", "Future Flexibility", "Operational Simplicity"}, 3)
	}
	return stubtext.JSON(a)
}

// stubMe is the voice of the perspective a debater's prompt names.
func stubMe(c *llm.StubCall) *stubvoice.Voice {
	return stubVoices.For(c.Field("perspective"))
}

// writeStubArgument argues from the prompt's perspective. In a later
// round it sometimes (20%) repeats its previous argument nearly word for
// word, and rarely (4%) wanders off topic, so that repetition detection and
// redirection have something to catch.
func writeStubArgument(c *llm.StubCall) string {
	me := stubMe(c)
	prev, hasPrev := c.Tag("previous")
	if hasPrev && prev != "" && c.Roll("repeat") < 0.2 {
		return prev + " I stand by every word of that."
	}
	vars := map[string]string{
		"P":     stubProposition(c, 90, "the decision in front of us"),
		"name":  me.Name,
		"label": me.Label,
		"q":     me.Question,
		"v":     c.Pick(me.Values),
		"blind": c.Pick(me.Blind),
	}
	if c.Roll("off topic") < 0.04 {
		return stubtext.Join([]string{
			stubtext.Expand("Before we go further I want to make a broader point about how this organisation makes decisions, which matters more to me than {P}.", vars),
			"Teams that argue about tools are usually arguing about trust, about who gets to decide and who has to live with the result.",
			"Until we fix how decisions get made and reviewed, any technical choice we make here will be relitigated in six months, whichever way it goes.",
		}, []string{
			"So rather than weigh the options, I would like us to talk about the review process, the ownership model, and the way incidents are followed up.",
			"None of that depends on which option wins today; it depends on whether the people who live with the result had a say in it.",
			"I would rather spend this round on that than on benchmarks or dependency counts, because otherwise the same argument comes back next quarter.",
		})
	}
	others := stubtext.SplitList(c.Field("other perspectives in the debate"))
	oppName := "the other side"
	opp := &stubvoice.Voice{Grants: []string{"there is a real cost on the other side that my own view can underrate"}}
	if len(others) > 0 {
		oppName = c.Pick(others)
		opp = stubVoices.For(oppName)
	}
	vars["opp"] = oppName
	vars["grant"] = c.Pick(opp.Grants)
	vars["critique"] = c.Pick(me.Critique)
	claims := c.PickN(me.Claims, 2)
	p1 := []string{
		stubtext.Expand(c.Pick([]string{
			"I come to {P} as the {name} perspective, and one question comes first: {q}",
			"From the {label} side, {P} turns on {v}.",
			"Speaking for {v}, here is how I see {P}.",
		}), vars),
		stubtext.Expand(claims[0], vars),
		stubtext.Expand(claims[1], vars),
	}
	if stubRound(c) > 1 {
		p1 = append([]string{c.Pick([]string{
			"Building on the last round, I want to sharpen my case rather than repeat it.",
			"The last round moved things forward, so let me take it one step further.",
		})}, p1...)
	}
	if g, ok := c.Tag("guidance"); ok && g != "" {
		vars["g"] = stubtext.Shorten(g, 80)
		p1 = append(p1, stubtext.Expand("We were asked to consider this: \"{g}\", and it strengthens the case for {v}.", vars))
	}
	p2 := []string{
		stubtext.Expand(c.Pick([]string{
			"{Opp} makes a fair point that {grant}.",
			"I grant {opp} this much: {grant}.",
		}), vars),
		stubtext.Expand(c.Pick([]string{"But {critique}.", "Still, {critique}."}), vars),
		stubtext.Expand(c.Pick([]string{
			"The trade-off I accept is real: {blind}.",
			"I will be honest about the cost of my position: {blind}.",
		}), vars),
	}
	// The prompt asks for 120-220 words: a recommendation closes the
	// argument.
	vars["take"] = me.Takeaway
	p3 := []string{
		stubtext.Expand(c.Pick([]string{
			"So my recommendation is to choose the option that protects {v}, in the smallest version that works, and to measure it before building further.",
			"My recommendation follows from that: protect {v} first, start small, and let real measurements decide the next step.",
		}), vars),
		stubtext.Expand(c.Pick([]string{
			"The reason fits in one line: {take}.",
			"Put plainly, {take}, and a decision that forgets it will be revisited soon.",
		}), vars),
	}
	return stubtext.Join(p1, p2, p3)
}

// writeStubRebuttal answers another perspective's argument from the
// round; the later the round, the likelier it comes round to agreement.
func writeStubRebuttal(c *llm.StubCall) string {
	me := stubMe(c)
	var others []stubEntry
	for _, e := range stubEntries(c.LastUser()) {
		if e.kind == "argument" && stubvoice.Key(e.name) != stubvoice.Key(me.Name) {
			others = append(others, e)
		}
	}
	target := stubEntry{name: "the other side", text: ""}
	if len(others) > 0 {
		target = others[c.Intn(len(others))]
	}
	opp := stubVoices.For(target.name)
	vars := map[string]string{
		"P":        stubProposition(c, 90, "the decision in front of us"),
		"opp":      target.name,
		"claim":    strings.ReplaceAll(stubtext.Snippet(stubQuotable(target.text), 100), `"`, "'"),
		"grant":    c.Pick(opp.Grants),
		"critique": c.Pick(me.Critique),
		"v":        c.Pick(me.Values),
		"take":     opp.Takeaway,
		"blind":    c.Pick(me.Blind),
	}
	if vars["claim"] == "" {
		vars["claim"] = "their case"
	}
	p := []string{
		stubtext.Expand(c.Pick([]string{
			`To {opp}: you argued "{claim}", and I take that seriously.`,
			`Let me answer {opp}, who said "{claim}".`,
		}), vars),
		stubtext.Expand("Where we agree: {grant}.", vars),
		stubtext.Expand("Where we disagree: {critique}.", vars),
	}
	// The prompt asks for 120-220 words: the response goes on to the
	// recommendation, and what would change it.
	var p2 []string
	if c.Roll("agree") < 0.15*float64(stubRound(c)) {
		p2 = []string{
			stubtext.Expand("On the recommendation itself, though, I now agree with {opp}: {take}, and I can live with that as long as {v} is protected.", vars),
			stubtext.Expand("I still want {v} written into the plan as an explicit checkpoint, so that we notice early if this agreement was premature.", vars),
		}
	} else {
		p2 = []string{
			stubtext.Expand("So my recommendation stands, because it is the only one of the options on the table that keeps {v} intact.", vars),
			stubtext.Expand(c.Pick([]string{
				"What would change my mind is evidence that {v} is not really at stake in {P}, and I have not seen it yet.",
				"I would change my position if someone showed that {v} is not really at stake in {P}; nobody has so far.",
			}), vars),
		}
	}
	p2 = append(p2,
		stubtext.Expand("I know the cost on my side, since {blind}, and I would rather name it here than have it discovered later.", vars),
		"Either way, the decision should say which trade-off it accepts instead of pretending there is none.")
	return stubtext.Join(p, p2)
}

type stubJudgment struct {
	Converging  bool     `json:"converging"`
	Stagnating  bool     `json:"stagnating"`
	NewGround   bool     `json:"newGround"`
	ClearWinner string   `json:"clearWinner"`
	OffTopic    []string `json:"offTopic"`
	Summary     string   `json:"summary"`
}

// writeStubJudgment converges with a likelihood that grows with the
// round, flags the stub's off-topic arguments, sees stagnation when the
// prompt reports repetition, and now and then answers without a summary.
func writeStubJudgment(c *llm.StubCall) string {
	names := stubtext.SplitList(c.Field("perspectives"))
	round := stubRound(c)
	j := stubJudgment{OffTopic: []string{}}
	odds := []float64{0.12, 0.3, 0.45, 0.6, 0.75}
	j.Converging = c.Roll("converge") < odds[min(round, len(odds))-1]
	j.Stagnating = strings.Count(c.Prompt(), "(repeats)") >= 2 && c.Roll("stagnate") < 0.6
	j.NewGround = !j.Stagnating
	if !j.Converging && len(names) > 0 && c.Roll("clear winner") < 0.05 {
		j.ClearWinner = names[0]
	}
	for _, e := range stubEntries(c.LastUser()) {
		if strings.Contains(e.text, "broader point about") && !slices.Contains(j.OffTopic, e.name) {
			j.OffTopic = append(j.OffTopic, e.name)
		}
	}
	a, b := "the perspectives", "each other"
	if len(names) >= 2 {
		pair := c.PickN(names, 2)
		a, b = pair[0], pair[1]
	}
	va := stubVoices.For(a)
	vb := stubVoices.For(b)
	vars := map[string]string{"A": a, "B": b, "va": c.Pick(va.Values), "vb": c.Pick(vb.Values)}
	switch {
	case j.Converging:
		j.Summary = stubtext.Expand("{A} and {B} now point to the same recommendation: they accept that {va} and {vb} can both be served if the first step stays small. The remaining differences are about sequencing, not direction.", vars)
	case j.Stagnating:
		j.Summary = stubtext.Expand("The round went over familiar ground: {A} restated the case for {va} and {B} the case for {vb}, with little new evidence on either side. Another round like it would not move the decision.", vars)
	default:
		j.Summary = stubtext.Expand("{A} pressed the case for {va} while {B} held out for {vb}. They agree on the goal but not on which cost to pay first; the open question is how much {vb} matters in this team's context.", vars)
	}
	if !stubRetried(c) && c.Roll("invalid judgment") < 0.08 {
		j.Summary = " " // in the schema's shape, and still no summary
	}
	return stubtext.JSON(j)
}

type stubPerspectiveSummary struct {
	Name              string   `json:"name"`
	KeyArguments      []string `json:"keyArguments"`
	TradeOffsAccepted []string `json:"tradeOffsAccepted"`
}

type stubSynthesis struct {
	Title          string                   `json:"title"`
	Perspectives   []stubPerspectiveSummary `json:"perspectives"`
	Agreement      []string                 `json:"agreement"`
	Tensions       []string                 `json:"tensions"`
	Recommendation string                   `json:"recommendation"`
	Confidence     string                   `json:"confidence"`
	Caveats        []string                 `json:"caveats"`
	Dissent        string                   `json:"dissent"`
}

// writeStubSynthesis writes the synthesis from the perspectives the
// prompt lists, its confidence following how the debate ended.
func writeStubSynthesis(c *llm.StubCall) string {
	names := stubtext.SplitList(c.Field("perspectives"))
	ended := c.Field("ended")
	prop := stubProposition(c, 90, "the decision")
	s := stubSynthesis{Title: strings.Trim(prop, `"`)}
	var voices []*stubvoice.Voice
	for _, n := range names {
		v := stubVoices.For(n)
		voices = append(voices, v)
		s.Perspectives = append(s.Perspectives, stubPerspectiveSummary{
			Name:              n,
			KeyArguments:      []string{stubtext.UpperFirst(v.Takeaway), stubtext.Expand(c.Pick(v.Claims), map[string]string{"P": prop})},
			TradeOffsAccepted: []string{stubtext.UpperFirst(c.Pick(v.Blind))},
		})
	}
	s.Agreement = []string{
		"All perspectives agreed that the first step should be small and reversible.",
		"Common ground on measuring the result before committing further.",
	}
	for i := 0; i+1 < len(voices); i++ {
		s.Tensions = append(s.Tensions, stubtext.UpperFirst(voices[i].Label)+" vs "+voices[i+1].Label+" on "+c.Pick(voices[i].Values)+".")
	}
	// Asked to revise a synthesis the people rejected, the stub moderator
	// takes the next perspective's path, and says why in a caveat.
	reason, revising := c.Tag("rejection")
	lead := 0
	if revising && len(voices) > 1 {
		lead = 1
	}
	if len(voices) > 0 {
		s.Recommendation = stubtext.Expand("Take the path the {name} perspective argued for, in its smallest form, and keep the concerns of the others as explicit checkpoints: {take}.",
			map[string]string{"name": voices[lead].Name, "take": voices[lead].Takeaway})
	} else {
		s.Recommendation = "Take the smallest reversible step and revisit the decision with data."
	}
	switch ended {
	case "agreement", "clear_winner":
		s.Confidence = "High"
	case "max_rounds":
		s.Confidence = "Low"
	default:
		s.Confidence = "Medium"
	}
	s.Caveats = []string{"Revisit if the load or the team changes substantially."}
	if revising {
		why := "the people who asked gave no reason"
		if reason != "" && reason != "(no reason given)" {
			why = "the people who asked said: " + stubtext.Quote(reason, 120, "their reason")
		}
		change := "the recommendation now leads with the other side's concern"
		if lead == 0 {
			change = "the recommendation stands, with their reason as a caveat"
		}
		s.Caveats = append(s.Caveats, "Revised after the first synthesis was rejected, because "+why+"; "+change+".")
	}
	if ended != "agreement" && len(voices) > 1 {
		s.Dissent = stubtext.Expand("The {name} perspective still holds that {crit}.", map[string]string{"name": voices[len(voices)-1].Name, "crit": c.Pick(voices[len(voices)-1].Critique)})
	}
	if !stubRetried(c) && c.Roll("invalid synthesis") < 0.05 {
		s.Recommendation = " " // in the schema's shape, and still no recommendation
	}
	return stubtext.JSON(s)
}
