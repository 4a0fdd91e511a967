package argumentation

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Base scores Dialogue.Graph gives arguments.
const (
	// DefaultBase is every argument's base score (the seed's 0.5).
	DefaultBase = 0.5
	// ConcededBase is the base of a proposition conceded by a participant
	// other than the one who put it forward: it is common ground.
	ConcededBase = 1.0
	// ChallengedBase is the base of a proposition with a why-challenge that
	// was never answered (no since or retract replied to it): an unsupported
	// assertion should not survive on its own.
	ChallengedBase = 0.25
)

// Dialogue is a Prakken persuasion dialogue between any number of
// participants (sides), fed one move at a time. It enforces the protocol,
// keeps each participant's commitment store, and maps the dialogue to the
// bipolar argumentation graph it implies.
//
// # Legal replies
//
// A move replies to its Target, or to nothing. The seed's table, with the
// attacking replies its transcript uses (a rebutting claim, an undercut):
//
//	target        legal replies (by a participant other than the target's speaker)
//	claim φ       why φ · concede φ · claim ¬φ or ¬φ since S (rebut) ·
//	              claim ψ / ψ since S marked "rebut" (ψ contradicts φ)
//	φ since S     why ψ (ψ∈S) · concede ψ (ψ∈S∪{φ}) ·
//	              claim/since ¬φ, or ¬ψ with ψ∈S (rebut) ·
//	              claim/since χ marked "rebut" (rebuts φ) ·
//	              claim/since χ marked "undercut" (undercuts the inference S ⇒ φ)
//	why φ         φ since S · retract φ — only by the challenged participant
//	concede φ     none
//	retract φ     none
//
// An attacking reply may not use a proposition its target puts forward
// itself. A claim or since with no target opens a line of argument; a retract with
// no target withdraws a commitment of the speaker's (every retract needs the
// speaker to be committed to φ). Why and concede always need a target. Only
// since has reasons, at least one, none equal to its conclusion. An illegal
// move is rejected with an error wrapping ErrIllegalMove that says which
// rule it breaks, and changes nothing.
//
// # Commitments
//
// The seed's effect rules: claim φ and concede φ add φ to the speaker's
// store, φ since S adds φ and S, retract φ removes φ, why changes nothing.
// A store never holds both φ and ¬φ: conceding φ retracts the speaker's ¬φ
// (recorded as a retraction), and a claim or since that would commit its
// speaker to the negation of a commitment is illegal — the speaker
// retracts or concedes first.
//
// # The implied graph
//
// Graph returns the bipolar graph of the dialogue so far:
//
//   - One argument per proposition put forward (by claim, since or as a
//     reason), with ID "A<k>" in order of first appearance (IDs never
//     change as the dialogue grows), Text the proposition, Side the
//     participant who first put it forward, Move that move's ID.
//   - An argument nobody is committed to any more (every participant who
//     put it forward or conceded it retracted it) is removed, with its
//     relations.
//   - Base DefaultBase; ConcededBase if a participant other than its Side
//     conceded it and has not retracted it since; otherwise ChallengedBase if a why-challenge of it was
//     never answered: by a since or retract replying to it, or by a later
//     since of its proposition, or retract of it, by the one challenged.
//   - φ since S: each reason in S supports φ.
//   - A rebutting reply attacks (Rebut) the proposition it contradicts, an
//     undercutting reply attacks (Undercut) the conclusion of the since move
//     whose inference it breaks; and whenever both φ and ¬φ are arguments,
//     each rebuts the other.
//
// Dialogue is safe for concurrent use; moves are applied in the order Apply
// is called.
type Dialogue struct {
	mu           sync.Mutex
	fixed        bool
	lenient      bool // AllowInconsistent: the seed's table alone
	participants []string
	moves        []Move // as applied: ID set, propositions normalised, Target an ID
	byID         map[string]int
	replies      [][]int
	commit       map[string]*propSet
	retracted    map[string]*propSet
	props        []string // in order of first appearance
	propIdx      map[string]int
	owner        []string // per prop: the participant who first put it forward
	firstMove    []string // per prop: the ID of that move
}

// propSet is an insertion-ordered set of propositions.
type propSet struct {
	items []string
	has   map[string]bool
}

func (s *propSet) add(p string) {
	if s.has == nil {
		s.has = map[string]bool{}
	}
	if !s.has[p] {
		s.has[p] = true
		s.items = append(s.items, p)
	}
}

func (s *propSet) remove(p string) {
	if s.has[p] {
		delete(s.has, p)
		s.items = slices.DeleteFunc(s.items, func(q string) bool { return q == p })
	}
}

func (s *propSet) list() []string {
	if s == nil {
		return []string{}
	}
	return slices.Clone(s.items)
}

// NewDialogue returns an empty dialogue. With participants, only they may
// move, and they all appear in the verdict in this order; without, any
// non-empty speaker may move and participants are listed in order of first
// move. Labels are free strings ("PRO", "OPP", chair positions, …).
func NewDialogue(participants ...string) *Dialogue {
	d := &Dialogue{
		byID:      map[string]int{},
		commit:    map[string]*propSet{},
		retracted: map[string]*propSet{},
		propIdx:   map[string]int{},
	}
	for _, p := range participants {
		p = strings.TrimSpace(p)
		if p != "" && !slices.Contains(d.participants, p) {
			d.participants = append(d.participants, p)
		}
	}
	d.fixed = len(d.participants) > 0
	return d
}

// Apply checks m against the protocol and, if it is legal, records it and
// updates the commitment stores. An illegal move returns an error wrapping
// ErrIllegalMove and changes nothing.
func (d *Dialogue) Apply(m Move) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	mv, err := d.check(m)
	if err != nil {
		return err
	}
	d.apply(mv)
	return nil
}

// ApplyAll applies moves in order and stops at the first illegal one,
// returning its error with its index; the moves before it stay applied.
func (d *Dialogue) ApplyAll(moves []Move) error {
	for i, m := range moves {
		if err := d.Apply(m); err != nil {
			return fmt.Errorf("move %d: %w", i, err)
		}
	}
	return nil
}

// Check reports whether m would be legal now, without applying it.
func (d *Dialogue) Check(m Move) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, err := d.check(m)
	return err
}

func illegal(m Move, format string, args ...any) error {
	who := m.Speaker
	if who == "" {
		who = "?"
	}
	what := string(m.Act)
	if m.ID != "" {
		what = m.ID + " " + what
	}
	return fmt.Errorf("%w: %s (%s): %s", ErrIllegalMove, what, who, fmt.Sprintf(format, args...))
}

// check validates m and returns it normalised, ready for apply.
func (d *Dialogue) check(m Move) (Move, error) {
	m.ID = strings.TrimSpace(m.ID)
	m.Speaker = strings.TrimSpace(m.Speaker)
	m.Proposition = Normalize(m.Proposition)
	m.Target = strings.TrimSpace(m.Target)
	if m.Speaker == "" {
		return m, illegal(m, "no speaker")
	}
	if d.fixed && !slices.Contains(d.participants, m.Speaker) {
		return m, illegal(m, "speaker %q is not a participant (%s)", m.Speaker, strings.Join(d.participants, ", "))
	}
	if !m.Act.Valid() {
		return m, illegal(m, "unknown act %q", m.Act)
	}
	if m.Proposition == "" {
		return m, illegal(m, "empty proposition")
	}
	if m.Round < 0 {
		return m, illegal(m, "negative round %d", m.Round)
	}
	if m.ID != "" {
		if _, dup := d.byID[m.ID]; dup {
			return m, illegal(m, "move ID %q is already used", m.ID)
		}
	}
	switch m.Attack {
	case "", "rebut", "undercut":
	default:
		return m, illegal(m, "attack %q is not rebut, undercut or empty", m.Attack)
	}
	if m.Act == Since {
		var rs []string
		for _, r := range m.Reasons {
			r = Normalize(r)
			if r == "" {
				return m, illegal(m, "empty reason")
			}
			if r == m.Proposition {
				return m, illegal(m, "reason %q is the conclusion itself", r)
			}
			if !slices.Contains(rs, r) {
				rs = append(rs, r)
			}
		}
		if len(rs) == 0 {
			return m, illegal(m, "since needs at least one reason")
		}
		m.Reasons = rs
	} else if len(m.Reasons) > 0 {
		return m, illegal(m, "only since has reasons")
	}

	var t *Move
	if m.Target != "" {
		i, ok := d.resolve(m.Target)
		if !ok {
			return m, illegal(m, "unknown target %q", m.Target)
		}
		t = &d.moves[i]
		m.Target = t.ID
	}
	if err := d.checkReply(m, t); err != nil {
		return m, err
	}
	if err := d.checkConsistent(m); err != nil {
		return m, err
	}
	if t != nil && (m.Act == Claim || m.Act == Since) && (t.Act == Claim || t.Act == Since) {
		_, kind, _ := d.attackOf(m, t) // checked by checkReply
		m.Attack = kind.String()
	}
	if m.ID == "" {
		m.ID = d.freshID()
	}
	return m, nil
}

// resolve finds a move by ID, or by its 1-based position.
func (d *Dialogue) resolve(ref string) (int, bool) {
	if i, ok := d.byID[ref]; ok {
		return i, true
	}
	if n, err := strconv.Atoi(ref); err == nil && n >= 1 && n <= len(d.moves) {
		return n - 1, true
	}
	return 0, false
}

func (d *Dialogue) freshID() string {
	id := "M" + strconv.Itoa(len(d.moves)+1)
	for k := 2; ; k++ {
		if _, taken := d.byID[id]; !taken {
			return id
		}
		id = "M" + strconv.Itoa(len(d.moves)+1) + "-" + strconv.Itoa(k)
	}
}

// checkReply enforces the legal-reply table for m replying to t (nil: no
// target).
func (d *Dialogue) checkReply(m Move, t *Move) error {
	phi := m.Proposition
	if t == nil {
		switch m.Act {
		case Claim, Since:
			if m.Attack != "" {
				return illegal(m, "an attack (%s) needs a target", m.Attack)
			}
			return nil
		case Retract:
			if !d.committed(m.Speaker, phi) {
				return illegal(m, "%s is not committed to %q", m.Speaker, phi)
			}
			return nil
		}
		return illegal(m, "%s needs a target move", m.Act)
	}
	if m.Act == Since && t.Act == Why {
		if m.Attack != "" {
			return illegal(m, "an answer to why is not an attack")
		}
		if phi != t.Proposition {
			return illegal(m, "answers why %q with an argument for %q", t.Proposition, phi)
		}
		if who := d.challenged(t); m.Speaker != who {
			return illegal(m, "only %s, who was challenged, can answer why %q", who, phi)
		}
		return nil
	}
	if m.Act == Retract {
		if t.Act != Why {
			return illegal(m, "retract can only reply to why, not %s", t.Act)
		}
		if m.Attack != "" {
			return illegal(m, "retract is not an attack")
		}
		if phi != t.Proposition {
			return illegal(m, "retracts %q in reply to why %q", phi, t.Proposition)
		}
		if who := d.challenged(t); m.Speaker != who {
			return illegal(m, "only %s, who was challenged, can retract in reply to %s", who, t.ID)
		}
		if !d.committed(m.Speaker, phi) {
			return illegal(m, "%s is not committed to %q", m.Speaker, phi)
		}
		return nil
	}
	if m.Speaker == t.Speaker {
		return illegal(m, "replies to %s, a move of the same speaker", t.ID)
	}
	switch t.Act {
	case Why:
		return illegal(m, "the replies to why are since and retract, not %s", m.Act)
	case Concede, Retract:
		return illegal(m, "%s %s admits no reply", t.Act, t.ID)
	}
	// t is a claim or a since.
	inS := slices.Contains(t.Reasons, phi)
	switch m.Act {
	case Why:
		if m.Attack != "" {
			return illegal(m, "why is not an attack")
		}
		if t.Act == Claim && phi == t.Proposition || t.Act == Since && inS {
			return nil
		}
		if t.Act == Since {
			return illegal(m, "why must challenge a reason of %s (%s), not %q", t.ID, quoteList(t.Reasons), phi)
		}
		return illegal(m, "why must challenge %q, the claim of %s", t.Proposition, t.ID)
	case Concede:
		if m.Attack != "" {
			return illegal(m, "concede is not an attack")
		}
		if phi == t.Proposition || inS {
			return nil
		}
		return illegal(m, "concedes %q, which %s does not put forward", phi, t.ID)
	}
	// A claim or since replying to a claim or since: an attack.
	if _, _, err := d.attackOf(m, t); err != nil {
		return err
	}
	return nil
}

// checkConsistent refuses a claim or since that would commit its speaker to
// a proposition and its negation: one it holds already, or both within the
// move.
func (d *Dialogue) checkConsistent(m Move) error {
	if d.lenient || m.Act != Claim && m.Act != Since {
		return nil
	}
	adds := append([]string{m.Proposition}, m.Reasons...)
	for _, p := range adds {
		switch not := Negate(p); {
		case d.committed(m.Speaker, not):
			return illegal(m, "%s is committed to %q, the negation of %q: retract it or concede %q first", m.Speaker, not, p, p)
		case slices.Contains(adds, not):
			return illegal(m, "puts forward both %q and %q", p, not)
		}
	}
	return nil
}

// AllowInconsistent makes d play by the seed's legal-reply table and effect
// rules alone, as dialogues recorded before commitments were kept
// consistent were played: a concession of φ leaves ¬φ in its speaker's
// store, and a claim or since may contradict its speaker's commitments.
// Call it before the first move.
func (d *Dialogue) AllowInconsistent() {
	d.mu.Lock()
	d.lenient = true
	d.mu.Unlock()
}

func (d *Dialogue) committed(participant, p string) bool {
	s := d.commit[participant]
	return s != nil && s.has[p]
}

// challenged returns the participant a why move challenges: the speaker of
// the move it replies to.
func (d *Dialogue) challenged(why *Move) string {
	return d.moves[d.byID[why.Target]].Speaker
}

// attackOf returns the proposition m (a claim or since replying to the claim
// or since t) attacks and how.
func (d *Dialogue) attackOf(m Move, t *Move) (string, AttackKind, error) {
	phi := m.Proposition
	if phi == t.Proposition || slices.Contains(t.Reasons, phi) {
		return "", 0, illegal(m, "attacks %s with %q, which %s itself puts forward", t.ID, phi, t.ID)
	}
	if m.Attack == "undercut" {
		if t.Act != Since {
			return "", 0, illegal(m, "undercuts %s, a claim without an inference; undercut a since move", t.ID)
		}
		return t.Proposition, Undercut, nil
	}
	if phi == Negate(t.Proposition) {
		return t.Proposition, Rebut, nil
	}
	if t.Act == Since {
		for _, r := range t.Reasons {
			if phi == Negate(r) {
				return r, Rebut, nil
			}
		}
	}
	if m.Attack == "rebut" {
		return t.Proposition, Rebut, nil
	}
	if t.Act == Since {
		return "", 0, illegal(m, "a %s replying to %s must negate its conclusion or a reason, or be marked rebut or undercut", m.Act, t.ID)
	}
	return "", 0, illegal(m, "a %s replying to claim %q must be ¬%s or be marked rebut", m.Act, t.Proposition, t.Proposition)
}

func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

// apply records a checked move.
func (d *Dialogue) apply(m Move) {
	i := len(d.moves)
	d.moves = append(d.moves, m)
	d.byID[m.ID] = i
	d.replies = append(d.replies, nil)
	if m.Target != "" {
		t := d.byID[m.Target]
		d.replies[t] = append(d.replies[t], i)
	}
	if !slices.Contains(d.participants, m.Speaker) {
		d.participants = append(d.participants, m.Speaker)
	}
	store := d.commit[m.Speaker]
	if store == nil {
		store = &propSet{}
		d.commit[m.Speaker] = store
	}
	retract := func(p string) {
		store.remove(p)
		r := d.retracted[m.Speaker]
		if r == nil {
			r = &propSet{}
			d.retracted[m.Speaker] = r
		}
		r.add(p)
	}
	switch m.Act {
	case Claim:
		store.add(m.Proposition)
	case Concede:
		if not := Negate(m.Proposition); !d.lenient && store.has[not] {
			retract(not)
		}
		store.add(m.Proposition)
	case Since:
		store.add(m.Proposition)
		for _, r := range m.Reasons {
			store.add(r)
		}
	case Retract:
		retract(m.Proposition)
	}
	if m.Act == Claim || m.Act == Since {
		d.addProp(m.Proposition, m)
		for _, r := range m.Reasons {
			d.addProp(r, m)
		}
	}
}

func (d *Dialogue) addProp(p string, m Move) {
	if _, ok := d.propIdx[p]; ok {
		return
	}
	d.propIdx[p] = len(d.props)
	d.props = append(d.props, p)
	d.owner = append(d.owner, m.Speaker)
	d.firstMove = append(d.firstMove, m.ID)
}

// Moves returns the applied moves, normalised: IDs assigned, propositions in
// canonical form, Target the ID of the move replied to.
func (d *Dialogue) Moves() []Move {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]Move, len(d.moves))
	for i, m := range d.moves {
		m.Reasons = slices.Clone(m.Reasons)
		out[i] = m
	}
	return out
}

// Participants returns the participants: the ones given to NewDialogue, then
// any other speaker in order of first move.
func (d *Dialogue) Participants() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.participants)
}

// Commitments returns a participant's commitment store, in order of
// commitment.
func (d *Dialogue) Commitments(participant string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.commit[participant].list()
}

// Retracted returns the propositions a participant has retracted, in order.
func (d *Dialogue) Retracted(participant string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.retracted[participant].list()
}

// ArgumentID returns the ID of the argument for proposition p ("A<k>"),
// whether or not it is still in the graph; ok is false if p was never put
// forward.
func (d *Dialogue) ArgumentID(p string) (id string, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	k, ok := d.propIdx[Normalize(p)]
	if !ok {
		return "", false
	}
	return argID(k), true
}

func argID(k int) string { return "A" + strconv.Itoa(k+1) }

// Graph returns the bipolar graph the dialogue implies (see the type's
// documentation). Each call builds a new graph.
func (d *Dialogue) Graph() *Graph {
	d.mu.Lock()
	defer d.mu.Unlock()
	alive := make([]bool, len(d.props))
	for _, s := range d.commit {
		for _, p := range s.items {
			if k, ok := d.propIdx[p]; ok {
				alive[k] = true
			}
		}
	}
	conceded := make([]bool, len(d.props))
	unanswered := make([]bool, len(d.props))
	for i, m := range d.moves {
		k, ok := d.propIdx[m.Proposition]
		if !ok {
			continue
		}
		switch {
		case m.Act == Concede && m.Speaker != d.owner[k] && d.committed(m.Speaker, m.Proposition):
			conceded[k] = true
		case m.Act == Why && !d.answered(i):
			unanswered[k] = true
		}
	}
	g := NewGraph()
	for k, p := range d.props {
		if !alive[k] {
			continue
		}
		base := DefaultBase
		switch {
		case conceded[k]:
			base = ConcededBase
		case unanswered[k]:
			base = ChallengedBase
		}
		_ = g.AddArgumentInfo(Argument{ID: argID(k), Base: base, Text: p, Side: d.owner[k], Move: d.firstMove[k]})
	}
	id := func(p string) string { return argID(d.propIdx[p]) }
	for _, m := range d.moves {
		switch {
		case m.Act == Since && (m.Target == "" || d.moves[d.byID[m.Target]].Act == Why):
			for _, r := range m.Reasons {
				_ = g.AddSupport(id(r), id(m.Proposition)) // fails only for removed arguments
			}
		case m.Act == Claim || m.Act == Since:
			if m.Act == Since {
				for _, r := range m.Reasons {
					_ = g.AddSupport(id(r), id(m.Proposition))
				}
			}
			if m.Target != "" {
				to, kind, err := d.attackOf(m, &d.moves[d.byID[m.Target]])
				if err == nil {
					_ = g.AddAttack(id(m.Proposition), id(to), kind)
				}
			}
		}
	}
	for k, p := range d.props {
		if n, ok := d.propIdx[Negate(p)]; ok && alive[k] && alive[n] {
			_ = g.AddAttack(argID(k), argID(n), Rebut)
		}
	}
	return g
}

// OpenChallenges returns the why moves aimed at participant that are not
// answered yet (see the type's documentation), in order: what it is to
// answer with since or retract.
func (d *Dialogue) OpenChallenges(participant string) []Move {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []Move
	for i, m := range d.moves {
		if m.Act == Why && d.challenged(&d.moves[i]) == participant && !d.answered(i) {
			out = append(out, m)
		}
	}
	return out
}

// answered reports whether the why move i was answered: by a since or
// retract replying to it, or by a later since of its proposition, or
// retract of it, by the participant it challenged, replying to anything.
func (d *Dialogue) answered(i int) bool {
	for _, r := range d.replies[i] {
		if a := d.moves[r].Act; a == Since || a == Retract {
			return true
		}
	}
	why, who := d.moves[i], d.challenged(&d.moves[i])
	for _, m := range d.moves[i+1:] {
		if m.Speaker == who && (m.Act == Since || m.Act == Retract) && m.Proposition == why.Proposition {
			return true
		}
	}
	return false
}
