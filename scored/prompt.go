package scored

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
)

// score formats a score with at most two decimals: "6.5", "7.22".
func score(f float64) string {
	return strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64)
}

// signed formats a delta with its sign and two decimals: "+0.72", "-0.50".
func signed(f float64) string {
	f = math.Round(f*100) / 100
	if f == 0 {
		return "±0.00"
	}
	return fmt.Sprintf("%+.2f", f)
}

// challengesFor lists the red-team challenges bearing on cat.
func challengesFor(cfg Config, cat Category) []string {
	var out []string
	for _, ch := range cfg.Challenges {
		if ch.Category != "" && ch.Category != cat.ID {
			continue
		}
		text := oneLine(ch.Text)
		if sev := oneLine(ch.Severity); sev != "" {
			text = "[" + sev + "] " + text
		}
		out = append(out, text)
	}
	return out
}

// material is what every request of a round shows: the category, the
// positions, the score, the idea, the evidence and the challenges.
func material(cfg Config, d engine.Debate, cat Category) string {
	var b strings.Builder
	ev := cfg.Evaluations[cat.ID]
	fmt.Fprintf(&b, "Category: %s\n", oneLine(cat.Name))
	fmt.Fprintf(&b, "Advocate's position: %s\n", oneLine(cat.AdvocatePosition))
	fmt.Fprintf(&b, "Challenger's position: %s\n", oneLine(cat.ChallengerPosition))
	fmt.Fprintf(&b, "Score going into the debate: %s on a %s to %s scale", score(ev.Score), score(cfg.Scale.Min), score(cfg.Scale.Max))
	if ev.Neutral {
		b.WriteString(" (a neutral default: the idea has not been evaluated in this category, so argue from the idea itself)")
	}
	b.WriteString("\n\n")
	b.WriteString("The idea:\n" + fence("proposition", d.Proposition) + "\n\n")
	if strings.TrimSpace(d.Context) != "" {
		b.WriteString("Background on the idea:\n" + fence("context", d.Context) + "\n\n")
	}
	evidence := bullets(ev.Evidence)
	if evidence == "" {
		evidence = "(no evidence was supplied for this category)"
	}
	b.WriteString("Evaluation evidence for this category:\n" + fence("evidence", evidence) + "\n\n")
	challenges := bullets(challengesFor(cfg, cat))
	if challenges == "" {
		challenges = "(no red-team challenges bear on this category)"
	}
	b.WriteString("Red-team challenges:\n" + fence("challenges", challenges))
	return b.String()
}

func sideName(s Side) string {
	if s == Advocate {
		return "Advocate"
	}
	return "Challenger"
}

func (cfg Config) model(s Side) string {
	if s == Advocate {
		return cfg.AdvocateModel
	}
	return cfg.ChallengerModel
}

func position(cat Category, s Side) string {
	if s == Advocate {
		return cat.AdvocatePosition
	}
	return cat.ChallengerPosition
}

func other(s Side) Side {
	if s == Advocate {
		return Challenger
	}
	return Advocate
}

// argumentRequest asks side for its argument in cat, or, when answering is
// not nil, for its rebuttal of the other side's argument.
func argumentRequest(cfg Config, d engine.Debate, cat Category, side Side, answering *turn) llm.Request {
	var role string
	if side == Advocate {
		role = "Defend the idea's strengths in this category."
	} else {
		role = "Act as the red team: attack the idea's weaknesses in this category, pressing the red-team challenges that bear on it."
	}
	system := fmt.Sprintf("You are the %s in a scored debate that tests an idea's evaluation one category at a time. %s\n\n"+
		"In this round (%s) you hold this position: %s. %s "+
		"Ground every claim in the evaluation evidence supplied; never invent facts, figures or sources, and say so when the evidence is thin. "+
		"Give your claim, the evidence behind it and the reasoning that links them, and answer the strongest objection the other side will raise.\n\n"+
		"Write 120-220 words of plain prose, without headings or lists.",
		sideName(side), dataNote, oneLine(cat.Name), oneLine(position(cat, side)), role)
	user := "Role: " + string(side) + "\n" + material(cfg, d, cat) + "\n\n"
	purpose := PurposeArgument
	if answering == nil {
		user += "Make your argument for your position."
	} else {
		purpose = PurposeRebuttal
		user += fmt.Sprintf("The %s's argument:\n%s\n\n"+
			"Rebut it: concede what the evidence supports, answer what it does not, and end with why your position still holds.",
			strings.ToLower(sideName(other(side))), fence("argument", answering.Content))
	}
	return llm.Request{
		Model:     cfg.model(side),
		Purpose:   purpose,
		MaxTokens: MaxTokensArgument,
		Messages:  []llm.Message{{Role: llm.System, Content: system}, {Role: llm.User, Content: user}},
	}
}

// verdictRequest asks the arbiter to judge round g of cat.
func verdictRequest(cfg Config, d engine.Debate, cat Category, g *roundGen) llm.Request {
	system := "You are the Arbiter of a scored debate that tests an idea's evaluation one category at a time. " + dataNote + "\n\n" +
		"Judge this round fairly. Weigh how well each side's claims rest on the evidence, how directly each answered the other, " +
		"and which arguments were strongest. Rhetoric without evidence counts for little; invented facts count against the side that used them. " +
		"Call a draw when neither side prevailed.\n\n" +
		"Reply with only a JSON object:\n" +
		fmt.Sprintf(`{"winner": "advocate" | "challenger" | "draw", "reasoning": "<why, in two to four sentences, at most %d characters>", `+
			`"keyPoints": ["<each decisive point, at most %d characters>", … 1 to %d], "confidence": <how sure you are, from 0.0 to 1.0>}`,
			maxReasoning, maxKeyPoint, maxKeyPoints)
	var b strings.Builder
	b.WriteString("Role: arbiter\n" + material(cfg, d, cat) + "\n\n")
	type part struct {
		label string
		t     turn
	}
	parts := []part{
		{"The advocate's argument", g.turns[0]},
		{"The challenger's argument", g.turns[1]},
		{"The advocate's rebuttal", g.turns[2]},
		{"The challenger's rebuttal", g.turns[3]},
	}
	if cfg.JudgeSwapped {
		parts[0], parts[1], parts[2], parts[3] = parts[1], parts[0], parts[3], parts[2]
	}
	for _, part := range parts {
		b.WriteString(part.label + ":\n" + fence("argument", part.t.Content) + "\n\n")
	}
	b.WriteString("Give your verdict on this round.")
	return llm.Request{
		Model:     cfg.ArbiterModel,
		Purpose:   PurposeVerdict,
		Schema:    json.RawMessage(verdictSchema),
		MaxTokens: MaxTokensVerdict,
		Messages:  []llm.Message{{Role: llm.System, Content: system}, {Role: llm.User, Content: b.String()}},
	}
}

// The default completion caps of this format's calls ([engine.WithMaxTokens]
// overrides them): an argument or rebuttal is asked for in 120-220 words,
// about 330 tokens, capped at twice its words; a verdict is a short JSON
// object, whose longest valid form (its texts at their bounds) fits.
const (
	MaxTokensArgument = 440 // PurposeArgument and PurposeRebuttal
	MaxTokensVerdict  = 640 // PurposeVerdict
)

// The bounds of a verdict's texts, in characters, which its schema gives a
// server that keeps replies in shape and its prompt states, so that a
// verdict always closes within MaxTokensVerdict; a longer one that parses
// is still used.
const (
	maxReasoning = 600 // two to four sentences
	maxKeyPoints = 5
	maxKeyPoint  = 200
)

// verdictSchema is the JSON Schema of a verdict, as [ParseVerdict] reads it.
var verdictSchema = fmt.Sprintf(`{"type": "object", "additionalProperties": false,
 "required": ["winner", "reasoning", "keyPoints", "confidence"],
 "properties": {
  "winner": {"type": "string", "enum": ["advocate", "challenger", "draw"]},
  "reasoning": {"type": "string", "minLength": 1, "maxLength": %d},
  "keyPoints": {"type": "array", "minItems": 1, "maxItems": %d, "items": {"type": "string", "minLength": 1, "maxLength": %d}},
  "confidence": {"type": "number", "enum": %s}}}`, maxReasoning, maxKeyPoints, maxKeyPoint, confidences())

// confidences is the JSON list of the confidences a verdict's schema
// allows: 0 to 1 in hundredths, which a server's grammar can enforce (as
// minimum and maximum on a number it cannot); ParseVerdict takes any number
// in [0, 1].
func confidences() string {
	vals := make([]string, 101)
	for i := range vals {
		vals[i] = strconv.FormatFloat(float64(i)/100, 'f', -1, 64)
	}
	return "[" + strings.Join(vals, ", ") + "]"
}

// retryMessages extends req's conversation with the unusable reply (clipped
// to engine.MaxQuotedReply runes) and why it cannot be used.
func retryMessages(req llm.Request, reply, problem string) llm.Request {
	req.Messages = append(req.Messages[:len(req.Messages):len(req.Messages)],
		llm.Message{Role: llm.Assistant, Content: cut(reply, engine.MaxQuotedReply)},
		llm.Message{Role: llm.User, Content: "That reply cannot be used: " + problem + ". Reply again, following the instructions above in full."})
	return req
}

// verdictText is the arbiter's utterance for a verdict and its effect.
func verdictText(cat Category, v Verdict, pre, post, delta float64) string {
	var b strings.Builder
	switch {
	case v.Defaulted:
		fmt.Fprintf(&b, "No verdict on %s: the arbiter's reply could not be read; the round counts as a draw.", oneLine(cat.Name))
		fmt.Fprintf(&b, "\n\nScore: %s → %s (%s).", score(pre), score(post), signed(delta))
		return b.String()
	case v.Winner == WinnerDraw:
		fmt.Fprintf(&b, "Verdict on %s: a draw (confidence %.2f).", oneLine(cat.Name), v.Confidence)
	default:
		fmt.Fprintf(&b, "Verdict on %s: the %s wins (confidence %.2f).", oneLine(cat.Name), v.Winner, v.Confidence)
	}
	b.WriteString("\n\n" + strings.TrimSpace(v.Reasoning) + "\n\nKey points:\n" + bullets(v.KeyPoints))
	fmt.Fprintf(&b, "\n\nScore: %s → %s (%s).", score(pre), score(post), signed(delta))
	return b.String()
}
