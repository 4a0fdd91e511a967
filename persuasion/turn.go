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

// nextIDs returns the IDs the side's next n moves get after prior.
func nextIDs(prior []argumentation.Move, side string, n int) []string {
	made := 0
	for _, m := range prior {
		if m.Speaker == side {
			made++
		}
	}
	ids := make([]string, n)
	for i := range ids {
		ids[i] = idPrefix(side) + strconv.Itoa(made+i+1)
	}
	return ids
}

// replay returns a dialogue of PRO and OPP with moves applied.
func replay(moves []argumentation.Move) (*argumentation.Dialogue, error) {
	d := argumentation.NewDialogue(SidePro, SideOpp)
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
	trial, err := replay(prior)
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

// openChallenges returns the why moves aimed at the moves of side (a side
// label) that no since or retract has answered.
func openChallenges(moves []argumentation.Move, side string) []argumentation.Move {
	speaker := map[string]string{}
	answered := map[string]bool{}
	for _, m := range moves {
		speaker[m.ID] = m.Speaker
		if m.Target != "" && (m.Act == argumentation.Since || m.Act == argumentation.Retract) {
			answered[m.Target] = true
		}
	}
	var out []argumentation.Move
	for _, m := range moves {
		if m.Act == argumentation.Why && !answered[m.ID] && speaker[m.Target] == side {
			out = append(out, m)
		}
	}
	return out
}
