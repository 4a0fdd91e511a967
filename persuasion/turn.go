package persuasion

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
)

// ParseTurn reads a debater's reply: a JSON object
//
//	{"text": "the turn as said", "moves": [{"act": "since", "proposition": "φ",
//	  "reasons": ["ψ"], "target": "O1", "attack": "", "text": "…"}, …]}
//
// or, tolerated, a bare array of moves or a single move object, with code
// fences or prose around the JSON. Moves are read by
// [argumentation.ParseMoves] (an error wraps [argumentation.ErrParse]). The
// turn's Text is the object's "text" ("statement" and "argument" are
// accepted too); without one it is the moves' texts joined, and when no move
// has a text the first move gets the turn's. ParseTurn does not check the
// protocol, and it leaves the moves' IDs, speakers and rounds as the model
// gave them: the debate assigns its own.
func ParseTurn(reply string) (Turn, error) {
	moves, err := argumentation.ParseMoves([]byte(reply))
	if err != nil {
		return Turn{}, err
	}
	var text string
	if obj, err := jsonObject(reply); err == nil {
		if _, ok := lookup(obj, "moves"); ok {
			for _, k := range []string{"text", "statement", "argument"} {
				if v, ok := lookup(obj, k); ok {
					if text = textOf(v); text != "" {
						break
					}
				}
			}
		}
	}
	var parts []string
	for i := range moves {
		moves[i].Text = strings.TrimSpace(moves[i].Text)
		if moves[i].Text != "" {
			parts = append(parts, moves[i].Text)
		}
	}
	switch {
	case text == "":
		text = strings.Join(parts, "\n\n")
	case len(parts) == 0 && len(moves) > 0:
		moves[0].Text = text
	}
	return Turn{Moves: moves, Text: text}, nil
}

// textOf reads a text: a string, or a list of paragraphs.
func textOf(v any) string {
	if l, ok := v.([]any); ok {
		return strings.Join(stringsOf(l), "\n\n")
	}
	return stringOf(v)
}

// slot is one turn of the debate's schedule.
type slot struct {
	round   int // 0 opening, 1..MaxRounds argumentation, MaxRounds+1 closing
	k       int // the exchange in the round, from 1
	phase   Phase
	speaker string // SpeakerPro or SpeakerOpp
}

// side is the side label of sl's debater: the Speaker of its moves, its
// Turn's Side, and how its prompts name it.
func (sl slot) side() string { return SideOf(sl.speaker) }

// key names sl's turn in the keys of its records ("1:2:PRO"): by side
// label, as every version has named it, so that the records of debates
// stored before the speaker IDs were lowercase replay.
func (sl slot) key() string {
	return strconv.Itoa(sl.round) + ":" + strconv.Itoa(sl.k) + ":" + sl.side()
}

// segment returns the segment and utterance kind of sl's turn.
func (sl slot) segment() (engine.Segment, engine.UtteranceKind) {
	switch sl.phase {
	case PhaseOpening:
		return SegmentOpening, KindOpening
	case PhaseClosing:
		return SegmentClosing, KindClosing
	}
	return SegmentArgumentation, KindArgument
}

// schedule lists the turns of a debate: the opening (PRO, then OPP),
// Exchanges PRO-then-OPP pairs in each argumentation round, the closing.
func schedule(cfg Config) []slot {
	pair := func(round, k int, ph Phase) []slot {
		return []slot{{round, k, ph, SpeakerPro}, {round, k, ph, SpeakerOpp}}
	}
	out := pair(0, 1, PhaseOpening)
	for r := 1; r <= cfg.MaxRounds; r++ {
		for k := 1; k <= cfg.Exchanges; k++ {
			out = append(out, pair(r, k, PhaseArgumentation)...)
		}
	}
	return append(out, pair(cfg.MaxRounds+1, 1, PhaseClosing)...)
}

// idPrefix is the letter of a side's move IDs (side a side label): P1, P2,
// … and O1, O2, ….
func idPrefix(side string) string {
	if side == SidePro {
		return "P"
	}
	return "O"
}

// challengePrefix is the letter of the IDs of the protocol's challenges
// (see [challengesOf]): C1, C2, ….
const challengePrefix = "C"

// nextIDs returns the IDs the side's next n moves get after prior.
func nextIDs(prior []argumentation.Move, side string, n int) []string {
	return nextWithPrefix(prior, idPrefix(side), n)
}

// nextWithPrefix returns the next n IDs after prior of the moves whose IDs
// are prefix and a number.
func nextWithPrefix(prior []argumentation.Move, prefix string, n int) []string {
	made := 0
	for _, m := range prior {
		if num, ok := strings.CutPrefix(m.ID, prefix); ok {
			if _, err := strconv.Atoi(num); err == nil {
				made++
			}
		}
	}
	ids := make([]string, n)
	for i := range ids {
		ids[i] = prefix + strconv.Itoa(made+i+1)
	}
	return ids
}

// newDialogue returns an empty dialogue of PRO and OPP under the rules of
// protocol (see [Config].Protocol).
func newDialogue(protocol int) *argumentation.Dialogue {
	d := argumentation.NewDialogue(SidePro, SideOpp)
	if protocol < 2 {
		d.AllowInconsistent()
	}
	return d
}

// replay returns a dialogue of PRO and OPP under the rules of protocol with
// moves applied.
func replay(protocol int, moves []argumentation.Move) (*argumentation.Dialogue, error) {
	d := newDialogue(protocol)
	if err := d.ApplyAll(moves); err != nil {
		return nil, err
	}
	return d, nil
}

// checkTurn checks t as the turn of sl after the moves prior and returns its
// moves as applied: each gets the next ID of its side, the side label as
// speaker and the round; all must be legal replies, in order. The opening has two
// more rules: PRO's first move is its thesis, a claim replying to nothing;
// OPP answers it with a rebutting claim (¬φ) or a why.
func checkTurn(cfg Config, sl slot, prior []argumentation.Move, t Turn) ([]argumentation.Move, error) {
	switch {
	case len(t.Moves) == 0:
		return nil, fmt.Errorf("%w: the turn has no moves; make at least one", ErrInvalidTurn)
	case len(t.Moves) > cfg.MaxMoves:
		return nil, fmt.Errorf("%w: the turn has %d moves; at most %d are allowed", ErrInvalidTurn, len(t.Moves), cfg.MaxMoves)
	case strings.TrimSpace(t.Text) == "":
		return nil, fmt.Errorf("%w: the turn has no text; give it as said in \"text\"", ErrInvalidTurn)
	}
	trial, err := replay(cfg.Protocol, prior)
	if err != nil {
		return nil, fmt.Errorf("persuasion: the dialogue so far does not replay: %w", err)
	}
	ids := nextIDs(prior, sl.side(), len(t.Moves))
	moves := make([]argumentation.Move, len(t.Moves))
	for i, m := range t.Moves {
		m.ID, m.Speaker, m.Round = ids[i], sl.side(), sl.round
		moves[i] = m
	}
	if err := trial.ApplyAll(moves); err != nil {
		return nil, err
	}
	applied := trial.Moves()[len(prior):]
	if sl.phase != PhaseOpening {
		return applied, nil
	}
	if sl.speaker == SpeakerPro {
		if first := applied[0]; first.Act != argumentation.Claim || first.Target != "" {
			return nil, fmt.Errorf("%w: %s: the opening must begin with claim φ, your thesis, replying to nothing",
				argumentation.ErrIllegalMove, first.ID)
		}
		return applied, nil
	}
	i := slices.IndexFunc(prior, func(m argumentation.Move) bool { return m.Speaker == SidePro })
	if i < 0 {
		return applied, nil
	}
	thesis := prior[i]
	if !slices.ContainsFunc(applied, func(m argumentation.Move) bool {
		return m.Target == thesis.ID && (m.Act == argumentation.Why || m.Attack == "rebut")
	}) {
		return nil, fmt.Errorf("%w: the opening must answer PRO's thesis %s with claim %q (target %s) or why %q (target %s)",
			argumentation.ErrIllegalMove, thesis.ID, argumentation.Negate(thesis.Proposition), thesis.ID, thesis.Proposition, thesis.ID)
	}
	return applied, nil
}

// challengesOf returns the why moves the protocol makes, in the other
// side's name, at the claims of t without grounds (the seed's rule 2: "claim
// without evidence gets immediately challenged with why"): each claim of t
// whose proposition its side has given no reasons for (by a since) in moves,
// the dialogue with t applied. Protocols before 2 make none.
func challengesOf(protocol int, moves []argumentation.Move, t Turn) []argumentation.Move {
	if protocol < 2 {
		return nil
	}
	argued := map[string]bool{}
	for _, m := range moves {
		if m.Speaker == t.Side && m.Act == argumentation.Since {
			argued[m.Proposition] = true
		}
	}
	other := SideOpp
	if t.Side == SideOpp {
		other = SidePro
	}
	var out []argumentation.Move
	for _, m := range t.Moves {
		if m.Act == argumentation.Claim && !argued[m.Proposition] {
			out = append(out, argumentation.Move{Speaker: other, Act: argumentation.Why, Proposition: m.Proposition,
				Target: m.ID, Round: t.Round, Text: "(Rule 2: a claim without grounds is challenged.) What are the grounds for \"" + m.Proposition + "\"?"})
		}
	}
	for i, id := range nextWithPrefix(moves, challengePrefix, len(out)) {
		out[i].ID = id
	}
	return out
}
