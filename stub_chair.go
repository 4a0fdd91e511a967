package duelogic

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/duelogic/duelogic/internal/stubtext"
	"github.com/duelogic/duelogic/internal/stubvoice"
	"github.com/duelogic/duelogic/llm"
)

// The offline stub model's answers (llm.Stub) to the podcast format's
// requests live beside the prompts they read: the chairs' texts here, the
// arbiter's in stub_arbiter.go, its judgements in stub_judge.go and argument
// extraction in stub_moves.go. They read the prompt conventions of this
// package and fall back to neutral wording for anything they cannot find:
// user-supplied text fenced in tags on their own lines ("<proposition>",
// "<context>", "<response>", "<opener>"); a chair's system prompt beginning
// "You are holding the <Name> in this Duelogic debate." (or "the <Name>
// perspective"), listing opponents as "- <display name> (<framework name>)";
// chair lists as "- <position>: <display name> from <provider>, <framework
// name>" or "- <position>: <display name> (<framework name>)".
//
// Chair texts steel-man an opponent and admit a blind spot, except that about
// 15% of them leave out the steel-man and, independently, about 15% the
// admission, so that the stub's own "evaluation" flags the lapse and the
// arbiter interjects; its "interrupt_check" asks for an interruption in about
// a quarter of the checks.

// stubVoices are the stub's voices for the built-in catalog's entries.
var stubVoices = stubvoice.NewSet(stubVoiceEntries(DefaultCatalog().All()))

// stubVoiceEntries names catalog entries for [stubvoice.NewSet].
func stubVoiceEntries(fs []FrameworkInfo) []stubvoice.Entry {
	out := make([]stubvoice.Entry, len(fs))
	for i, f := range fs {
		out[i] = stubvoice.Entry{ID: string(f.ID), Name: f.Name, Perspective: f.Kind == KindPerspective}
	}
	return out
}

// stubProposition returns the debated proposition of the prompt, shortened to
// about limit characters and quoted, or fallback when the prompt has none.
func stubProposition(c *llm.StubCall, limit int, fallback string) string {
	p, _ := c.Tag("proposition")
	return stubtext.Quote(p, limit, fallback)
}

// The chairs' own texts: "opening", "response", "interruption".
func init() {
	llm.RegisterStub(PurposeOpening, writeStubChair)
	llm.RegisterStub(PurposeResponse, writeStubChair)
	llm.RegisterStub(PurposeInterruption, writeStubChair)
}

// stubChair is a chair as a prompt lists it.
type stubChair struct {
	position, name, provider, framework string
}

func (ch stubChair) voice() *stubvoice.Voice { return stubVoices.For(ch.framework) }

// display is the chair's model name, or its framework's when the list has no
// name.
func (ch stubChair) display() string {
	if ch.name != "" {
		return ch.name
	}
	return "the " + ch.voice().Name
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
	_, known := stubVoices.Lookup(ch.framework)
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

// stubSelf returns the voice of the chair whose system prompt this is, or an
// "Independent" voice when the prompt does not say.
func stubSelf(c *llm.StubCall) *stubvoice.Voice {
	for _, s := range []string{c.System(), c.Prompt()} {
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
		return stubVoices.For(stubtext.Shorten(rest[:end], 60))
	}
	return stubVoices.For("Independent Chair")
}

// stubOpponent picks one of the other chairs listed in the system prompt.
func stubOpponent(c *llm.StubCall, me *stubvoice.Voice) (name string, v *stubvoice.Voice) {
	var others []stubChair
	for _, ch := range stubChairs(c.System()) {
		if stubvoice.Key(ch.framework) != stubvoice.Key(me.Name) {
			others = append(others, ch)
		}
	}
	if len(others) == 0 {
		return "my opponent", &stubvoice.Voice{Grants: []string{
			"there is a serious consideration on the other side that my own view can easily underrate",
		}}
	}
	ch := others[c.Intn(len(others))]
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

// The phrases by which the stub's "evaluation" recognizes steel-manning,
// self-critique and a critique of an opponent. Every template above that is
// meant to show one contains one of them, and no other template does.
var (
	stubSteelPhrases    = []string{"makes a compelling case that", "the strongest version of", "steel-man", "steelman"}
	stubBlindPhrases    = []string{"blind spot", "where my framework struggles", "where my perspective struggles"}
	stubCritiquePhrases = []string{"where i part ways", "i cannot follow that all the way", "where i push back", "from where i sit"}
)

// stubNameOnce names the proposition p (quoted) in full once, in the first
// piece that names it and is always said (else the first that names it),
// and refers back to it everywhere else, before the text is fitted to its
// length.
func stubNameOnce(pieces []stubPiece, p string) {
	if !strings.HasPrefix(p, `"`) {
		return
	}
	full := -1
	for i, pc := range pieces {
		if strings.Contains(pc.text, p) && (full < 0 || pc.add == 0 && pc.drop == 0 && (pieces[full].add > 0 || pieces[full].drop > 0)) {
			full = i
		}
	}
	for i := range pieces {
		if i != full {
			pieces[i].text = strings.ReplaceAll(pieces[i].text, p, "this proposition")
		}
	}
	if full >= 0 {
		// Within its piece too, once.
		pc := &pieces[full]
		at := strings.Index(pc.text, p) + len(p)
		pc.text = pc.text[:at] + strings.ReplaceAll(pc.text[at:], p, "this proposition")
	}
}

// stubAsides are sentences a chair text may add to reach the length asked
// for: they neither steel-man, critique nor admit a weakness.
var stubAsides = []string{
	"Notice that nobody in this conversation disputes that {v} matters; the fight is over how much, and at what price.",
	"I keep asking myself what someone who has to live with the answer to {P} would say if they were sitting here with us.",
	"It would be easy to settle this with a slogan, and I think we owe the people listening more than that.",
	"History is full of answers to questions like this one that looked obvious at the time and aged badly.",
	"So let me be concrete about what I would actually do, and what I would refuse to do, if this were my decision.",
	"The details matter here, because the same principle can point in opposite directions depending on who bears the cost.",
	"I do not think our disagreement is about the facts; I think it is about which facts we let count.",
	"If {opp} can show me how their view protects {v}, I will gladly revise what I have said.",
	"None of this is abstract for the people on the receiving end of whatever we decide.",
	"The {label} view has been tested on hard cases before, and it has learned something from each of them.",
}

// The length of a chair text when its prompt asks for none: the seed's
// "Aim for 150-300 words per response".
const (
	stubChairMinWords = MinTurnWords
	stubChairMaxWords = MaxTurnWords
)

// stubHandBacks end an interruption by giving the floor back.
var stubHandBacks = []string{
	"That is all I wanted on the record; go on.",
	"I will hand the floor back, but that point needs an answer.",
	"Carry on, but please come back to that.",
}

func writeStubChair(c *llm.StubCall) string {
	me := stubSelf(c)
	oppName, oppVoice := stubOpponent(c, me)
	vars := map[string]string{
		"P":        stubProposition(c, 90, "the question in front of us"),
		"name":     me.Name,
		"label":    me.Label,
		"frame":    me.Frame,
		"q":        me.Question,
		"opp":      oppName,
		"grant":    c.Pick(oppVoice.Grants),
		"critique": c.Pick(me.Critique),
		"blind":    c.Pick(me.Blind),
	}
	values := c.PickN(me.Values, len(me.Values))
	claims := c.PickN(me.Claims, len(me.Claims))
	say := func(templates []string, value string) string {
		vars["v"] = value
		return stubtext.Expand(c.Pick(templates), vars)
	}
	// Each elaboration template is used once in a text.
	elaborations, used := c.PickN(stubElaborations, len(stubElaborations)), 0
	elaborate := func(value string) string {
		vars["v"] = value
		used++
		return stubtext.Expand(elaborations[(used-1)%len(elaborations)], vars)
	}
	steelMan := c.Roll("omit steel-manning") >= 0.15
	selfCritique := c.Roll("omit self-critique") >= 0.15
	lo, hi := stubWordRange(c, stubChairMinWords, stubChairMaxWords)

	var pieces []stubPiece
	add := func(para, drop int, text string) {
		pieces = append(pieces, stubPiece{text: text, para: para, drop: drop})
	}
	addSteelMan := func(para int) {
		if steelMan {
			add(para, 0, say(stubSteelMen, ""))
		}
		add(para, 0, say(stubCritiques, ""))
	}
	claim := func(i int) string { return stubtext.Expand(claims[i%len(claims)], vars) }
	// extras are the sentences to add, in order, to reach the length:
	// the claims and values not used yet, then the asides.
	extras := func(para, from int) {
		n := 0
		for i := from; i < len(claims); i++ {
			n++
			pieces = append(pieces, stubPiece{text: claim(i), para: para, add: n})
		}
		for i := from; i < len(values); i++ {
			n++
			pieces = append(pieces, stubPiece{text: elaborate(values[i]), para: para, add: n})
		}
		for i, a := range c.PickN(stubAsides, len(stubAsides)) {
			n++
			vars["v"] = values[i%len(values)]
			pieces = append(pieces, stubPiece{text: stubtext.Expand(a, vars), para: para, add: n})
		}
	}
	opener := ""
	switch c.Request().Purpose {
	case "opening":
		add(0, 0, say(stubHooks, values[0]))
		add(0, 0, claim(0))
		if ctx, ok := c.Tag("context"); ok && ctx != "" {
			add(0, 3, "The background we were given matters here too: "+strings.TrimRight(stubtext.Shorten(ctx, 100), ".!?")+".")
		}
		add(0, 2, elaborate(values[1]))
		add(0, 1, claim(1))
		addSteelMan(1)
		extras(1, 2)
	case "interruption":
		// A short turn: the challenge and the critique stay, the rest
		// goes first when the text is too long.
		if o, ok := c.Tag("opener"); ok {
			opener = strings.Join(strings.Fields(o), " ")
		}
		add(0, 0, say(stubChallenges, values[0]))
		if t, ok := c.Tag("trigger"); ok && t != "" {
			add(0, 3, `When you say "`+stubtext.Shorten(t, 60)+`", you are assuming the answer instead of arguing for it.`)
		}
		add(0, 4, claim(0))
		if steelMan {
			add(0, 5, say(stubSteelMen, ""))
		}
		add(0, 0, say(stubCritiques, ""))
		if selfCritique {
			add(0, 6, say(stubBlindSpots, ""))
		}
		extras(0, 1)
		add(0, 2, c.Pick(stubHandBacks))
	default: // "response"
		add(0, 0, say(stubReactions, ""))
		addSteelMan(0)
		add(0, 0, claim(0))
		add(1, 2, elaborate(values[1]))
		add(1, 1, claim(1))
		extras(1, 2)
	}
	if c.Request().Purpose != "interruption" {
		// The text ends with the admission of a weakness and a closing
		// line.
		if selfCritique {
			add(1, 0, say(stubBlindSpots, ""))
		}
		add(1, 0, say(stubCloses, values[2%len(values)]))
	}
	ow := stubtext.Words(opener)
	stubNameOnce(pieces, vars["P"])
	text := stubtext.Join(stubFit(pieces, lo-ow, stubTarget(c, lo, hi)-ow, hi-ow)...)
	switch {
	case strings.HasSuffix(opener, "—"):
		// "I have to push back on that—before we move on, ..."
		if first, _, _ := strings.Cut(text, " "); first != "I" && !strings.HasPrefix(first, "I'") {
			text = stubtext.LowerFirst(text)
		}
		text = opener + text
	case opener != "":
		text = opener + " " + text
	}
	return text
}
