package engine

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/duelogic/duelogic/internal/stubtext"
	"github.com/duelogic/duelogic/llm"
)

// The stub's argument extraction: it reads the turn to map (fenced as
// <response>), the speaker ("Speaker: <position>") and the moves so far
// (lines "- M3 [chair_2] claim: φ", a since as "- M4 [chair_1] since: φ |
// reasons: a; b"), and answers {"moves": [...]} with speech acts that are,
// most of the time, legal replies under the persuasion protocol: a first turn
// claims a position and argues for it; later turns answer a challenge to the
// speaker with reasons (or now and then retract), and otherwise challenge,
// rebut, undercut or concede an opponent's move, sometimes opening a new line.

func init() { llm.RegisterStub(PurposeArgumentExtraction, writeStubMoves) }

var stubSentenceEnd = regexp.MustCompile(`[.!?]+(\s+|$)`)

var stubMoveLine = regexp.MustCompile(`^- (M\d+) \[([^\]]+)\] (claim|why|concede|retract|since): (.*)$`)

type stubMove struct {
	ID          string   `json:"-"`
	Speaker     string   `json:"-"`
	Act         string   `json:"act"`
	Proposition string   `json:"proposition"`
	Reasons     []string `json:"reasons"`
	Target      string   `json:"target"`
	Attack      string   `json:"attack"`
}

func writeStubMoves(c *llm.StubCall) string {
	speaker := c.Field("Speaker")
	var prior []stubMove
	for _, line := range strings.Split(c.LastUser(), "\n") {
		m := stubMoveLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		mv := stubMove{ID: m[1], Speaker: m[2], Act: m[3], Proposition: m[4]}
		if p, r, ok := strings.Cut(m[4], " | reasons: "); ok {
			mv.Proposition, mv.Reasons = p, strings.Split(r, "; ")
		}
		prior = append(prior, mv)
	}
	text, _ := c.Tag("response")
	sentences := moveSentences(text)
	next := 0
	take := func() string {
		if len(sentences) == 0 {
			return "this consideration matters here"
		}
		s := sentences[next%len(sentences)]
		next++
		return s
	}
	var out []stubMove
	mine := false
	for _, p := range prior {
		mine = mine || p.Speaker == speaker
	}
	switch {
	case !mine:
		claim := take()
		out = append(out, stubMove{Act: "claim", Proposition: claim},
			stubMove{Act: "since", Proposition: claim, Reasons: []string{take(), take()}})
	default:
		if w, ok := challengeTo(prior, speaker); ok {
			if c.Roll("retract") < 0.2 {
				out = append(out, stubMove{Act: "retract", Proposition: w.Proposition, Target: w.ID})
			} else {
				out = append(out, stubMove{Act: "since", Proposition: w.Proposition, Reasons: []string{take()}, Target: w.ID})
			}
			break
		}
		x, ok := lastOpponentArgument(prior, speaker)
		if !ok {
			break
		}
		subject := x.Proposition
		if x.Act == "since" && len(x.Reasons) > 0 && c.Roll("on-reason") < 0.5 {
			subject = x.Reasons[c.Intn(len(x.Reasons))]
		}
		switch r := c.Roll("reply"); {
		case r < 0.35:
			// A why challenges a claim, or a reason of a since.
			why := x.Proposition
			if x.Act == "since" && len(x.Reasons) > 0 {
				why = x.Reasons[c.Intn(len(x.Reasons))]
			}
			out = append(out, stubMove{Act: "why", Proposition: why, Target: x.ID})
		case r < 0.65:
			out = append(out, stubMove{Act: "claim", Proposition: "¬" + strings.TrimPrefix(subject, "¬"), Target: x.ID, Attack: "rebut"})
		case r < 0.85 && x.Act == "since":
			out = append(out, stubMove{Act: "since", Proposition: take(), Reasons: []string{take()}, Target: x.ID, Attack: "undercut"})
		default:
			out = append(out, stubMove{Act: "concede", Proposition: subject, Target: x.ID})
		}
	}
	if c.Roll("new-line") < 0.5 {
		out = append(out, stubMove{Act: "since", Proposition: take(), Reasons: []string{take()}})
	}
	return stubtext.JSON(map[string]any{"moves": out})
}

// challengeTo finds the last why-move of an opponent aimed at a proposition
// the speaker put forward.
func challengeTo(prior []stubMove, speaker string) (stubMove, bool) {
	held := map[string]bool{}
	for _, p := range prior {
		if p.Speaker == speaker && (p.Act == "claim" || p.Act == "since") {
			held[p.Proposition] = true
			for _, r := range p.Reasons {
				held[r] = true
			}
		}
	}
	for i := len(prior) - 1; i >= 0; i-- {
		p := prior[i]
		if p.Speaker != speaker && p.Act == "why" && held[p.Proposition] {
			answered := false
			for _, q := range prior[i+1:] {
				answered = answered || q.Speaker == speaker && q.Proposition == p.Proposition
			}
			if !answered {
				return p, true
			}
		}
	}
	return stubMove{}, false
}

// lastOpponentArgument finds the last claim or since of another speaker.
func lastOpponentArgument(prior []stubMove, speaker string) (stubMove, bool) {
	for i := len(prior) - 1; i >= 0; i-- {
		if p := prior[i]; p.Speaker != speaker && (p.Act == "claim" || p.Act == "since") {
			return p, true
		}
	}
	return stubMove{}, false
}

// moveSentences splits text into short propositions: sentences without their
// final stop, cut to about twelve words, distinct.
func moveSentences(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range stubSentenceEnd.Split(strings.Join(strings.Fields(text), " "), -1) {
		words := strings.Fields(s)
		if len(words) < 4 {
			continue
		}
		if len(words) > 12 {
			words = words[:12]
		}
		p := strings.Trim(strings.Join(words, " "), ",;:—- \"")
		if p != "" && !seen[p] && !strings.HasPrefix(p, "¬") {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
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
