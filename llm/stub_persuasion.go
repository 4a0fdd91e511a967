package llm

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// The stub's persuasion debate (package persuasion). A turn's prompt names
// the speaker ("Role: PRO"), the phase ("Phase: opening", "argumentation"
// or "closing") and lists the moves so far in a <dialogue> block, one per
// line as argumentation.Move.String prints them:
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
// out the consensus, so that it is asked again.

func init() {
	registerStub("persuasion_turn", writePersuasionTurn)
	registerStub("persuasion_verdict", writePersuasionVerdict)
}

type persMove struct {
	ID          string   `json:"-"`
	Speaker     string   `json:"-"`
	Act         string   `json:"act"`
	Proposition string   `json:"proposition"`
	Reasons     []string `json:"reasons,omitempty"`
	Target      string   `json:"target,omitempty"`
	Attack      string   `json:"attack,omitempty"`
	Text        string   `json:"text,omitempty"`
}

var persLineHead = regexp.MustCompile(`^- (\S+) (\S+) (claim|why|concede|retract|since) `)

// persParseLine reads one listed move.
func persParseLine(line string) (persMove, bool) {
	m := persLineHead.FindStringSubmatch(line)
	if m == nil {
		return persMove{}, false
	}
	mv := persMove{ID: m[1], Speaker: m[2], Act: m[3]}
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
		return persMove{}, false
	}
	if strings.HasPrefix(rest, " {") {
		rest = rest[2:]
		for {
			r, ok := quoted()
			if !ok {
				return persMove{}, false
			}
			mv.Reasons = append(mv.Reasons, r)
			if strings.HasPrefix(rest, ", ") {
				rest = rest[2:]
				continue
			}
			if !strings.HasPrefix(rest, "}") {
				return persMove{}, false
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

// persNegate negates a proposition the way package argumentation does.
func persNegate(p string) string {
	if q, ok := strings.CutPrefix(p, "¬"); ok {
		return q
	}
	return "¬" + p
}

// Reasons and undercutting objections in each persona's voice.
var (
	persReasons = map[string][]string{
		"PRO": {
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
		"OPP": {
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
	persUndercuts = map[string][]string{
		"PRO": {
			"The risk cited applies equally to the alternative",
			"Past debt came from rushed design, not from this kind of choice",
			"A risk that can be rolled back cheaply is not a reason to wait",
		},
		"OPP": {
			"Speed of delivery says nothing about fitness for this workload",
			"Familiarity with a tool does not make it the right tool",
			"A pilot that avoided the hard cases proves little",
		},
	}
	persVoice = map[string]string{
		"PRO": "From where I sit, shipping is what matters",
		"OPP": "Looking at the long-term health of the system",
	}
)

// persState is what the stub knows of the dialogue so far.
type persState struct {
	moves     []persMove
	byID      map[string]persMove
	answered  map[string]bool            // why IDs answered by since or retract
	committed map[string]map[string]bool // speaker -> propositions
	used      map[string]bool            // every proposition and reason put forward
}

func newPersState(moves []persMove) *persState {
	s := &persState{moves: moves, byID: map[string]persMove{}, answered: map[string]bool{},
		committed: map[string]map[string]bool{}, used: map[string]bool{}}
	for _, m := range moves {
		s.byID[m.ID] = m
		if s.committed[m.Speaker] == nil {
			s.committed[m.Speaker] = map[string]bool{}
		}
		c := s.committed[m.Speaker]
		switch m.Act {
		case "claim", "concede":
			c[m.Proposition] = true
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
func (s *persState) challenges(side string) []persMove {
	var out []persMove
	for _, m := range s.moves {
		if m.Act == "why" && !s.answered[m.ID] && s.byID[m.Target].Speaker == side {
			out = append(out, m)
		}
	}
	return out
}

// lastArgument returns the last claim or since of side.
func (s *persState) lastArgument(side string) (persMove, bool) {
	for i := len(s.moves) - 1; i >= 0; i-- {
		if m := s.moves[i]; m.Speaker == side && (m.Act == "claim" || m.Act == "since") {
			return m, true
		}
	}
	return persMove{}, false
}

// fresh returns a proposition of pool not yet put forward (any of pool once
// all are), never one of avoid.
func (s *persState) fresh(c *stubCall, pool []string, avoid ...string) string {
	var free []string
	for _, p := range pool {
		if !s.used[p] && !stubContains(avoid, p) {
			free = append(free, p)
		}
	}
	if len(free) == 0 {
		for _, p := range pool {
			if !stubContains(avoid, p) {
				free = append(free, p)
			}
		}
	}
	p := c.pick(free)
	s.used[p] = true
	return p
}

func stubContains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// persThesis turns the debated proposition into a thesis statement.
func persThesis(c *stubCall) string {
	p, _ := c.tag("proposition")
	p = strings.NewReplacer("\"", "", "“", "", "”", "").Replace(stubShorten(p, 120))
	p = strings.TrimRight(strings.TrimSpace(p), "?.!")
	if rest, ok := strings.CutPrefix(p, "Should we "); ok {
		p = "We should " + rest
	} else if rest, ok := strings.CutPrefix(p, "Should "); ok {
		if subj, verb, ok := strings.Cut(rest, " "); ok {
			p = stubUpperFirst(subj) + " should " + verb
		}
	}
	if p == "" {
		p = "The proposal should be adopted"
	}
	return p
}

func persSay(p string) string {
	if q, ok := strings.CutPrefix(p, "¬"); ok {
		return "it is not the case that " + stubLowerFirst(q)
	}
	return stubLowerFirst(p)
}

func writePersuasionTurn(c *stubCall) string {
	side := c.field("Role")
	if side != "OPP" {
		side = "PRO"
	}
	other := map[string]string{"PRO": "OPP", "OPP": "PRO"}[side]
	phase := c.field("Phase")
	dialogue, _ := c.tag("dialogue")
	var prior []persMove
	for _, line := range strings.Split(dialogue, "\n") {
		if mv, ok := persParseLine(strings.TrimSpace(line)); ok {
			prior = append(prior, mv)
		}
	}
	st := newPersState(prior)
	pool, undercuts := persReasons[side], persUndercuts[side]

	thesis := persThesis(c)
	for _, m := range prior {
		if m.Speaker == "PRO" {
			thesis = m.Proposition
			break
		}
	}
	mine := thesis
	if side == "OPP" {
		mine = persNegate(thesis)
	}

	var out []persMove
	add := func(m persMove) { out = append(out, m) }
	since := func(p, target string, n int) persMove {
		var rs []string
		for range n {
			rs = append(rs, st.fresh(c, pool, append([]string{p}, rs...)...))
		}
		reasons := persSay(rs[0])
		if len(rs) > 1 {
			reasons += ", and " + persSay(rs[1])
		}
		return persMove{Act: "since", Proposition: p, Reasons: rs, Target: target,
			Text: stubUpperFirst(persSay(p)) + ", because " + reasons + "."}
	}
	switch {
	case phase == "opening" && side == "PRO":
		add(persMove{Act: "claim", Proposition: thesis, Text: persVoice[side] + ", and my position is simple: " + persSay(thesis) + "."})
	case phase == "opening":
		p1, ok := st.lastArgument("PRO")
		if !ok {
			add(persMove{Act: "claim", Proposition: mine, Text: "I hold that " + persSay(mine) + "."})
			break
		}
		if c.roll("open-why") < 0.35 {
			add(persMove{Act: "why", Proposition: p1.Proposition, Target: p1.ID,
				Text: "Before we go further: what is the evidence that " + persSay(p1.Proposition) + "?"})
		} else {
			add(persMove{Act: "claim", Proposition: persNegate(p1.Proposition), Target: p1.ID, Attack: "rebut",
				Text: persVoice[side] + ", I cannot agree: " + persSay(persNegate(p1.Proposition)) + "."})
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
			if st.committed[side][w.Proposition] && c.roll("retract:"+w.ID) < retract {
				add(persMove{Act: "retract", Proposition: w.Proposition, Target: w.ID,
					Text: "I withdraw the claim that " + persSay(w.Proposition) + "; I cannot defend it with what we know."})
				continue
			}
			add(since(w.Proposition, w.ID, 1))
		}
		if phase == "argumentation" && side == "PRO" && st.committed["PRO"][thesis] && !persArgued(append(prior, out...), "PRO", thesis) {
			add(since(thesis, "", 2))
		}
		if phase == "closing" {
			if x, ok := st.lastArgument(other); ok && x.Act == "since" && c.roll("concede") < 0.5 {
				r := x.Reasons[c.intn(len(x.Reasons))]
				add(persMove{Act: "concede", Proposition: r, Target: x.ID, Text: "In fairness, I grant that " + persSay(r) + "."})
			}
			if st.committed[side][mine] {
				add(persMove{Act: "claim", Proposition: mine, Text: "My final position stands: " + persSay(mine) + "."})
			}
			if len(out) == 0 {
				p := st.fresh(c, pool)
				add(persMove{Act: "claim", Proposition: p, Text: "What remains clear is that " + persSay(p) + "."})
			}
			break
		}
		if x, ok := st.lastArgument(other); ok && len(out) < 3 {
			subject := x.Proposition
			if x.Act == "since" {
				subject = x.Reasons[c.intn(len(x.Reasons))]
			}
			switch r := c.roll("reply"); {
			case st.committed[side][subject] || !st.committed[other][subject]:
				// Granted already, or withdrawn: nothing to dispute here.
			case r < 0.3:
				add(persMove{Act: "why", Proposition: subject, Target: x.ID,
					Text: "What is the evidence that " + persSay(subject) + "? Until it is shown, it should carry no weight."})
			case r < 0.6:
				add(persMove{Act: "claim", Proposition: persNegate(subject), Target: x.ID, Attack: "rebut",
					Text: "That does not hold: " + persSay(persNegate(subject)) + "."})
			case r < 0.85 && x.Act == "since":
				u := st.fresh(c, undercuts, x.Proposition)
				m := since(u, x.ID, 1)
				m.Attack = "undercut"
				m.Text = "Even granting the premises, the inference fails. " + m.Text
				add(m)
			case subject == mine || persNegate(subject) == mine:
				add(persMove{Act: "why", Proposition: subject, Target: x.ID,
					Text: "Why should we accept that " + persSay(subject) + "?"})
			default:
				add(persMove{Act: "concede", Proposition: subject, Target: x.ID, Text: "I grant that " + persSay(subject) + "."})
			}
		}
		if len(out) == 0 || c.roll("new-line") < 0.3 {
			add(since(st.fresh(c, pool), "", 1))
		}
	}

	reasked := strings.Contains(c.lastUser(), "cannot be used")
	if !reasked && c.roll("illegal") < 0.15 {
		switch c.intn(3) {
		case 0:
			if own, ok := st.lastArgument(side); ok {
				add(persMove{Act: "why", Proposition: own.Proposition, Target: own.ID, Text: "Why indeed?"})
			} else {
				add(persMove{Act: "concede", Proposition: thesis, Text: "I concede."})
			}
		case 1:
			add(persMove{Act: "since", Proposition: st.fresh(c, pool), Text: "This needs no reasons."})
		default:
			add(persMove{Act: "why", Proposition: thesis, Target: "Z9", Text: "As said before."})
		}
	}

	texts := []string{}
	for _, m := range out {
		texts = append(texts, m.Text)
	}
	b, _ := json.Marshal(map[string]any{"text": stubJoin(texts), "moves": out})
	return string(b)
}

// persArgued reports whether side has already argued for p with a since
// (a move of this turn has no speaker yet).
func persArgued(moves []persMove, side, p string) bool {
	for _, m := range moves {
		if (m.Speaker == side || m.Speaker == "") && m.Act == "since" && m.Proposition == p {
			return true
		}
	}
	return false
}

var persArgLine = regexp.MustCompile(`^- (A\d+) `)

var persConditions = []string{
	"Load tests show the chosen option failing at twice the current peak",
	"The team that would maintain it changes substantially",
	"A security review finds an issue in the new surface",
	"Delivery pressure eases enough to afford the slower path",
	"Incident rates rise in the first quarter after the change",
	"A comparable team publishes a post-mortem on the same choice",
}

func writePersuasionVerdict(c *stubCall) string {
	winner := c.field("Winner")
	scores := c.field("Scores")
	judgment, _ := c.tag("judgment")
	var surviving []string
	in := false
	for _, line := range strings.Split(judgment, "\n") {
		switch {
		case strings.HasPrefix(line, "Surviving arguments"):
			in = true
		case !strings.HasPrefix(line, "- "):
			in = false
		case in && len(surviving) < 2:
			if m := persArgLine.FindStringSubmatch(line); m != nil {
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
	consensus := c.pick([]string{
		"Go ahead in a limited scope first, with the risks the opponent raised tracked as explicit exit criteria.",
		"Adopt the winning position, but budget time for the long-term concerns raised, and review after one quarter.",
		"Proceed incrementally: keep the simple path for now and schedule the architectural work the debate showed is needed.",
	})
	out := map[string]any{"rationale": rationale, "consensus": consensus, "conditions": c.pickN(persConditions, 2)}
	if !strings.Contains(c.lastUser(), "cannot be used") && c.roll("incomplete") < 0.15 {
		delete(out, "consensus")
	}
	b, _ := json.Marshal(out)
	return string(b)
}
