package argumentation

import "slices"

// Flatten returns the attack graph that g's bipolar framework implies: the
// same arguments (base scores and metadata included), g's attacks, and the
// attacks derived from supports (Cayrol & Lagasquie-Schiex):
//
//   - supported attack: X supports Y (directly or along a chain of
//     supports) and Y attacks Z, so X attacks Z;
//   - secondary attack: X attacks Y and Y supports Z (directly or along a
//     chain of supports), so X attacks Z.
//
// With single supports these are exactly the seed's two rules. A derived
// attack has the kind of the attack it comes from and is marked with its
// Derivation in Relations; one that duplicates a direct attack is left out.
// Supports are not kept, so the result suits the Dung semantics (for example
// Preferred(g.Flatten())); the gradual semantics already account for
// supports on g itself.
//
// The number of derived attacks can grow with the product of attacks and
// support-chain lengths; Flatten is meant for debate-sized graphs.
func (g *Graph) Flatten() *Graph {
	f := NewGraph()
	f.Grow(len(g.ids), 0)
	for i := range g.ids {
		_ = f.AddArgumentInfo(g.arg(uint32(i))) // IDs and bases are valid in g
	}
	f.derived = []Derivation{}
	c := g.frozen()

	type pair struct{ from, to uint32 }
	type attack struct {
		pair
		code uint32
		der  Derivation
	}
	have := make(map[pair]bool)
	var direct []attack
	for k, e := range g.edges {
		code := e.from >> kindShift
		if code == codeSupport {
			continue
		}
		p := pair{e.from & idxMask, e.to}
		if have[p] {
			continue
		}
		have[p] = true
		der := Direct
		if g.derived != nil {
			der = g.derived[k]
		}
		direct = append(direct, attack{p, c.kindOf(p.from, p.to), der})
	}
	add := func(a attack) {
		f.edges = append(f.edges, edge{from: a.from | a.code<<kindShift, to: a.to})
		f.derived = append(f.derived, a.der)
	}
	for _, a := range direct {
		add(a)
	}

	// Support reachability, memoised: up[y] are the arguments with a
	// support chain to y, down[y] those y reaches by one.
	sOut := c.supportsOut()
	up := map[uint32][]uint32{}
	down := map[uint32][]uint32{}
	reach := func(memo map[uint32][]uint32, y uint32, next func(uint32) []uint32) []uint32 {
		if r, ok := memo[y]; ok {
			return r
		}
		seen := map[uint32]bool{}
		stack := []uint32{y}
		var r []uint32
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, z := range next(x) {
				if !seen[z] {
					seen[z] = true
					r = append(r, z)
					stack = append(stack, z)
				}
			}
		}
		slices.Sort(r)
		memo[y] = r
		return r
	}
	supporters := func(x uint32) []uint32 { return c.src[c.off[x]:c.supEnd[x]] }
	supported := func(x uint32) []uint32 { return sOut[x] }

	for _, a := range direct {
		for _, x := range reach(up, a.from, supporters) {
			p := pair{x, a.to}
			if !have[p] {
				have[p] = true
				add(attack{p, a.code, SupportedAttack})
			}
		}
	}
	for _, a := range direct {
		for _, z := range reach(down, a.to, supported) {
			p := pair{a.from, z}
			if !have[p] {
				have[p] = true
				add(attack{p, a.code, SecondaryAttack})
			}
		}
	}
	return f
}

// kindOf returns the kind code of the attack from → to (which must exist):
// undercut if it is among to's undercutters, rebut otherwise.
func (c *csr) kindOf(from, to uint32) uint32 {
	if _, ok := slices.BinarySearch(c.src[c.rebEnd[to]:c.off[to+1]], from); ok {
		return codeUndercut
	}
	return codeRebut
}

// supportsOut returns, for each argument with outgoing supports, the
// arguments it supports.
func (c *csr) supportsOut() map[uint32][]uint32 {
	out := map[uint32][]uint32{}
	for i := range c.n {
		for _, j := range c.src[c.off[i]:c.supEnd[i]] {
			out[j] = append(out[j], uint32(i))
		}
	}
	return out
}
