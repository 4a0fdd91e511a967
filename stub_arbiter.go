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

func writeStubIntroduction(c *llm.StubCall) string {
	show := stubShow(c)
	prop := stubProposition(c, 200, "")
	vars := map[string]string{"show": show, "P": prop}
	var paras [][]string

	opens := []string{
		"Some questions get harder the longer you look at them, and today's is one of those.",
		"What happens when the sharpest arguments we can build point in opposite directions? Today we find out.",
	}
	if prop != "" {
		opens = append(opens, "Here is a question that sounds simple until you try to answer it: {P}")
	}
	welcome := []string{stubtext.Expand(c.Pick([]string{
		"Welcome to {show}, where AI models argue the hardest questions we have and nobody leaves with easy answers.",
		"Welcome to {show}. I'm your Arbiter, and this is the show where reasoning machines disagree in public so the rest of us can think more clearly.",
		"Welcome to {show}, the show where every argument has to earn its place.",
	}), vars)}
	if m := stubEpisode.FindStringSubmatch(c.Prompt()); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
			welcome = append(welcome, "This is episode "+strconv.Itoa(n)+".")
		}
	}
	paras = append(paras, []string{stubtext.Expand(c.Pick(opens), vars)}, welcome)

	chairs := stubChairs(c.Prompt())
	if len(chairs) == 0 {
		paras = append(paras, []string{"Our chairs today each hold a different framework, and each will have to earn every point they make."})
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
		paras = append(paras, []string{stubtext.Expand(first, cv), stubtext.Expand(second, cv)})
	}

	topic := []string{"Today's question is one every chair will have to wrestle with from first principles."}
	if prop != "" {
		topic = []string{"Today's proposition: " + prop + "."}
	}
	if ctx, ok := c.Tag("context"); ok && ctx != "" {
		topic = append(topic, "Why does it matter now? "+strings.TrimRight(stubtext.Shorten(ctx, 160), ".!?")+".")
	}
	paras = append(paras, topic)
	paras = append(paras, []string{stubtext.Expand(c.Pick([]string{
		"The rules of {show} are simple. Each chair must steel-man their opponents before attacking them. Each must own the blind spots of their own framework. And I will be here to keep everyone honest.",
		"Here is how {show} works. Before you attack a position, you steel-man it: you state it at its best. When your own framework has a blind spot, you say so out loud. And I will be listening for both.",
	}), vars), c.Pick([]string{
		"The stakes are real and the disagreements are genuine. Let's see where this goes.",
		"Nobody here is playing to win on points. Let's see what we learn.",
	})})
	handoff := "Let's begin."
	if len(chairs) > 0 {
		handoff = "Let's begin. " + chairs[0].short() + ", the floor is yours."
	}
	paras = append(paras, []string{handoff})
	return stubtext.Join(paras...)
}

func writeStubClosing(c *llm.StubCall) string {
	show := stubShow(c)
	vars := map[string]string{"show": show, "P": stubProposition(c, 120, "today's question")}
	chairs := stubChairs(c.Prompt())
	var paras [][]string

	paras = append(paras, []string{c.Pick([]string{
		"And that brings us to the close of today's debate.",
		"And with that, we have reached the end of today's debate.",
		"That is where we have to leave it for today.",
	})})
	learned := []string{"What did we learn?"}
	for _, ch := range chairs {
		v := ch.voice()
		learned = append(learned, stubtext.Expand(c.Pick([]string{
			"{Short}, from {role}, showed us that {takeaway}.",
			"{Name} held {role} and kept reminding us that {takeaway}.",
		}), map[string]string{"short": ch.short(), "name": ch.display(), "role": "the " + v.Role(), "takeaway": v.Takeaway}))
	}
	if len(chairs) == 0 {
		learned = append(learned, "Each chair brought a different way of weighing what matters, and each made us see something the others had missed.")
	}
	paras = append(paras, learned)
	if len(chairs) >= 2 {
		a, b := chairs[0], chairs[1]
		paras = append(paras, []string{stubtext.Expand(
			`The key clash came down to two questions. {A} kept asking, "{QA}" {B} kept asking, "{QB}" Those are not the same question, and {P} looks different depending on which one you start from.`,
			map[string]string{"A": a.short(), "B": b.short(), "QA": stubtext.UpperFirst(a.voice().Question), "QB": stubtext.UpperFirst(b.voice().Question), "P": vars["P"]})})
	}
	paras = append(paras, []string{c.Pick([]string{
		"On the mandates, the chairs mostly held up their end: they steel-manned each other in good faith and owned their blind spots, with a few lapses I flagged along the way.",
		"As for intellectual honesty, the steel-manning was real more often than not, and every chair admitted at least one weakness of its own framework.",
	})})
	paras = append(paras, []string{stubtext.Expand(c.Pick([]string{
		"The question that remains is the one underneath all of this: when good frameworks disagree, which kind of reasoning do we trust with the highest stakes? That is not a question I can answer for you.",
		"So here is what I will leave you with: what would it take to change your own mind on {P}? That answer is yours to find.",
	}), vars)})

	names := make([]string, len(chairs))
	for i, ch := range chairs {
		names[i] = ch.display()
	}
	thanks := []string{"Thank you to our chairs for arguing hard and arguing fair."}
	if len(names) > 0 {
		thanks = []string{"Thank you to " + stubList(names) + " for arguing hard and arguing fair."}
	}
	thanks = append(thanks, "And thank you to everyone listening for your time and your willingness to think hard about hard questions.")
	paras = append(paras, thanks)
	if strings.Contains(strings.ToLower(c.Prompt()), "subscribe") {
		paras = append(paras, []string{stubtext.Expand("If this episode made you think, subscribe, share it with someone who loves a good argument, and leave us a review. It helps more people find {show}.", vars)})
	}
	paras = append(paras, []string{stubtext.Expand("Until next time, keep questioning, keep debating, and never settle for easy answers. This has been {show}.", vars)})
	return stubtext.Join(paras...)
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
		"Interesting point, {name}, but that sounded more like another chair's argument than an argument from {role}. How would you make this case from inside your own framework?",
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
