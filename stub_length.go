package duelogic

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/duelogic/duelogic/internal/stubtext"
	"github.com/duelogic/duelogic/llm"
)

// The stub's texts keep to the length their prompt asks for: the last "N-M
// words" of the request's last user message (a chair's turn: "Aim for
// 150-300 words.", "make your point in 40-100 words"), else of its system
// prompt (the arbiter's "**LENGTH:** 200-350 words"). A text is built of
// pieces, some of which may be dropped and some added, and fitted to a
// length drawn in the middle of the range asked.

// stubRangeRE finds a length asked for in words.
var stubRangeRE = regexp.MustCompile(`\b(\d{1,4}) ?[-–] ?(\d{1,4}) words\b`)

// stubWordRange returns the range of words the request asks for, or defLo
// and defHi when it asks for none.
func stubWordRange(c *llm.StubCall, defLo, defHi int) (lo, hi int) {
	for _, text := range []string{c.LastUser(), c.System()} {
		m := stubRangeRE.FindAllStringSubmatch(text, -1)
		if len(m) == 0 {
			continue
		}
		last := m[len(m)-1]
		lo, _ = strconv.Atoi(last[1])
		hi, _ = strconv.Atoi(last[2])
		if lo > 0 && hi >= lo {
			return lo, hi
		}
	}
	return defLo, defHi
}

// stubTarget draws the length a text aims at: in the middle of lo-hi,
// between 30% and 70% of the way, as a speaker who was given a range does.
func stubTarget(c *llm.StubCall, lo, hi int) int {
	return lo + int(float64(hi-lo)*(0.3+0.4*c.Roll("length")))
}

// stubPiece is a sentence of a text being fitted to its length.
type stubPiece struct {
	text string
	para int
	// drop orders the pieces that may go when the text is too long: the
	// highest goes first (the latest of equals); 0 stays.
	drop int
	// add orders the pieces that are left out unless the text is too
	// short: the lowest comes in first; 0 is in from the start.
	add int
}

// stubFit fits pieces to about target words, lo to hi: it drops pieces,
// highest drop first, while the text is longer than hi; brings in the
// pieces to add, in their order, while it is shorter than target, each
// that keeps it within hi and brings it nearer target; then, while it is
// shorter than lo, any piece left out that keeps it within hi, and last
// swaps one piece in for one out when that brings it within lo-hi. It
// returns the paragraphs, each piece in its place in pieces.
func stubFit(pieces []stubPiece, lo, target, hi int) [][]string {
	in := make([]bool, len(pieces))
	size := make([]int, len(pieces))
	words := 0
	for i, p := range pieces {
		size[i] = stubtext.Words(p.text)
		if p.add == 0 {
			in[i] = true
			words += size[i]
		}
	}
	for words > hi {
		worst := -1
		for i, p := range pieces {
			if in[i] && p.drop > 0 && (worst < 0 || p.drop >= pieces[worst].drop) {
				worst = i
			}
		}
		if worst < 0 {
			break
		}
		in[worst] = false
		words -= size[worst]
	}
	order := make([]int, 0, len(pieces))
	for i, p := range pieces {
		if p.add > 0 {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return pieces[a].add - pieces[b].add })
	for _, i := range order {
		if words >= target {
			break
		}
		if n := size[i]; words+n <= hi && words+n-target < target-words {
			in[i] = true
			words += n
		}
	}
	// Still short of the range: whatever was left out may come in.
	out := func(i int) bool { return !in[i] && (pieces[i].add > 0 || pieces[i].drop > 0) }
	for i := range pieces {
		if words >= lo {
			break
		}
		if out(i) && words+size[i] <= hi {
			in[i] = true
			words += size[i]
		}
	}
	if words < lo || words > hi {
	swap:
		for i := range pieces {
			if !in[i] || pieces[i].add == 0 && pieces[i].drop == 0 {
				continue
			}
			for j := range pieces {
				if w := words - size[i] + size[j]; out(j) && w >= lo && w <= hi {
					in[i], in[j], words = false, true, w
					break swap
				}
			}
		}
	}
	var paras [][]string
	for i, p := range pieces {
		if !in[i] || strings.TrimSpace(p.text) == "" {
			continue
		}
		for len(paras) <= p.para {
			paras = append(paras, nil)
		}
		paras[p.para] = append(paras[p.para], p.text)
	}
	return paras
}
