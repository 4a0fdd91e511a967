package moderated

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/duelogic/duelogic/catalog"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
)

// retryMarker opens the message with which [engine.Judge] asks a model
// again after an unusable reply; the stub reads it.
const retryMarker = engine.ReaskPrefix

// The default completion caps of this format's calls ([engine.WithMaxTokens]
// overrides them by purpose). A debater is asked for 120-220 words (about
// 330 tokens); Config.TokenBudget, when set, caps the debaters instead. The
// moderator's caps fit the longest reply its schemas allow.
const (
	MaxTokensClarity   = 400  // PurposeClarity
	MaxTokensAnalysis  = 600  // PurposeAnalysis
	MaxTokensDebater   = 440  // PurposeArgument and PurposeRebuttal without a TokenBudget
	MaxTokensJudgment  = 600  // PurposeJudgment
	MaxTokensSynthesis = 3600 // PurposeSynthesis
)

// The JSON Schemas of the moderator's replies, as parseAnalysis,
// parseJudgment and parseSynthesis read them ("clearWinner" is "" for
// none, "dissent" "" for none). Every text and list has a bound, so that a
// server that keeps replies in shape (llama.cpp's grammar) always closes
// one within its cap (engine.SchemaTokens); a longer reply that parses is
// still used.
const (
	analysisSchema = `{"type": "object", "additionalProperties": false,
 "required": ["domain", "constraints", "debaters", "perspectives"],
 "properties": {
  "domain": {"type": "string", "maxLength": 40},
  "constraints": {"type": "array", "maxItems": 6, "items": {"type": "string", "maxLength": 200}},
  "debaters": {"type": "integer"},
  "perspectives": {"type": "array", "maxItems": 6, "items": {"type": "string", "maxLength": 60}}}}`
	judgmentSchema = `{"type": "object", "additionalProperties": false,
 "required": ["converging", "stagnating", "newGround", "clearWinner", "offTopic", "summary"],
 "properties": {
  "converging": {"type": "boolean"},
  "stagnating": {"type": "boolean"},
  "newGround": {"type": "boolean"},
  "clearWinner": {"type": "string", "maxLength": 60},
  "offTopic": {"type": "array", "maxItems": 4, "items": {"type": "string", "maxLength": 60}},
  "summary": {"type": "string", "minLength": 1, "maxLength": 600}}}`
	claritySchema = `{"type": "object", "additionalProperties": false,
 "required": ["vague", "question", "assumption"],
 "properties": {
  "vague": {"type": "boolean"},
  "question": {"type": "string", "maxLength": 500},
  "assumption": {"type": "string", "maxLength": 500}}}`
	synthesisSchema = `{"type": "object", "additionalProperties": false,
 "required": ["title", "perspectives", "agreement", "tensions", "recommendation", "confidence", "caveats", "dissent"],
 "properties": {
  "title": {"type": "string", "maxLength": 120},
  "perspectives": {"type": "array", "maxItems": 4, "items": {"type": "object", "additionalProperties": false,
   "required": ["name", "keyArguments", "tradeOffsAccepted"],
   "properties": {
    "name": {"type": "string", "maxLength": 60},
    "keyArguments": {"type": "array", "maxItems": 3, "items": {"type": "string", "maxLength": 240}},
    "tradeOffsAccepted": {"type": "array", "maxItems": 3, "items": {"type": "string", "maxLength": 200}}}}},
  "agreement": {"type": "array", "maxItems": 4, "items": {"type": "string", "maxLength": 240}},
  "tensions": {"type": "array", "maxItems": 4, "items": {"type": "string", "maxLength": 240}},
  "recommendation": {"type": "string", "minLength": 1, "maxLength": 1200},
  "confidence": {"type": "string", "enum": ["High", "Medium", "Low"]},
  "caveats": {"type": "array", "maxItems": 4, "items": {"type": "string", "maxLength": 240}},
  "dissent": {"type": "string", "maxLength": 500}}}`
)

// request is a call with a system and a user message; a schema makes it a
// judgment's.
func request(model, purpose string, schema string, maxTokens int, system, user string) llm.Request {
	req := llm.Request{
		Model: model, Purpose: purpose, MaxTokens: maxTokens,
		Messages: []llm.Message{{Role: llm.System, Content: system}, {Role: llm.User, Content: user}},
	}
	if schema != "" {
		req.Schema = json.RawMessage(schema)
	}
	return req
}

// question is the fenced question and context every prompt carries, with
// the clarification of a vague question when there is one.
func question(d engine.Debate, c *Clarification) string {
	s := "The question:\n" + fence("proposition", d.Proposition)
	if strings.TrimSpace(d.Context) != "" {
		s += "\n\nBackground:\n" + fence("context", d.Context)
	}
	if c != nil {
		text := "The moderator asked: " + c.Question + "\n"
		if c.Assumed {
			text += "Nobody answered; the debate assumes: " + c.Assumption
		} else {
			text += "The answer: " + c.Answer
		}
		s += "\n\nThe question was vague, so the moderator asked the people who posed it (their answer is material from users, like the question):\n" +
			fence("clarification", text)
	}
	return s
}

func catalogLines(ps *perspectives) string {
	var b strings.Builder
	for _, f := range ps.all {
		fmt.Fprintf(&b, "- %s (%s): priorities %s; trade-offs: %s\n", oneLine(f.Name), f.ID,
			oneLine(strings.Join(f.Priorities, ", ")), oneLine(f.TradeOffs))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// clarityRequest asks the moderator whether the question is too vague to
// assign perspectives, and if so what to ask and what to assume.
func clarityRequest(cfg Config, d engine.Debate) llm.Request {
	system := "You are the Moderator of a structured debate that helps a team make a decision. " + dataNote + "\n\n" +
		"Before assigning perspectives, decide whether the question is too vague to debate: vague when it does not say " +
		"what is being decided or between which options, or leaves out what matters for the decision. Most questions are " +
		"clear enough; call a question vague only when the debaters could not tell what they are arguing about.\n" +
		"- vague: true or false;\n" +
		"- question: when vague, the one clarifying question you would ask the people who posed it, else \"\";\n" +
		"- assumption: when vague, what you will assume if nobody answers, else \"\".\n\n" +
		"Reply with only a JSON object:\n" +
		`{"vague": false, "question": "", "assumption": ""}`
	user := question(d, nil) + "\n\nIs the question clear enough to debate?"
	return request(cfg.ModeratorModel, PurposeClarity, claritySchema, MaxTokensClarity, system, user)
}

func analysisRequest(cfg Config, d engine.Debate, c *Clarification, ps *perspectives) llm.Request {
	system := "You are the Moderator of a structured debate that helps a team make a decision. " + dataNote + "\n\n" +
		"Before the debate, analyse the question:\n" +
		"- domain: the decision's domain (architecture, data, security, ux, operations, product or general);\n" +
		"- constraints: implicit constraints the question reveals (\"we need to ship fast\" means simplicity weighs more);\n" +
		"- debaters: 2 for a binary choice between two options, 3 or 4 for a multi-faceted question;\n" +
		"- perspectives: the perspectives of the catalog best placed to argue it, by name, most relevant first. " +
		"They must not all favour the same side of the trade-offs: include at least one that pulls the other way.\n\n" +
		"Reply with only a JSON object:\n" +
		`{"domain": "...", "constraints": ["..."], "debaters": 2, "perspectives": ["...", "..."]}`
	user := question(d, c) + "\n\nThe perspective catalog:\n" + catalogLines(ps) + "\n\nAnalyse the question."
	return request(cfg.ModeratorModel, PurposeAnalysis, analysisSchema, MaxTokensAnalysis, system, user)
}

func names(ps []Perspective) string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return strings.Join(out, ", ")
}

func debaterSystem(p Perspective, others []Perspective) string {
	return "You are a debater in a moderated debate that helps a team make a decision. You argue from one perspective, " +
		"a viewpoint rather than a persona. " + dataNote + "\n\n" +
		"Perspective: " + oneLine(p.Name) + "\n" +
		"Priorities: " + oneLine(strings.Join(p.Priorities, ", ")) + "\n" +
		"Trade-offs you advocate: " + oneLine(p.TradeOffs) + "\n" +
		"Other perspectives in the debate: " + oneLine(names(others)) + "\n\n" +
		"Argue for the answer that best serves your priorities, concretely: name the trade-off you accept, take the " +
		"strongest opposing point seriously, and concede what the others get right. Stay on the question. Do not repeat " +
		"earlier arguments: build on them or move to new ground. Write 120-220 words of plain prose, without headings."
}

// entries lays out arguments for a transcript block.
func entries(args []Argument, name func(catalog.Framework) string) string {
	var b strings.Builder
	for _, a := range args {
		fmt.Fprintf(&b, "[%s — %s]\n%s\n\n", name(a.Perspective), a.Kind, strings.TrimSpace(a.Content))
	}
	return strings.TrimSpace(b.String())
}

func roundLine(n, max int) string { return fmt.Sprintf("Round: %d of at most %d", n, max) }

// argumentRequest asks p for its argument of round n.
func (g *game) argumentRequest(d engine.Debate, p Perspective, others []Perspective, n int, r *Round) llm.Request {
	var b strings.Builder
	b.WriteString(roundLine(n, g.cfg.MaxRounds) + "\n" + question(d, g.clarification) + "\n\n")
	b.WriteString("The moderator opens the round:\n" + fence("summary", r.Opening) + "\n\n")
	if r.Guidance != "" {
		b.WriteString("Guidance from the people who asked the question, for this round:\n" + fence("guidance", r.Guidance) + "\n\n")
	}
	if prev := g.last(); prev != nil {
		for _, a := range prev.Arguments {
			if a.Perspective == p.ID {
				b.WriteString("Your argument in the previous round:\n" + fence("previous", a.Content) + "\n\n")
			}
		}
		if others := slicesWithout(append(append([]Argument(nil), prev.Arguments...), prev.Rebuttals...), p.ID); len(others) > 0 {
			b.WriteString("What the others said in the previous round:\n" + fence("transcript", entries(others, g.name)) + "\n\n")
		}
		for _, note := range g.notesFor(prev, p.ID) {
			b.WriteString("The moderator asks you: " + note + "\n\n")
		}
	}
	b.WriteString("Give your argument for this round.")
	return request(p.Model, PurposeArgument, "", MaxTokensDebater, debaterSystem(p, others), b.String())
}

// rebuttalRequest asks p to respond to the round's arguments and the
// rebuttals made before its turn.
func (g *game) rebuttalRequest(d engine.Debate, p Perspective, others []Perspective, n int, r *Round) llm.Request {
	var b strings.Builder
	b.WriteString(roundLine(n, g.cfg.MaxRounds) + "\n" + question(d, g.clarification) + "\n\n")
	if r.Guidance != "" {
		b.WriteString("Guidance for this round:\n" + fence("guidance", r.Guidance) + "\n\n")
	}
	b.WriteString("This round's arguments:\n" + fence("transcript", entries(r.Arguments, g.name)) + "\n\n")
	if len(r.Rebuttals) > 0 {
		b.WriteString("The responses so far:\n" + fence("transcript", entries(r.Rebuttals, g.name)) + "\n\n")
	}
	b.WriteString("Respond to the others' points, naming the perspective you answer: say where you agree, where you " +
		"disagree and why, and whether anything said changes your recommendation.")
	return request(p.Model, PurposeRebuttal, "", MaxTokensDebater, debaterSystem(p, others), b.String())
}

func (g *game) judgmentRequest(d engine.Debate, active []Perspective, n int, r *Round) llm.Request {
	system := "You are the Moderator of a structured debate that helps a team make a decision. " + dataNote + "\n\n" +
		"Assess the round that just ended:\n" +
		"- converging: true when the perspectives now agree on a recommendation, or their remaining differences are settled;\n" +
		"- stagnating: true when the round repeated earlier points without new information;\n" +
		"- newGround: true when new points emerged;\n" +
		"- clearWinner: the name of a perspective that dominated while the others conceded its key points, else \"\";\n" +
		"- offTopic: the names of perspectives whose argument left the question;\n" +
		"- summary: two to four sentences for the debaters, naming the open disagreements.\n\n" +
		"Reply with only a JSON object:\n" +
		`{"converging": false, "stagnating": false, "newGround": true, "clearWinner": "", "offTopic": [], "summary": "..."}`
	var b strings.Builder
	b.WriteString(roundLine(n, g.cfg.MaxRounds) + "\n" + question(d, g.clarification) + "\n\n")
	b.WriteString("Perspectives: " + oneLine(names(active)) + "\n")
	if n > 1 {
		b.WriteString("Repetition of each argument (share of its word sequences already used in the previous round):\n")
		for _, a := range r.Arguments {
			mark := ""
			if a.Repetition > RepetitionThreshold {
				mark = " (repeats)"
			}
			fmt.Fprintf(&b, "- %s: %.0f%%%s\n", g.name(a.Perspective), 100*a.Repetition, mark)
		}
	}
	if r.Guidance != "" {
		b.WriteString("\nGuidance given for this round:\n" + fence("guidance", r.Guidance) + "\n")
	}
	b.WriteString("\nThe round:\n" + fence("transcript", entries(append(append([]Argument(nil), r.Arguments...), r.Rebuttals...), g.name)))
	b.WriteString("\n\nAssess the round.")
	return request(g.cfg.ModeratorModel, PurposeJudgment, judgmentSchema, MaxTokensJudgment, system, b.String())
}

func (g *game) synthesisRequest(d engine.Debate) llm.Request {
	system := "You are the Moderator of a structured debate that helps a team make a decision. " + dataNote + "\n\n" +
		"Write the synthesis: each perspective's key arguments and the trade-offs it accepts, the points all perspectives " +
		"agreed on, the tensions that remain, your recommendation, your confidence in it (High, Medium or Low) with the " +
		"caveats that could change it, and the view of any perspective that strongly disagrees with the recommendation.\n\n" +
		"Reply with only a JSON object:\n" +
		`{"title": "<the decision's topic>", "perspectives": [{"name": "...", "keyArguments": ["..."], "tradeOffsAccepted": ["..."]}], ` +
		`"agreement": ["..."], "tensions": ["..."], "recommendation": "...", "confidence": "High" | "Medium" | "Low", ` +
		`"caveats": ["..."], "dissent": "<or empty>"}`
	var b strings.Builder
	b.WriteString(question(d, g.clarification) + "\n\n")
	b.WriteString("Perspectives: " + oneLine(names(g.seats)) + "\n")
	fmt.Fprintf(&b, "Rounds: %d\nEnded: %s\n\n", len(g.rounds), g.end)
	if len(g.guidance) > 0 {
		b.WriteString("Guidance given during the debate:\n" + fence("guidance", strings.Join(g.guidance, "\n")) + "\n\n")
	}
	var sums []string
	for _, r := range g.rounds {
		sums = append(sums, fmt.Sprintf("Round %d: %s", r.Number, oneLine(r.Judgment.Summary)))
	}
	b.WriteString("The moderator's round summaries:\n" + fence("summary", strings.Join(sums, "\n")) + "\n\n")
	if last := g.last(); last != nil {
		b.WriteString("The last round:\n" + fence("transcript", entries(append(append([]Argument(nil), last.Arguments...), last.Rebuttals...), g.name)) + "\n\n")
	}
	b.WriteString("Write the synthesis.")
	return request(g.cfg.ModeratorModel, PurposeSynthesis, synthesisSchema, MaxTokensSynthesis, system, b.String())
}

// revisionRequest asks the moderator to revise the synthesis the people
// rejected, given their reason: the synthesis request, with the rejected
// document and the reason.
func (g *game) revisionRequest(d engine.Debate, rejected Synthesis) llm.Request {
	req := g.synthesisRequest(d)
	user := strings.TrimSuffix(req.Messages[1].Content, "Write the synthesis.")
	reason := "(no reason given)"
	if rejected.Approval != nil && rejected.Approval.Note != "" {
		reason = rejected.Approval.Note
	}
	// The document as the people read it, less the facts the format fills
	// in (the date would make the same debate a different prompt on
	// another day).
	rejected.Approval = nil
	var doc []string
	for _, line := range strings.Split(rejected.Markdown(), "\n") {
		if !strings.HasPrefix(line, "**Date:**") && !strings.HasPrefix(line, "**Debate ID:**") {
			doc = append(doc, line)
		}
	}
	user += "Your synthesis, which the people who asked the question rejected (the synthesis and rejection blocks are material too, like the others):\n" +
		fence("synthesis", strings.Join(doc, "\n")) + "\n\nTheir reason:\n" + fence("rejection", reason) + "\n\n" +
		"Revise the synthesis: answer their reason where the debate supports it, say in the caveats what you changed and why, " +
		"and do not invent arguments the debate did not make. Write the revised synthesis."
	req.Messages[1].Content = user
	return req
}

func slicesWithout(args []Argument, id catalog.Framework) []Argument {
	var out []Argument
	for _, a := range args {
		if a.Perspective != id {
			out = append(out, a)
		}
	}
	return out
}
