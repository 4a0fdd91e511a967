package argumentation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// Act is a speech act of the persuasion dialogue.
type Act string

// The five speech acts (Prakken 2006, as in the seed).
const (
	// Claim asserts a proposition: claim φ.
	Claim Act = "claim"
	// Why challenges a proposition, asking for reasons: why φ.
	Why Act = "why"
	// Concede admits a proposition another participant put forward.
	Concede Act = "concede"
	// Retract withdraws the speaker's commitment to a proposition.
	Retract Act = "retract"
	// Since argues for a proposition from reasons: φ since S.
	Since Act = "since"
)

// Valid reports whether a is one of the five acts.
func (a Act) Valid() bool {
	switch a {
	case Claim, Why, Concede, Retract, Since:
		return true
	}
	return false
}

// UnmarshalText accepts the act names in any case and with surrounding
// spaces ("argue" is taken as since), and rejects anything else.
func (a *Act) UnmarshalText(b []byte) error {
	s := Act(strings.ToLower(strings.TrimSpace(string(b))))
	if s == "argue" {
		s = Since
	}
	if !s.Valid() {
		return fmt.Errorf("unknown act %q (want claim, why, concede, retract or since)", b)
	}
	*a = s
	return nil
}

// Move is one speech act of a dialogue. Its JSON form is
//
//	{"id": "P2", "speaker": "PRO", "act": "since", "proposition": "φ",
//	 "reasons": ["S1", "S2"], "target": "O1", "attack": "", "round": 1,
//	 "text": "the argument as said"}
//
// where only speaker, act and proposition are always needed:
//
//   - ID names the move; Dialogue.Apply assigns "M<n>" (n = 1, 2, … the
//     move's position) to a move without one. IDs are unique in a dialogue.
//   - Speaker is the participant (side) making the move: any non-empty
//     label, e.g. "PRO", "OPP" or a chair position.
//   - Proposition is φ, the statement the act is about (for since, the
//     conclusion). A leading "¬" negates it; see [Negate].
//   - Reasons are S, the premises of a since move (only since has them).
//   - Target is the move this one replies to, by ID or by its 1-based
//     position in the dialogue (a JSON number or a numeric string that is
//     not some move's ID); empty for a move that replies to nothing.
//   - Attack marks a claim or since that attacks its target: "rebut" (the
//     proposition contradicts the target's) or "undercut" (it breaks the
//     target's inference from reasons to conclusion); "" otherwise.
//   - Round groups moves in the transcript (0 is the opening).
//   - Text is the expanded argument as said, kept for the transcript.
type Move struct {
	ID          string   `json:"id,omitempty"`
	Speaker     string   `json:"speaker"`
	Act         Act      `json:"act"`
	Proposition string   `json:"proposition"`
	Reasons     []string `json:"reasons,omitempty"`
	Target      string   `json:"target,omitempty"`
	Attack      string   `json:"attack,omitempty"`
	Round       int      `json:"round,omitempty"`
	Text        string   `json:"text,omitempty"`
}

// String returns a one-line form of the move for logs and prompts, e.g.
// `M3 PRO since "φ" {"a", "b"} -> M2 (rebut)`.
func (m Move) String() string {
	var b strings.Builder
	if m.ID != "" {
		b.WriteString(m.ID + " ")
	}
	fmt.Fprintf(&b, "%s %s %q", m.Speaker, m.Act, m.Proposition)
	if len(m.Reasons) > 0 {
		b.WriteString(" {" + quoteList(m.Reasons) + "}")
	}
	if m.Target != "" {
		b.WriteString(" -> " + m.Target)
	}
	if m.Attack != "" {
		b.WriteString(" (" + m.Attack + ")")
	}
	return b.String()
}

// UnmarshalJSON decodes a move tolerantly: target may be a string or a
// number, reasons a list or a single string, round a number or a numeric
// string (integral); attack is normalised to "rebut", "undercut" or "".
func (m *Move) UnmarshalJSON(data []byte) error {
	var raw struct {
		ID          flexString      `json:"id"`
		Speaker     string          `json:"speaker"`
		Act         Act             `json:"act"`
		Proposition string          `json:"proposition"`
		Reasons     json.RawMessage `json:"reasons"`
		Target      flexString      `json:"target"`
		Attack      string          `json:"attack"`
		Round       flexString      `json:"round"`
		Text        string          `json:"text"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	if raw.Act == "" {
		return fmt.Errorf("missing act")
	}
	*m = Move{
		ID:          string(raw.ID),
		Speaker:     strings.TrimSpace(raw.Speaker),
		Act:         raw.Act,
		Proposition: raw.Proposition,
		Target:      strings.TrimSpace(string(raw.Target)),
		Text:        raw.Text,
	}
	if r := strings.TrimSpace(string(raw.Round)); r != "" {
		f, err := strconv.ParseFloat(r, 64)
		if err != nil || f < 0 || f > 1e6 || f != math.Trunc(f) {
			return fmt.Errorf("round %q is not a non-negative integer", r)
		}
		m.Round = int(f)
	}
	switch a := strings.ToLower(strings.TrimSpace(raw.Attack)); a {
	case "", "none":
	case "rebut", "rebutting", "rebuttal":
		m.Attack = "rebut"
	case "undercut", "undercutting":
		m.Attack = "undercut"
	default:
		return fmt.Errorf("unknown attack %q (want rebut, undercut or empty)", raw.Attack)
	}
	if r := bytes.TrimSpace(raw.Reasons); len(r) > 0 && !bytes.Equal(r, []byte("null")) {
		if r[0] == '"' {
			var one string
			if err := json.Unmarshal(r, &one); err != nil {
				return fmt.Errorf("reasons: %w", err)
			}
			m.Reasons = []string{one}
		} else if err := json.Unmarshal(r, &m.Reasons); err != nil {
			return fmt.Errorf("reasons: %w", err)
		}
		if len(m.Reasons) == 0 {
			m.Reasons = nil
		}
	}
	return nil
}

// flexString decodes a JSON string, number or null into a string.
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*f = ""
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexString(s)
	default:
		var n json.Number
		if err := json.Unmarshal(b, &n); err != nil {
			return fmt.Errorf("want a string or a number, got %s", b)
		}
		*f = flexString(n.String())
	}
	return nil
}

// ParseMoves decodes the moves in data: a JSON array of moves, an object
// {"moves": [...]}, or a single move object. It tolerates what language
// models wrap around JSON: a Markdown code fence (```json … ```), prose
// before the first '[' or '{' and anything after the JSON value. Each move
// is decoded as by Move.UnmarshalJSON; an unknown act or attack is an
// error naming the move's index. Errors wrap ErrParse. ParseMoves does not
// check the protocol: Dialogue.Apply does.
func ParseMoves(data []byte) ([]Move, error) {
	var firstErr error
	if bytes.Contains(data, []byte("```")) {
		ms, err := parseMoves(stripFence(data))
		if err == nil {
			return ms, nil
		}
		firstErr = err
	}
	ms, err := parseMoves(data)
	if err != nil {
		if firstErr != nil {
			return nil, firstErr
		}
		return nil, err
	}
	return ms, nil
}

func parseMoves(body []byte) ([]Move, error) {
	start := bytes.IndexAny(body, "[{")
	if start < 0 {
		return nil, fmt.Errorf("%w: no JSON array or object found", ErrParse)
	}
	dec := json.NewDecoder(bytes.NewReader(body[start:]))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrParse, err)
	}
	var items []json.RawMessage
	if raw[0] == '[' {
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrParse, err)
		}
	} else {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrParse, err)
		}
		ms, ok := obj["moves"]
		switch {
		case ok:
			if err := json.Unmarshal(ms, &items); err != nil {
				return nil, fmt.Errorf("%w: moves: %v", ErrParse, err)
			}
		case obj["act"] != nil:
			items = []json.RawMessage{raw}
		default:
			return nil, fmt.Errorf("%w: object has neither \"moves\" nor \"act\"", ErrParse)
		}
	}
	moves := make([]Move, 0, len(items))
	for i, it := range items {
		var m Move
		if err := json.Unmarshal(it, &m); err != nil {
			return nil, fmt.Errorf("%w: move %d: %v", ErrParse, i, err)
		}
		moves = append(moves, m)
	}
	return moves, nil
}

// stripFence returns the content of the first Markdown code fence in data,
// or data itself if there is none. An unclosed fence runs to the end.
func stripFence(data []byte) []byte {
	i := bytes.Index(data, []byte("```"))
	if i < 0 {
		return data
	}
	rest := data[i+3:]
	// Skip the info string ("json") up to the end of the fence line.
	if nl := bytes.IndexByte(rest, '\n'); nl >= 0 {
		if info := bytes.TrimSpace(rest[:nl]); !bytes.ContainsAny(info, "[{") {
			rest = rest[nl+1:]
		}
	}
	if j := bytes.Index(rest, []byte("```")); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// Negation convention: a proposition is negated by a leading "¬" (U+00AC).
// "~" is accepted as an ASCII alias on input. Words such as "not" are not
// treated as negation: an English sentence may start with "Not".
const negSign = "¬"

// Normalize returns the canonical form of a proposition: surrounding and
// repeated inner white space collapsed to single spaces, a leading "~" read
// as "¬", no space after "¬", and double negations removed ("¬¬φ" is φ).
// Propositions are compared in this form, case-sensitively.
func Normalize(p string) string {
	p = strings.Join(strings.FieldsFunc(p, unicode.IsSpace), " ")
	neg := false
	for {
		switch {
		case strings.HasPrefix(p, negSign):
			p = strings.TrimLeftFunc(p[len(negSign):], unicode.IsSpace)
		case strings.HasPrefix(p, "~"):
			p = strings.TrimLeftFunc(p[1:], unicode.IsSpace)
		default:
			if neg && p != "" {
				return negSign + p
			}
			return p
		}
		neg = !neg
	}
}

// Negate returns the negation of proposition p in canonical form: "¬φ" for
// φ, and φ for "¬φ".
func Negate(p string) string {
	p = Normalize(p)
	if strings.HasPrefix(p, negSign) {
		return p[len(negSign):]
	}
	if p == "" {
		return ""
	}
	return negSign + p
}
