package formal

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/internal/stubtext"
	"github.com/duelogic/duelogic/llm"
)

// The offline stub model's answers (llm.Stub) to this package's requests,
// written from the prompts of prompts.go: the debaters' JSON turns, the
// verifier's findings, the audience's questions and conclusion, the chair's
// relays, conclusion checks and verdict, the reporter's documents and the
// assessor's report. Every writer draws its choices from the prompt with its
// dates masked (stubUndated).
func init() {
	for purpose, write := range map[string]func(*llm.StubCall) string{
		PurposeTurn:               stubTurn,
		PurposeVerification:       stubVerification,
		PurposeAudienceQuestions:  stubQuestions,
		PurposeRelay:              stubRelay,
		PurposeConclusionCheck:    stubConclusionCheck,
		PurposeVerdict:            stubVerdict,
		PurposeAudienceConclusion: stubAudienceConclusion,
		PurposeSummary:            stubSummary,
		PurposeBlogPost:           stubBlogPost,
		PurposeAssessment:         stubAssessment,
		PurposeClarification:      stubClarification,
		PurposePointOfOrder:       stubPointOfOrder,
	} {
		llm.RegisterStub(purpose, func(c *llm.StubCall) string { return write(stubUndated(c)) })
	}
}

// stubMaskDates replaces the dates and timestamps the session clock puts in
// the prompts with "<date>": "Today: 2026-02-21", sources accessed on a
// date, the transcript's RFC 3339 timestamps and the output directory's
// compact one. It matches, leftmost first, what the regular expression
//
//	\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?)?|\d{8}T\d{6}Z
//
// matches (the tests hold it to that), by hand: the stub masks every prompt
// of a debate, and a scan is many times faster.
func stubMaskDates(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if !stubDigit(s, i) {
			continue
		}
		n := stubDateAt(s, i)
		if n == 0 {
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[last:i])
		b.WriteString("<date>")
		i += n - 1
		last = i + 1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// stubDateAt returns the length of the date or timestamp at s[i:], 0 if
// none starts there.
func stubDateAt(s string, i int) int {
	// digits reports whether s[j:j+n] are n digits; at, whether s[j] is c.
	digits := func(j, n int) bool {
		for k := j; k < j+n; k++ {
			if !stubDigit(s, k) {
				return false
			}
		}
		return true
	}
	at := func(j int, c byte) bool { return j < len(s) && s[j] == c }
	switch {
	case digits(i, 4) && at(i+4, '-') && digits(i+5, 2) && at(i+7, '-') && digits(i+8, 2):
		j := i + 10
		if !(at(j, 'T') || at(j, ' ')) || !digits(j+1, 2) || !at(j+3, ':') || !digits(j+4, 2) || !at(j+6, ':') || !digits(j+7, 2) {
			return j - i
		}
		j += 9
		if at(j, '.') && stubDigit(s, j+1) {
			for j++; stubDigit(s, j); j++ {
			}
		}
		switch {
		case at(j, 'Z'):
			j++
		case (at(j, '+') || at(j, '-')) && digits(j+1, 2) && at(j+3, ':') && digits(j+4, 2):
			j += 6
		}
		return j - i
	case digits(i, 8) && at(i+8, 'T') && digits(i+9, 6) && at(i+15, 'Z'):
		return 16
	}
	return 0
}

func stubDigit(s string, i int) bool { return i < len(s) && s[i] >= '0' && s[i] <= '9' }

// stubUndated returns c drawing its choices from the prompt with every date
// and timestamp masked, so that a debate takes the same course whatever the
// session clock says; only the dates the stub prints follow it.
func stubUndated(c *llm.StubCall) *llm.StubCall {
	return c.Rekey(stubMaskDates(c.Prompt()))
}

// stubReasked reports whether the call asks again after a rejected reply
// (a judgment's, or a free-text reply's); the stub then always answers
// validly.
func stubReasked(c *llm.StubCall) bool {
	last := c.LastUser()
	return strings.HasPrefix(last, engine.ReaskPrefix) || strings.HasPrefix(last, rejectedPrefix)
}

type stubSource struct {
	URL      string `json:"url"`
	Title    string `json:"title"`
	Accessed string `json:"accessed"`
}

type stubChallenge struct {
	TargetSeq int    `json:"target_seq"`
	URL       string `json:"url"`
	Claim     string `json:"claim"`
}

type stubOrder struct {
	TargetSeq int    `json:"target_seq"`
	Rule      int    `json:"rule"`
	Complaint string `json:"complaint"`
}

type stubTurnReply struct {
	Type          string         `json:"type"`
	Content       string         `json:"content"`
	Sources       []stubSource   `json:"sources"`
	RebuttalToSeq *int           `json:"rebuttal_to_seq"`
	Challenge     *stubChallenge `json:"source_challenge,omitempty"`
	Order         *stubOrder     `json:"point_of_order,omitempty"`
}

// stubChallengeLine is a line of "Sources you may challenge:".
var stubChallengeLine = regexp.MustCompile(`(?m)^- seq (\d+), source (\S+)\s*$`)

var stubDay = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// stubTopic is a short form of the proposition for texts and URLs.
func stubTopic(c *llm.StubCall) string {
	p, _ := c.Tag("proposition")
	return stubtext.Quote(p, 70, "the proposition")
}

var stubNonSlug = regexp.MustCompile(`[^a-z0-9]+`)

var stubPublishers = []string{"example.org", "example.com", "example.net"}

var stubSourceKinds = []string{
	"Survey of %s", "Evidence review: %s", "Working paper on %s", "Annual report on %s", "Field study of %s",
}

// stubSources makes n sources about topic.
func stubSources(c *llm.StubCall, n int, topic, today string) []stubSource {
	slug := strings.Trim(stubNonSlug.ReplaceAllString(strings.ToLower(topic), "-"), "-")
	if len(slug) > 40 {
		slug = strings.TrimRight(slug[:40], "-")
	}
	if slug == "" {
		slug = "debate"
	}
	out := []stubSource{}
	for i := range n {
		out = append(out, stubSource{
			URL:      fmt.Sprintf("https://%s/research/%s-%d", c.Pick(stubPublishers), slug, 100+c.Intn(900)+i),
			Title:    fmt.Sprintf(c.Pick(stubSourceKinds), strings.Trim(topic, `"`)),
			Accessed: today,
		})
	}
	return out
}

var stubAffirmative = []string{
	"The strongest evidence points toward accepting {P}.",
	"Those who study this closely report benefits that outweigh the costs of {P}.",
	"Adopting {P} addresses a problem that the status quo leaves unsolved.",
	"The measured outcomes in comparable cases favour {P}.",
}

var stubNegative = []string{
	"The evidence does not support {P} as stated.",
	"The costs of {P} are larger and more certain than its promised benefits.",
	"Comparable cases show that {P} tends to create new problems of its own.",
	"There are better ways to reach the same goals than {P}.",
}

var stubElaborations = []string{
	"The data collected over several years shows a consistent pattern rather than a one-off result.",
	"Independent reviews reached the same conclusion using different methods.",
	"The effect holds across different regions and populations.",
	"The main objection assumes conditions that rarely hold in practice.",
	"Where the policy was tried at scale, the outcomes were measured and published.",
	"A careful reading of the figures shows the trend is stable rather than noise.",
	"The studies I cite were designed before the results were known, which guards against reading into them what one hoped to find.",
	"Several of the comparisons control for income, density and the business cycle, so the pattern is not an artefact of a boom year.",
	"Practitioners who run these programmes day to day describe the same trade-offs that the published evaluations report.",
	"The costs and the benefits do not fall on the same people, and any honest account has to say who gains and who pays.",
	"Short-term reactions are often louder than the long-term effects, so the later measurements deserve more weight.",
	"Where the results were mixed, the differences trace back to how the policy was designed and enforced rather than to the idea itself.",
	"It matters that the findings were replicated by groups with no stake in the outcome.",
	"A single striking case can mislead, which is why I rely on the averages across many cases instead.",
	"The question is not whether there are any downsides, but whether they outweigh what is gained.",
	"Any fair reading of the record has to account for the places where the expected effect did not appear.",
	"The figures are reported in the sources cited, and anyone can check them against the original tables.",
	"Public attitudes shifted once people could see the results for themselves, which suggests the effects were noticeable.",
	"The administrative costs were modest compared with the amounts at stake on either side of the ledger.",
	"None of this depends on a single study: the conclusion rests on the weight of the evidence taken together.",
}

// stubSpeculations fill out a conjecture.
var stubSpeculations = []string{
	"If that happens, the debate we are having today may look rather different in a few years.",
	"This is a conjecture, not a finding, and I offer it as a possibility worth weighing rather than as evidence.",
	"One way to test it would be to follow the same places for another decade and compare them with similar ones.",
	"It may also be that behaviour adapts in ways the early studies could not capture.",
	"Early adopters often differ from later ones, so the first results may not predict what follows.",
	"Second-order effects, on prices, on habits and on expectations, tend to take years to show up.",
	"We should be modest about forecasts of this kind, but we should not ignore them either.",
	"If the pattern holds, the case for acting early becomes stronger; if it does not, little is lost by watching closely.",
	"Much depends on choices that have not yet been made, which is why this remains speculation.",
	"I raise it because the evidence so far leaves room for more than one reading of where this leads.",
}

// Bounds of a stub turn's words: the turn prompt asks for 120 to 250; the
// conjecture label may add one.
const (
	stubTurnMinWords = 125
	stubTurnMaxWords = 240
)

// stubFill adds sentences of pool, in random order, to sentences until they
// reach a length drawn between min and the middle of min..max words, never
// past max.
func stubFill(c *llm.StubCall, sentences, pool []string, min, max int) []string {
	words := 0
	for _, s := range sentences {
		words += stubtext.Words(s)
	}
	target := min + c.Intn((max-min)/2+1)
	for _, s := range c.PickN(pool, len(pool)) {
		if words >= target {
			break
		}
		if n := stubtext.Words(s); words+n <= max {
			sentences = append(sentences, s)
			words += n
		}
	}
	return sentences
}

var stubRebuttals = []string{
	"Entry {N} overstates what its evidence shows.",
	"The argument in entry {N} rests on a sample too small to generalise from.",
	"Entry {N} leaves out the costs that the same studies report.",
	"The reasoning in entry {N} confuses correlation with cause.",
}

var stubConjectures = []string{
	"it is plausible that the long-run effects will be larger than the short studies suggest.",
	"if current trends continue, the balance of costs and benefits may shift within a decade.",
	"one can imagine the incentives changing once the first results become public.",
}

func stubTurn(c *llm.StubCall) string {
	allowed := stubtext.SplitList(c.Field("Allowed types"))
	if len(allowed) == 0 {
		allowed = []string{string(TypeNewPoint)}
	}
	var rebuttable []int
	for _, s := range stubtext.SplitList(c.Field("Opponent entries you may rebut")) {
		if n, err := strconv.Atoi(s); err == nil {
			rebuttable = append(rebuttable, n)
		}
	}
	today := c.Field("Today")
	if !stubDay.MatchString(today) {
		today = "2026-01-01"
	}
	topic := stubTopic(c)
	negative := strings.EqualFold(c.Field("Side"), "negative")
	reasked := stubReasked(c)

	if slices.Contains(allowed, string(TypeClarificationRequest)) && !reasked && c.Roll("clarify") < 0.1 {
		// A question to the chair before the turn.
		t := stubTurnReply{Type: string(TypeClarificationRequest), Sources: []stubSource{},
			Content: c.Pick(stubClarifications)}
		return stubTurnJSON(c, t)
	}
	typ := allowed[0]
	if len(allowed) > 1 {
		switch r := c.Roll("type"); {
		case r < 0.45 && len(rebuttable) > 0 && slices.Contains(allowed, string(TypeRebuttal)):
			typ = string(TypeRebuttal)
		case r < 0.6 && slices.Contains(allowed, string(TypeConjecture)):
			typ = string(TypeConjecture)
		case slices.Contains(allowed, string(TypeNewPoint)):
			typ = string(TypeNewPoint)
		}
	}
	t := stubTurnReply{Type: typ, Sources: []stubSource{}}
	claims := stubAffirmative
	if negative {
		claims = stubNegative
	}
	vars := map[string]string{"P": topic}
	sentences := []string{stubtext.Expand(c.Pick(claims), vars)}
	pool := stubElaborations
	switch typ {
	case string(TypeRebuttal):
		n := rebuttable[c.Intn(len(rebuttable))]
		t.RebuttalToSeq = &n
		vars["N"] = strconv.Itoa(n)
		sentences = append([]string{stubtext.Expand(c.Pick(stubRebuttals), vars)}, sentences...)
	case string(TypeConjecture):
		sentences = []string{"Looking ahead, " + c.Pick(stubConjectures), stubtext.Expand(c.Pick(claims), vars)}
		pool = stubSpeculations
	case string(TypeOpeningStatement):
		sentences = append([]string{"In this opening statement I will set out why I take this side."}, sentences...)
	case string(TypeClosingStatement):
		sentences = append([]string{"To close, let me sum up the case I have made."}, sentences...)
	}
	content := stubtext.Join(stubFill(c, sentences, pool, stubTurnMinWords, stubTurnMaxWords))
	sourced := c.Roll("sourced") < 0.88
	if typ == string(TypeClosingStatement) {
		sourced = c.Roll("sourced") < 0.5
	}
	switch {
	case typ == string(TypeConjecture):
		if reasked || c.Roll("label") < 0.95 {
			content = ConjectureLabel + " " + content
		}
	case sourced:
		t.Sources = stubSources(c, 1+c.Intn(2), topic, today)
	case c.Roll("label") < 0.5:
		content = ConjectureLabel + " " + content
	}
	t.Content = content

	if lines := stubChallengeLine.FindAllStringSubmatch(c.LastUser(), -1); len(lines) > 0 && c.Roll("challenge") < 0.12 {
		l := lines[c.Intn(len(lines))]
		if n, err := strconv.Atoi(l[1]); err == nil {
			t.Challenge = &stubChallenge{TargetSeq: n, URL: l[2], Claim: "The source does not support the figures entry " + l[1] + " attributes to it."}
		}
	}
	if seqs := stubtext.SplitList(c.Field("Entries you may raise a point of order on")); len(seqs) > 0 && c.Roll("order") < 0.08 {
		if n, err := strconv.Atoi(seqs[c.Intn(len(seqs))]); err == nil {
			o := stubOrder{TargetSeq: n, Rule: RuleAdHominem, Complaint: stubtext.Expand(c.Pick(stubAdHominem), map[string]string{"N": strconv.Itoa(n)})}
			if c.Roll("order rule") < 0.5 {
				o.Rule, o.Complaint = RuleMisrepresentation, stubtext.Expand(c.Pick(stubMisrepresentation), map[string]string{"N": strconv.Itoa(n)})
			}
			t.Order = &o
		}
	}
	if !reasked && len(allowed) > 1 && typ == string(TypeRebuttal) && c.Roll("invalid") < 0.16 {
		// In the schema's shape (as a server constrained by it answers),
		// and still unusable: a turn of white space.
		t.Content = " "
	}
	return stubTurnJSON(c, t)
}

// stubTurnJSON is t as the turn's schema shapes it: a property the schema
// offers (a source challenge, a point of order) is always there, as strict
// mode has it, null when none is made.
func stubTurnJSON(c *llm.StubCall, t stubTurnReply) string {
	schema := c.Request().Schema
	challenge, order := bytes.Contains(schema, []byte(`"source_challenge"`)), bytes.Contains(schema, []byte(`"point_of_order"`))
	switch {
	case challenge && order:
		return stubtext.JSON(struct {
			stubTurnReply
			Challenge *stubChallenge `json:"source_challenge"`
			Order     *stubOrder     `json:"point_of_order"`
		}{t, t.Challenge, t.Order})
	case challenge:
		return stubtext.JSON(struct {
			stubTurnReply
			Challenge *stubChallenge `json:"source_challenge"`
		}{t, t.Challenge})
	case order:
		return stubtext.JSON(struct {
			stubTurnReply
			Order *stubOrder `json:"point_of_order"`
		}{t, t.Order})
	}
	return stubtext.JSON(t)
}

var stubAdHominem = []string{
	"Entry {N} attacks the debater rather than the argument, calling my case the work of someone who cannot read a study.",
	"Entry {N} questions my motives instead of answering the evidence I cited.",
}

var stubMisrepresentation = []string{
	"Entry {N} claims I argued for an outright ban everywhere, which I never said; my position was limited to city centres.",
	"Entry {N} attributes to me a claim about costs that I did not make.",
}

// stubPointOfOrder is the chair's ruling on a point of order: upheld about
// one time in three.
func stubPointOfOrder(c *llm.StubCall) string {
	if c.Roll("upheld") < 0.35 {
		return stubtext.JSON(map[string]any{"upheld": true, "ruling": "The entry goes beyond the substance of the argument as the rule forbids."})
	}
	return stubtext.JSON(map[string]any{"upheld": false, "ruling": "The entry criticises the argument, not the debater, and fairly states the other side's position."})
}

var stubClarifications = []string{
	"Could the chair clarify whether a rebuttal may answer an entry from an earlier round?",
	"Could the chair clarify whether a source challenge must name the exact claim the source fails to support?",
	"Could the chair clarify whether a conjecture may be offered alongside sourced evidence in the same turn?",
}

func stubClarification(c *llm.StubCall) string {
	q, _ := c.Tag("question")
	ruling := "The rules apply as written: a rebuttal may answer any argument of the other side still on the record, and must be backed by at least one source."
	switch {
	case strings.Contains(q, "source challenge"):
		ruling = "Yes: under rule 15 a source challenge must cite the claim the source fails to support; the verifier then checks it at once."
	case strings.Contains(q, "conjecture"):
		ruling = "Yes: a conjecture must be labelled and may stand beside sourced evidence, but it may not be the sole basis of a rebuttal (rules 9 and 10)."
	}
	return stubtext.JSON(map[string]string{"ruling": ruling})
}

// stubFabricatedRate is the share of sources the stub's verifier finds
// fabricated: about one offline debate in six then ends by rule 12, as an
// exception should, rather than most of them.
const stubFabricatedRate = 0.01

func stubVerification(c *llm.StubCall) string {
	if !stubReasked(c) && c.Roll("unsure") < 0.04 {
		// In the schema's shape, and still unusable: no reason given.
		return stubtext.JSON(map[string]string{"status": "verified", "reason": " "})
	}
	src, _ := c.Tag("source")
	host := "the site"
	for _, line := range strings.Split(src, "\n") {
		if u, ok := strings.CutPrefix(strings.TrimSpace(line), "URL:"); ok {
			if f := strings.Split(strings.TrimPrefix(strings.TrimSpace(u), "https://"), "/"); len(f) > 0 && f[0] != "" {
				host = stubtext.Shorten(f[0], 40)
			}
		}
	}
	type finding struct {
		Status string `json:"status"`
		Reason string `json:"reason"`
	}
	switch r := c.Roll("finding"); {
	case r < stubFabricatedRate:
		return stubtext.JSON(finding{"fabricated", "No page with this address or title is known at " + host + "; the citation appears invented."})
	case r < stubFabricatedRate+0.12:
		return stubtext.JSON(finding{"unreliable", "The page at " + host + " may exist, but it does not clearly support the claim as stated."})
	}
	return stubtext.JSON(finding{"verified", "The source at " + host + " exists and supports the claim it is cited for."})
}

var stubQuestionPool = []string{
	"What evidence would change your mind on this?",
	"How do you answer the strongest point the other side has made so far?",
	"Which of your sources do you consider the most reliable, and why?",
	"What would the first year look like if your side prevailed?",
	"Who bears the costs under your position?",
}

func stubQuestions(c *llm.StubCall) string {
	type q struct {
		To       string `json:"to"`
		Question string `json:"question"`
	}
	out := struct {
		Questions []q `json:"questions"`
	}{Questions: []q{}}
	n := 0
	switch r := c.Roll("questions"); {
	case r < 0.2:
		n = 2
	case r < 0.6:
		n = 1
	}
	for _, text := range c.PickN(stubQuestionPool, n) {
		out.Questions = append(out.Questions, q{To: c.Pick([]string{"promoter", "detractor", "both"}), Question: text})
	}
	return stubtext.JSON(out)
}

var stubNumbered = regexp.MustCompile(`(?m)^(\d+)\.\s`)

func stubRelay(c *llm.StubCall) string {
	qs, _ := c.Tag("questions")
	relay := []int{}
	for i, m := range stubNumbered.FindAllStringSubmatch(qs, -1) {
		if n, err := strconv.Atoi(m[1]); err == nil && c.Roll("relay"+strconv.Itoa(i)) < 0.75 {
			relay = append(relay, n)
		}
	}
	return stubtext.JSON(map[string]any{"relay": relay, "reason": "The relayed questions bear on the proposition and are fair to both sides."})
}

func stubConclusionCheck(c *llm.StubCall) string {
	if c.Roll("concluded") < 0.35 {
		return stubtext.JSON(map[string]any{"concluded": true, "reason": "Both sides have answered each other's main points; further rounds would repeat them."})
	}
	return stubtext.JSON(map[string]any{"concluded": false, "reason": "Points raised in the last round are still unanswered."})
}

// stubStruck finds each side's "entries struck: N" in the verdict prompt.
var stubStruck = regexp.MustCompile(`entries struck: (\d+)`)

func stubVerdict(c *llm.StubCall) string {
	if !stubReasked(c) && c.Roll("invalid") < 0.05 {
		// In the schema's shape, and still unusable: no reason given.
		return stubtext.JSON(map[string]string{"outcome": string(VerdictAffirmativeWins), "reason": " "})
	}
	outcomes := []Verdict{VerdictAffirmativeWins, VerdictNegativeWins, VerdictDraw}
	// A side with more entries struck loses.
	if m := stubStruck.FindAllStringSubmatch(c.LastUser(), -1); len(m) == 2 {
		pro, _ := strconv.Atoi(m[0][1])
		det, _ := strconv.Atoi(m[1][1])
		switch {
		case pro > det:
			outcomes = []Verdict{VerdictNegativeWins}
		case det > pro:
			outcomes = []Verdict{VerdictAffirmativeWins}
		}
	}
	reasons := map[Verdict]string{
		VerdictAffirmativeWins: "The Promoter's arguments were better sourced and its rebuttals more effective, while the Detractor's objections rested more on unverified claims.",
		VerdictNegativeWins:    "The Detractor's arguments were better sourced and its rebuttals more effective, while the Promoter's case rested more on unverified claims.",
		VerdictDraw:            "Both sides made well-sourced arguments and answered each other effectively; neither established a clear advantage on the criteria.",
	}
	o := outcomes[c.Intn(len(outcomes))]
	// The prompt asks for the entries that decided it, by #seq.
	f := stubFacts(c)
	decided := "The entries of both sides were weighed alike."
	if pro, det := f.entries["promoter"], f.entries["detractor"]; len(pro) > 0 && len(det) > 0 {
		decided = fmt.Sprintf("Entries #%d of the promoter and #%d of the detractor weighed most in this judgement.", pro[c.Intn(len(pro))], det[c.Intn(len(det))])
	}
	return stubtext.JSON(map[string]string{"outcome": string(o), "reason": reasons[o] + " " + decided})
}

// stubOutcome reads "Outcome: X." from the prompt's outcome block.
func stubOutcome(c *llm.StubCall) string {
	s, _ := c.Tag("outcome")
	if v, ok := strings.CutPrefix(s, "Outcome: "); ok {
		if i := strings.IndexAny(v, ". "); i > 0 {
			return v[:i]
		}
	}
	return "draw"
}

var stubAudienceSentences = []string{
	"Listening to both sides, I came away with a clearer sense of what is actually at stake in {P}.",
	"The promoter made a persuasive case that the benefits are real and measurable.",
	"The detractor was right to press on the costs, which are easy to overlook.",
	"What struck me most was how much depended on the quality of the sources each side brought.",
	"When a source was questioned, the debate became sharper and more honest.",
	"I found the rebuttals more informative than the opening statements, because they forced each side to engage.",
	"Some of the conjectures were interesting, but they could not carry the argument on their own.",
	"I would like to see more evidence on the long-term effects before making up my mind completely.",
	"The questions from the floor helped bring the discussion back to practical consequences.",
	"Both debaters conceded small points of fact, which made their remaining disagreements easier to see.",
	"On balance, the evidence presented moved me somewhat, though not all the way.",
	"The chair kept the exchange fair, and the rulings applied to both sides alike.",
	"It is clear that reasonable people can weigh the same evidence differently here.",
	"The most useful part of the debate was seeing which claims survived scrutiny and which did not.",
	"I leave with better questions than I arrived with, which is perhaps the point of a debate like this.",
	"If I had to summarise, I would say the disagreement is less about facts than about how to weigh them.",
	"The closing statements were measured and fair to the other side's strongest points.",
	"A debate like this shows why sourcing matters: claims without evidence faded quickly.",
}

func stubAudienceConclusion(c *llm.StubCall) string {
	vars := map[string]string{"P": stubTopic(c)}
	var paras [][]string
	words := 0
	pool := c.PickN(stubAudienceSentences, len(stubAudienceSentences))
	var para []string
	for _, s := range pool {
		s = stubtext.Expand(s, vars)
		para = append(para, s)
		words += stubtext.Words(s)
		if len(para) == 4 {
			paras = append(paras, para)
			para = nil
		}
		if words >= 230 {
			break
		}
	}
	paras = append(paras, para, []string{fmt.Sprintf("The chair's outcome, %s, seems to me a fair reading of what was said.", strings.ReplaceAll(stubOutcome(c), "_", " "))})
	return stubtext.Join(paras...)
}

// stubLogFacts are what the stub's reporter counts in the transcript it
// is shown.
type stubLogFacts struct {
	arguments, sources, rebuttals map[string]int // by debater
	findings                      map[string]int // by status
	rulings, struck, questions    int
	entries                       map[string][]int // argument entries by debater
}

// stubEntryLine is an entry's first line in a prompt's transcript.
var stubEntryLine = regexp.MustCompile(`^#(\d+) (\w+), (\w+)(?: of #\d+)?(?: on #\d+)?: (.*)$`)

// stubFacts counts the entries of the transcript in c's prompt.
func stubFacts(c *llm.StubCall) stubLogFacts {
	f := stubLogFacts{arguments: map[string]int{}, sources: map[string]int{}, rebuttals: map[string]int{},
		findings: map[string]int{}, entries: map[string][]int{}}
	log, _ := c.Tag("transcript")
	speaker := ""
	for _, line := range strings.Split(log, "\n") {
		if strings.HasPrefix(line, "  source ") {
			f.sources[speaker]++
			continue
		}
		m := stubEntryLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		speaker = m[2]
		switch EntryType(m[3]) {
		case TypeOpeningStatement, TypeNewPoint, TypeConjecture, TypeClosingStatement, TypeRebuttal:
			f.arguments[speaker]++
			if n, err := strconv.Atoi(m[1]); err == nil {
				f.entries[speaker] = append(f.entries[speaker], n)
			}
			if EntryType(m[3]) == TypeRebuttal {
				f.rebuttals[speaker]++
			}
		case TypeVerificationResult:
			if st, _, ok := strings.Cut(m[4], ":"); ok {
				f.findings[st]++
			}
		case TypeRuling:
			f.rulings++
		case TypeRedaction:
			f.struck++
		case TypeAudienceQuestion:
			f.questions++
		}
	}
	return f
}

// stubReason reads the chair's reason from the prompt's outcome block.
func stubReason(c *llm.StubCall) string {
	s, _ := c.Tag("outcome")
	if _, r, ok := strings.Cut(s, "Reason: "); ok {
		return strings.TrimSpace(r)
	}
	return "none was given"
}

func plainCount(n int, one, many string) string {
	if n == 1 {
		return "one " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// stubPad adds paragraphs of pool, in order, until the text has at least
// min words.
func stubPad(paras [][]string, pool [][]string, min int) [][]string {
	words := 0
	for _, p := range paras {
		for _, s := range p {
			words += stubtext.Words(s)
		}
	}
	for _, p := range pool {
		if words >= min {
			break
		}
		paras = append(paras, p)
		for _, s := range p {
			words += stubtext.Words(s)
		}
	}
	return paras
}

// Bounds of the stub's documents, within the prompts' (summary 300 to 600
// words, blog post 500 to 900).
const (
	stubSummaryMinWords = 320
	stubBlogMinWords    = 540
)

func stubSummary(c *llm.StubCall) string {
	topic := stubTopic(c)
	outcome := strings.ReplaceAll(stubOutcome(c), "_", " ")
	f := stubFacts(c)
	checked := f.findings["verified"] + f.findings["unreliable"] + f.findings["fabricated"]
	paras := [][]string{
		{"# Debate summary: " + strings.Trim(topic, `"`)},
		{"This formal debate considered " + topic + ".",
			"A neutral chair ran it in four phases: opening statements, debate rounds, closing statements and the conclusion.",
			"The promoter argued the affirmative side and the detractor the negative, and each had to back its factual claims with sources that a verifier checked."},
		{"## The affirmative case"},
		{fmt.Sprintf("The promoter made %s, citing %s.", plainCount(f.arguments["promoter"], "argument", "arguments"), plainCount(f.sources["promoter"], "source", "sources")),
			"It argued that the proposition is supported by the evidence, pointing to studies and reports on its measured effects, and that the benefits it described held across the cases it cited.",
			"Where it could not cite a source, it labelled its claims as conjecture, as the rules require."},
		{"## The negative case"},
		{fmt.Sprintf("The detractor made %s, citing %s.", plainCount(f.arguments["detractor"], "argument", "arguments"), plainCount(f.sources["detractor"], "source", "sources")),
			"It argued that the costs and risks outweigh the benefits, drawing on evidence about the problems the proposition may create and on other ways of reaching the same goals.",
			"It, too, labelled as conjecture the claims it could not source."},
		{"## Key exchanges"},
		{"The debate turned on how much weight the cited evidence could bear.",
			fmt.Sprintf("The promoter answered the other side in %s and the detractor in %s.", plainCount(f.rebuttals["promoter"], "rebuttal", "rebuttals"), plainCount(f.rebuttals["detractor"], "rebuttal", "rebuttals")),
			"Both sides pressed each other on the scope of the studies and on who bears the costs.",
			fmt.Sprintf("The chair relayed %s from the audience to the debaters.", plainCount(f.questions, "question", "questions"))},
		{"## Verification and rulings"},
		{fmt.Sprintf("The verifier reported on %s: %d verified, %d unreliable and %d fabricated.", plainCount(checked, "source", "sources"), f.findings["verified"], f.findings["unreliable"], f.findings["fabricated"]),
			fmt.Sprintf("The chair made %s and struck %s from the record.", plainCount(f.rulings, "ruling", "rulings"), plainCount(f.struck, "entry", "entries")),
			"Any entry struck from the record is left out of this summary."},
		{"## The audience's view"},
		{"The audience found the exchange informative, noted how much depended on the quality of the sources each side brought, and said that the disagreement was as much about how to weigh the evidence as about the evidence itself."},
		{"## Outcome"},
		{"The chair declared the outcome: " + outcome + ".", "The chair's reason: " + stubReason(c)},
	}
	return stubtext.Join(stubPad(paras, [][]string{
		{"Both sides kept to the format: they spoke in turn, cited sources for their factual claims and labelled their conjectures."},
		{"Readers who want the detail of each argument will find every entry, with its sources and the rulings on it, in the transcript."},
	}, stubSummaryMinWords)...)
}

func stubBlogPost(c *llm.StubCall) string {
	topic := stubTopic(c)
	outcome := strings.ReplaceAll(stubOutcome(c), "_", " ")
	f := stubFacts(c)
	checked := f.findings["verified"] + f.findings["unreliable"] + f.findings["fabricated"]
	paras := [][]string{
		{"# Two sides of " + strings.Trim(topic, `"`)},
		{"What happens when two debaters have to back every claim with a source, and a verifier checks each one?",
			"That was the setting of this formal debate on " + topic + ".",
			"It was not a shouting match: a neutral chair kept the order, a verifier checked the sources, and an audience listened and asked questions."},
		{"## How the debate worked"},
		{"The format is simple to describe and demanding to follow.",
			"Each side opened with a statement of its case, then the two sides took turns over several rounds, making new points, rebutting each other or offering clearly labelled conjectures.",
			"Every factual claim had to come with a source: a web address, a title and the date it was read.",
			"The verifier checked every source, and a source found fabricated would have its entry struck from the record and its author disqualified."},
		{"## The affirmative case"},
		{"The promoter made the affirmative case, pointing to evidence of benefits.",
			fmt.Sprintf("Over the debate it made %s and cited %s.", plainCount(f.arguments["promoter"], "argument", "arguments"), plainCount(f.sources["promoter"], "source", "sources")),
			"Its argument was that the measured effects are real, that they hold across different places, and that the objections assume conditions that rarely hold in practice."},
		{"## The negative case"},
		{"The detractor made the negative case, pointing to costs and risks.",
			fmt.Sprintf("It made %s and cited %s.", plainCount(f.arguments["detractor"], "argument", "arguments"), plainCount(f.sources["detractor"], "source", "sources")),
			"Its argument was that the costs are larger and more certain than the promised benefits, that they fall on people who gain little, and that other approaches could reach the same goals."},
		{"## Checking the evidence"},
		{fmt.Sprintf("The verifier reported on %s: %d were verified, %d were found unreliable and %d were found fabricated.", plainCount(checked, "source", "sources"), f.findings["verified"], f.findings["unreliable"], f.findings["fabricated"]),
			fmt.Sprintf("The chair made %s along the way and struck %s from the record.", plainCount(f.rulings, "ruling", "rulings"), plainCount(f.struck, "entry", "entries")),
			"Where a source was found unreliable, the debater who cited it was warned and asked to withdraw or replace it."},
		{"## The audience"},
		{"The audience asked questions between rounds, and the chair relayed the fair ones to the debaters.",
			fmt.Sprintf("%s reached the debaters this way.", stubtext.UpperFirst(plainCount(f.questions, "question", "questions"))),
			"At the end, the audience shared its own conclusions: that the debate had sharpened the question, and that much depended on how the evidence is weighed."},
		{"## The outcome"},
		{"In the end the chair declared the outcome: " + outcome + ".", "The chair's reason: " + stubReason(c)},
		{"Readers can weigh the arguments for themselves in the full transcript, which records every entry, every source and every ruling."},
	}
	return stubtext.Join(stubPad(paras, [][]string{
		{"Debates about public questions often stall because each side talks past the other.",
			"Requiring sources changes that: a claim has to point to something a reader can check, and a claim that cannot be checked has to say so.",
			"The result is slower than a television debate, but it leaves a record that others can build on."},
		{"Whatever one thinks of the outcome, the exercise shows what careful disagreement can look like: arguments set side by side, evidence checked, and the reasons for the verdict written down."},
		{"That is perhaps the most useful thing a debate like this can offer: not a final answer, but a clearer view of where the real disagreements lie."},
	}, stubBlogMinWords)...)
}

func stubAssessment(c *llm.StubCall) string {
	_, blog := c.Tag("blog_post")
	blogLine := "The debate was void and no blog post was produced, as the rules require."
	if blog {
		blogLine = "The blog post is neutral and attributes each claim to the side that made it."
	}
	return stubtext.Join(
		[]string{"# Assessor report"},
		[]string{"## Accuracy"}, []string{"The summary matches the transcript on the arguments, the rulings and the outcome."},
		[]string{"## Neutrality"}, []string{"Neither document favours a side; both give the two cases comparable space."},
		[]string{"## Completeness"}, []string{"Both sides' main arguments, the verifier's findings and the chair's rulings are covered."},
		[]string{"## Redactions"}, []string{"No struck content appears in the documents."},
		[]string{"## Blog post"}, []string{blogLine},
		[]string{"## Overall rating"}, []string{"Good. No corrections are required."},
	)
}
