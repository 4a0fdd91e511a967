package moderated

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/duelogic/duelogic/catalog"
	"github.com/duelogic/duelogic/internal/mdtext"
)

// Analysis is the moderator's reading of the question before the debate.
type Analysis struct {
	// Domain is the decision's domain ("architecture", "security", ...).
	Domain string `json:"domain"`
	// Constraints are implicit constraints the question reveals ("ship
	// fast").
	Constraints []string `json:"constraints,omitempty"`
	// Debaters is the number of perspectives the moderator asked for,
	// clamped to 2..4.
	Debaters int `json:"debaters"`
	// Suggested are the perspectives the moderator named, as it named
	// them; the assignment keeps those the catalog holds.
	Suggested []string `json:"suggested,omitempty"`
	// Fallback marks an analysis made by the keyword heuristic alone,
	// because the moderator's replies (asked again once) held no JSON
	// object.
	Fallback bool `json:"fallback,omitempty"`
}

// parseAnalysis reads the moderator's analysis; only a reply without a JSON
// object is an error. Out-of-range values are clamped: a debater count
// outside 2..4 to the nearest bound, a missing one by the question (2 for a
// binary choice, else 3).
func parseAnalysis(reply, question string) (Analysis, error) {
	m, err := jsonObject(reply)
	if err != nil {
		return Analysis{}, err
	}
	var a Analysis
	v, _ := lookup(m, "domain")
	a.Domain = strings.ToLower(cut(oneLine(stringOf(v)), 40))
	if a.Domain == "" {
		a.Domain = "general"
	}
	v, _ = lookup(m, "constraints")
	a.Constraints = stringsOf(v, 5)
	v, _ = lookup(m, "debaters")
	if n, ok := numberOf(v); ok {
		a.Debaters = int(math.Max(2, math.Min(4, math.Round(n))))
	} else {
		a.Debaters = defaultDebaters(question)
	}
	v, _ = lookup(m, "perspectives")
	a.Suggested = stringsOf(v, 6)
	return a, nil
}

// fallbackAnalysis is the analysis when the moderator gave none.
func fallbackAnalysis(question string) Analysis {
	return Analysis{Domain: "general", Debaters: defaultDebaters(question), Fallback: true}
}

// defaultDebaters is 2 for a binary choice ("A or B", "A vs B"), else 3.
func defaultDebaters(question string) int {
	for _, w := range wordsOf(question) {
		if w == "or" || w == "vs" || w == "versus" {
			return 2
		}
	}
	return 3
}

// Judgment is the moderator's assessment of a round, with what the format
// measured itself.
type Judgment struct {
	// Round is the round judged.
	Round int `json:"round"`
	// Converging: the perspectives now agree on a recommendation.
	Converging bool `json:"converging"`
	// Stagnating: the round repeated earlier points without new
	// information.
	Stagnating bool `json:"stagnating"`
	// NewGround: new points emerged.
	NewGround bool `json:"newGround"`
	// ClearWinner is a perspective that dominated while the others
	// conceded its key points.
	ClearWinner catalog.Framework `json:"clearWinner,omitempty"`
	// OffTopic are perspectives whose argument left the question; the
	// next round redirects them, and a perspective off topic in two rounds
	// running is muted.
	OffTopic []catalog.Framework `json:"offTopic,omitempty"`
	// Summary is the moderator's summary, which opens the next round.
	Summary string `json:"summary"`

	// Repeating are the perspectives whose argument repeated more than
	// RepetitionThreshold of what the previous round said, as measured by
	// [Repetition] (not by the model).
	Repeating []catalog.Framework `json:"repeating,omitempty"`
	// End is why the debate ends after this round; "" when it goes on.
	End EndReason `json:"end,omitempty"`
	// Cut is the part of the round under way — "arguments", "rebuttals"
	// or "judgment" — when the debate's total time ran out and cut the
	// round short there; "" for a round played whole. What was said
	// before the cut stays; the moderator did not judge the round, and
	// End is [EndTimeout].
	Cut string `json:"cut,omitempty"`
	// Fallback marks a judgment made without the moderator, whose replies
	// could not be read: only the measured signals count.
	Fallback bool `json:"fallback,omitempty"`
}

// parseJudgment reads the moderator's round judgment; resolve maps the
// names it gives to the perspectives of the round (unknown names are
// dropped). A reply without a JSON object or a summary is an error.
func parseJudgment(reply string, resolve func(string) (catalog.Framework, bool)) (Judgment, error) {
	m, err := jsonObject(reply)
	if err != nil {
		return Judgment{}, err
	}
	var j Judgment
	flag := func(key string) bool { v, _ := lookup(m, key); return boolOf(v) }
	j.Converging, j.Stagnating, j.NewGround = flag("converging"), flag("stagnating"), flag("newGround")
	if v, _ := lookup(m, "clearWinner"); v != nil {
		if id, ok := resolve(stringOf(v)); ok {
			j.ClearWinner = id
		}
	}
	v, _ := lookup(m, "offTopic")
	for _, name := range stringsOf(v, 10) {
		if id, ok := resolve(name); ok && !slices.Contains(j.OffTopic, id) {
			j.OffTopic = append(j.OffTopic, id)
		}
	}
	v, _ = lookup(m, "summary")
	if j.Summary = cut(strings.TrimSpace(stringOf(v)), 2000); j.Summary == "" {
		return Judgment{}, errors.New("summary is empty")
	}
	return j, nil
}

// endOf decides whether the debate ends after round of maxRounds, with
// active debaters: on agreement, a clear winner, stagnation (the
// moderator's, or every debater repeating itself), or the round cap.
func endOf(j Judgment, round, maxRounds, active int) EndReason {
	switch {
	case j.Converging:
		return EndAgreement
	case j.ClearWinner != "":
		return EndClearWinner
	case j.Stagnating, round > 1 && active > 0 && len(j.Repeating) >= active:
		return EndStagnation
	case round >= maxRounds:
		return EndMaxRounds
	}
	return ""
}

// Confidence is the synthesis's confidence in its recommendation.
type Confidence string

// The confidence levels of the seed.
const (
	ConfidenceHigh   Confidence = "High"
	ConfidenceMedium Confidence = "Medium"
	ConfidenceLow    Confidence = "Low"
)

// PerspectiveSummary is one perspective's part in the synthesis.
type PerspectiveSummary struct {
	Name              string   `json:"name"`
	KeyArguments      []string `json:"keyArguments"`
	TradeOffsAccepted []string `json:"tradeOffsAccepted"`
}

// Synthesis is the seed's synthesis document; [Synthesis.Markdown] renders
// it.
type Synthesis struct {
	// Title is the decision's topic.
	Title        string               `json:"title"`
	Date         time.Time            `json:"date"`
	DebateID     string               `json:"debateId"`
	Rounds       int                  `json:"rounds"`
	Question     string               `json:"question"`
	Perspectives []PerspectiveSummary `json:"perspectives"`
	Agreement    []string             `json:"agreement"`
	Tensions     []string             `json:"tensions"`
	// Recommendation is the moderator's recommendation.
	Recommendation string     `json:"recommendation"`
	Confidence     Confidence `json:"confidence"`
	Caveats        []string   `json:"caveats"`
	// Dissent is the view of a perspective that strongly disagrees with
	// the recommendation, or "".
	Dissent   string    `json:"dissent,omitempty"`
	EndReason EndReason `json:"endReason"`
	// Clarification is the moderator's clarifying question about a vague
	// prompt and what came of it; nil when the prompt was clear.
	Clarification *Clarification `json:"clarification,omitempty"`
	// Approval is what the people who asked made of the synthesis: nil
	// until it is reviewed ([WithApprover]; the synthesis of
	// [EventSynthesis] has none), then Approved, Rejected or Unreviewed.
	Approval *Approval `json:"approval,omitempty"`
	// Revision is set on the moderator's revision of a synthesis the
	// people rejected: their reason; nil on a first synthesis.
	Revision *Revision `json:"revision,omitempty"`
	// Fallback marks a synthesis made without the moderator, whose
	// replies could not be read: it has no recommendation of the
	// moderator's, Low confidence, and each perspective's first sentence
	// of its last argument.
	Fallback bool `json:"fallback,omitempty"`
}

// Revision is what a revised synthesis answers: the people who asked
// rejected the synthesis before it, for Reason ("" when they gave none),
// and the moderator revised it. The moderator revises once: a revision the
// people reject too is recorded as rejected.
type Revision struct {
	Reason string `json:"reason,omitempty"`
}

// fallbackSynthesis is the synthesis when the moderator gave none; the
// format completes it like any other.
func fallbackSynthesis() Synthesis {
	return Synthesis{
		Fallback:       true,
		Recommendation: "The moderator's synthesis could not be read, so no recommendation was made. Each perspective's key argument above is the first sentence of its last argument.",
		Confidence:     ConfidenceLow,
		Caveats:        []string{"Written without the moderator's synthesis: weigh the transcript, not this summary."},
	}
}

// parseSynthesis reads the moderator's synthesis. A reply without a JSON
// object or a recommendation is an error; an unknown confidence is Medium.
func parseSynthesis(reply string) (Synthesis, error) {
	m, err := jsonObject(reply)
	if err != nil {
		return Synthesis{}, err
	}
	var s Synthesis
	str := func(key string, max int) string {
		v, _ := lookup(m, key)
		return cut(strings.TrimSpace(stringOf(v)), max)
	}
	list := func(key string) []string { v, _ := lookup(m, key); return stringsOf(v, 10) }
	s.Title = cut(oneLine(str("title", 200)), 120)
	s.Recommendation = str("recommendation", 4000)
	if s.Recommendation == "" {
		return Synthesis{}, errors.New("recommendation is empty")
	}
	s.Agreement, s.Tensions, s.Caveats = list("agreement"), list("tensions"), list("caveats")
	s.Dissent = str("dissent", 2000)
	switch strings.ToLower(str("confidence", 20)) {
	case "high":
		s.Confidence = ConfidenceHigh
	case "low":
		s.Confidence = ConfidenceLow
	default:
		s.Confidence = ConfidenceMedium
	}
	v, _ := lookup(m, "perspectives")
	items, _ := v.([]any)
	for _, it := range items {
		pm, ok := it.(map[string]any)
		if !ok {
			continue
		}
		name, _ := lookup(pm, "name")
		args, _ := lookup(pm, "keyArguments")
		trade, _ := lookup(pm, "tradeOffsAccepted")
		if n := oneLine(stringOf(name)); n != "" {
			s.Perspectives = append(s.Perspectives, PerspectiveSummary{Name: cut(n, 100), KeyArguments: stringsOf(args, 6), TradeOffsAccepted: stringsOf(trade, 6)})
		}
	}
	return s, nil
}

// Markdown renders the synthesis in the seed's structure, ready for
// docs/decisions/. Text from the question and the models is escaped so it
// cannot add sections of its own. An approved or rejected synthesis
// carries a Status line (a rejected one also a warning under its title;
// an unreviewed one neither), and a clarified question its clarification.
func (s Synthesis) Markdown() string { return s.markdown(false) }

// DecisionMarkdown is [Synthesis.Markdown] with a Status line whatever the
// review — "**Status:** Unreviewed" when nobody approved or rejected it —:
// the decision document for docs/decisions/<date>-<slug>.md (see
// [Outcome.Documents]).
func (s Synthesis) DecisionMarkdown() string { return s.markdown(true) }

// markdown renders the synthesis; status: with a Status line even when it
// is unreviewed.
func (s Synthesis) markdown(status bool) string {
	var b strings.Builder
	names := make([]string, len(s.Perspectives))
	for i, p := range s.Perspectives {
		names[i] = inline(p.Name)
	}
	fmt.Fprintf(&b, "# Decision: %s\n\n", inline(s.Title))
	if s.Approval != nil && s.Approval.Status == Rejected {
		b.WriteString("> **Rejected.** The people who asked rejected this synthesis: it is not the decision.\n\n")
	}
	fmt.Fprintf(&b, "**Date:** %s\n", s.Date.Format(time.DateOnly))
	fmt.Fprintf(&b, "**Debate ID:** %s\n", inline(s.DebateID))
	fmt.Fprintf(&b, "**Rounds:** %d\n", s.Rounds)
	fmt.Fprintf(&b, "**Perspectives:** %s\n", strings.Join(names, ", "))
	if a := s.Approval; a != nil && (a.Status == Approved || a.Status == Rejected) {
		line := map[ApprovalStatus]string{Approved: "Approved", Rejected: "Rejected"}[a.Status]
		if a.Note != "" {
			line += " — " + inline(a.Note)
		}
		fmt.Fprintf(&b, "**Status:** %s\n", line)
	} else if status {
		b.WriteString("**Status:** Unreviewed\n")
	}
	if r := s.Revision; r != nil {
		line := "**Revised:** after the people who asked rejected the first synthesis"
		if r.Reason != "" {
			line += " — " + inline(r.Reason)
		}
		b.WriteString(line + "\n")
	}
	fmt.Fprintf(&b, "\n## Question\n\n%s\n\n", block(s.Question))
	if c := s.Clarification; c != nil {
		fmt.Fprintf(&b, "**Clarifying question:** %s\n", inline(c.Question))
		if c.Assumed {
			fmt.Fprintf(&b, "**Assumed (no answer):** %s\n\n", inline(c.Assumption))
		} else {
			fmt.Fprintf(&b, "**Answer:** %s\n\n", inline(c.Answer))
		}
	}
	b.WriteString("## Perspectives Considered\n\n")
	for _, p := range s.Perspectives {
		fmt.Fprintf(&b, "### %s\n", inline(p.Name))
		fmt.Fprintf(&b, "- Key arguments: %s\n", joined(p.KeyArguments, "none recorded"))
		fmt.Fprintf(&b, "- Trade-offs accepted: %s\n\n", joined(p.TradeOffsAccepted, "none recorded"))
	}
	b.WriteString("## Points of Agreement\n\n" + items(s.Agreement, "No points of agreement were recorded.") + "\n")
	b.WriteString("## Key Tensions\n\n" + items(s.Tensions, "No tensions remained.") + "\n")
	fmt.Fprintf(&b, "## Recommendation\n\n%s\n\n", block(s.Recommendation))
	fmt.Fprintf(&b, "**Confidence:** %s\n", s.Confidence)
	fmt.Fprintf(&b, "**Caveats:** %s\n\n", joined(s.Caveats, "None."))
	dissent := block(s.Dissent)
	if dissent == "" {
		dissent = "No perspective strongly disagrees with the recommendation."
	}
	fmt.Fprintf(&b, "## Dissenting View\n\n%s\n", dissent)
	return b.String()
}

func joined(xs []string, none string) string {
	if len(xs) == 0 {
		return none
	}
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = inline(strings.TrimRight(x, ".;"))
	}
	return strings.Join(out, "; ")
}

func items(xs []string, none string) string {
	if len(xs) == 0 {
		return "- " + none + "\n"
	}
	var b strings.Builder
	for _, x := range xs {
		b.WriteString("- " + inline(x) + "\n")
	}
	return b.String()
}

// inline makes s one line of Markdown text that cannot start a block.
func inline(s string) string { return mdtext.EscapeLead(oneLine(s)) }

// block escapes model text for a Markdown document.
var block = mdtext.Block
