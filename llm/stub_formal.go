package llm

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The formal debate's calls (package formal): the debaters' JSON turns, the
// verifier's findings, the audience's questions and conclusion, the chair's
// relays, conclusion checks and verdict, the reporter's documents and the
// assessor's report.
func init() {
	registerStub("formal_turn", writeFormalTurn)
	registerStub("verification", writeFormalVerification)
	registerStub("audience_questions", writeFormalQuestions)
	registerStub("formal_relay", writeFormalRelay)
	registerStub("formal_conclusion_check", writeFormalConclusionCheck)
	registerStub("formal_verdict", writeFormalVerdict)
	registerStub("audience_conclusion", writeFormalAudienceConclusion)
	registerStub("formal_summary", writeFormalSummary)
	registerStub("formal_blog_post", writeFormalBlogPost)
	registerStub("assessment", writeFormalAssessment)
}

// formalReasked reports whether the call asks again after a rejected reply;
// the stub then always answers validly.
func formalReasked(c *stubCall) bool {
	return strings.HasPrefix(c.lastUser(), "Your reply was rejected")
}

func formalJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "{}"
	}
	return string(b)
}

func formalList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

type formalSource struct {
	URL      string `json:"url"`
	Title    string `json:"title"`
	Accessed string `json:"accessed"`
}

type formalChallenge struct {
	TargetSeq int    `json:"target_seq"`
	URL       string `json:"url"`
	Claim     string `json:"claim"`
}

type formalTurn struct {
	Type          string           `json:"type"`
	Content       string           `json:"content"`
	Sources       []formalSource   `json:"sources"`
	RebuttalToSeq *int             `json:"rebuttal_to_seq"`
	Challenge     *formalChallenge `json:"source_challenge,omitempty"`
}

// formalChallengeLine is a line of "Sources you may challenge:".
var formalChallengeLine = regexp.MustCompile(`(?m)^- seq (\d+), source (\S+)\s*$`)

var formalDate = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// formalTopic is a short form of the proposition for texts and URLs.
func formalTopic(c *stubCall) string {
	return c.proposition(70, "the proposition")
}

var formalNonSlug = regexp.MustCompile(`[^a-z0-9]+`)

var formalPublishers = []string{"example.org", "example.com", "example.net"}

var formalSourceKinds = []string{
	"Survey of %s", "Evidence review: %s", "Working paper on %s", "Annual report on %s", "Field study of %s",
}

// formalSources makes n sources about topic.
func formalSources(c *stubCall, n int, topic, today string) []formalSource {
	slug := strings.Trim(formalNonSlug.ReplaceAllString(strings.ToLower(topic), "-"), "-")
	if len(slug) > 40 {
		slug = strings.TrimRight(slug[:40], "-")
	}
	if slug == "" {
		slug = "debate"
	}
	out := []formalSource{}
	for i := range n {
		out = append(out, formalSource{
			URL:      fmt.Sprintf("https://%s/research/%s-%d", c.pick(formalPublishers), slug, 100+c.intn(900)+i),
			Title:    fmt.Sprintf(c.pick(formalSourceKinds), strings.Trim(topic, `"`)),
			Accessed: today,
		})
	}
	return out
}

var formalAffirmative = []string{
	"The strongest evidence points toward accepting {P}.",
	"Those who study this closely report benefits that outweigh the costs of {P}.",
	"Adopting {P} addresses a problem that the status quo leaves unsolved.",
	"The measured outcomes in comparable cases favour {P}.",
}

var formalNegative = []string{
	"The evidence does not support {P} as stated.",
	"The costs of {P} are larger and more certain than its promised benefits.",
	"Comparable cases show that {P} tends to create new problems of its own.",
	"There are better ways to reach the same goals than {P}.",
}

var formalElaborations = []string{
	"The data collected over several years shows a consistent pattern rather than a one-off result.",
	"Independent reviews reached the same conclusion using different methods.",
	"The effect holds across different regions and populations.",
	"The main objection assumes conditions that rarely hold in practice.",
	"Where the policy was tried at scale, the outcomes were measured and published.",
	"A careful reading of the figures shows the trend is stable rather than noise.",
}

var formalRebuttals = []string{
	"Entry {N} overstates what its evidence shows.",
	"The argument in entry {N} rests on a sample too small to generalise from.",
	"Entry {N} leaves out the costs that the same studies report.",
	"The reasoning in entry {N} confuses correlation with cause.",
}

var formalConjectures = []string{
	"it is plausible that the long-run effects will be larger than the short studies suggest.",
	"if current trends continue, the balance of costs and benefits may shift within a decade.",
	"one can imagine the incentives changing once the first results become public.",
}

func writeFormalTurn(c *stubCall) string {
	allowed := formalList(c.field("Allowed types"))
	if len(allowed) == 0 {
		allowed = []string{"new_point"}
	}
	var rebuttable []int
	for _, s := range formalList(c.field("Opponent entries you may rebut")) {
		if n, err := strconv.Atoi(s); err == nil {
			rebuttable = append(rebuttable, n)
		}
	}
	today := c.field("Today")
	if !formalDate.MatchString(today) {
		today = "2026-01-01"
	}
	topic := formalTopic(c)
	negative := strings.EqualFold(c.field("Side"), "negative")
	reasked := formalReasked(c)

	typ := allowed[0]
	if len(allowed) > 1 {
		switch r := c.roll("type"); {
		case r < 0.45 && len(rebuttable) > 0 && formalHas(allowed, "rebuttal"):
			typ = "rebuttal"
		case r < 0.6 && formalHas(allowed, "conjecture"):
			typ = "conjecture"
		case formalHas(allowed, "new_point"):
			typ = "new_point"
		}
	}
	t := formalTurn{Type: typ, Sources: []formalSource{}}
	claims := formalAffirmative
	if negative {
		claims = formalNegative
	}
	vars := map[string]string{"P": topic}
	sentences := []string{stubExpand(c.pick(claims), vars)}
	sentences = append(sentences, c.pickN(formalElaborations, 2+c.intn(2))...)
	switch typ {
	case "rebuttal":
		n := rebuttable[c.intn(len(rebuttable))]
		t.RebuttalToSeq = &n
		vars["N"] = strconv.Itoa(n)
		sentences = append([]string{stubExpand(c.pick(formalRebuttals), vars)}, sentences...)
	case "conjecture":
		sentences = []string{"Looking ahead, " + c.pick(formalConjectures), stubExpand(c.pick(claims), vars)}
	case "opening_statement":
		sentences = append([]string{"In this opening statement I will set out why I take this side."}, sentences...)
	case "closing_statement":
		sentences = append([]string{"To close, let me sum up the case I have made."}, sentences...)
	}
	content := stubJoin(sentences)
	sourced := c.roll("sourced") < 0.88
	if typ == "closing_statement" {
		sourced = c.roll("sourced") < 0.5
	}
	switch {
	case typ == "conjecture":
		if reasked || c.roll("label") < 0.95 {
			content = "[CONJECTURE] " + content
		}
	case sourced:
		t.Sources = formalSources(c, 1+c.intn(2), topic, today)
	case c.roll("label") < 0.5:
		content = "[CONJECTURE] " + content
	}
	t.Content = content

	if lines := formalChallengeLine.FindAllStringSubmatch(c.lastUser(), -1); len(lines) > 0 && c.roll("challenge") < 0.12 {
		l := lines[c.intn(len(lines))]
		if n, err := strconv.Atoi(l[1]); err == nil {
			t.Challenge = &formalChallenge{TargetSeq: n, URL: l[2], Claim: "The source does not support the figures entry " + l[1] + " attributes to it."}
		}
	}
	if !reasked && len(allowed) > 1 && c.roll("invalid") < 0.08 {
		if typ == "rebuttal" {
			t.RebuttalToSeq = nil
		} else {
			t.Type = "argument"
		}
	}
	return formalJSON(t)
}

func formalHas(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func writeFormalVerification(c *stubCall) string {
	if !formalReasked(c) && c.roll("unsure") < 0.04 {
		return formalJSON(map[string]string{"status": "probably fine", "reason": "The source looks plausible, but I would need to check it further."})
	}
	src, _ := c.tag("source")
	host := "the site"
	for _, line := range strings.Split(src, "\n") {
		if u, ok := strings.CutPrefix(strings.TrimSpace(line), "URL:"); ok {
			if f := strings.Split(strings.TrimPrefix(strings.TrimSpace(u), "https://"), "/"); len(f) > 0 && f[0] != "" {
				host = stubShorten(f[0], 40)
			}
		}
	}
	type finding struct {
		Status string `json:"status"`
		Reason string `json:"reason"`
	}
	switch r := c.roll("finding"); {
	case r < 0.04:
		return formalJSON(finding{"fabricated", "No page with this address or title is known at " + host + "; the citation appears invented."})
	case r < 0.16:
		return formalJSON(finding{"unreliable", "The page at " + host + " may exist, but it does not clearly support the claim as stated."})
	}
	return formalJSON(finding{"verified", "The source at " + host + " exists and supports the claim it is cited for."})
}

var formalQuestionPool = []string{
	"What evidence would change your mind on this?",
	"How do you answer the strongest point the other side has made so far?",
	"Which of your sources do you consider the most reliable, and why?",
	"What would the first year look like if your side prevailed?",
	"Who bears the costs under your position?",
}

func writeFormalQuestions(c *stubCall) string {
	type q struct {
		To       string `json:"to"`
		Question string `json:"question"`
	}
	out := struct {
		Questions []q `json:"questions"`
	}{Questions: []q{}}
	n := 0
	switch r := c.roll("questions"); {
	case r < 0.2:
		n = 2
	case r < 0.6:
		n = 1
	}
	for _, text := range c.pickN(formalQuestionPool, n) {
		out.Questions = append(out.Questions, q{To: c.pick([]string{"promoter", "detractor", "both"}), Question: text})
	}
	return formalJSON(out)
}

var formalNumbered = regexp.MustCompile(`(?m)^(\d+)\.\s`)

func writeFormalRelay(c *stubCall) string {
	qs, _ := c.tag("questions")
	relay := []int{}
	for i, m := range formalNumbered.FindAllStringSubmatch(qs, -1) {
		if n, err := strconv.Atoi(m[1]); err == nil && c.roll("relay"+strconv.Itoa(i)) < 0.75 {
			relay = append(relay, n)
		}
	}
	return formalJSON(map[string]any{"relay": relay, "reason": "The relayed questions bear on the proposition and are fair to both sides."})
}

func writeFormalConclusionCheck(c *stubCall) string {
	if c.roll("concluded") < 0.35 {
		return formalJSON(map[string]any{"concluded": true, "reason": "Both sides have answered each other's main points; further rounds would repeat them."})
	}
	return formalJSON(map[string]any{"concluded": false, "reason": "Points raised in the last round are still unanswered."})
}

// formalStruck finds each side's "entries struck: N" in the verdict prompt.
var formalStruck = regexp.MustCompile(`entries struck: (\d+)`)

func writeFormalVerdict(c *stubCall) string {
	if !formalReasked(c) && c.roll("invalid") < 0.05 {
		return formalJSON(map[string]string{"outcome": "affirmative victory", "reason": "The affirmative case was stronger."})
	}
	outcomes := []string{"affirmative_wins", "negative_wins", "draw"}
	// A side with more entries struck loses.
	if m := formalStruck.FindAllStringSubmatch(c.lastUser(), -1); len(m) == 2 {
		pro, _ := strconv.Atoi(m[0][1])
		det, _ := strconv.Atoi(m[1][1])
		switch {
		case pro > det:
			outcomes = []string{"negative_wins"}
		case det > pro:
			outcomes = []string{"affirmative_wins"}
		}
	}
	reasons := map[string]string{
		"affirmative_wins": "The Promoter's arguments were better sourced and its rebuttals more effective, while the Detractor's objections rested more on unverified claims.",
		"negative_wins":    "The Detractor's arguments were better sourced and its rebuttals more effective, while the Promoter's case rested more on unverified claims.",
		"draw":             "Both sides made well-sourced arguments and answered each other effectively; neither established a clear advantage on the criteria.",
	}
	o := outcomes[c.intn(len(outcomes))]
	return formalJSON(map[string]string{"outcome": o, "reason": reasons[o]})
}

// formalOutcome reads "Outcome: X." from the prompt's outcome block.
func formalOutcome(c *stubCall) string {
	s, _ := c.tag("outcome")
	if v, ok := strings.CutPrefix(s, "Outcome: "); ok {
		if i := strings.IndexAny(v, ". "); i > 0 {
			return v[:i]
		}
	}
	return "draw"
}

var formalAudienceSentences = []string{
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

func writeFormalAudienceConclusion(c *stubCall) string {
	vars := map[string]string{"P": formalTopic(c)}
	var paras [][]string
	words := 0
	pool := c.pickN(formalAudienceSentences, len(formalAudienceSentences))
	var para []string
	for _, s := range pool {
		s = stubExpand(s, vars)
		para = append(para, s)
		words += stubWords(s)
		if len(para) == 4 {
			paras = append(paras, para)
			para = nil
		}
		if words >= 230 {
			break
		}
	}
	paras = append(paras, para, []string{fmt.Sprintf("The chair's outcome, %s, seems to me a fair reading of what was said.", strings.ReplaceAll(formalOutcome(c), "_", " "))})
	return stubJoin(paras...)
}

func writeFormalSummary(c *stubCall) string {
	topic := formalTopic(c)
	outcome := strings.ReplaceAll(formalOutcome(c), "_", " ")
	return stubJoin(
		[]string{"# Debate summary: " + strings.Trim(topic, `"`)},
		[]string{"This debate considered " + topic + "."},
		[]string{"## The affirmative case", "The promoter argued that the proposition is supported by the evidence, citing studies and reports on its measured effects."},
		[]string{"## The negative case", "The detractor argued that the costs and risks outweigh the benefits, citing evidence on the problems the proposition may create."},
		[]string{"## Verification and rulings", "The verifier checked the sources both sides cited, and the chair ruled on the findings; any entry struck from the record is left out of this summary."},
		[]string{"## Outcome", "The chair declared the outcome: " + outcome + "."},
	)
}

func writeFormalBlogPost(c *stubCall) string {
	topic := formalTopic(c)
	outcome := strings.ReplaceAll(formalOutcome(c), "_", " ")
	return stubJoin(
		[]string{"# Two sides of " + strings.Trim(topic, `"`)},
		[]string{"What happens when two debaters have to back every claim with a source, and a verifier checks each one?", "That was the setting of this formal debate on " + topic + "."},
		[]string{"The promoter made the affirmative case, pointing to evidence of benefits.", "The detractor made the negative case, pointing to costs and risks."},
		[]string{"The audience asked questions between rounds, and the chair relayed the fair ones to the debaters."},
		[]string{"In the end the chair declared the outcome: " + outcome + ".", "Readers can weigh the arguments for themselves in the full transcript."},
	)
}

func writeFormalAssessment(c *stubCall) string {
	_, blog := c.tag("blog_post")
	blogLine := "The debate was void and no blog post was produced, as the rules require."
	if blog {
		blogLine = "The blog post is neutral and attributes each claim to the side that made it."
	}
	return stubJoin(
		[]string{"# Assessor report"},
		[]string{"## Accuracy", "The summary matches the transcript on the arguments, the rulings and the outcome."},
		[]string{"## Neutrality", "Neither document favours a side; both give the two cases comparable space."},
		[]string{"## Redactions", "No struck content appears in the documents."},
		[]string{"## Blog post", blogLine},
		[]string{"## Overall rating", "Good. No corrections are required."},
	)
}
