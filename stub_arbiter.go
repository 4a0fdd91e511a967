package duelogic

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/duelogic/duelogic/internal/stubtext"
	"github.com/duelogic/duelogic/llm"
)

// The arbiter's texts: "introduction", "interjection", "closing".
func init() {
	llm.RegisterStub(PurposeIntroduction, writeStubIntroduction)
	llm.RegisterStub(PurposeInterjection, writeStubInterjection)
	llm.RegisterStub(PurposeClosing, writeStubClosing)
}

// stubShowPatterns find the show's name in the sentences the arbiter's
// prompts use.
var stubShowPatterns = []*regexp.Regexp{
	regexp.MustCompile(`host of the (\S.{0,60}?) podcast`),
	regexp.MustCompile(`closing out this episode of (\S.{0,60}?)\.(?:\s|$)`),
	regexp.MustCompile(`This has been (\S.{0,60}?)\.`),
	regexp.MustCompile(`Welcome to (\S.{0,60}?)(?:—|--|,|\.)`),
}

// stubShow returns the show's name from the prompt, or "Duelogic".
func stubShow(c *llm.StubCall) string {
	if s, ok := c.Tag("show"); ok && s != "" {
		return stubtext.Shorten(s, 40)
	}
	if s := c.Field("show name", "show", "podcast"); s != "" {
		return stubtext.Shorten(s, 40)
	}
	for _, re := range stubShowPatterns {
		if m := re.FindStringSubmatch(c.Prompt()); m != nil {
			return stubtext.Shorten(m[1], 40)
		}
	}
	return "Duelogic"
}

// stubEpisode finds an episode number: "Episode: 7", "this is episode 7".
var stubEpisode = regexp.MustCompile(`(?i)\bepisode(?: number)?:?\s+(\d{1,6})\b`)

var stubOrdinals = []string{"first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth"}

// The arbiter's texts when the prompt asks for no length: the seed's
// introduction (200-350 words) and closing (350-500 words).
const (
	stubIntroMinWords, stubIntroMaxWords     = 200, 350
	stubClosingMinWords, stubClosingMaxWords = 350, 500
)

func writeStubIntroduction(c *llm.StubCall) string {
	show := stubShow(c)
	prop := stubProposition(c, 200, "")
	vars := map[string]string{"show": show, "P": prop}
	var pieces []stubPiece
	add := func(para, drop, add int, text string) {
		pieces = append(pieces, stubPiece{text: stubtext.Expand(text, vars), para: para, drop: drop, add: add})
	}

	opens := []string{
		"Some questions get harder the longer you look at them, and today's is one of those.",
		"What happens when the sharpest arguments we can build point in opposite directions? Today we find out.",
	}
	if prop != "" {
		opens = append(opens, "Here is a question that sounds simple until you try to answer it: {P}")
	}
	add(0, 2, 0, c.Pick(opens))
	add(0, 0, 2, "It sounds like a narrow question. It is really a question about what we value, and how we weigh one thing we care about against another.")
	add(1, 3, 0, c.Pick([]string{
		"Welcome to {show}, where AI models argue the hardest questions we have and nobody leaves with easy answers.",
		"Welcome to {show}. I'm your Arbiter, and this is the show where reasoning machines disagree in public so the rest of us can think more clearly.",
		"Welcome to {show}, the show where every argument has to earn its place.",
	}))
	if m := stubEpisode.FindStringSubmatch(c.Prompt()); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
			add(1, 3, 0, "This is episode "+strconv.Itoa(n)+".")
		}
	}

	chairs := stubChairs(c.Prompt())
	para := 2
	if len(chairs) == 0 {
		add(para, 0, 0, "Our chairs today each hold a different framework, and each will have to earn every point they make.")
		para++
	}
	for i, ch := range chairs {
		v := ch.voice()
		cv := map[string]string{
			"name":   ch.display(),
			"short":  ch.short(),
			"from":   "",
			"role":   "the " + v.Role(),
			"stance": v.Stance,
			"q":      v.Question,
			"ord":    stubOrdinals[min(i, len(stubOrdinals)-1)],
			"v":      v.Name,
		}
		if len(v.Values) > 0 {
			cv["v"] = v.Values[0]
		}
		if ch.provider != "" {
			cv["from"] = " from " + ch.provider
		}
		var first string
		switch i {
		case 0:
			first = "In our first chair today, please welcome {name}{from}, holding {role} and {stance}."
		case 1:
			first = "Facing off from the second chair, we have {name}{from}, taking up {role} and {stance}."
		default:
			first = c.Pick([]string{
				"In the {ord} chair, {name}{from} holds {role}, {stance}.",
				"And joining from the {ord} chair, {name}{from} brings {role}, {stance}.",
			})
		}
		second := c.Pick([]string{"{Short} will be asking: {Q}", "Expect {short} to keep asking: {Q}"})
		pieces = append(pieces,
			stubPiece{text: stubtext.Expand(first, cv), para: para},
			stubPiece{text: stubtext.Expand(second, cv), para: para, drop: 1},
			stubPiece{text: stubtext.Expand("{Short} puts {v} first, and will not let the rest of us forget it.", cv), para: para, add: 1},
			stubPiece{text: stubtext.Expand("When {short} has the floor, listen for how it weighs what the others leave out.", cv), para: para, add: 6})
		para++
	}

	if prop != "" {
		add(para, 0, 0, "Today's proposition: "+prop+".")
	} else {
		add(para, 0, 0, "Today's question is one every chair will have to wrestle with from first principles.")
	}
	if ctx, ok := c.Tag("context"); ok && ctx != "" {
		add(para, 1, 0, "Why does it matter now? "+strings.TrimRight(stubtext.Shorten(ctx, 160), ".!?")+".")
	}
	add(para, 0, 3, "Whatever you think the answer is, by the end of this episode you should know exactly what it depends on.")
	add(para, 0, 7, "It is the kind of question where both sides can be right about the facts and still disagree about the answer.")
	para++
	add(para, 0, 0, c.Pick([]string{
		"The rules of {show} are simple. Each chair must steel-man their opponents before attacking them. Each must own the blind spots of their own framework. And I will be here to keep everyone honest.",
		"Here is how {show} works. Before you attack a position, you steel-man it: you state it at its best. When your own framework has a blind spot, you say so out loud. And I will be listening for both.",
	}))
	add(para, 0, 4, "If a chair skips either step, you will hear from me, and so will they.")
	add(para, 2, 0, c.Pick([]string{
		"The stakes are real and the disagreements are genuine. Let's see where this goes.",
		"Nobody here is playing to win on points. Let's see what we learn.",
	}))
	add(para, 0, 5, "And you, listening, get to play the judge: weigh the arguments, not the confidence behind them.")
	add(para, 0, 8, "So get comfortable, and hold your own answer a little more loosely than usual.")
	para++
	handoff := "Let's begin."
	if len(chairs) > 0 {
		handoff = "Let's begin. " + chairs[0].short() + ", the floor is yours."
	}
	add(para, 0, 0, handoff)
	lo, hi := stubWordRange(c, stubIntroMinWords, stubIntroMaxWords)
	return stubtext.Join(stubFit(pieces, lo, stubTarget(c, lo, hi), hi)...)
}

func writeStubClosing(c *llm.StubCall) string {
	show := stubShow(c)
	vars := map[string]string{"show": show, "P": stubProposition(c, 120, "today's question")}
	chairs := stubChairs(c.Prompt())
	var pieces []stubPiece
	add := func(para, drop, add int, text string) {
		pieces = append(pieces, stubPiece{text: stubtext.Expand(text, vars), para: para, drop: drop, add: add})
	}

	add(0, 0, 0, c.Pick([]string{
		"And that brings us to the close of today's debate.",
		"And with that, we have reached the end of today's debate.",
		"That is where we have to leave it for today.",
	}))
	add(1, 2, 0, "What did we learn?")
	for _, ch := range chairs {
		v := ch.voice()
		cv := map[string]string{"short": ch.short(), "name": ch.display(), "role": "the " + v.Role(), "takeaway": v.Takeaway, "blind": c.Pick(v.Blind)}
		pieces = append(pieces,
			stubPiece{text: stubtext.Expand(c.Pick([]string{
				"{Short}, from {role}, showed us that {takeaway}.",
				"{Name} held {role} and kept reminding us that {takeaway}.",
			}), cv), para: 1},
			stubPiece{text: stubtext.Expand("{Short} was at its most honest admitting a blind spot of its own: {blind}.", cv), para: 1, add: 1})
	}
	if len(chairs) == 0 {
		add(1, 0, 0, "Each chair brought a different way of weighing what matters, and each made us see something the others had missed.")
	}
	if len(chairs) >= 2 {
		a, b := chairs[0], chairs[1]
		pieces = append(pieces, stubPiece{text: stubtext.Expand(
			`The key clash came down to two questions. {A} kept asking, "{QA}" {B} kept asking, "{QB}" Those are not the same question, and {P} looks different depending on which one you start from.`,
			map[string]string{"A": a.short(), "B": b.short(), "QA": stubtext.UpperFirst(a.voice().Question), "QB": stubtext.UpperFirst(b.voice().Question), "P": vars["P"]}), para: 2})
	}
	add(2, 0, 3, "Every time the conversation seemed to converge, it split again on exactly that point.")
	// The decision hinges.
	if len(chairs) >= 2 {
		a, b := chairs[0], chairs[1]
		pieces = append(pieces, stubPiece{text: stubtext.Expand(
			"So what does this come down to? If {va} is what you put first, you will find yourself leaning with {A}; if {vb} matters more to you, {B}'s answer will feel closer to right. Most of us care about both, which is exactly why this is hard.",
			map[string]string{"A": a.short(), "B": b.short(), "va": stubFirstValue(a), "vb": stubFirstValue(b)}), para: 3, drop: 1})
	} else {
		add(3, 1, 0, "So what does this come down to? Which considerations you let count first, and how much of the others you are willing to give up for them.")
	}
	add(3, 0, 4, "Listen back to the moments where a chair conceded something; that is usually where the real question hides.")
	add(4, 0, 0, c.Pick([]string{
		"On the mandates, the chairs mostly held up their end: they steel-manned each other in good faith and owned their blind spots, with a few lapses I flagged along the way.",
		"As for intellectual honesty, the steel-manning was real more often than not, and every chair admitted at least one weakness of its own framework.",
	}))
	add(4, 0, 2, "Where a chair slipped, I said so at the time, and to their credit they took it in stride.")
	add(5, 0, 0, c.Pick([]string{
		"The question that remains is the one underneath all of this: when good frameworks disagree, which kind of reasoning do we trust with the highest stakes? That is not a question I can answer for you.",
		"So here is what I will leave you with: what would it take to change your own mind on {P}? That answer is yours to find.",
	}))
	add(5, 0, 5, "If you came in sure of your answer, I hope you leave a little less sure, and a little clearer about why.")
	add(5, 0, 6, "That is what a good argument is for: not to win, but to show us what we were really disagreeing about.")

	names := make([]string, len(chairs))
	for i, ch := range chairs {
		names[i] = ch.display()
	}
	if len(names) > 0 {
		add(6, 0, 0, "Thank you to "+stubList(names)+" for arguing hard and arguing fair.")
	} else {
		add(6, 0, 0, "Thank you to our chairs for arguing hard and arguing fair.")
	}
	for _, ch := range chairs {
		pieces = append(pieces, stubPiece{text: stubtext.Expand("{Name}, thank you for keeping {v} in front of us all the way through.",
			map[string]string{"name": ch.display(), "v": stubFirstValue(ch)}), para: 6, add: 7})
	}
	add(6, 0, 0, "And thank you to everyone listening for your time and your willingness to think hard about hard questions.")
	add(6, 0, 8, "Debates like this one only work when people are willing to listen to the side they came in doubting.")
	if strings.Contains(strings.ToLower(c.Prompt()), "subscribe") {
		add(7, 0, 0, "If this episode made you think, subscribe, share it with someone who loves a good argument, and leave us a review. It helps more people find {show}.")
	}
	add(8, 0, 0, "Until next time, keep questioning, keep debating, and never settle for easy answers. This has been {show}.")
	lo, hi := stubWordRange(c, stubClosingMinWords, stubClosingMaxWords)
	return stubtext.Join(stubFit(pieces, lo, stubTarget(c, lo, hi), hi)...)
}

// stubFirstValue is what a chair's voice puts first.
func stubFirstValue(ch stubChair) string {
	if v := ch.voice(); len(v.Values) > 0 {
		return v.Values[0]
	}
	return "what its framework puts first"
}

// stubList joins names as "A", "A and B", "A, B and C".
func stubList(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// The kinds of lapse an interjection calls out, each with its templates.
// {name} is the chair, {role} its framework ("the Utilitarian Chair").
var stubInterjections = map[string][]string{
	"steel": {
		"Hold on, {name}. You have just attacked a weaker version of the other side than the one we heard. Before we go any further, give us the best version of your opponent's position, in terms they would accept, and then tell us why you still disagree.",
		"{Name}, I am going to stop you there. That was not the best version of the argument you are answering. State the opposing case as well as its own advocate would, and then make your critique.",
	},
	"self": {
		"{Name}, you have made a strong case, but you have not told us where your own framework falls short on this question. What is the hardest objection to {role} here, and how do you answer it?",
		"A quick flag from the Arbiter. {Name}, every framework has weak spots, and we have not heard yours yet on this question. Where does {role} run out of answers here?",
	},
	"framework": {
		"Interesting point, {name}, but that sounded more like another chair's argument than an argument from {role}. How would you make this case from inside your own framework, with the reasoning it actually licenses?",
		"{Name}, let me hold you to your chair. That last move stepped outside {role}. Can you rebuild the point using the reasoning your framework actually licenses, and show us how it handles this hard case?",
	},
	"evasion": {
		"{Name}, I notice you did not directly answer the point that was just put to you. Before we move on, can you engage with it head-on, even if only to say where you think it goes wrong?",
		"Let me pause us for a moment. {Name}, there was a direct challenge on the table and it went unanswered. Take it on now, plainly, and then carry on with your argument.",
	},
	"general": {
		"Let me step in for a moment, {name}. This debate works only if each chair engages the best version of the other side and owns the limits of its own view. Take a second pass at that last point with both in mind.",
	},
}

// stubLapseWords maps what a reason may say to the kind of lapse, in the
// order they are tried.
var stubLapseWords = []struct{ word, kind string }{
	{"steel", "steel"}, {"straw", "steel"},
	{"self-critique", "self"}, {"self critique", "self"}, {"blind spot", "self"}, {"weakness", "self"},
	{"consisten", "framework"}, {"framework", "framework"},
	{"evasi", "evasion"}, {"dodg", "evasion"}, {"did not address", "evasion"}, {"sidestep", "evasion"},
}

func writeStubInterjection(c *llm.StubCall) string {
	ch := stubInterjectionTarget(c)
	reason := c.Field("violation")
	if reason == "" {
		reason, _ = c.Tag("reason")
	}
	if reason == "" {
		reason = c.Field("interjection reason", "reason")
	}
	if reason == "" {
		reason = c.LastUser()
	}
	// The kind named earliest in the reason wins.
	kind, at := "general", -1
	lower := strings.ToLower(reason)
	for _, lw := range stubLapseWords {
		if i := strings.Index(lower, lw.word); i >= 0 && (at < 0 || i < at) {
			kind, at = lw.kind, i
		}
	}
	role := "your own framework"
	if ch.framework != "" {
		role = "the " + ch.voice().Role()
	}
	return stubtext.Expand(c.Pick(stubInterjections[kind]), map[string]string{"name": ch.short(), "role": role})
}

// stubInterjectionTarget finds the chair an interjection is about: a <chair> tag
// or "Chair:" line ("Chair: GPT-4o, holding the Deontological Chair"), else the first chair listed in the last user message or
// anywhere in the prompt, else the first framework named in the prompt.
func stubInterjectionTarget(c *llm.StubCall) stubChair {
	s, ok := c.Tag("chair")
	if !ok {
		s = c.Field("chair", "speaker", "target")
	}
	if s != "" {
		if ch, ok := parseStubChair("- " + s); ok {
			return ch
		}
		// "GPT-4o, holding the Deontological Chair"
		name, role, _ := strings.Cut(s, ",")
		role = strings.TrimSpace(role)
		role = strings.TrimPrefix(strings.TrimPrefix(role, "holding "), "the ")
		return stubChair{name: stubtext.Shorten(name, 40), framework: role}
	}
	for _, text := range []string{c.LastUser(), c.Prompt()} {
		if chairs := stubChairs(text); len(chairs) > 0 {
			return chairs[0]
		}
	}
	p := c.Prompt()
	for _, v := range stubVoices.List() {
		if strings.Contains(p, v.Name) {
			return stubChair{framework: v.Name}
		}
	}
	return stubChair{name: "Chair"}
}
