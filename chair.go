package duelogic

import (
	"fmt"
	"strings"
)

var toneInstructions = map[Tone]string{
	ToneRespectful: "Maintain professional, collegial discourse. Disagree with ideas, not people.",
	ToneSpirited:   "Engage with passion and conviction. Be direct and pointed in your critiques.",
	ToneHeated:     "Argue forcefully. Challenge aggressively. Make your disagreements memorable.",
}

// ChairSystemPrompt builds the system prompt of the chair at position, after
// the seed's template: the chair's framework, its core question, each opponent
// by display name and framework, the persona overlay (fenced as data), the
// mandates that are switched on (steel-man first; acknowledge weaknesses, with
// the framework's blind spots; argue from the framework, always), the tone
// and the format, with the seed's "Aim for 150-300 words per response"
// whatever the target duration (each turn's own message says what the
// pacing asks of that turn). cat holds the frameworks (nil: the default
// catalog).
func ChairSystemPrompt(cfg Config, cat *Catalog, position string) (string, error) {
	chair, ok := cfg.chair(position)
	if !ok {
		return "", fmt.Errorf("duelogic: no chair at position %q", position)
	}
	info := cat.Info(chair.Framework)
	var opponents []Chair
	for _, c := range cfg.Chairs {
		if c.Position != position {
			opponents = append(opponents, c)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "You are holding the %s in this Duelogic debate.\n\n", info.RoleName())
	b.WriteString("**Your Assigned Framework:**\n" + info.Description + "\n\n")
	fmt.Fprintf(&b, "Core Question: \"%s\"\n", info.CoreQuestion)
	if len(info.Priorities) > 0 {
		fmt.Fprintf(&b, "Priorities: %s\n", strings.Join(info.Priorities, ", "))
	}
	if info.TradeOffs != "" {
		fmt.Fprintf(&b, "Trade-offs you advocate: %s\n", info.TradeOffs)
	}
	if !cfg.Mandates.RequireSelfCritique && len(info.BlindSpots) > 0 {
		b.WriteString("\nKnown blind spots of your framework:\n")
		for _, s := range info.BlindSpots {
			b.WriteString("- " + s + "\n")
		}
	}
	b.WriteString("\n**Your Opponents:**\n")
	for _, o := range opponents {
		oi := cat.Info(o.Framework)
		fmt.Fprintf(&b, "- %s (%s): %s\n", o.DisplayName(), oi.Name, oi.Description)
	}
	if strings.TrimSpace(chair.Persona) != "" {
		b.WriteString("\n**Your Persona:**\nSpeak in the voice described below. It shapes how you speak, never your framework or your obligations.\n")
		b.WriteString(fence("persona", chair.Persona) + "\n")
	}
	b.WriteString("\n---\n\n**MANDATORY OBLIGATIONS:**\n\n")
	n := 0
	if cfg.Mandates.RequireSteelManning {
		n++
		first := "opposing chair"
		if len(opponents) > 0 {
			first = opponents[0].DisplayName()
		}
		fmt.Fprintf(&b, `%d. **STEEL-MAN FIRST**
   Before critiquing any opponent's position, you MUST articulate the strongest
   version of their argument. Show you understand it deeply.

   Say something like: "The %s
   makes a compelling case that..." Then engage with THAT version, not a weakened one.

`, n, first)
	}
	if cfg.Mandates.RequireSelfCritique {
		n++
		fmt.Fprintf(&b, `%d. **ACKNOWLEDGE YOUR WEAKNESSES**
   In each substantive response, you MUST acknowledge at least one limitation
   or blind spot of your framework. This shows intellectual honesty.

   Known blind spots to consider:
`, n)
		for _, s := range info.BlindSpots {
			b.WriteString("   - " + s + "\n")
		}
		b.WriteString("\n")
	}
	n++
	fmt.Fprintf(&b, `%d. **ARGUE FROM YOUR FRAMEWORK**
   Stay true to %s reasoning. Don't abandon your framework when
   it gets difficult—that's when it's most important to show how it handles
   hard cases.

---

`, n, info.Name)
	fmt.Fprintf(&b, "**TONE:** %s\n\n", toneInstructions[cfg.Tone])
	audience := "This is for a podcast audience."
	if !cfg.Podcast.Enabled {
		audience = "This is for an audience following the debate."
	}
	fmt.Fprintf(&b, `**FORMAT:** %s Be engaging, substantive, but natural.
- Aim for %d-%d words per response
- No formal headers or bullet lists unless they genuinely help
- Speak as if you're in a conversation, not writing an essay
- It's okay to express uncertainty or acknowledge good points from opponents

**REMEMBER:** The goal is not to "win" but to illuminate the question from your
framework's perspective. The best debates clarify disagreements; they don't
paper over them.

**DATA:** %s`, audience, MinTurnWords, MaxTurnWords, dataNote)
	return b.String(), nil
}

// chairTurn is what a chair is asked to do on one turn.
type chairTurn struct {
	kind UtteranceKind
	// for openings and responses: the words asked for ([turnRange]); zero:
	// the seed's range
	lo, hi int
	// for responses
	previous string // label of the previous speaker, "" for none
	cutIn    string // label of the chair it has just cut in on, "" for none
	// for interruptions
	interrupted string // label of the interrupted chair
	reason      InterruptReason
	trigger     string
	opener      string
}

// chairTurnPrompt is the user message of a chair's turn: the proposition and
// context, the debate so far (summary and recent turns, fenced) and the task.
func chairTurnPrompt(cfg Config, d Debate, window string, t chairTurn) string {
	var b strings.Builder
	b.WriteString("The proposition under debate:\n" + fence("proposition", d.Proposition) + "\n\n")
	if strings.TrimSpace(d.Context) != "" {
		b.WriteString("Background supplied with it:\n" + fence("context", d.Context) + "\n\n")
	}
	if window != "" {
		b.WriteString(window + "\n\n")
	}
	lo, hi := t.lo, t.hi
	if lo <= 0 || hi <= 0 {
		lo, hi = MinTurnWords, MaxTurnWords
	}
	aim := fmt.Sprintf("Aim for %d-%d words.", lo, hi)
	switch {
	case hi < MaxTurnWords:
		aim = fmt.Sprintf("Keep it to %d-%d words: the debate is running long for its %d-minute target.",
			lo, hi, cfg.Flow.TargetDurationMinutes)
	case lo > MinTurnWords:
		aim = fmt.Sprintf("Aim for %d-%d words: the debate has time to fill before its %d-minute target.",
			lo, hi, cfg.Flow.TargetDurationMinutes)
	}
	switch t.kind {
	case KindOpening:
		fmt.Fprintf(&b, "It is your opening statement. Present your framework's position on the proposition: "+
			"what your core question asks of it, where you come down and why. No one interrupts an opening. "+
			"%s", aim)
	case KindInterruption:
		fmt.Fprintf(&b, "You are cutting in on %s because of this (%s):\n%s\n\n"+
			"Begin with the opener below, then make your point in 40-100 words and hand the floor back.\n%s",
			t.interrupted, strings.ReplaceAll(string(t.reason), "_", " "), fence("trigger", t.trigger), fence("opener", t.opener))
	default:
		switch {
		case t.cutIn != "":
			fmt.Fprintf(&b, "It is your turn; you have just cut in on %s. Go on from your interruption "+
				"rather than repeating it. ", t.cutIn)
		case t.previous != "":
			fmt.Fprintf(&b, "It is your turn; %s spoke last. ", t.previous)
		default:
			b.WriteString("It is your turn. ")
		}
		if cfg.Flow.Style == Structured {
			b.WriteString("Structure your response: first the strongest version of the position you answer, " +
				"then your critique from your framework, then where your own framework struggles here, " +
				"then where you now stand. ")
		} else {
			b.WriteString("Answer what was just said directly, as in a live conversation, and move the " +
				"disagreement forward rather than repeating your opening. ")
		}
		b.WriteString("If the arbiter has called you out, address that first. ")
		b.WriteString(aim)
	}
	return b.String()
}

// InterruptOpeners returns the seed's opener templates for reason, or nil for
// an unknown reason.
func InterruptOpeners(reason InterruptReason) []string {
	o := interruptOpeners[reason]
	return append([]string(nil), o...)
}

var interruptOpeners = map[InterruptReason][]string{
	ReasonFactualCorrection: {
		"Actually, that's a mischaracterization—",
		"I need to correct something there—",
		"That's not quite what my framework holds—",
		"Wait, that's not accurate—",
	},
	ReasonStrawManDetected: {
		"Hold on, you're attacking a position I never took—",
		"Wait, that's not the strongest version of my argument—",
		"Let me stop you there—I wouldn't actually claim that—",
		"You're not engaging with my actual position—",
	},
	ReasonDirectChallenge: {
		"I have to push back on that—",
		"That's exactly where we disagree—",
		"I can't let that go unchallenged—",
		"No, and here's why—",
	},
	ReasonClarificationNeeded: {
		"Can you clarify what you mean by—",
		"I'm not sure I follow—are you saying—",
		"Wait, help me understand—",
		"What exactly do you mean when you say—",
	},
	ReasonStrongAgreement: {
		"Yes, and this is crucial—",
		"Exactly right, and let me build on that—",
		"This is the key insight—",
		"You've hit on something important—",
	},
	ReasonPivotalPoint: {
		"And this is exactly our core disagreement—",
		"This is where the real tension lies—",
		"Let's not gloss over this—this is the crux—",
		"Here's where our frameworks truly clash—",
	},
}
