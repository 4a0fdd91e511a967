package formal

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// turn is a debater's reply, parsed and checked against the rules of its
// phase.
type turn struct {
	Type          EntryType  `json:"type"`
	Content       string     `json:"content"`
	Sources       []Source   `json:"sources,omitempty"`
	RebuttalToSeq *int       `json:"rebuttalToSeq,omitempty"`
	Challenge     *challenge `json:"challenge,omitempty"`
	// Order is the point of order the debater raises with its turn.
	Order *pointOfOrder `json:"pointOfOrder,omitempty"`
}

// Conduct rules a debater may raise a point of order under (the seed's
// "Debater Conduct Rules").
const (
	RuleAdHominem         = 6 // "No ad hominem. Arguments must address substance, not the opposing agent."
	RuleMisrepresentation = 7 // "No misrepresentation. Agents must not mischaracterise the opponent's stated position."
)

// ruleName is the short name of a conduct rule.
func ruleName(rule int) string {
	if rule == RuleAdHominem {
		return "no ad hominem"
	}
	return "no misrepresentation"
}

// pointOfOrder is a debater's complaint that an entry of the other side
// breaks rule 6 or 7, for the chair to rule on.
type pointOfOrder struct {
	TargetSeq int    `json:"targetSeq"`
	Rule      int    `json:"rule"`
	Complaint string `json:"complaint"`
}

// challenge is a debater's challenge of a source the other side cited.
type challenge struct {
	TargetSeq int    `json:"targetSeq"`
	Index     int    `json:"index"` // of the source in the target's sources
	Source    Source `json:"source"`
	Claim     string `json:"claim"`
}

// turnRules is what a debater turn is checked against.
type turnRules struct {
	allowed    []EntryType
	rebuttable []int
	challenge  []challengeable // nil: no challenge allowed
	order      []int           // the entries a point of order may name; nil: none allowed
	today      string
}

// normType folds a type the way a model might write it ("New point",
// "new-point") into an entry type.
func normType(s string) EntryType {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.NewReplacer(" ", "_", "-", "_").Replace(s)
	return EntryType(s)
}

// parseTurn reads a debater's JSON reply and checks it against r: a known
// type allowed in the phase (the only allowed type when none is given),
// content of 1..maxContentRunes, at most maxSources sources each with an
// absolute http(s) URL, a title and an access date (today when left out),
// rebuttal_to_seq on a rebuttal naming an entry the debater may rebut (and
// dropped from other types), and a source challenge, when allowed and given,
// naming a challengeable source and the claim it fails to support. A
// rebuttal that names no entry (rebuttal_to_seq null or left out) rebuts the
// other side's latest argument, as the seed's chair cues it ("rebuttal (to
// seq {PROMOTER_SEQ})"). A clarification request is a question to the chair:
// its sources and source challenge are not read. The error lists every
// problem, for the model to fix.
func parseTurn(reply string, r turnRules) (turn, error) {
	m, err := jsonObject(reply)
	if err != nil {
		return turn{}, err
	}
	var t turn
	var probs []string
	bad := func(format string, args ...any) { probs = append(probs, fmt.Sprintf(format, args...)) }

	rawType, _ := lookup(m, "type")
	switch s, ok := rawType.(string); {
	case rawType == nil && len(r.allowed) == 1:
		t.Type = r.allowed[0]
	case !ok:
		bad(`"type" is %s; want one of: %s`, describe(rawType), joinTypes(r.allowed))
	default:
		t.Type = normType(s)
		if _, known := entryTypes[t.Type]; !known {
			bad(`"type" %q is not an entry type; want one of: %s`, s, joinTypes(r.allowed))
		} else if !slices.Contains(r.allowed, t.Type) {
			bad(`"type" %q is not allowed in this phase; want one of: %s`, s, joinTypes(r.allowed))
		}
	}

	rawContent, _ := lookup(m, "content")
	content, _ := rawContent.(string)
	t.Content = strings.TrimSpace(content)
	switch n := utf8.RuneCountInString(t.Content); {
	case n == 0:
		bad(`"content" is %s; want your turn as text`, describe(rawContent))
	case n > maxContentRunes:
		bad(`"content" has %d characters; at most %d`, n, maxContentRunes)
	}

	if t.Type == TypeClarificationRequest {
		if len(probs) > 0 {
			return turn{}, errors.New(strings.Join(probs, "; "))
		}
		return t, nil
	}

	rawSources, _ := lookup(m, "sources")
	t.Sources = parseSources(rawSources, r.today, bad)

	if t.Type == TypeRebuttal {
		raw, _ := lookup(m, "rebuttal_to_seq")
		n, ok := intValue(raw)
		switch {
		case raw == nil && len(r.rebuttable) > 0:
			latest := r.rebuttable[len(r.rebuttable)-1]
			t.RebuttalToSeq = &latest
		case raw == nil:
			bad(`a rebuttal needs "rebuttal_to_seq", one of: %s`, orNone(r.rebuttable))
		case !ok || !slices.Contains(r.rebuttable, n):
			bad(`"rebuttal_to_seq" %s is not an entry you may rebut; want one of: %s`, describe(raw), orNone(r.rebuttable))
		default:
			t.RebuttalToSeq = &n
		}
	}

	raw, ok := lookup(m, "source_challenge")
	if !ok {
		raw, _ = lookup(m, "challenge")
	}
	if c, isObj := raw.(map[string]any); isObj && len(c) > 0 {
		t.Challenge = parseChallenge(c, r, bad)
	} else if raw != nil && !isObj {
		bad(`"source_challenge" is %s; want null or an object`, describe(raw))
	}

	raw, ok = lookup(m, "point_of_order")
	if !ok {
		raw, _ = lookup(m, "order")
	}
	if o, isObj := raw.(map[string]any); isObj && len(o) > 0 {
		t.Order = parseOrder(o, r, bad)
	} else if raw != nil && !isObj {
		bad(`"point_of_order" is %s; want null or an object`, describe(raw))
	}

	if len(probs) > 0 {
		return turn{}, errors.New(strings.Join(probs, "; "))
	}
	return t, nil
}

// parseOrder reads a point of order: the entry it names (one of r.order),
// the rule (6 or 7; "rule 6", "ad hominem", "misrepresentation" are read
// too) and the complaint.
func parseOrder(o map[string]any, r turnRules, bad func(string, ...any)) *pointOfOrder {
	if r.order == nil {
		bad("a point of order is not allowed in this phase")
		return nil
	}
	var probs int
	fail := func(format string, args ...any) { probs++; bad(format, args...) }
	rawSeq, _ := lookup(o, "target_seq")
	seq, ok := intValue(rawSeq)
	if !ok || !slices.Contains(r.order, seq) {
		fail(`"point_of_order.target_seq" %s is not an entry you may raise a point of order on; want one of: %s`, describe(rawSeq), orNone(r.order))
	}
	rawRule, _ := lookup(o, "rule")
	rule, ok := intValue(rawRule)
	if s, isString := rawRule.(string); isString {
		switch s = strings.ToLower(s); {
		case strings.Contains(s, "6") || strings.Contains(s, "hominem"):
			rule, ok = RuleAdHominem, true
		case strings.Contains(s, "7") || strings.Contains(s, "misrepresent"):
			rule, ok = RuleMisrepresentation, true
		}
	}
	if !ok || (rule != RuleAdHominem && rule != RuleMisrepresentation) {
		fail(`"point_of_order.rule" %s; want 6 (no ad hominem) or 7 (no misrepresentation)`, describe(rawRule))
	}
	complaint := stringField(o, "complaint")
	if complaint == "" {
		fail(`"point_of_order.complaint" is missing: say what the entry does that breaks the rule`)
	}
	if probs > 0 {
		return nil
	}
	return &pointOfOrder{TargetSeq: seq, Rule: rule, Complaint: clip(complaint, maxComplaintRunes)}
}

func orNone(xs []int) string {
	if len(xs) == 0 {
		return "none (make another type of turn)"
	}
	return joinInts(xs)
}

func parseSources(raw any, today string, bad func(string, ...any)) []Source {
	if raw == nil {
		return nil
	}
	list, ok := raw.([]any)
	if !ok {
		bad(`"sources" is %s; want a list`, describe(raw))
		return nil
	}
	if len(list) > maxSources {
		bad(`%d sources; cite at most %d`, len(list), maxSources)
		return nil
	}
	var out []Source
	for i, item := range list {
		o, ok := item.(map[string]any)
		if !ok {
			bad("sources[%d] is %s; want an object with url, title and accessed", i, describe(item))
			continue
		}
		s := Source{URL: stringField(o, "url"), Title: stringField(o, "title"), Accessed: stringField(o, "accessed")}
		if s.Accessed == "" {
			s.Accessed = today
		}
		if err := checkSource(s); err != nil {
			bad("sources[%d]: %v", i, err)
			continue
		}
		if s.Title == "" {
			bad("sources[%d]: the title is missing", i)
			continue
		}
		if !slices.ContainsFunc(out, func(o Source) bool { return o.URL == s.URL }) {
			out = append(out, s)
		}
	}
	return out
}

func parseChallenge(c map[string]any, r turnRules, bad func(string, ...any)) *challenge {
	if r.challenge == nil {
		bad("a source challenge is not allowed in this phase")
		return nil
	}
	raw, _ := lookup(c, "target_seq")
	seq, ok := intValue(raw)
	var cands []challengeable
	for _, ch := range r.challenge {
		if ch.seq == seq {
			cands = append(cands, ch)
		}
	}
	if !ok || len(cands) == 0 {
		var seqs []int
		for _, ch := range r.challenge {
			if !slices.Contains(seqs, ch.seq) {
				seqs = append(seqs, ch.seq)
			}
		}
		bad(`"source_challenge.target_seq" %s names no source you may challenge; want one of: %s`, describe(raw), orNone(seqs))
		return nil
	}
	url := stringField(c, "url")
	var pick *challengeable
	for i := range cands {
		if url == cands[i].src.URL || (url == "" && len(cands) == 1) {
			pick = &cands[i]
		}
	}
	claim := stringField(c, "claim")
	switch {
	case pick == nil:
		bad(`"source_challenge.url" %q is not a challengeable source of entry %d`, url, seq)
	case claim == "":
		bad(`"source_challenge.claim" is missing: name the claim the source fails to support`)
	default:
		return &challenge{TargetSeq: seq, Index: pick.index, Source: pick.src, Claim: clip(claim, promptEntryRunes)}
	}
	return nil
}

// violations are the conjecture rules a turn breaks, for the chair's
// rulings: a conjecture must begin with the label; an unsourced opening
// statement, new point or rebuttal must carry the label; a rebuttal may not
// rest on conjecture alone (no sources).
func violations(t turn) []string {
	labelled := strings.Contains(t.Content, ConjectureLabel)
	var out []string
	switch {
	case t.Type == TypeConjecture && !strings.HasPrefix(t.Content, ConjectureLabel):
		out = append(out, fmt.Sprintf("a conjecture must begin with %s (rule 9)", ConjectureLabel))
	case (t.Type == TypeOpeningStatement || t.Type == TypeNewPoint || t.Type == TypeRebuttal) && len(t.Sources) == 0 && !labelled:
		out = append(out, fmt.Sprintf("factual claims without a source must be labelled %s (rule 11)", ConjectureLabel))
	}
	if t.Type == TypeRebuttal && len(t.Sources) == 0 && labelled {
		out = append(out, "a conjecture may not be the sole basis of a rebuttal; it must be paired with sourced evidence (rule 10)")
	}
	return out
}

// question is an audience question.
type question struct {
	// To is "promoter", "detractor" or "both".
	To   string `json:"to"`
	Text string `json:"question"`
}

func (q question) forWhom() string {
	if q.To == "both" {
		return "both debaters"
	}
	return "the " + q.To
}

// addressees are the debaters a question is put to.
func (q question) addressees() []Speaker {
	switch q.To {
	case string(SpeakerPromoter):
		return []Speaker{SpeakerPromoter}
	case string(SpeakerDetractor):
		return []Speaker{SpeakerDetractor}
	}
	return []Speaker{SpeakerPromoter, SpeakerDetractor}
}

// parseQuestions reads the audience's {"questions": [...]} reply: at most
// maxQuestionsRound questions are kept, each addressed to "promoter",
// "detractor" or "both" (the default).
func parseQuestions(reply string) ([]question, error) {
	m, err := jsonObject(reply)
	if err != nil {
		return nil, err
	}
	raw, ok := lookup(m, "questions")
	if !ok || raw == nil {
		return nil, errors.New(`"questions" is missing; use an empty list for no questions`)
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, fmt.Errorf(`"questions" is %s; want a list`, describe(raw))
	}
	var out []question
	for _, item := range list {
		var q question
		switch x := item.(type) {
		case string:
			q.Text = x
		case map[string]any:
			q.Text = stringField(x, "question")
			q.To = stringField(x, "to")
		}
		q.Text = clip(strings.TrimSpace(q.Text), maxQuestionRunes)
		if q.Text == "" {
			continue
		}
		switch to := strings.ToLower(q.To); {
		case strings.Contains(to, "promoter") || strings.Contains(to, "affirmative"):
			q.To = string(SpeakerPromoter)
		case strings.Contains(to, "detractor") || strings.Contains(to, "negative"):
			q.To = string(SpeakerDetractor)
		default:
			q.To = "both"
		}
		out = append(out, q)
		if len(out) == maxQuestionsRound {
			break
		}
	}
	return out, nil
}

// relayDecision is the chair's choice of questions to relay.
type relayDecision struct {
	// Relay holds the 1-based numbers of the questions relayed, ascending.
	Relay  []int  `json:"relay"`
	Reason string `json:"reason"`
}

// parseRelay reads the chair's {"relay": [...], "reason"} reply for n
// questions.
func parseRelay(reply string, n int) (relayDecision, error) {
	m, err := jsonObject(reply)
	if err != nil {
		return relayDecision{}, err
	}
	raw, ok := lookup(m, "relay")
	list, isList := raw.([]any)
	if !ok || !isList {
		return relayDecision{}, fmt.Errorf(`"relay" is %s; want a list of question numbers`, describe(raw))
	}
	d := relayDecision{Relay: []int{}, Reason: stringField(m, "reason")}
	for _, item := range list {
		i, ok := intValue(item)
		if !ok || i < 1 || i > n {
			return relayDecision{}, fmt.Errorf(`"relay" holds %s; want numbers from 1 to %d`, describe(item), n)
		}
		if !slices.Contains(d.Relay, i) {
			d.Relay = append(d.Relay, i)
		}
	}
	slices.Sort(d.Relay)
	return d, nil
}

// finish is the decision taken after a round from MinRounds on.
type finish struct {
	End    bool   `json:"end"`
	By     End    `json:"by,omitempty"`
	Reason string `json:"reason"`
}

// parseConclusionCheck reads the chair's {"concluded", "reason"} reply.
func parseConclusionCheck(reply string) (finish, error) {
	m, err := jsonObject(reply)
	if err != nil {
		return finish{}, err
	}
	raw, _ := lookup(m, "concluded")
	end, ok := boolValue(raw)
	if !ok {
		return finish{}, fmt.Errorf(`"concluded" is %s; want true or false`, describe(raw))
	}
	f := finish{End: end, Reason: stringField(m, "reason")}
	if end {
		f.By = EndNaturalConclusion
	}
	return f, nil
}

// chairVerdict is the verdict the chair declares, with its reason.
type chairVerdict struct {
	Verdict Verdict `json:"outcome"`
	Reason  string  `json:"reason"`
	// Defaulted: the chair's replies could not be read; the verdict is a
	// draw.
	Defaulted bool `json:"defaulted,omitempty"`
	// Disqualified are the debaters disqualified under rule 12, whose
	// disqualification decided the verdict (no model was asked).
	Disqualified []Speaker `json:"disqualified,omitempty"`
}

// parseClarification reads the chair's {"ruling"} answer to a request for
// clarification.
func parseClarification(reply string) (string, error) {
	m, err := jsonObject(reply)
	if err != nil {
		return "", err
	}
	r := stringField(m, "ruling")
	if r == "" {
		return "", errors.New(`"ruling" is missing: answer the request in one to three sentences`)
	}
	return clip(r, maxQuestionRunes*2), nil
}

// parseOrderRuling reads the chair's {"upheld", "ruling"} ruling on a
// point of order.
func parseOrderRuling(reply string) (orderRuling, error) {
	m, err := jsonObject(reply)
	if err != nil {
		return orderRuling{}, err
	}
	raw, _ := lookup(m, "upheld")
	upheld, ok := boolValue(raw)
	if !ok {
		return orderRuling{}, fmt.Errorf(`"upheld" is %s; want true or false`, describe(raw))
	}
	r := stringField(m, "ruling")
	if r == "" {
		return orderRuling{}, errors.New(`"ruling" is missing: give the reason in one or two sentences`)
	}
	return orderRuling{Upheld: upheld, Ruling: clip(r, maxQuestionRunes*2)}, nil
}

// parseVerdict reads the chair's {"outcome", "reason"} reply.
func parseVerdict(reply string) (chairVerdict, error) {
	m, err := jsonObject(reply)
	if err != nil {
		return chairVerdict{}, err
	}
	raw, _ := lookup(m, "outcome")
	s, _ := raw.(string)
	o := Verdict(normType(s))
	if !o.valid() {
		return chairVerdict{}, fmt.Errorf(`"outcome" is %s; want "affirmative_wins", "negative_wins", "draw" or "void"`, describe(raw))
	}
	v := chairVerdict{Verdict: o, Reason: stringField(m, "reason")}
	if v.Reason == "" {
		return chairVerdict{}, errors.New(`"reason" is missing`)
	}
	return v, nil
}

// today is the date of t as sources give it.
func today(t time.Time) string { return t.UTC().Format(time.DateOnly) }
