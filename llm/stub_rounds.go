package llm

import (
	"encoding/json"
	"strconv"
	"strings"
)

// The scored debate's texts ("scored_argument", "scored_rebuttal",
// "scored_verdict") and the moderated debate's ("moderator_analysis",
// "debater_argument", "debater_rebuttal", "moderator_judgment",
// "moderator_synthesis").
func init() {
	registerStub("scored_argument", writeScoredArgument)
	registerStub("scored_rebuttal", writeScoredRebuttal)
	registerStub("scored_verdict", writeScoredVerdict)
	registerStub("moderator_analysis", writeModeratorAnalysis)
	registerStub("debater_argument", writeDebaterArgument)
	registerStub("debater_rebuttal", writeDebaterRebuttal)
	registerStub("moderator_judgment", writeModeratorJudgment)
	registerStub("moderator_synthesis", writeModeratorSynthesis)
}

// rndRetryMarker is how the scored and moderated formats tell a model that
// its last reply could not be used; the stub answers such a request properly.
const rndRetryMarker = "cannot be used"

// retried reports whether the request asks again after an unusable reply.
func (c *stubCall) rndRetried() bool { return strings.Contains(c.lastUser(), rndRetryMarker) }

// tagLines returns the lines of a fenced block, list markers removed.
func (c *stubCall) rndTagLines(name string) []string {
	text, ok := c.tag(name)
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

// rndClause makes a sentence fit inside another: no final stop, first
// letter lower-cased unless it starts an acronym.
func rndClause(s string) string {
	s = strings.TrimRight(strings.TrimSpace(s), ".!;:")
	if len(s) > 1 && !(s[1] >= 'A' && s[1] <= 'Z') {
		s = stubLowerFirst(s)
	}
	return s
}

// rndSnippet returns the first sentence of text, shortened.
func rndSnippet(text string, max int) string {
	text = strings.Join(strings.Fields(text), " ")
	if i := strings.IndexAny(text, ".!?"); i > 0 {
		text = text[:i]
	}
	return stubShorten(text, max)
}

// rndScoredVars reads a scored round's prompt.
func rndScoredVars(c *stubCall) (side string, vars map[string]string) {
	side = strings.ToLower(c.field("role"))
	if side != "challenger" {
		side = "advocate"
	}
	cat := c.field("category")
	if cat == "" {
		cat = "this category"
	}
	evidence := c.rndTagLines("evidence")
	challenges := c.rndTagLines("challenges")
	vars = map[string]string{
		"P":    c.proposition(80, "the idea"),
		"cat":  cat,
		"pos":  rndClause(c.field(side + "'s position")),
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
		picked := c.pickN(evidence, 2)
		quote := func(s string) string { return `"` + strings.TrimRight(stubShorten(s, 160), ".") + `"` }
		vars["ev"] = quote(picked[0])
		if len(picked) > 1 {
			vars["ev2"] = quote(picked[1])
		}
	}
	if len(challenges) > 0 {
		ch := c.pick(challenges)
		if i := strings.IndexByte(ch, ']'); strings.HasPrefix(ch, "[") && i > 0 {
			ch = strings.TrimSpace(ch[i+1:])
		}
		vars["chal"] = rndClause(stubShorten(ch, 160))
	}
	return side, vars
}

func writeScoredArgument(c *stubCall) string {
	side, vars := rndScoredVars(c)
	if !c.rndRetried() && c.roll("thin argument") < 0.05 {
		return "The evidence speaks for itself."
	}
	var p1, p2 []string
	if side == "advocate" {
		p1 = []string{
			stubExpand(c.pick([]string{
				"On {cat}, my position is plain: {pos}.",
				"Let me make the case on {cat}: {pos}.",
				"When it comes to {cat}, the record supports one conclusion: {pos}.",
			}), vars),
			stubExpand(c.pick([]string{
				"The evaluation evidence backs this directly: {ev}.",
				"Look at what the evaluation found: {ev}.",
				"Start with the evidence, which records {ev}.",
			}), vars),
			rndIf(vars["ev2"] != "", stubExpand(c.pick([]string{
				"It also notes {ev2}, which points the same way.",
				"Add to that {ev2}, and the picture is consistent.",
			}), vars)),
			c.pick([]string{
				"Those are not anecdotes; they describe a pattern that a real product can build on.",
				"Taken together, they show demand that exists before anyone has marketed to it.",
				"That is exactly the kind of signal a score in this category should reward.",
			}),
		}
		p2 = []string{
			stubExpand(c.pick([]string{
				"The strongest objection is that {chal}.",
				"The red team will say that {chal}, and that deserves an answer.",
			}), vars),
			c.pick([]string{
				"But the evidence already accounts for that risk: the people it describes are not hypothetical, and the cost of the status quo is paid today.",
				"That risk is real but bounded, and nothing in the evaluation suggests it is fatal; it is a reason to focus the launch, not to abandon the idea.",
			}),
		}
	} else {
		p1 = []string{
			stubExpand(c.pick([]string{
				"On {cat}, I take the opposite view: {pos}.",
				"Here is the red team's case on {cat}: {pos}.",
				"On {cat}, the optimism outruns the evidence, because {pos}.",
			}), vars),
			stubExpand(c.pick([]string{
				"The challenge nobody has answered is that {chal}.",
				"Start with the red team's challenge: {chal}.",
			}), vars),
			stubExpand(c.pick([]string{
				"The evaluation cites {ev}, but that is a weaker claim than it sounds once you ask who was asked and how.",
				"Yes, the evidence notes {ev}; it does not show that anyone will change what they do, or pay, because of it.",
			}), vars),
			c.pick([]string{
				"Interest in a survey is not commitment, and commitment is what this category should measure.",
				"A score that rewards enthusiasm rather than behaviour will mislead everyone who relies on it.",
			}),
		}
		p2 = []string{
			c.pick([]string{
				"The advocate will answer that the signal is early and will grow.",
				"The obvious reply is that every new idea starts with thin evidence.",
			}),
			c.pick([]string{
				"Perhaps, but a score should reflect what is known now, and what is known now leaves the central risk untested.",
				"That is a reason for humility, not for a higher score: until the risk is tested, the cautious reading is the honest one.",
			}),
		}
	}
	return stubJoin(p1, p2)
}

func writeScoredRebuttal(c *stubCall) string {
	side, vars := rndScoredVars(c)
	arg, _ := c.tag("argument")
	vars["claim"] = strings.ReplaceAll(rndSnippet(rndSecondSentence(arg), 110), `"`, "'")
	if vars["claim"] == "" {
		vars["claim"] = "the other side has made its case"
	}
	p := []string{
		stubExpand(c.pick([]string{
			`The {opp} opened with "{claim}", and I want to take that seriously.`,
			`Let me answer the {opp} directly, starting from "{claim}".`,
		}), vars),
		c.pick([]string{
			"Part of that point is fair, and I concede it: the evidence is not complete, and no honest reading says otherwise.",
			"There is something right in that, and I grant it: one piece of evidence rarely settles a category on its own.",
		}),
	}
	if side == "advocate" {
		p = append(p,
			stubExpand("But that case skips the evidence that matters most: {ev}.", vars),
			c.pick([]string{
				"A challenge that ignores what the evaluation actually found is a worry, not a refutation.",
				"Worries about scale or adoption are reasons to plan carefully, not reasons to lower the score.",
			}),
			stubExpand("So my position stands: {pos}.", vars))
	} else {
		p = append(p,
			stubExpand("But the argument leans on one finding, {ev}, and asks it to carry far more weight than it can.", vars),
			stubExpand("Meanwhile the challenge that {chal} is still unanswered.", vars),
			stubExpand("So my position stands: {pos}.", vars))
	}
	return stubJoin(p)
}

type rndVerdict struct {
	Winner     string   `json:"winner"`
	Reasoning  string   `json:"reasoning"`
	KeyPoints  []string `json:"keyPoints"`
	Confidence float64  `json:"confidence"`
}

func writeScoredVerdict(c *stubCall) string {
	_, vars := rndScoredVars(c)
	v := rndVerdict{Confidence: float64(55+c.intn(36)) / 100}
	switch r := c.roll("winner"); {
	case r < 0.45:
		v.Winner = "advocate"
		v.Reasoning = stubExpand("The advocate tied each claim about {cat} to the evaluation evidence and answered the red-team challenge directly; the challenger's objection remained plausible but untested.", vars)
	case r < 0.85:
		v.Winner = "challenger"
		v.Reasoning = stubExpand("The challenger showed that the evidence on {cat} supports a weaker claim than the advocate made, and the advocate's rebuttal did not answer the central challenge.", vars)
	default:
		v.Winner = "draw"
		v.Reasoning = stubExpand("Both sides argued from the evidence on {cat} and each conceded a fair point; neither showed the other's central claim to be wrong.", vars)
	}
	v.KeyPoints = []string{
		stubExpand("Evidence weighed: {ev}", vars),
		stubExpand("Open challenge: {chal}", vars),
	}
	if !c.rndRetried() && c.roll("invalid verdict") < 0.15 {
		switch c.intn(3) {
		case 0:
			v.Winner = "both sides"
		case 1:
			v.Confidence = 1 + v.Confidence
		default:
			v.Reasoning = ""
		}
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// rndIf returns s when ok, else "" (which stubJoin drops).
func rndIf(ok bool, s string) string {
	if ok {
		return s
	}
	return ""
}

// rndSecondSentence returns text from its second sentence on, or text when
// it has only one.
func rndSecondSentence(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	if i := strings.Index(text, ". "); i > 0 && i+2 < len(text) {
		return text[i+2:]
	}
	return text
}

// The moderated debate.

// rndRound reads "Round: N of at most M", or 1.
func (c *stubCall) rndRound() int {
	f := strings.Fields(c.field("round"))
	if len(f) > 0 {
		if n, err := strconv.Atoi(f[0]); err == nil && n > 0 {
			return n
		}
	}
	return 1
}

// rndSplitList splits a "Key: a, b, c" value.
func rndSplitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// rndEntry is one "[Name — kind]" entry of a moderated transcript.
type rndEntry struct{ name, kind, text string }

// rndEntries reads every transcript entry of text, in order.
func rndEntries(text string) []rndEntry {
	var out []rndEntry
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") && strings.Contains(t, " — ") {
			name, kind, _ := strings.Cut(t[1:len(t)-1], " — ")
			out = append(out, rndEntry{name: name, kind: kind})
			continue
		}
		if len(out) > 0 && t != "" && !strings.HasPrefix(t, "</") && !strings.HasPrefix(t, "<") {
			e := &out[len(out)-1]
			e.text = strings.TrimSpace(e.text + " " + t)
		}
	}
	return out
}

// rndKeywordPerspectives are the perspectives the stub moderator suggests
// for words of a question.
var rndKeywordPerspectives = []struct{ words, name string }{
	{"cache caching latency fast speed performance throughput scale real-time", "Performance Advocate"},
	{"auth authentication security secure encrypt password compliance privacy", "Security Advocate"},
	{"user users ui ux frontend customer onboarding mobile", "User Experience"},
	{"deploy deployment ops monitoring debugging kubernetes on-call database postgresql postgres", "Operational Simplicity"},
	{"schema plugin extensible api graphql rest future migration microservices", "Future Flexibility"},
	{"simple simplicity maintain maintainable team ship quickly deadline mvp", "Simplicity Advocate"},
}

func rndHasWord(text string, words string) bool {
	lower := " " + strings.Join(strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-')
	}), " ") + " "
	for _, w := range strings.Fields(words) {
		if strings.Contains(lower, " "+w+" ") {
			return true
		}
	}
	return false
}

type rndAnalysis struct {
	Domain       string   `json:"domain"`
	Constraints  []string `json:"constraints"`
	Debaters     int      `json:"debaters"`
	Perspectives []string `json:"perspectives"`
}

// writeModeratorAnalysis suggests perspectives by the question's words.
// Now and then it asks for too many debaters (7), suggests two perspectives
// on the same side of the trade-offs, names one the catalog lacks, or
// answers in prose first, so the format's clamping, balancing and asking
// again get exercised.
func writeModeratorAnalysis(c *stubCall) string {
	if !c.rndRetried() && c.roll("prose analysis") < 0.08 {
		return "Let me think about this question before assigning anyone."
	}
	q, _ := c.tag("proposition")
	a := rndAnalysis{Domain: "architecture", Constraints: []string{}, Debaters: 3}
	for _, d := range []struct{ words, domain string }{
		{"auth authentication security encrypt password compliance privacy", "security"},
		{"user users ui ux frontend onboarding", "ux"},
		{"database cache caching schema postgresql postgres redis data", "data"},
		{"deploy deployment monitoring kubernetes on-call", "operations"},
	} {
		if rndHasWord(q, d.words) {
			a.Domain = d.domain
			break
		}
	}
	if rndHasWord(q, "or vs versus") {
		a.Debaters = 2
	}
	if c.roll("too many debaters") < 0.1 {
		a.Debaters = 7
	}
	if rndHasWord(q, "quickly deadline mvp") || strings.Contains(strings.ToLower(q), "ship fast") {
		a.Constraints = append(a.Constraints, "The team needs to ship fast, so simplicity weighs more")
	}
	if rndHasWord(q, "team") {
		a.Constraints = append(a.Constraints, "The team's existing experience matters")
	}
	for _, k := range rndKeywordPerspectives {
		if rndHasWord(q, k.words) {
			a.Perspectives = append(a.Perspectives, k.name)
		}
	}
	switch r := c.roll("suggestion quirk"); {
	case r < 0.15:
		a.Perspectives = []string{"Performance Advocate", "User Experience"}
	case r < 0.25:
		a.Perspectives = append([]string{"Chaos Engineer"}, a.Perspectives...)
	}
	if len(a.Perspectives) == 0 {
		a.Perspectives = c.pickN([]string{"Performance Advocate", "Simplicity Advocate", "Future Flexibility", "Operational Simplicity"}, 3)
	}
	return stubJSON(a)
}

// stubMe is the voice of the perspective a debater's prompt names.
func (c *stubCall) rndMe() *stubVoice {
	v, _ := stubVoiceFor(c.field("perspective"))
	return v
}

// writeDebaterArgument argues from the prompt's perspective. In a later
// round it sometimes (20%) repeats its previous argument nearly word for
// word, and rarely (4%) wanders off topic, so that repetition detection and
// redirection have something to catch.
func writeDebaterArgument(c *stubCall) string {
	me := c.rndMe()
	prev, hasPrev := c.tag("previous")
	if hasPrev && prev != "" && c.roll("repeat") < 0.2 {
		return prev + " I stand by every word of that."
	}
	vars := map[string]string{
		"P":     c.proposition(90, "the decision in front of us"),
		"name":  me.name,
		"label": me.label,
		"q":     me.question,
		"v":     c.pick(me.values),
		"blind": c.pick(me.blind),
	}
	if c.roll("off topic") < 0.04 {
		return stubJoin([]string{
			stubExpand("Before we go further I want to make a broader point about how this organisation makes decisions, which matters more to me than {P}.", vars),
			"Teams that argue about tools are usually arguing about trust, about who gets to decide and who has to live with the result.",
			"Until we fix how decisions get made and reviewed, any technical choice we make here will be relitigated in six months, whichever way it goes.",
			"So rather than weigh the options, I would like us to talk about the review process, the ownership model, and the way incidents are followed up.",
		})
	}
	others := rndSplitList(c.field("other perspectives in the debate"))
	oppName := "the other side"
	opp := &stubVoice{grants: []string{"there is a real cost on the other side that my own view can underrate"}}
	if len(others) > 0 {
		oppName = c.pick(others)
		opp, _ = stubVoiceFor(oppName)
	}
	vars["opp"] = oppName
	vars["grant"] = c.pick(opp.grants)
	vars["critique"] = c.pick(me.critique)
	claims := c.pickN(me.claims, 2)
	p1 := []string{
		stubExpand(c.pick([]string{
			"I come to {P} as the {name} perspective, and one question comes first: {q}",
			"From the {label} side, {P} turns on {v}.",
			"Speaking for {v}, here is how I see {P}.",
		}), vars),
		stubExpand(claims[0], vars),
		stubExpand(claims[1], vars),
	}
	if c.rndRound() > 1 {
		p1 = append([]string{c.pick([]string{
			"Building on the last round, I want to sharpen my case rather than repeat it.",
			"The last round moved things forward, so let me take it one step further.",
		})}, p1...)
	}
	if g, ok := c.tag("guidance"); ok && g != "" {
		vars["g"] = stubShorten(g, 80)
		p1 = append(p1, stubExpand("We were asked to consider this: \"{g}\", and it strengthens the case for {v}.", vars))
	}
	p2 := []string{
		stubExpand(c.pick([]string{
			"{Opp} makes a fair point that {grant}.",
			"I grant {opp} this much: {grant}.",
		}), vars),
		stubExpand(c.pick([]string{"But {critique}.", "Still, {critique}."}), vars),
		stubExpand(c.pick([]string{
			"The trade-off I accept is real: {blind}.",
			"I will be honest about the cost of my position: {blind}.",
		}), vars),
	}
	return stubJoin(p1, p2)
}

// writeDebaterRebuttal answers another perspective's argument from the
// round; the later the round, the likelier it comes round to agreement.
func writeDebaterRebuttal(c *stubCall) string {
	me := c.rndMe()
	var others []rndEntry
	for _, e := range rndEntries(c.lastUser()) {
		if e.kind == "argument" && stubVoiceKey(e.name) != stubVoiceKey(me.name) {
			others = append(others, e)
		}
	}
	target := rndEntry{name: "the other side", text: ""}
	if len(others) > 0 {
		target = others[c.intn(len(others))]
	}
	opp, _ := stubVoiceFor(target.name)
	vars := map[string]string{
		"opp":      target.name,
		"claim":    strings.ReplaceAll(rndSnippet(rndSecondSentence(target.text), 100), `"`, "'"),
		"grant":    c.pick(opp.grants),
		"critique": c.pick(me.critique),
		"v":        c.pick(me.values),
		"take":     opp.takeaway,
	}
	if vars["claim"] == "" {
		vars["claim"] = "their case"
	}
	p := []string{
		stubExpand(c.pick([]string{
			`To {opp}: you argued "{claim}", and I take that seriously.`,
			`Let me answer {opp}, who said "{claim}".`,
		}), vars),
		stubExpand("Where we agree: {grant}.", vars),
		stubExpand("Where we disagree: {critique}.", vars),
	}
	if c.roll("agree") < 0.15*float64(c.rndRound()) {
		p = append(p, stubExpand("On the recommendation itself, though, I now agree with {opp}: {take}, and I can live with that as long as {v} is protected.", vars))
	} else {
		p = append(p, stubExpand("So my recommendation stands, because it is the only one of the options on the table that keeps {v} intact.", vars))
	}
	return stubJoin(p)
}

type rndJudgment struct {
	Converging  bool     `json:"converging"`
	Stagnating  bool     `json:"stagnating"`
	NewGround   bool     `json:"newGround"`
	ClearWinner string   `json:"clearWinner"`
	OffTopic    []string `json:"offTopic"`
	Summary     string   `json:"summary"`
}

// writeModeratorJudgment converges with a likelihood that grows with the
// round, flags the stub's off-topic arguments, sees stagnation when the
// prompt reports repetition, and now and then answers without a summary.
func writeModeratorJudgment(c *stubCall) string {
	names := rndSplitList(c.field("perspectives"))
	round := c.rndRound()
	j := rndJudgment{OffTopic: []string{}}
	odds := []float64{0.12, 0.3, 0.45, 0.6, 0.75}
	j.Converging = c.roll("converge") < odds[min(round, len(odds))-1]
	j.Stagnating = strings.Count(c.prompt(), "(repeats)") >= 2 && c.roll("stagnate") < 0.6
	j.NewGround = !j.Stagnating
	if !j.Converging && len(names) > 0 && c.roll("clear winner") < 0.05 {
		j.ClearWinner = names[0]
	}
	for _, e := range rndEntries(c.lastUser()) {
		if strings.Contains(e.text, "broader point about") && !rndContains(j.OffTopic, e.name) {
			j.OffTopic = append(j.OffTopic, e.name)
		}
	}
	a, b := "the perspectives", "each other"
	if len(names) >= 2 {
		pair := c.pickN(names, 2)
		a, b = pair[0], pair[1]
	}
	va, _ := stubVoiceFor(a)
	vb, _ := stubVoiceFor(b)
	vars := map[string]string{"A": a, "B": b, "va": c.pick(va.values), "vb": c.pick(vb.values)}
	switch {
	case j.Converging:
		j.Summary = stubExpand("{A} and {B} now point to the same recommendation: they accept that {va} and {vb} can both be served if the first step stays small. The remaining differences are about sequencing, not direction.", vars)
	case j.Stagnating:
		j.Summary = stubExpand("The round went over familiar ground: {A} restated the case for {va} and {B} the case for {vb}, with little new evidence on either side.", vars)
	default:
		j.Summary = stubExpand("{A} pressed the case for {va} while {B} held out for {vb}. They agree on the goal but not on which cost to pay first; the open question is how much {vb} matters in this team's context.", vars)
	}
	if !c.rndRetried() && c.roll("invalid judgment") < 0.08 {
		j.Summary = ""
	}
	return stubJSON(j)
}

func rndContains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

type rndPerspectiveSummary struct {
	Name              string   `json:"name"`
	KeyArguments      []string `json:"keyArguments"`
	TradeOffsAccepted []string `json:"tradeOffsAccepted"`
}

type rndSynthesis struct {
	Title          string                  `json:"title"`
	Perspectives   []rndPerspectiveSummary `json:"perspectives"`
	Agreement      []string                `json:"agreement"`
	Tensions       []string                `json:"tensions"`
	Recommendation string                  `json:"recommendation"`
	Confidence     string                  `json:"confidence"`
	Caveats        []string                `json:"caveats"`
	Dissent        string                  `json:"dissent"`
}

// writeModeratorSynthesis writes the synthesis from the perspectives the
// prompt lists, its confidence following how the debate ended.
func writeModeratorSynthesis(c *stubCall) string {
	names := rndSplitList(c.field("perspectives"))
	ended := c.field("ended")
	prop := c.proposition(90, "the decision")
	s := rndSynthesis{Title: strings.Trim(prop, `"`)}
	var voices []*stubVoice
	for _, n := range names {
		v, _ := stubVoiceFor(n)
		voices = append(voices, v)
		s.Perspectives = append(s.Perspectives, rndPerspectiveSummary{
			Name:              n,
			KeyArguments:      []string{stubUpperFirst(v.takeaway), stubExpand(c.pick(v.claims), map[string]string{"P": prop})},
			TradeOffsAccepted: []string{stubUpperFirst(c.pick(v.blind))},
		})
	}
	s.Agreement = []string{
		"All perspectives agreed that the first step should be small and reversible.",
		"Common ground on measuring the result before committing further.",
	}
	for i := 0; i+1 < len(voices); i++ {
		s.Tensions = append(s.Tensions, stubUpperFirst(voices[i].label)+" vs "+voices[i+1].label+" on "+c.pick(voices[i].values)+".")
	}
	if len(voices) > 0 {
		s.Recommendation = stubExpand("Take the path the {name} perspective argued for, in its smallest form, and keep the concerns of the others as explicit checkpoints: {take}.",
			map[string]string{"name": voices[0].name, "take": voices[0].takeaway})
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
	if ended != "agreement" && len(voices) > 1 {
		s.Dissent = stubExpand("The {name} perspective still holds that {crit}.", map[string]string{"name": voices[len(voices)-1].name, "crit": c.pick(voices[len(voices)-1].critique)})
	}
	if !c.rndRetried() && c.roll("invalid synthesis") < 0.05 {
		s.Recommendation = ""
	}
	return stubJSON(s)
}
