package persuasion

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
)

// protocol is the speech-act table and the rules every debater is given.
const protocol = `Speech acts (every move is exactly one):
- claim φ: assert φ. Legal replies: why φ, claim ¬φ, concede φ.
- why φ: ask for the reasons for φ. Legal replies: φ since S, or retract φ — only by the one challenged.
- concede φ: admit φ. No reply.
- retract φ: withdraw your commitment to φ. No reply.
- φ since S: give the reasons S for φ. Legal replies: why ψ (ψ one of the reasons S), concede ψ or φ, claim ¬ψ or ¬φ, or an undercut.

Rules:
- A move replies to an earlier move of the other side, named by its ID in "target" (P1, O2, …), or to nothing: a claim or since that opens a line of argument, or a retract of your own commitment. Never reply to your own moves, except by answering a why aimed at you.
- Negate a proposition with a leading "¬". A claim or since that attacks its target either rebuts it (negates its conclusion or one of its reasons, "attack": "rebut") or undercuts it ("attack": "undercut": it breaks the inference of a since from its reasons to its conclusion without denying either). Prefer undercuts when the reasoning is the weak part: they show why an argument fails, not only that it does.
- why and concede always need a target; a why challenges the claim of its target, or one of the reasons of a since (never its conclusion). An attack may not use a proposition its target itself puts forward.
- Answer every open challenge to you with since (your reasons) or retract. If you cannot defend a premise, retract it; concede what is true. Never hold an indefensible position.
- Steel-man, never straw-man; attack arguments, not people. Ground reasons in the shared context where you can, and never invent facts, figures or sources: an unsupported claim will be challenged and will not survive.
- Keep each proposition one short sentence, and use exactly the same words when you refer to an earlier proposition.`

// protocolConsistent is what version 2 of the protocol adds to its rules
// (see [Config].Protocol).
const protocolConsistent = `
- Your commitments stay consistent: conceding φ withdraws your ¬φ, and you may not claim or argue the negation of your own commitment (retract it or concede first).
- A claim without reasons is challenged at once in the other side's name (a why numbered C1, C2, …): answer it with φ since S, or retract φ.`

// rules is the protocol's table and rules under cfg's version.
func rules(cfg Config) string {
	if cfg.Protocol >= 2 {
		return protocol + protocolConsistent
	}
	return protocol
}

// The default completion caps of this format's calls ([engine.WithMaxTokens]
// overrides them). A turn is 80-200 words of text (about 300 tokens) and up
// to Config.MaxMoves moves, each repeating a part of it; a moderation is a
// rationale of 3-6 sentences, a consensus and a few conditions.
const (
	MaxTokensTurn       = 1200 // PurposeTurn
	MaxTokensModeration = 800  // PurposeVerdict
)

// The bounds of a reply's texts, in characters, which the schemas give a
// server that keeps replies in shape (llama.cpp writes them into its
// grammar) and the prompts state: a reply within them always closes before
// its completion cap (engine.SchemaTokens). A longer text that parses is
// still used.
const (
	maxTurnText        = 1200 // a turn's text: 80-200 words
	maxPropositionText = 160  // one short sentence
	maxReasons         = 3    // the reasons of a since
	maxMoveText        = 300  // the part of the turn that makes a move
	maxRationale       = 1200 // 3-6 sentences
	maxConsensus       = 600
	schemaConditions   = 5 // fewer than ParseModeration keeps
	maxCondition       = 300
)

// turnSchema returns the JSON Schema of a turn of at most maxMoves moves,
// at least one, as [ParseTurn] reads it (strict mode: "target" is null for
// a move replying to nothing, "reasons" empty but for a since, "attack"
// empty but for an attack). Each act is a variant of its own, saying what
// the protocol requires of its form: a since has 1 to 3 reasons and no
// other act has any; why and concede name their target; only claim and
// since attack; every proposition has a word; a target is one of targets,
// the IDs of the moves so far (with none, nothing can be challenged or
// conceded). What the schema cannot say (which of them a move may reply
// to) the protocol checks.
func turnSchema(maxMoves int, targets []string) json.RawMessage {
	prop := fmt.Sprintf(`{"type": "string", "minLength": 1, "maxLength": %d}`, maxPropositionText)
	text := fmt.Sprintf(`{"type": "string", "maxLength": %d}`, maxMoveText)
	variant := func(acts, reasons, target, attack string) string {
		return `{"type": "object", "additionalProperties": false,
   "required": ["act", "proposition", "reasons", "target", "attack", "text"],
   "properties": {"act": {"type": "string", "enum": ` + acts + `}, "proposition": ` + prop + `, "reasons": ` + reasons + `,
    "target": ` + target + `, "attack": ` + attack + `, "text": ` + text + `}}`
	}
	none := `{"type": "array", "maxItems": 0, "items": {"type": "string"}}`
	some := fmt.Sprintf(`{"type": "array", "minItems": 1, "maxItems": %d, "items": %s}`, maxReasons, prop)
	ids, _ := json.Marshal(targets)
	anyTarget, aTarget := `{"type": "null"}`, `{"type": "string", "enum": `+string(ids)+`}`
	if len(targets) > 0 {
		anyTarget = `{"type": ["string", "null"], "enum": ` + string(append(ids[:len(ids)-1:len(ids)-1], []byte(", null]")...)) + `}`
	}
	attack, noAttack := `{"type": "string", "enum": ["rebut", "undercut", ""]}`, `{"type": "string", "enum": [""]}`
	variants := []string{
		variant(`["claim"]`, none, anyTarget, attack),
		variant(`["since"]`, some, anyTarget, attack),
		variant(`["retract"]`, none, anyTarget, noAttack),
	}
	if len(targets) > 0 {
		variants = append(variants, variant(`["why", "concede"]`, none, aTarget, noAttack))
	}
	return json.RawMessage(fmt.Sprintf(`{"type": "object", "additionalProperties": false, "required": ["text", "moves"],
 "properties": {
  "text": {"type": "string", "maxLength": %d},
  "moves": {"type": "array", "minItems": 1, "maxItems": %d, "items": {"anyOf": [%s]}}}}`,
		maxTurnText, maxMoves, strings.Join(variants, ", ")))
}

// moderationSchema is the JSON Schema of a moderation, as [ParseModeration]
// reads it.
var moderationSchema = fmt.Sprintf(`{"type": "object", "additionalProperties": false, "required": ["rationale", "consensus", "conditions"],
 "properties": {
  "rationale": {"type": "string", "minLength": 1, "maxLength": %d},
  "consensus": {"type": "string", "minLength": 1, "maxLength": %d},
  "conditions": {"type": "array", "minItems": 1, "maxItems": %d, "items": {"type": "string", "minLength": 1, "maxLength": %d}}}}`,
	maxRationale, maxConsensus, schemaConditions, maxCondition)

// replyFormat is the JSON a debater answers with, with the bounds the
// schema gives its texts.
var replyFormat = fmt.Sprintf(`Reply with only a JSON object:
{"text": "<your turn as you would say it: 80-200 words of plain prose, no headings; at most %d characters>",
 "moves": [{"act": "claim" | "why" | "concede" | "retract" | "since",
            "proposition": "<φ, at most %d characters>",
            "reasons": ["<ψ>", …] (since only; at most %d, each at most %d characters),
            "target": "<ID of the move it replies to, or empty>",
            "attack": "rebut" | "undercut" | "",
            "text": "<the part of your turn that makes this move, at most %d characters>"}]}`,
	maxTurnText, maxPropositionText, maxReasons, maxPropositionText, maxMoveText)

// moveIDs are the IDs of moves, in order.
func moveIDs(moves []argumentation.Move) []string {
	ids := make([]string, len(moves))
	for i, m := range moves {
		ids[i] = m.ID
	}
	return ids
}

// sideRole is the role of the debater of a speaker ID, as its prompt
// states it.
func sideRole(speaker string) string {
	if speaker == SpeakerPro {
		return "PRO, the proponent: you argue FOR the proposition"
	}
	return "OPP, the opponent: you argue AGAINST the proposition"
}

// material is what every request shows: the proposition, the shared context
// K and the focus perspective.
func material(cfg Config, d engine.Debate) string {
	var b strings.Builder
	b.WriteString("The proposition debated:\n" + fence("proposition", d.Proposition) + "\n\n")
	if strings.TrimSpace(d.Context) != "" {
		b.WriteString("Background:\n" + fence("context", d.Context) + "\n\n")
	}
	facts := bullets(cfg.Facts)
	if facts == "" {
		facts = "(no facts were supplied)"
	}
	b.WriteString("Shared context K, facts both sides may use:\n" + fence("facts", facts))
	if p := oneLine(cfg.Perspective); p != "" {
		b.WriteString("\n\nFocus every argument on this perspective:\n" + fence("perspective", p))
	}
	return b.String()
}

// personas lists the three participants with their stated biases.
func personas(cfg Config) string {
	return fence("personas", fmt.Sprintf("- PRO: %s\n- OPP: %s\n- MOD: %s", cfg.Pro, cfg.Opp, cfg.Mod))
}

// moveLines lists moves one per line: "- P2 PRO since "φ" {"a"} -> O1".
func moveLines(moves []argumentation.Move, empty string) string {
	if len(moves) == 0 {
		return empty
	}
	lines := make([]string, len(moves))
	for i, m := range moves {
		lines[i] = "- " + m.String()
	}
	return strings.Join(lines, "\n")
}

func roundLine(cfg Config, sl slot) string {
	switch sl.phase {
	case PhaseOpening:
		return "0 (opening)"
	case PhaseClosing:
		return fmt.Sprintf("%d (closing)", sl.round)
	}
	return fmt.Sprintf("%d of %d, exchange %d of %d", sl.round, cfg.MaxRounds, sl.k, cfg.Exchanges)
}

// instruction says what sl's turn is for.
func instruction(sl slot, prior []argumentation.Move) string {
	switch {
	case sl.phase == PhaseOpening && sl.speaker == SpeakerPro:
		return "This is the opening. State your thesis φ on the proposition: your first move must be a claim replying to nothing. " +
			"Make the case for it in your text."
	case sl.phase == PhaseOpening:
		thesis := "PRO's thesis"
		for _, m := range prior {
			if m.Speaker == SidePro {
				thesis = fmt.Sprintf("PRO's thesis (move %s)", m.ID)
				break
			}
		}
		return "This is the opening. Answer " + thesis + ": claim its negation ¬φ replying to it, or, if it stands unsupported, " +
			"ask why φ replying to it. Give your counter-argument in your text."
	case sl.phase == PhaseClosing:
		return "This is the closing round: make your final statement. Answer any open challenge to you, retract what you can no " +
			"longer defend, concede the other side's points that stand, and restate the position you still hold as a claim replying to nothing."
	case sl.round == 1 && sl.k == 1 && sl.speaker == SpeakerPro:
		return "Argue for your thesis: give your reasons with φ since S (replying to nothing, or answering a why aimed at you), " +
			"and answer any open challenge to you."
	}
	return "First answer every open challenge to you (φ since S, or retract φ if you cannot defend it). Then press the other side: " +
		"challenge a premise (why), rebut or undercut its argument, or concede what you cannot deny. You may open a new line with φ since S."
}

// turnRequest asks sl's debater for its turn after the moves prior;
// lastOther is the other side's last turn (nil in the first turn).
func turnRequest(cfg Config, d engine.Debate, sl slot, dlg *argumentation.Dialogue, lastOther *Turn) llm.Request {
	prior, commitments := dlg.Moves(), dlg.Commitments(sl.side())
	p := cfg.persona(sl.speaker)
	system := fmt.Sprintf("You are %s, in a persuasion dialogue that stress-tests a technical decision under Prakken's protocol. "+
		"Your persona: %s. Your stated bias, which everyone knows: %s. Argue the strongest version of your side despite it. "+
		"A neutral moderator decides the winner from the arguments that survive scrutiny (scored in a bipolar argumentation framework), "+
		"not from rhetoric. %s\n\n%s\n\n%s\nMake 1 to %d moves.",
		sideRole(sl.speaker), oneLine(p.Description), biasText(p), dataNote, rules(cfg), replyFormat, cfg.MaxMoves)
	ids := nextIDs(prior, sl.side(), 2)
	var b strings.Builder
	fmt.Fprintf(&b, "Role: %s\nPhase: %s\nRound: %s\nYour moves this turn are numbered %s, %s, … in order.\n\n",
		sl.side(), sl.phase, roundLine(cfg, sl), ids[0], ids[1])
	b.WriteString(material(cfg, d) + "\n\nThe participants:\n" + personas(cfg) + "\n\n")
	b.WriteString("The dialogue so far, oldest move first:\n" + fence("dialogue", moveLines(prior, "(no moves yet)")) + "\n\n")
	b.WriteString("Your commitments:\n" + fence("commitments", bullets(commitments)) + "\n\n")
	b.WriteString("Open challenges to you:\n" + fence("challenges", moveLines(dlg.OpenChallenges(sl.side()), "(none)")) + "\n\n")
	if lastOther != nil {
		fmt.Fprintf(&b, "%s's last turn:\n%s\n\n", lastOther.Side, fence("argument", lastOther.Text))
	}
	b.WriteString(instruction(sl, prior))
	return llm.Request{
		Model:     p.ModelID,
		Purpose:   PurposeTurn,
		Schema:    turnSchema(cfg.MaxMoves, moveIDs(prior)),
		MaxTokens: MaxTokensTurn,
		Messages:  []llm.Message{{Role: llm.System, Content: system}, {Role: llm.User, Content: b.String()}},
	}
}

func biasText(p Persona) string {
	if b := oneLine(p.Bias); b != "" {
		return b
	}
	return "none stated"
}

// judgmentText is the computed verdict as the moderator is shown it.
func judgmentText(r argumentation.Report) string {
	v := r.Verdict
	var b strings.Builder
	fmt.Fprintf(&b, "Semantics: %s\n", r.Semantics)
	if v.Draw {
		b.WriteString("Winner: Draw\n")
	} else {
		fmt.Fprintf(&b, "Winner: %s\n", v.Winner)
	}
	sides := make([]string, len(v.Sides))
	for i, s := range v.Sides {
		sides[i] = fmt.Sprintf("%s %.2f (%d surviving of %d arguments)", s.Side, s.Score, s.Surviving, s.Arguments)
	}
	fmt.Fprintf(&b, "Scores: %s\n", strings.Join(sides, "; "))
	if !v.Converged {
		b.WriteString("The scores did not converge: the verdict is provisional.\n")
	}
	args := func(title string, as []argumentation.ScoredArgument) {
		b.WriteString(title + ":\n")
		if len(as) == 0 {
			b.WriteString("- (none)\n")
		}
		for _, a := range as {
			fmt.Fprintf(&b, "- %s %q (%s, %.2f)\n", a.ID, a.Text, a.Side, a.Score)
		}
	}
	var all []argumentation.ScoredArgument
	if r.Graph != nil {
		for _, a := range r.Graph.Arguments() {
			all = append(all, argumentation.ScoredArgument{Argument: a, Score: r.Scores.Strength[a.ID]})
		}
	}
	args("All arguments", all)
	args("Surviving arguments (score > 0.5)", v.Surviving)
	args("Valid points from the losing side", v.ValidPoints)
	b.WriteString("Unaddressed challenges:\n")
	if len(v.Unaddressed) == 0 {
		b.WriteString("- (none)\n")
	}
	for _, c := range v.Unaddressed {
		fmt.Fprintf(&b, "- %s: %s asked %s why %q\n", c.Move, c.Speaker, c.Challenged, c.Proposition)
	}
	b.WriteString("Concessions and retractions:\n")
	if len(v.Concessions)+len(v.Retractions) == 0 {
		b.WriteString("- (none)\n")
	}
	for _, m := range append(append([]argumentation.Move(nil), v.Concessions...), v.Retractions...) {
		fmt.Fprintf(&b, "- %s\n", m.String())
	}
	b.WriteString("Final commitments:\n")
	for _, c := range v.Commitments {
		fmt.Fprintf(&b, "- %s holds {%s}; retracted {%s}\n", c.Participant, strings.Join(c.Commitments, "; "), strings.Join(c.Retracted, "; "))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// moderationRequest asks the moderator to explain the computed verdict of
// report.
func moderationRequest(cfg Config, d engine.Debate, report argumentation.Report) llm.Request {
	p := cfg.Mod
	system := "You are MOD, the neutral moderator of a persuasion dialogue that stress-tested a technical decision. " +
		fmt.Sprintf("Your persona: %s. Your stated bias: %s. ", oneLine(p.Description), biasText(p)) + dataNote + "\n\n" +
		"The winner and the scores were computed from a bipolar argumentation framework of the debate's moves and are final: " +
		"explain them, never change them. Judge argument strength, not rhetoric; account for each debater's stated bias; " +
		"weigh which arguments survived (score above 0.5), the challenges left unanswered and the concessions made.\n\n" +
		"Reply with only a JSON object:\n" +
		fmt.Sprintf(`{"rationale": "<why the winning side's arguments were stronger, citing argument IDs (A1, A2, …); 3-6 sentences, at most %d characters>", `+
			`"consensus": "<a practical recommendation that keeps the valid points of the losing side, at most %d characters>", `+
			`"conditions": ["<new evidence or a change that would warrant reopening the decision, at most %d characters>", … at most %d]}`,
			maxRationale, maxConsensus, maxCondition, schemaConditions)
	var b strings.Builder
	b.WriteString("Role: MOD\n" + material(cfg, d) + "\n\nThe participants:\n" + personas(cfg) + "\n\n")
	b.WriteString("The moves of the debate:\n" + fence("dialogue", moveLines(report.Dialogue.Moves(), "(no moves)")) + "\n\n")
	b.WriteString("The computed judgment:\n" + fence("judgment", judgmentText(report)) + "\n\n")
	b.WriteString("Write your rationale, the consensus solution and the conditions for revisiting.")
	return llm.Request{
		Model:     p.ModelID,
		Purpose:   PurposeVerdict,
		Schema:    json.RawMessage(moderationSchema),
		MaxTokens: MaxTokensModeration,
		Messages:  []llm.Message{{Role: llm.System, Content: system}, {Role: llm.User, Content: b.String()}},
	}
}

// verdictText is the moderator's utterance: the computed winner and scores,
// then the moderator's text.
func verdictText(v argumentation.Verdict, sem argumentation.Semantics, m Moderation) string {
	var b strings.Builder
	b.WriteString("Verdict: " + verdictLine(v, sem.String()) + ".")
	b.WriteString("\n\n" + strings.TrimSpace(m.Rationale))
	if c := strings.TrimSpace(m.Consensus); c != "" {
		b.WriteString("\n\nConsensus solution: " + c)
	}
	if len(m.Conditions) > 0 {
		b.WriteString("\n\nRevisit if:\n" + bullets(m.Conditions))
	}
	return b.String()
}

// verdictLine is the computed verdict in one line: "OPP wins (OPP 4.74 vs
// PRO 1.30; additive semantics)", "a draw (…)"; sem "" leaves the semantics
// out.
func verdictLine(v argumentation.Verdict, sem string) string {
	scores := make([]string, len(v.Sides))
	for i, s := range v.Sides {
		scores[i] = fmt.Sprintf("%s %.2f", s.Side, s.Score)
	}
	detail := strings.Join(scores, " vs ")
	if sem != "" {
		detail += "; " + sem + " semantics"
	}
	if v.Draw {
		return "a draw (" + detail + ")"
	}
	return v.Winner + " wins (" + detail + ")"
}
