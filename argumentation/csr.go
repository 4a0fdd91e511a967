package argumentation

import (
	"slices"
	"sync"
)

// csr is the compressed, read-only form of a graph's relations.
//
// The incoming relations of argument i are src[off[i]:off[i+1]], grouped as
// supports src[off[i]:supEnd[i]], rebuts src[supEnd[i]:rebEnd[i]] and
// undercuts src[rebEnd[i]:off[i+1]], each group sorted by source and without
// duplicates; a source that both rebuts and undercuts i is kept as an
// undercut only. So src[supEnd[i]:off[i+1]] are i's attackers, each once.
//
// attOff/attDst are the outgoing attacks (kind-blind) in the same CSR form.
type csr struct {
	n      int
	off    []int32
	supEnd []int32
	rebEnd []int32
	src    []uint32

	attOff []int32
	attDst []uint32

	// Topological orders, computed on first use: all relations (for the
	// bipolar semantics) and attacks only (for the h-categorizer). A nil
	// order after the once means the relation graph has a cycle.
	allOnce, attOnce   sync.Once
	allOrder, attOrder []uint32

	// The blocked layout for the synchronous step, built on first use by
	// blocking (blocked.go).
	blkOnce sync.Once
	blk     *blocked
}

// frozen returns the compressed form of g, building it if needed.
func (g *Graph) frozen() *csr {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.c == nil {
		g.c = buildCSR(len(g.ids), g.edges)
	}
	return g.c
}

func buildCSR(n int, edges []edge) *csr {
	c := &csr{n: n}
	// Counting sort of the relations by target.
	off := make([]int32, n+1)
	for _, e := range edges {
		off[e.to+1]++
	}
	for i := range n {
		off[i+1] += off[i]
	}
	src := make([]uint32, len(edges))
	cur := slices.Clone(off[:n])
	for _, e := range edges {
		src[cur[e.to]] = e.from // kind code in the top bits
		cur[e.to]++
	}
	cur = nil

	// Per target: sort by (kind, source), drop duplicates, drop rebuts that
	// are also undercuts, and compact in place.
	supEnd := make([]int32, n)
	rebEnd := make([]int32, n)
	w := int32(0)
	for i := range n {
		lo, hi := off[i], off[i+1]
		seg := src[lo:hi]
		sortSmall(seg)
		seg = dedupSorted(seg)
		// seg is ordered supports, rebuts, undercuts.
		s := 0
		for s < len(seg) && seg[s]>>kindShift == codeSupport {
			s++
		}
		r := s
		for r < len(seg) && seg[r]>>kindShift == codeRebut {
			r++
		}
		if r > s && r < len(seg) {
			seg = dropRebutsAlsoUndercut(seg, s, &r)
		}
		off[i] = w
		for k, v := range seg {
			src[w+int32(k)] = v & idxMask
		}
		supEnd[i] = w + int32(s)
		rebEnd[i] = w + int32(r)
		w += int32(len(seg))
	}
	off[n] = w
	c.off, c.supEnd, c.rebEnd = off, supEnd, rebEnd
	c.src = src[:w:w]

	// Outgoing attacks, kind-blind, by inverting the attack part.
	attOff := make([]int32, n+1)
	for i := range n {
		for _, j := range src[supEnd[i]:off[i+1]] {
			attOff[j+1]++
		}
	}
	for i := range n {
		attOff[i+1] += attOff[i]
	}
	attDst := make([]uint32, attOff[n])
	cur = slices.Clone(attOff[:n])
	for i := range n {
		for _, j := range src[supEnd[i]:off[i+1]] {
			attDst[cur[j]] = uint32(i)
			cur[j]++
		}
	}
	c.attOff, c.attDst = attOff, attDst
	return c
}

// sortSmall sorts s ascending: insertion sort for the short segments a
// sparse graph has, the library sort otherwise.
func sortSmall(s []uint32) {
	if len(s) > 24 {
		slices.Sort(s)
		return
	}
	for i := 1; i < len(s); i++ {
		v := s[i]
		j := i
		for j > 0 && s[j-1] > v {
			s[j] = s[j-1]
			j--
		}
		s[j] = v
	}
}

func dedupSorted(s []uint32) []uint32 {
	if len(s) < 2 {
		return s
	}
	w := 1
	for _, v := range s[1:] {
		if v != s[w-1] {
			s[w] = v
			w++
		}
	}
	return s[:w]
}

// dropRebutsAlsoUndercut removes from the rebut group s[sup:*reb] every
// source that is also in the undercut group s[*reb:], keeping order, and
// returns the shortened segment with *reb updated.
func dropRebutsAlsoUndercut(s []uint32, sup int, reb *int) []uint32 {
	und := s[*reb:]
	w := sup
	u := 0
	for _, v := range s[sup:*reb] {
		idx := v & idxMask
		for u < len(und) && und[u]&idxMask < idx {
			u++
		}
		if u < len(und) && und[u]&idxMask == idx {
			continue
		}
		s[w] = v
		w++
	}
	removed := *reb - w
	if removed == 0 {
		return s
	}
	copy(s[w:], s[*reb:])
	*reb = w
	return s[:len(s)-removed]
}

// attackers returns the (kind-blind, unique) attackers of i.
func (c *csr) attackers(i uint32) []uint32 { return c.src[c.supEnd[i]:c.off[i+1]] }

// attacked returns the arguments i attacks.
func (c *csr) attacked(i uint32) []uint32 { return c.attDst[c.attOff[i]:c.attOff[i+1]] }

// order returns a topological order of the graph (every argument after all
// its attackers and supporters), or nil if there is a cycle. With attacksOnly
// supports are ignored.
func (c *csr) order(attacksOnly bool) []uint32 {
	if attacksOnly {
		c.attOnce.Do(func() { c.attOrder = c.topo(true) })
		return c.attOrder
	}
	c.allOnce.Do(func() { c.allOrder = c.topo(false) })
	return c.allOrder
}

// topo is an iterative depth-first search over predecessors; a node is
// emitted after all its predecessors. It stops at the first cycle.
func (c *csr) topo(attacksOnly bool) []uint32 {
	const (
		white = iota
		grey
		black
	)
	state := make([]uint8, c.n)
	order := make([]uint32, 0, c.n)
	type frame struct {
		node uint32
		next int32
	}
	var stack []frame
	first := func(i uint32) int32 {
		if attacksOnly {
			return c.supEnd[i]
		}
		return c.off[i]
	}
	for root := range c.n {
		if state[root] != white {
			continue
		}
		state[root] = grey
		stack = append(stack, frame{uint32(root), first(uint32(root))})
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			end := c.off[f.node+1]
			pushed := false
			for f.next < end {
				p := c.src[f.next]
				f.next++
				switch state[p] {
				case grey:
					return nil
				case white:
					state[p] = grey
					stack = append(stack, frame{p, first(p)})
					pushed = true
				}
				if pushed {
					break
				}
			}
			if pushed {
				continue
			}
			state[f.node] = black
			order = append(order, f.node)
			stack = stack[:len(stack)-1]
		}
	}
	return order
}
