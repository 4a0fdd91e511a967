package llm

import (
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// The chairs' own texts: "opening", "response", "interruption".
func init() {
	registerStub("opening", writeChair)
	registerStub("response", writeChair)
	registerStub("interruption", writeChair)
}

// stubChair is a chair as a prompt lists it.
type stubChair struct {
	position, name, provider, framework string
}

func (ch stubChair) voice() *stubVoice {
	v, _ := stubVoiceFor(ch.framework)
	return v
}

// display is the chair's model name, or its framework's when the list has no
// name.
func (ch stubChair) display() string {
	if ch.name != "" {
		return ch.name
	}
	return "the " + ch.voice().name
}

// short is how a host calls the chair on air: "Claude" for "Claude Sonnet 4".
func (ch stubChair) short() string {
	if f := strings.Fields(ch.name); len(f) > 0 {
		if s := strings.TrimRight(f[0], ",;:."); s != "" {
			return s
		}
	}
	return ch.display()
}

var (
	// "- chair_1: Claude Sonnet 4 from Anthropic, Utilitarian Chair"
	stubChairFrom = regexp.MustCompile(`^[-*•]\s*([\w.-]+):\s*(.+?)\s+from\s+(.+?),\s*(.+?)$`)
	// "- chair_2: Grok 3 (Virtue Ethics Chair)", "- Grok 3 (Virtue Ethics Chair): description"
	stubChairParen = regexp.MustCompile(`^[-*•]\s*(?:([\w.-]+):\s*)?([^():]+?)\s*\(([^()]+)\)\s*(?::.*)?$`)
	// "- chair_1: Claude Sonnet 4, Utilitarian Chair"
	stubChairComma = regexp.MustCompile(`^[-*•]\s*([\w.-]+):\s*([^,()]+?),\s*(.+?)$`)
)

// parseStubChair reads one line of a chair list. It accepts a line only if it
// names a known framework or perspective, something ending in "Chair",
// "perspective" or "Advocate", or a position with a digit in it ("chair_2"),
// so that other bulleted lines are not taken for chairs.
func parseStubChair(line string) (stubChair, bool) {
	line = strings.TrimSpace(line)
	if r, _ := utf8.DecodeRuneInString(line); !strings.ContainsRune("-*•", r) {
		return stubChair{}, false
	}
	line = strings.ReplaceAll(line, "**", "")
	var ch stubChair
	if m := stubChairParen.FindStringSubmatch(line); m != nil {
		ch = stubChair{position: m[1], name: m[2], framework: m[3]}
	} else if m := stubChairFrom.FindStringSubmatch(line); m != nil {
		ch = stubChair{position: m[1], name: m[2], provider: m[3], framework: m[4]}
	} else if m := stubChairComma.FindStringSubmatch(line); m != nil {
		ch = stubChair{position: m[1], name: m[2], framework: m[3]}
	} else {
		return stubChair{}, false
	}
	ch.framework = strings.TrimSpace(strings.TrimRight(ch.framework, ".;"))
	_, known := stubVoices[stubVoiceKey(ch.framework)]
	fw := strings.ToLower(ch.framework)
	plausible := known || strings.HasSuffix(fw, "chair") || strings.HasSuffix(fw, "perspective") ||
		strings.HasSuffix(fw, "advocate") || strings.ContainsAny(ch.position, "0123456789")
	return ch, plausible && ch.framework != ""
}

// stubChairs returns the chairs listed in text, in order, without repeats.
func stubChairs(text string) []stubChair {
	var out []stubChair
	seen := make(map[string]bool)
	for _, line := range strings.Split(text, "\n") {
		ch, ok := parseStubChair(line)
		if !ok {
			continue
		}
		key := ch.position
		if key == "" {
			key = ch.name + "\x00" + ch.framework
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, ch)
	}
	return out
}

const stubSelfIntro = "You are holding the "

// self returns the voice of the chair whose system prompt this is, or an
// "Independent" voice when the prompt does not say.
func (c *stubCall) self() *stubVoice {
	for _, s := range []string{c.system(), c.prompt()} {
		i := strings.Index(s, stubSelfIntro)
		if i < 0 {
			continue
		}
		rest := s[i+len(stubSelfIntro):]
		end := strings.Index(rest, " in this Duelogic debate")
		if end < 0 {
			end = strings.IndexAny(rest, ".\n")
		}
		if end < 0 {
			end = len(rest)
		}
		v, _ := stubVoiceFor(stubShorten(rest[:end], 60))
		return v
	}
	v, _ := stubVoiceFor("Independent Chair")
	return v
}

// opponent picks one of the other chairs listed in the system prompt.
func (c *stubCall) opponent(me *stubVoice) (name string, v *stubVoice) {
	var others []stubChair
	for _, ch := range stubChairs(c.system()) {
		if stubVoiceKey(ch.framework) != stubVoiceKey(me.name) {
			others = append(others, ch)
		}
	}
	if len(others) == 0 {
		return "my opponent", &stubVoice{grants: []string{
			"there is a serious consideration on the other side that my own view can easily underrate",
		}}
	}
	ch := others[c.intn(len(others))]
	return ch.display(), ch.voice()
}

// The sentence templates of chair texts. {P} is the proposition, {v} a value
// of the speaker's, {opp} an opponent, {grant} what the opponent's view gets
// right, {critique} and {blind} the speaker's objection and weakness; a
// capitalized key inserts its value capitalized.
var (
	stubHooks = []string{
		"Let me start with the question my chair always asks: {Q}",
		"When I look at {P}, I start from {v}, because that is what the {label} view is built on.",
		"I come to {P} as the {name}, and that means one question comes first: {q}",
		"Here is how the {label} view frames {P}: everything turns on {v}.",
	}
	stubReactions = []string{
		"I want to pick up on what {opp} just said, because it goes to the heart of {P}.",
		"There is a lot in the last exchange I agree with, and one thing I cannot accept.",
		"Let me come back to {P}, because the last few minutes have sharpened it.",
		"I have been listening closely to {opp}, and I think we have finally reached the real disagreement.",
	}
	stubChallenges = []string{
		"That point cannot stand unchallenged, because it skips straight past {v}.",
		"I have to stop us here, because what was just said leaves out {v} entirely.",
		"Before we move on, that last claim needs a closer look from the {label} side.",
		"This is the moment where our views really part, and it is about {v}.",
	}
	stubElaborations = []string{
		"That is why I keep returning to {v}: it is the part of this question that is easiest to lose and hardest to recover.",
		"If we get {v} wrong, nothing else we get right will make up for it.",
		"In practice that means asking, at every step, what happens to {v}.",
		"I am not claiming {v} is the only thing that matters, only that it should never be an afterthought.",
		"Look closely at {v} and much of the disagreement here starts to make sense.",
	}
	stubSteelMen = []string{
		"{Opp} makes a compelling case that {grant}.",
		"I want to be fair here, because {opp} makes a compelling case that {grant}.",
		"Let me put the strongest version of {opp}'s position first: {grant}.",
		"The strongest version of the other side, as {opp} puts it, is that {grant}, and I take it seriously.",
	}
	stubCritiques = []string{
		"But here is where I part ways: {critique}.",
		"Still, I cannot follow that all the way, because {critique}.",
		"Where I push back is this: {critique}.",
		"And yet, from where I sit, {critique}.",
	}
	stubBlindSpots = []string{
		"I should name the blind spot in my own {frame}: {blind}.",
		"And this is where my {frame} struggles: {blind}, and I do not have a tidy answer to that.",
		"The {label} view has a blind spot too: {blind}.",
		"Here is where my {frame} struggles, and I will say it plainly: {blind}.",
	}
	stubCloses = []string{
		"So the question I would put back to everyone is this: {Q}",
		"{Opp}, I would like to hear how your view answers that.",
		"That, for me, is where this conversation has to go next.",
		"If we keep {v} in view, we can at least disagree about the right things.",
	}
)

// The phrases by which the stub's "evaluation" recognizes steel-manning and
// self-critique. Every template above that is meant to show one contains one
// of them, and no other template does.
var (
	stubSteelPhrases = []string{"makes a compelling case that", "the strongest version of", "steel-man", "steelman"}
	stubBlindPhrases = []string{"blind spot", "where my framework struggles", "where my perspective struggles"}
)

// stubLine is a sentence of a chair text: the paragraph it belongs to and
// whether it may be dropped to keep the text within its length.
type stubLine struct {
	text     string
	para     int
	optional bool
}

// Chair texts are kept within these word counts.
const (
	stubChairMinWords = 100
	stubChairMaxWords = 220
)

func writeChair(c *stubCall) string {
	me := c.self()
	oppName, oppVoice := c.opponent(me)
	vars := map[string]string{
		"P":        c.proposition(90, "the question in front of us"),
		"name":     me.name,
		"label":    me.label,
		"frame":    me.frame,
		"q":        me.question,
		"opp":      oppName,
		"grant":    c.pick(oppVoice.grants),
		"critique": c.pick(me.critique),
		"blind":    c.pick(me.blind),
	}
	values := c.pickN(me.values, len(me.values))
	claims := c.pickN(me.claims, len(me.claims))
	say := func(templates []string, value string) string {
		vars["v"] = value
		return stubExpand(c.pick(templates), vars)
	}
	steelMan := c.roll("omit steel-manning") >= 0.15
	selfCritique := c.roll("omit self-critique") >= 0.15

	var lines []stubLine
	add := func(para int, optional bool, text string) {
		lines = append(lines, stubLine{text: text, para: para, optional: optional})
	}
	addSteelMan := func(para int) {
		if steelMan {
			add(para, false, say(stubSteelMen, ""))
		}
		add(para, false, say(stubCritiques, ""))
	}
	claim := func(i int) string { return stubExpand(claims[i%len(claims)], vars) }
	opener := ""
	switch c.req.Purpose {
	case "opening":
		add(0, false, say(stubHooks, values[0]))
		add(0, false, claim(0))
		if ctx, ok := c.tag("context"); ok && ctx != "" {
			add(0, true, "The background we were given matters here too: "+strings.TrimRight(stubShorten(ctx, 100), ".!?")+".")
		}
		add(0, true, say(stubElaborations, values[1]))
		add(0, true, claim(1))
		addSteelMan(1)
	case "interruption":
		if o, ok := c.tag("opener"); ok {
			opener = strings.Join(strings.Fields(o), " ")
		}
		add(0, false, say(stubChallenges, values[0]))
		if t, ok := c.tag("trigger"); ok && t != "" {
			add(0, true, `When you say "`+stubShorten(t, 60)+`", you are assuming the answer instead of arguing for it.`)
		}
		add(0, false, claim(0))
		addSteelMan(0)
	default: // "response"
		add(0, false, say(stubReactions, ""))
		addSteelMan(0)
		add(0, false, claim(0))
		add(1, true, say(stubElaborations, values[1]))
		add(1, true, claim(1))
	}
	// The text ends with the admission of a weakness and a closing line.
	var tail []stubLine
	if selfCritique {
		tail = append(tail, stubLine{text: say(stubBlindSpots, ""), para: 1})
	}
	tail = append(tail, stubLine{text: say(stubCloses, values[2%len(values)]), para: 1})

	words := func() int {
		n := stubWords(opener)
		for _, l := range slices.Concat(lines, tail) {
			n += stubWords(l.text)
		}
		return n
	}
	for i := 2; words() < stubChairMinWords && i < len(claims)+len(values); i++ {
		if i < len(claims) {
			add(1, true, claim(i))
		} else {
			add(1, true, say(stubElaborations, values[i-len(claims)]))
		}
	}
	for words() > stubChairMaxWords {
		i := len(lines) - 1
		for i >= 0 && !lines[i].optional {
			i--
		}
		if i < 0 {
			break
		}
		lines = slices.Delete(lines, i, i+1)
	}

	paras := make([][]string, 2)
	for _, l := range slices.Concat(lines, tail) {
		paras[l.para] = append(paras[l.para], l.text)
	}
	text := stubJoin(paras...)
	// Name the proposition in full once; after that, refer back to it.
	if p := vars["P"]; strings.HasPrefix(p, `"`) {
		if i := strings.Index(text, p); i >= 0 {
			head := text[:i+len(p)]
			text = head + strings.ReplaceAll(text[len(head):], p, "this proposition")
		}
	}
	switch {
	case strings.HasSuffix(opener, "—"):
		// "I have to push back on that—before we move on, ..."
		if first, _, _ := strings.Cut(text, " "); first != "I" && !strings.HasPrefix(first, "I'") {
			text = stubLowerFirst(text)
		}
		text = opener + text
	case opener != "":
		text = opener + " " + text
	}
	return text
}

// writeGeneric answers a purpose the stub does not know.
func writeGeneric(c *stubCall) string {
	vars := map[string]string{"P": c.proposition(90, "this question")}
	return stubJoin([]string{
		stubExpand(c.pick([]string{
			"There is more than one reasonable way to look at {P}.",
			"{P} is harder than it first appears.",
			"Reasonable people disagree about {P}, and not because either side is careless.",
		}), vars),
		c.pick([]string{
			"The disagreement usually turns on what we weigh most heavily, and on who bears the cost if we are wrong.",
			"Most of the disagreement comes from different starting points rather than different facts.",
		}),
		c.pick([]string{
			"A careful answer names its assumptions, meets the best objection, and says what evidence would change its mind.",
			"The useful move is to say plainly what each position assumes and what it would take to change it.",
		}),
	})
}
