package duelogic

import (
	"fmt"
	"strings"
)

// ArbiterIntroPrompt builds the arbiter's opening. In podcast mode it is the
// seed's podcast introduction with its six required elements in order (cold
// open, show welcome, chair introductions, topic presentation, ground rules,
// handoff) and the show's name; otherwise a simpler, shorter introduction. The
// user message lists every chair's model, provider and framework and carries
// the proposition and context, fenced as data.
func ArbiterIntroPrompt(cfg Config, cat *Catalog, d Debate) Prompt {
	show := showName(cfg)
	lo, hi := introRange(cfg)
	var sys string
	if cfg.Podcast.Enabled {
		sys = fmt.Sprintf(`You are the Arbiter and host of the %[1]s podcast.

**Your Opening Responsibilities:**
Welcome the audience with warmth and intellectual excitement. You're introducing a
thought-provoking debate between AI models on one of humanity's most pressing questions.

**REQUIRED ELEMENTS (in this order):**

1. **COLD OPEN** (1-2 sentences)
   Hook the audience with a provocative question or observation about the topic.

2. **SHOW WELCOME**
   "Welcome to %[1]s—where AI models argue humanity's hardest questions,
   and nobody leaves with easy answers."%[2]s

3. **CHAIR INTRODUCTIONS** (introduce each with personality!)
   For each chair, announce:
   - The model name and provider with flair
   - Their assigned philosophical framework
   - A brief, engaging description of what that means

4. **TOPIC PRESENTATION**
   Present the proposition dramatically:
   "Today's question: [PROPOSITION]"

   Add brief context if provided—why this matters NOW.

5. **GROUND RULES** (brief, podcast-friendly)
   %[3]s

6. **HANDOFF**
   Build anticipation: "Let's begin. [First Chair Name], the floor is yours."

**TONE:** Engaging, intellectually exciting, like the best podcast hosts.
Not stuffy or academic. You're inviting listeners into something special.

**LENGTH:** %[5]d-%[6]d words

**DATA:** %[4]s`, show, episodeLine(cfg), groundRules(cfg, show), dataNote, lo, hi)
	} else {
		sys = fmt.Sprintf(`You are the Arbiter of a structured debate.

Open the debate plainly and briefly:
1. State the proposition.
2. Name each chair's model and the framework it argues from.
3. State the ground rules: %[1]s
4. Give the floor to the first chair.

**TONE:** Clear and neutral.

**LENGTH:** %[3]d-%[4]d words

**DATA:** %[2]s`, groundRules(cfg, "this debate"), dataNote, lo, hi)
	}
	var u strings.Builder
	u.WriteString("The chairs, in speaking order:\n")
	writeChairList(&u, cfg, cat)
	u.WriteString("\nThe proposition:\n" + fence("proposition", d.Proposition) + "\n")
	if strings.TrimSpace(d.Context) != "" {
		u.WriteString("\nContext provided with it:\n" + fence("context", d.Context) + "\n")
	}
	if len(cfg.Chairs) > 0 {
		fmt.Fprintf(&u, "\nThe first chair to speak is %s.", cfg.Chairs[0].DisplayName())
	}
	return Prompt{System: sys, User: u.String()}
}

func showName(cfg Config) string {
	if s := strings.TrimSpace(cfg.Podcast.ShowName); s != "" {
		return s
	}
	return "Duelogic"
}

func episodeLine(cfg Config) string {
	if cfg.Podcast.EpisodeNumber > 0 {
		return fmt.Sprintf("\n   Mention that this is episode %d.", cfg.Podcast.EpisodeNumber)
	}
	return ""
}

// groundRules states the mandates that are on.
func groundRules(cfg Config, show string) string {
	var rules []string
	if cfg.Mandates.RequireSteelManning {
		rules = append(rules, "Each chair must steel-man their opponents before attacking them.")
	}
	if cfg.Mandates.RequireSelfCritique {
		rules = append(rules, "Each must acknowledge their own framework's blind spots.")
	}
	if cfg.Arbiter.AccountabilityLevel != Relaxed {
		rules = append(rules, "And I'll be here to keep everyone honest.")
	} else {
		rules = append(rules, "Each chair argues from its assigned framework.")
	}
	return fmt.Sprintf(`"The rules of %s: %s"`, show, strings.Join(rules, " "))
}

// writeChairList writes per chair "- chair_1: Claude Sonnet 4 from Anthropic,
// Utilitarian Chair" and, indented below, the framework's description and core
// question.
func writeChairList(b *strings.Builder, cfg Config, cat *Catalog) {
	for _, c := range cfg.Chairs {
		info := cat.Info(c.Framework)
		provider := c.ProviderName
		if provider == "" {
			provider = "an unnamed provider"
		}
		fmt.Fprintf(b, "- %s: %s from %s, %s\n  %s. Core question: \"%s\"\n",
			c.Position, c.DisplayName(), provider, info.Name, info.Description, info.CoreQuestion)
	}
}

// ClosingMaterial is what the arbiter's closing is built from. The
// orchestrator assembles it from the whole debate; its size does not grow
// with the number of exchanges.
type ClosingMaterial struct {
	// Summary is the running summary of the debate.
	Summary string
	// Recent is the last turns, verbatim.
	Recent string
	// Chairs holds per chair its strongest moments and how it met its
	// obligations, in chair order.
	Chairs []ChairRecord
	// Clashes are the key clashes: interruptions and the strongest attacks of
	// the argument map.
	Clashes []string
	// Arguments are the strongest surviving arguments of the argument map,
	// when argument mapping is on.
	Arguments []string
	// MinWords and MaxWords are the length the closing is asked for (the
	// debate paces it to the target duration within the seed's range);
	// zero: the seed's 350-500 words (250-400 outside podcast mode).
	MinWords, MaxWords int
}

// ChairRecord is one chair's record for the closing.
type ChairRecord struct {
	Position string
	// Highlights are excerpts of the chair's best-evaluated turns.
	Highlights []string
	// Evaluated counts evaluated turns; SteelManned and SelfCritiqued count
	// those where the mandate was attempted at adequate quality or better.
	Evaluated, SteelManned, SelfCritiqued int
	// MeanAdherence is the mean adherence score of the evaluated turns.
	MeanAdherence float64
	// Interjections counts the arbiter's interjections aimed at the chair.
	Interjections int
	// Inconsistencies counts turns judged inconsistent with the framework.
	Inconsistencies int
}

// ArbiterClosingPrompt builds the arbiter's closing. In podcast mode it is the
// seed's podcast closing with its required elements in order (transition,
// main takeaways — what each chair brought, key clashes, decision hinges,
// intellectual honesty check — the question that remains, thanks to the
// chairs, thanks to the audience, the call to action only when enabled, and
// the sign-off); otherwise a plain synthesis. The user message carries what
// was said (summary, recent turns, each chair's strongest moments) and the
// evaluations.
func ArbiterClosingPrompt(cfg Config, cat *Catalog, d Debate, m ClosingMaterial) Prompt {
	show := showName(cfg)
	lo, hi := closingBounds(cfg)
	if m.MinWords > 0 && m.MaxWords >= m.MinWords {
		lo, hi = m.MinWords, m.MaxWords
	}
	var sys string
	if cfg.Podcast.Enabled {
		steps := []string{
			`**TRANSITION TO CLOSE**
   Signal we're wrapping up: "And that brings us to the close of today's debate."`,
			`**MAIN TAKEAWAYS** (the meat of the closing)
   Synthesize the key arguments and moments:

   a) **What Each Chair Brought:**
      For each chair, summarize their strongest contribution.
      "[Model Name] from the [Framework] perspective showed us that..."

   b) **Key Clashes:**
      Where did the real disagreements lie? What questions remain genuinely open?

   c) **Decision Hinges:**
      What does this question ultimately depend on? Help listeners understand
      what their own answer might depend on.

   d) **Intellectual Honesty Check:**
      Note (briefly) how well the chairs met their obligations:
      - Did they steel-man effectively?
      - Did they acknowledge their frameworks' weaknesses?
      Don't be preachy, but do hold them accountable.`,
			`**THE QUESTION THAT REMAINS**
   Leave listeners with something to chew on. The best debates don't resolve
   cleanly—they clarify what we're actually disagreeing about.`,
			`**THANK THE CHAIRS**
   Thank each model by name with genuine appreciation:
   "Thank you to [Model Name] for [specific contribution]..."`,
			`**THANK THE AUDIENCE**
   Warm thanks to listeners for their time and intellectual engagement.`,
		}
		if cfg.Podcast.IncludeCallToAction {
			steps = append(steps, fmt.Sprintf(`**CALL TO ACTION**
   "If this episode made you think, hit subscribe. Share it with someone who
   loves a good argument. And leave us a review—it helps more people find
   %s."`, show))
		}
		steps = append(steps, fmt.Sprintf(`**SIGN-OFF**
   "Until next time, keep questioning, keep debating, and never settle for
   easy answers. This has been %s."`, show))
		sys = fmt.Sprintf(`You are the Arbiter closing out this episode of %s.

**Your Closing Responsibilities:**
Wrap up the debate like a great podcast host—synthesizing, thanking, and
leaving listeners with something to think about.

**REQUIRED ELEMENTS (in this order):**

%s

**TONE:** Warm, thoughtful, appreciative. Like wrapping up a dinner party
conversation that went somewhere meaningful.

**LENGTH:** %d-%d words

**DATA:** %s`, show, numberedBlocks(steps), lo, hi, dataNote)
	} else {
		sys = fmt.Sprintf(`You are the Arbiter closing a structured debate.

Write a synthesis:
1. Each chair's strongest contribution, by model name and framework.
2. The key clashes and the questions that remain open.
3. What the answer ultimately hinges on.
4. Briefly, how well each chair steel-manned and acknowledged its framework's weaknesses.
5. The question that remains.

Do not declare a winner.

**TONE:** Clear, fair and concise.

**LENGTH:** %d-%d words

**DATA:** %s`, lo, hi, dataNote)
	}

	var u strings.Builder
	u.WriteString("The chairs:\n")
	writeChairList(&u, cfg, cat)
	u.WriteString("\nThe proposition:\n" + fence("proposition", d.Proposition) + "\n")
	if m.Summary != "" {
		u.WriteString("\nHow the debate went (summary):\n" + fence("summary", m.Summary) + "\n")
	}
	if m.Recent != "" {
		u.WriteString("\nThe last turns:\n" + fence("transcript", m.Recent) + "\n")
	}
	for _, r := range m.Chairs {
		ch, _ := cfg.chair(r.Position)
		fmt.Fprintf(&u, "\n%s — record:\n", speakerLabel(cfg, cat, r.Position))
		if r.Evaluated > 0 {
			fmt.Fprintf(&u, "- Evaluated turns: %d; steel-manned adequately in %d, self-critiqued adequately in %d; mean adherence %.0f/100; framework inconsistencies: %d; interjections received: %d\n",
				r.Evaluated, r.SteelManned, r.SelfCritiqued, r.MeanAdherence, r.Inconsistencies, r.Interjections)
		} else {
			fmt.Fprintf(&u, "- No turns of %s were evaluated.\n", ch.DisplayName())
		}
		if len(r.Highlights) > 0 {
			u.WriteString("- Strongest moments:\n" + fence("transcript", strings.Join(r.Highlights, "\n---\n")) + "\n")
		}
	}
	if len(m.Clashes) > 0 {
		u.WriteString("\nKey clashes:\n")
		for _, c := range m.Clashes {
			u.WriteString("- " + c + "\n")
		}
	}
	if len(m.Arguments) > 0 {
		u.WriteString("\nStrongest surviving arguments (argument map):\n")
		for _, a := range m.Arguments {
			u.WriteString("- " + a + "\n")
		}
	}
	return Prompt{System: sys, User: strings.TrimSuffix(u.String(), "\n")}
}

func numberedBlocks(steps []string) string {
	parts := make([]string, len(steps))
	for i, s := range steps {
		parts[i] = fmt.Sprintf("%d. %s", i+1, s)
	}
	return strings.Join(parts, "\n\n")
}

// The four violation types of the seed's interjection prompt, and a manual
// interjection requested through [Orchestrator.Interject].
const (
	ViolationStrawManning           ViolationType = "straw_manning"
	ViolationMissingSelfCritique    ViolationType = "missing_self_critique"
	ViolationFrameworkInconsistency ViolationType = "framework_inconsistency"
	ViolationRhetoricalEvasion      ViolationType = "rhetorical_evasion"
	ViolationManual                 ViolationType = "manual"
)

// Interjection says why the arbiter interjects and at whom.
type Interjection struct {
	Type ViolationType `json:"type"`
	// Target is the chair position called out.
	Target string `json:"target"`
	// Opponent is the position of the chair whose view was misrepresented or
	// evaded, "" when unknown.
	Opponent string `json:"opponent,omitempty"`
	// Reason is the evaluation's (or the host's) reason.
	Reason string `json:"reason,omitempty"`
	// UtteranceSeq is the offending utterance, 0 for none.
	UtteranceSeq int64 `json:"utteranceSeq,omitempty"`
}

// InterjectionPrompt builds the arbiter's interjection after the seed's
// prompt: its style rules, its four violation types with their model lines,
// the tone and the length (30-75 words); the user message names the violation,
// the chair, its framework, the opponent and the offending response (fenced).
func InterjectionPrompt(cfg Config, cat *Catalog, in Interjection, offending string) Prompt {
	return interjectionPrompt(cfg, cat, in, offending, "")
}

// interjectionPrompt is [InterjectionPrompt] for an offending response that
// cutBy (a speaker's label) cut off, or said whole when cutBy is "": the
// arbiter is told where it was cut, so that it holds the chair to what it
// said.
func interjectionPrompt(cfg Config, cat *Catalog, in Interjection, offending, cutBy string) Prompt {
	sys := `You are the Arbiter interjecting to enforce debate principles.

A chair has violated one of the core Duelogic mandates. Your job is to call it out
constructively but firmly.

**INTERJECTION STYLE:**
- Be direct but not hostile
- Name the specific violation
- Give them a chance to correct course
- Keep it brief (2-4 sentences)

**VIOLATION TYPES AND RESPONSES:**

1. **Straw-Manning** (attacking weak version of opponent's argument)
   "Hold on, [Chair Name]—you've attacked a weaker version of the [Framework]
   position. Before we continue, can you articulate what [Opponent] would
   actually say in response to that?"

2. **Missing Self-Critique** (not acknowledging own framework's weaknesses)
   "[Chair Name], you've made a strong case, but you haven't acknowledged
   where your framework struggles with this. What's the hardest objection
   to the [Framework] approach here?"

3. **Framework Inconsistency** (abandoning assigned framework)
   "Interesting point, [Chair Name], but that sounds more like a [Other Framework]
   argument than a [Assigned Framework] one. How would you make this case
   from within your assigned framework?"

4. **Rhetorical Evasion** (dodging a direct question or challenge)
   "[Chair Name], I notice you didn't directly address [Opponent]'s point about
   [specific claim]. Can you engage with that before moving on?"

**TONE:** Firm but fair. You're a referee, not a prosecutor.

**LENGTH:** 30-75 words

**DATA:** ` + dataNote
	var u strings.Builder
	ch, _ := cfg.chair(in.Target)
	info := cat.Info(ch.Framework)
	fmt.Fprintf(&u, "Violation: %s\n", violationTitle(in.Type))
	fmt.Fprintf(&u, "Chair: %s, holding the %s\n", ch.DisplayName(), info.RoleName())
	if op, ok := cfg.chair(in.Opponent); ok {
		fmt.Fprintf(&u, "Opponent: %s (%s)\n", op.DisplayName(), cat.Info(op.Framework).Name)
	}
	if in.Reason != "" {
		u.WriteString("Why:\n" + fence("reason", in.Reason) + "\n")
	}
	if offending != "" {
		u.WriteString("What the chair said:\n" + fence("response", offending) + "\n")
		if cutBy != "" {
			fmt.Fprintf(&u, "It was cut off where it ends, when %s interrupted: hold the chair to what it said, not to what it had no time to say.\n", cutBy)
		}
	}
	u.WriteString("Interject now.")
	return Prompt{System: sys, User: u.String()}
}

func violationTitle(t ViolationType) string {
	switch t {
	case ViolationStrawManning:
		return "Straw-Manning (attacking a weak version of the opponent's argument)"
	case ViolationMissingSelfCritique:
		return "Missing Self-Critique (not acknowledging the framework's weaknesses)"
	case ViolationFrameworkInconsistency:
		return "Framework Inconsistency (abandoning the assigned framework)"
	case ViolationRhetoricalEvasion:
		return "Rhetorical Evasion (dodging a direct question or challenge)"
	}
	return "Moderator's call (a point the host asked the arbiter to raise)"
}
