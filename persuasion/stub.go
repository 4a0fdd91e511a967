package persuasion

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/duelogic/duelogic/internal/stubtext"
	"github.com/duelogic/duelogic/llm"
)

// The offline stub model's answers (llm.Stub) to this package's requests,
// written from the prompts of prompt.go. A turn's prompt names the
// debater by its side label ("Role: PRO"; the stub's tables are keyed by
// side label too), the phase ("Phase: opening", "argumentation" or "closing")
// and lists the moves so far in a <dialogue> block, one per line as
// argumentation.Move.String prints them:
//
//	- P2 PRO since "φ" {"a", "b"} -> O1 (rebut)
//
// The stub answers {"text": …, "moves": [...]} with moves that are legal
// under the persuasion protocol: PRO opens with its thesis and OPP with its
// negation or a why; later turns answer the challenges aimed at the speaker
// (with reasons, now and then with a retraction), then challenge, rebut,
// undercut or concede the other side's last argument; the closing concedes a
// point and restates the thesis. About one first attempt in seven adds an
// illegal move (a why at the speaker's own move, a since without reasons, a
// reply to a move that does not exist), so that the debate asks again; a
// request asking again ("cannot be used") always gets legal moves.
//
// The moderator ("persuasion_verdict") reads the computed winner and scores
// from the prompt and explains them; about one first attempt in seven leaves
// the consensus empty (the reply still fits the schema, as a server
// constrained by it would answer), so that it is asked again.

func init() {
	llm.RegisterStub(PurposeTurn, writeStubTurn)
	llm.RegisterStub(PurposeVerdict, writeStubVerdict)
}

type stubMove struct {
	ID          string   `json:"-"`
	Speaker     string   `json:"-"`
	Act         string   `json:"act"`
	Proposition string   `json:"proposition"`
	Reasons     []string `json:"reasons"`
	Target      string   `json:"target"`
	Attack      string   `json:"attack"`
	Text        string   `json:"text"`
}

var stubLineHead = regexp.MustCompile(`^- (\S+) (\S+) (claim|why|concede|retract|since) `)

// stubParseLine reads one listed move.
func stubParseLine(line string) (stubMove, bool) {
	m := stubLineHead.FindStringSubmatch(line)
	if m == nil {
		return stubMove{}, false
	}
	mv := stubMove{ID: m[1], Speaker: m[2], Act: m[3]}
	rest := line[len(m[0]):]
	quoted := func() (string, bool) {
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return "", false
		}
		rest = rest[len(q):]
		s, err := strconv.Unquote(q)
		return s, err == nil
	}
	var ok bool
	if mv.Proposition, ok = quoted(); !ok {
		return stubMove{}, false
	}
	if strings.HasPrefix(rest, " {") {
		rest = rest[2:]
		for {
			r, ok := quoted()
			if !ok {
				return stubMove{}, false
			}
			mv.Reasons = append(mv.Reasons, r)
			if strings.HasPrefix(rest, ", ") {
				rest = rest[2:]
				continue
			}
			if !strings.HasPrefix(rest, "}") {
				return stubMove{}, false
			}
			rest = rest[1:]
			break
		}
	}
	if strings.HasPrefix(rest, " -> ") {
		mv.Target, rest, _ = strings.Cut(rest[4:], " ")
	}
	if a := strings.Trim(strings.TrimSpace(rest), "()"); a == "rebut" || a == "undercut" {
		mv.Attack = a
	}
	return mv, true
}

// stubNegate negates a proposition the way package argumentation does.
func stubNegate(p string) string {
	if q, ok := strings.CutPrefix(p, "¬"); ok {
		return q
	}
	return "¬" + p
}

// Reasons and undercutting objections in each persona's voice.
var (
	stubReasons = map[string][]string{
		SidePro: {
			"It ships in weeks rather than quarters",
			"The team already knows the tooling",
			"Fewer moving parts mean fewer pages at night",
			"The simple option can be replaced later if it falls short",
			"Existing libraries cover the common cases",
			"Delivery speed is the binding constraint this quarter",
			"Rollback is a single deploy",
			"The maintenance burden stays with the people who built it",
			"A small pilot already ran without incident",
			"Onboarding new engineers stays cheap",
			"Every week of delay has a measurable cost to users",
			"Most of the risk is in code we would write either way",
		},
		SideOpp: {
			"Every new dependency is a long-term maintenance cost",
			"Migrations get harder once data accumulates",
			"The failure modes have not been load-tested",
			"Short-term speed tends to turn into technical debt",
			"Operational risk grows with each new component",
			"The security review has not covered the new surface",
			"Reversing the decision later would take months",
			"Consistency with the existing architecture lowers risk",
			"Two teams would have to be retrained",
			"The pilot was too small to show the tail latencies",
			"Vendor lock-in limits future options",
			"Monitoring for the new path does not exist yet",
		},
	}
	stubUndercuts = map[string][]string{
		SidePro: {
			"The risk cited applies equally to the alternative",
			"Past debt came from rushed design, not from this kind of choice",
			"A risk that can be rolled back cheaply is not a reason to wait",
		},
		SideOpp: {
			"Speed of delivery says nothing about fitness for this workload",
			"Familiarity with a tool does not make it the right tool",
			"A pilot that avoided the hard cases proves little",
		},
	}
	stubVoice = map[string]string{
		SidePro: "From where I sit, shipping is what matters",
		SideOpp: "Looking at the long-term health of the system",
	}
)

// stubState is what the stub knows of the dialogue so far.
type stubState struct {
	moves     []stubMove
	byID      map[string]stubMove
	answered  map[string]bool            // why IDs answered by since or retract
	committed map[string]map[string]bool // speaker -> propositions
	used      map[string]bool            // every proposition and reason put forward
}

func newStubState(moves []stubMove) *stubState {
	s := &stubState{moves: moves, byID: map[string]stubMove{}, answered: map[string]bool{},
		committed: map[string]map[string]bool{}, used: map[string]bool{}}
	for _, m := range moves {
		s.byID[m.ID] = m
		if s.committed[m.Speaker] == nil {
			s.committed[m.Speaker] = map[string]bool{}
		}
		c := s.committed[m.Speaker]
		switch m.Act {
		case "claim":
			c[m.Proposition] = true
		case "concede": // the protocol's effect: conceding φ retracts ¬φ
			c[m.Proposition] = true
			delete(c, stubNegate(m.Proposition))
		case "since":
			c[m.Proposition] = true
			for _, r := range m.Reasons {
				c[r] = true
			}
		case "retract":
			delete(c, m.Proposition)
		}
		if (m.Act == "since" || m.Act == "retract") && m.Target != "" {
			s.answered[m.Target] = true
		}
		s.used[m.Proposition] = true
		for _, r := range m.Reasons {
			s.used[r] = true
		}
	}
	return s
}

// challenges returns the unanswered why moves aimed at side's moves.
func (s *stubState) challenges(side string) []stubMove {
	var out []stubMove
	for _, m := range s.moves {
		if m.Act == "why" && !s.answered[m.ID] && s.byID[m.Target].Speaker == side {
			out = append(out, m)
		}
	}
	return out
}

// asked reports whether a why of p at the move target was made already
// (by the other side, or by the protocol in its name).
func (s *stubState) asked(target, p string) bool {
	return slices.ContainsFunc(s.moves, func(m stubMove) bool {
		return m.Act == "why" && m.Target == target && m.Proposition == p
	})
}

// lastArgument returns the last claim or since of side.
func (s *stubState) lastArgument(side string) (stubMove, bool) {
	for i := len(s.moves) - 1; i >= 0; i-- {
		if m := s.moves[i]; m.Speaker == side && (m.Act == "claim" || m.Act == "since") {
			return m, true
		}
	}
	return stubMove{}, false
}

// fresh returns a proposition of pool not yet put forward (any of pool once
// all are), never one of avoid.
func (s *stubState) fresh(c *llm.StubCall, pool []string, avoid ...string) string {
	var free []string
	for _, p := range pool {
		if !s.used[p] && !slices.Contains(avoid, p) {
			free = append(free, p)
		}
	}
	if len(free) == 0 {
		for _, p := range pool {
			if !slices.Contains(avoid, p) {
				free = append(free, p)
			}
		}
	}
	p := c.Pick(free)
	s.used[p] = true
	return p
}

// stubThesis turns the debated proposition into a thesis statement.
func stubThesis(c *llm.StubCall) string {
	p, _ := c.Tag("proposition")
	p = strings.NewReplacer("\"", "", "“", "", "”", "").Replace(stubtext.Shorten(p, 120))
	p = strings.TrimRight(strings.TrimSpace(p), "?.!")
	if rest, ok := strings.CutPrefix(p, "Should we "); ok {
		p = "We should " + rest
	} else if rest, ok := strings.CutPrefix(p, "Should "); ok {
		if subj, verb, ok := strings.Cut(rest, " "); ok {
			p = stubtext.UpperFirst(subj) + " should " + verb
		}
	}
	if p == "" {
		p = "The proposal should be adopted"
	}
	return p
}

// stubSay turns proposition p into a clause that goes on inside a
// sentence: its first letter lower-cased unless its first word is one of
// names, and a negation said in words.
func stubSay(p string, names map[string]bool) string {
	lower := func(q string) string {
		first, _, _ := strings.Cut(q, " ")
		if names[strings.TrimRight(first, ",.;:!?")] {
			return q // a name keeps its capital: "Rover and Wag should merge"
		}
		return stubtext.LowerFirst(q)
	}
	if q, ok := strings.CutPrefix(p, "¬"); ok {
		return "it is not the case that " + lower(q)
	}
	return lower(p)
}

// stubNames are the capitalized words of the question but for a first
// word that any sentence may start with: names ("Rover", "Wag") and
// acronyms ("AI"), which keep their capitals inside a sentence.
func stubNames(question string) map[string]bool {
	names := map[string]bool{}
	for i, w := range strings.Fields(question) {
		w = strings.Trim(w, "\"'“”‘’()[],.;:!?")
		if r, _ := utf8.DecodeRuneInString(w); unicode.IsUpper(r) && (i > 0 || !stubStarters[strings.ToLower(w)]) {
			names[w] = true
		}
	}
	return names
}

// stubStarters are words a question or a claim often starts with, which are
// no names.
var stubStarters = map[string]bool{"should": true, "is": true, "are": true, "do": true, "does": true, "can": true,
	"will": true, "would": true, "we": true, "the": true, "a": true, "an": true, "it": true, "our": true, "this": true,
	"that": true, "what": true, "which": true, "how": true, "why": true, "when": true, "there": true, "all": true,
	"every": true, "most": true, "no": true, "they": true, "i": true, "you": true, "let": true, "must": true, "has": true}

func writeStubTurn(c *llm.StubCall) string {
	side := c.Field("Role")
	if side != SideOpp {
		side = SidePro
	}
	other := map[string]string{SidePro: SideOpp, SideOpp: SidePro}[side]
	phase := c.Field("Phase")
	dialogue, _ := c.Tag("dialogue")
	var prior []stubMove
	for _, line := range strings.Split(dialogue, "\n") {
		if mv, ok := stubParseLine(strings.TrimSpace(line)); ok {
			prior = append(prior, mv)
		}
	}
	st := newStubState(prior)
	pool, undercuts := stubReasons[side], stubUndercuts[side]

	thesis := stubThesis(c)
	question, _ := c.Tag("proposition")
	names := stubNames(question)
	say := func(p string) string { return stubSay(p, names) }
	for _, m := range prior {
		if m.Speaker == SidePro {
			thesis = m.Proposition
			break
		}
	}
	mine := thesis
	if side == SideOpp {
		mine = stubNegate(thesis)
	}

	var out []stubMove
	add := func(m stubMove) { out = append(out, m) }
	since := func(p, target string, n int) stubMove {
		var rs []string
		for range n {
			rs = append(rs, st.fresh(c, pool, append([]string{p}, rs...)...))
		}
		reasons := say(rs[0])
		if len(rs) > 1 {
			reasons += ", and " + say(rs[1])
		}
		return stubMove{Act: "since", Proposition: p, Reasons: rs, Target: target,
			Text: stubtext.UpperFirst(say(p)) + ", because " + reasons + "."}
	}
	switch {
	case phase == "opening" && side == SidePro:
		add(stubMove{Act: "claim", Proposition: thesis, Text: stubVoice[side] + ", and my position is simple: " + say(thesis) + "."})
	case phase == "opening":
		p1, ok := st.lastArgument(SidePro)
		if !ok {
			add(stubMove{Act: "claim", Proposition: mine, Text: "I hold that " + say(mine) + "."})
			break
		}
		if c.Roll("open-why") < 0.35 && !st.asked(p1.ID, p1.Proposition) {
			add(stubMove{Act: "why", Proposition: p1.Proposition, Target: p1.ID,
				Text: "Before we go further: what is the evidence that " + say(p1.Proposition) + "?"})
		} else {
			add(stubMove{Act: "claim", Proposition: stubNegate(p1.Proposition), Target: p1.ID, Attack: "rebut",
				Text: stubVoice[side] + ", I cannot agree: " + say(stubNegate(p1.Proposition)) + "."})
		}
	default:
		retract := 0.15
		if phase == "closing" {
			retract = 0.35
		}
		for i, w := range st.challenges(side) {
			if i == 2 {
				break
			}
			if st.committed[side][stubNegate(w.Proposition)] {
				continue // conceded the other way: nothing to defend
			}
			if w.Proposition != mine && st.committed[side][w.Proposition] && c.Roll("retract:"+w.ID) < retract {
				add(stubMove{Act: "retract", Proposition: w.Proposition, Target: w.ID,
					Text: "I withdraw the claim that " + say(w.Proposition) + "; I cannot defend it with what we know."})
				continue
			}
			add(since(w.Proposition, w.ID, 1))
		}
		if phase == "argumentation" && side == SidePro && st.committed[SidePro][thesis] && !stubArgued(append(prior, out...), SidePro, thesis) {
			add(since(thesis, "", 2))
		}
		if phase == "closing" {
			if x, ok := st.lastArgument(other); ok && x.Act == "since" && c.Roll("concede") < 0.5 {
				r := x.Reasons[c.Intn(len(x.Reasons))]
				add(stubMove{Act: "concede", Proposition: r, Target: x.ID, Text: "In fairness, I grant that " + say(r) + "."})
			}
			if st.committed[side][mine] {
				add(stubMove{Act: "claim", Proposition: mine, Text: "My final position stands: " + say(mine) + "."})
			}
			if len(out) == 0 {
				p := st.fresh(c, pool)
				add(stubMove{Act: "claim", Proposition: p, Text: "What remains clear is that " + say(p) + "."})
			}
			break
		}
		if x, ok := st.lastArgument(other); ok && len(out) < 3 {
			subject := x.Proposition
			if x.Act == "since" {
				subject = x.Reasons[c.Intn(len(x.Reasons))]
			}
			switch r := c.Roll("reply"); {
			case st.committed[side][subject] || !st.committed[other][subject]:
				// Granted already, or withdrawn: nothing to dispute here.
			case r < 0.3 && !st.asked(x.ID, subject):
				add(stubMove{Act: "why", Proposition: subject, Target: x.ID,
					Text: "What is the evidence that " + say(subject) + "? Until it is shown, it should carry no weight."})
			case r < 0.6:
				add(stubMove{Act: "claim", Proposition: stubNegate(subject), Target: x.ID, Attack: "rebut",
					Text: "That does not hold: " + say(stubNegate(subject)) + "."})
			case r < 0.85 && x.Act == "since":
				u := st.fresh(c, undercuts, x.Proposition)
				m := since(u, x.ID, 1)
				m.Attack = "undercut"
				m.Text = "Even granting the premises, the inference fails. " + m.Text
				add(m)
			case (subject == mine || stubNegate(subject) == mine) && !st.asked(x.ID, subject):
				add(stubMove{Act: "why", Proposition: subject, Target: x.ID,
					Text: "Why should we accept that " + say(subject) + "?"})
			default:
				add(stubMove{Act: "concede", Proposition: subject, Target: x.ID, Text: "I grant that " + say(subject) + "."})
			}
		}
		if len(out) == 0 || c.Roll("new-line") < 0.3 {
			add(since(st.fresh(c, pool), "", 1))
		}
	}

	reasked := strings.Contains(c.LastUser(), "cannot be used")
	if !reasked && c.Roll("illegal") < 0.15 {
		switch c.Intn(3) {
		case 0:
			if own, ok := st.lastArgument(side); ok {
				add(stubMove{Act: "why", Proposition: own.Proposition, Target: own.ID, Text: "Why indeed?"})
			} else {
				add(stubMove{Act: "claim", Proposition: stubNegate(thesis), Attack: "rebut", Text: "I rebut nothing in particular."})
			}
		case 1:
			p := st.fresh(c, pool)
			add(stubMove{Act: "since", Proposition: p, Reasons: []string{p}, Text: "This needs no reasons."})
		default:
			add(stubMove{Act: "retract", Proposition: "Nobody said this", Text: "As said before."})
		}
	}

	texts := []string{}
	for _, m := range out {
		texts = append(texts, m.Text)
	}
	return stubtext.JSON(map[string]any{"text": stubtext.Join(texts), "moves": out})
}

// stubArgued reports whether side has already argued for p with a since
// (a move of this turn has no speaker yet).
func stubArgued(moves []stubMove, side, p string) bool {
	for _, m := range moves {
		if (m.Speaker == side || m.Speaker == "") && m.Act == "since" && m.Proposition == p {
			return true
		}
	}
	return false
}

var stubArgLine = regexp.MustCompile(`^- (A\d+) `)

var stubConditions = []string{
	"Load tests show the chosen option failing at twice the current peak",
	"The team that would maintain it changes substantially",
	"A security review finds an issue in the new surface",
	"Delivery pressure eases enough to afford the slower path",
	"Incident rates rise in the first quarter after the change",
	"A comparable team publishes a post-mortem on the same choice",
}

func writeStubVerdict(c *llm.StubCall) string {
	winner := c.Field("Winner")
	scores := c.Field("Scores")
	judgment, _ := c.Tag("judgment")
	var surviving []string
	in := false
	for _, line := range strings.Split(judgment, "\n") {
		switch {
		case strings.HasPrefix(line, "Surviving arguments"):
			in = true
		case !strings.HasPrefix(line, "- "):
			in = false
		case in && len(surviving) < 2:
			if m := stubArgLine.FindStringSubmatch(line); m != nil {
				surviving = append(surviving, m[1])
			}
		}
	}
	var rationale string
	switch {
	case winner == "" || winner == "Draw":
		rationale = "Neither side's surviving arguments outweighed the other's (" + scores + "). " +
			"Both sides left premises standing that the other could not dislodge, so the decision turns on priorities rather than on evidence."
	default:
		ids := "its arguments"
		if len(surviving) > 0 {
			ids = strings.Join(surviving, " and ")
		}
		rationale = winner + " prevails (" + scores + "): " + ids + " survived every attack made on them, " +
			"while the other side's key premises were challenged and left weaker. " +
			"The stated biases were weighed: the verdict rests on what survived scrutiny, not on either side's preference."
	}
	consensus := c.Pick([]string{
		"Go ahead in a limited scope first, with the risks the opponent raised tracked as explicit exit criteria.",
		"Adopt the winning position, but budget time for the long-term concerns raised, and review after one quarter.",
		"Proceed incrementally: keep the simple path for now and schedule the architectural work the debate showed is needed.",
	})
	out := map[string]any{"rationale": rationale, "consensus": consensus, "conditions": c.PickN(stubConditions, 2)}
	if !strings.Contains(c.LastUser(), "cannot be used") && c.Roll("incomplete") < 0.15 {
		out["consensus"] = " " // in the schema's shape, and still unusable
	}
	return stubtext.JSON(out)
}

// MarshalJSON writes every property, as a strict-mode schema has it:
// reasons an array (empty but for a since), target null when the move
// replies to nothing.
func (m stubMove) MarshalJSON() ([]byte, error) {
	type plain stubMove
	var target any
	if m.Target != "" {
		target = m.Target
	}
	if m.Reasons == nil {
		m.Reasons = []string{}
	}
	return json.Marshal(struct {
		plain
		Target any `json:"target"`
	}{plain(m), target})
}
