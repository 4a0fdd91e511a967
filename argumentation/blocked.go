package argumentation

import (
	"math"
	"slices"
)

// Propagation blocking of the synchronous step on large graphs.
//
// The plain step (evaluator.gatherStep) walks the arguments in order and,
// for each, reads the current strengths of its sources: one random read of
// the n-element strength array per relation. Once that array no longer fits
// in the core's L2 cache (8 MB for 1M arguments) nearly every such read
// misses, and the step runs at the speed of memory latency.
//
// The blocked step turns those random reads into sequential ones. The
// arguments are cut into blocks of blockTargets consecutive targets, few
// enough that the block's per-target accumulators (8 bytes each) stay in
// L2. For each block the relations into it are kept in three lists —
// supports, rebuts, undercuts — each sorted by source. Streaming a list
// reads the strength array in increasing address order (the hardware
// prefetcher keeps up) and adds each strength into its target's
// accumulator: a random access, but into the small, cache-resident block.
// After the block's lists, a sequential pass turns the accumulators into the
// block's new strengths. The strength array is streamed once per list
// (blocks × 3 times per step) instead of being read at random once per
// relation; on 1M arguments and 5M relations that makes a step about 2.5
// times faster. What is left is mostly that streaming, which runs at the
// memory bandwidth, and, for the Euler-based semantics, exp.
//
// The layout costs 6 bytes per relation (30 MB for 5M) and is built once
// per compressed graph, on the first step (csr.blocking). Graphs with fewer
// than blockedMinRelations relations keep the plain step.
//
// The results are the same bits as the plain step's: every aggregate is
// folded in the same order. The plain step folds an argument's supporters
// by increasing source, and its attackers as the rebutters by increasing
// source then the undercutters by increasing source (see csr). Here each
// list is sorted by source, and the rebut list is streamed before the
// undercut list, so every target's accumulator sees exactly that sequence;
// supports always go to an accumulator of their own. The final formula
// (additive, dfquad, …) is shared with the plain step.

const (
	// maxBlock is the largest block: a target's index within its block is
	// a uint16.
	maxBlock = 1 << 16
	// blockTargets is how many consecutive targets one block covers. The
	// accumulator written while a list streams is 8·blockTargets bytes
	// (512 KB) and must stay in L2 (2 MB per core on the reference machine)
	// next to the streamed data. Fewer targets per block mean more blocks,
	// so more passes over the strength array: 1<<17 (1 MB) was slower,
	// 1<<15 too.
	blockTargets = maxBlock
	// blockedMinRelations is the size from which Graph evaluations use the
	// blocked step (it is faster from there on, even when all strengths fit
	// in cache). Smaller graphs are evaluated in microseconds either way and
	// need not pay for the layout.
	blockedMinRelations = 1 << 16
)

// Relation groups of the blocked layout, in the order they are streamed.
const (
	groupSupport = iota
	groupRebut
	groupUndercut
	numGroups
)

// blocked is the propagation-blocked layout of a csr's relations.
//
// The relations of group g into block b (targets b·size to (b+1)·size−1)
// are entries off[numGroups·b+g] to off[numGroups·b+g+1]−1 of src and dst:
// src is the source argument, dst the target's index within its block.
// Each such list is sorted by source.
type blocked struct {
	size int
	off  []int32
	src  []uint32
	dst  []uint16
}

// blocking returns the blocked layout of c, built on first use, or nil if c
// is too small to gain from it.
func (c *csr) blocking() *blocked {
	if len(c.src) < blockedMinRelations {
		return nil
	}
	c.blkOnce.Do(func() { c.blk = buildBlocked(c, blockTargets) })
	return c.blk
}

// buildBlocked builds the blocked layout of c with blocks of size targets.
// It counting-sorts the relations by source (into a temporary
// source-ordered list of target and group), then deals them out to their
// (block, group) lists in source order, which leaves every list sorted by
// source.
func buildBlocked(c *csr, size int) *blocked {
	if size < 1 || size > maxBlock {
		panic("argumentation: block size out of range")
	}
	n, m := c.n, len(c.src)
	nb := (n + size - 1) / size

	// Relations by source, each as target<<2 | group; targets are below
	// 2^30, so this fits a uint32.
	bySrc := make([]int32, n+1)
	for _, s := range c.src {
		bySrc[s+1]++
	}
	for i := range n {
		bySrc[i+1] += bySrc[i]
	}
	out := make([]uint32, m)
	pos := slices.Clone(bySrc[:n])
	off := make([]int32, numGroups*nb+1)
	for t := range n {
		bounds := [numGroups + 1]int32{c.off[t], c.supEnd[t], c.rebEnd[t], c.off[t+1]}
		for g := range numGroups {
			k := numGroups*(t/size) + g
			off[k+1] += bounds[g+1] - bounds[g]
			for _, s := range c.src[bounds[g]:bounds[g+1]] {
				out[pos[s]] = uint32(t)<<2 | uint32(g)
				pos[s]++
			}
		}
	}
	pos = nil
	for k := range numGroups * nb {
		off[k+1] += off[k]
	}

	b := &blocked{size: size, off: off, src: make([]uint32, m), dst: make([]uint16, m)}
	end := slices.Clone(off[:numGroups*nb]) // where each list's next entry goes
	for s := range n {
		for _, e := range out[bySrc[s]:bySrc[s+1]] {
			t, g := int(e>>2), int(e&3)
			k := numGroups*(t/size) + g
			p := end[k]
			end[k]++
			b.src[p] = uint32(s)
			b.dst[p] = uint16(t % size)
		}
	}
	return b
}

// list returns the relations of group g into block k.
func (b *blocked) list(k, g int) (src []uint32, dst []uint16) {
	lo, hi := b.off[numGroups*k+g], b.off[numGroups*k+g+1]
	return b.src[lo:hi], b.dst[lo:hi]
}

// accumulators are the blocked step's per-target aggregates of one block,
// indexed by the target's index within the block. Fixed-size arrays indexed
// by a uint16 need no bounds checks in the accumulating loops.
type accumulators [3][maxBlock]float64

// blockedStep is step with the blocked layout b; see the top of this file.
func (ev *evaluator) blockedStep(b *blocked, cur, next []float64) float64 {
	if ev.acc == nil {
		ev.acc = new(accumulators)
	}
	d := 0.0
	for k, lo := 0, 0; lo < ev.c.n; k, lo = k+1, lo+b.size {
		hi := min(lo+b.size, ev.c.n)
		d = max(d, ev.block(b, k, cur, ev.base[lo:hi], cur[lo:hi], next[lo:hi]))
	}
	return d
}

// block computes the new strengths of block k, whose arguments have the
// bases base, the strengths old and the new strengths next, from cur, the
// strengths of all arguments. It returns max |next − old|.
func (ev *evaluator) block(b *blocked, k int, cur, base, old, next []float64) float64 {
	m := len(base)
	old, next = old[:m], next[:m]
	// The block's accumulators: x for supports, y for attacks (rebuts only
	// for the additive semantics), z for undercuts (additive).
	xa, ya, za := &ev.acc[0], &ev.acc[1], &ev.acc[2]
	x, y, z := xa[:m], ya[:m], za[:m]
	supS, supD := b.list(k, groupSupport)
	rebS, rebD := b.list(k, groupRebut)
	undS, undD := b.list(k, groupUndercut)
	d := 0.0
	switch ev.kind {
	case kindAdditive:
		clear(x)
		clear(y)
		clear(z)
		addInto(xa, supS, supD, cur)
		addInto(ya, rebS, rebD, cur)
		addInto(za, undS, undD, cur)
		ws, wr, wu := ev.w.Support, ev.w.Rebut, ev.w.Undercut
		for i, w := range base {
			v := additive(w, ws, wr, wu, x[i], y[i], z[i])
			next[i] = v
			if e := math.Abs(v - old[i]); e > d || e != e { // a NaN sticks
				d = e
			}
		}
	case kindDFQuAD:
		fill(x, 1)
		fill(y, 1)
		complInto(xa, supS, supD, cur)
		complInto(ya, rebS, rebD, cur)
		complInto(ya, undS, undD, cur)
		for i, w := range base {
			v := dfquad(w, y[i], x[i])
			next[i] = v
			if e := math.Abs(v - old[i]); e > d || e != e { // a NaN sticks
				d = e
			}
		}
	case kindQE:
		clear(x)
		clear(y)
		addInto(xa, supS, supD, cur)
		addInto(ya, rebS, rebD, cur)
		addInto(ya, undS, undD, cur)
		for i, w := range base {
			v := quadraticEnergy(w, x[i]-y[i])
			next[i] = v
			if e := math.Abs(v - old[i]); e > d || e != e { // a NaN sticks
				d = e
			}
		}
	case kindEuler:
		clear(x)
		clear(y)
		addInto(xa, supS, supD, cur)
		addInto(ya, rebS, rebD, cur)
		addInto(ya, undS, undD, cur)
		d = finishEuler(base, x, y, old, next)
	case kindEulerTop:
		clear(x)
		clear(y)
		maxInto(xa, supS, supD, cur)
		maxInto(ya, rebS, rebD, cur)
		maxInto(ya, undS, undD, cur)
		d = finishEuler(base, x, y, old, next)
	case kindHCat:
		clear(y)
		addInto(ya, rebS, rebD, cur)
		addInto(ya, undS, undD, cur)
		for i, w := range base {
			v := w / (1 + y[i])
			next[i] = v
			if e := math.Abs(v - old[i]); e > d || e != e { // a NaN sticks
				d = e
			}
		}
	}
	return d
}

// finishEuler sets next to the Euler-based influence of the aggregates
// E = sup − att (sup is overwritten) and returns max |next − old|. It is
// euler in two loops: exp(E) for the whole block first, a tight loop whose
// iterations the CPU overlaps (each exp is a long chain of dependent
// operations), then the rest of the formula.
func finishEuler(base, sup, att, old, next []float64) float64 {
	sup, att = sup[:len(base)], att[:len(base)]
	old, next = old[:len(base)], next[:len(base)]
	for i := range sup {
		sup[i] = math.Exp(sup[i] - att[i])
	}
	d := 0.0
	for i, w := range base {
		v := 0.0 // euler's w = 0 case
		if w != 0 {
			v = eulerExp(w, sup[i])
		}
		next[i] = v
		if e := math.Abs(v - old[i]); e > d || e != e { // a NaN sticks
			d = e
		}
	}
	return d
}

func fill(s []float64, v float64) {
	for i := range s {
		s[i] = v
	}
}

// The accumulating loops, one per kind of aggregate. acc[dst[k]] is the
// accumulator of relation k's target and s[src[k]] its source's strength.

// addInto sums: acc += s.
func addInto(acc *[maxBlock]float64, src []uint32, dst []uint16, s []float64) {
	dst = dst[:len(src)]
	for k, j := range src {
		acc[dst[k]] += s[j]
	}
}

// complInto multiplies: acc ·= 1 − s.
func complInto(acc *[maxBlock]float64, src []uint32, dst []uint16, s []float64) {
	dst = dst[:len(src)]
	for k, j := range src {
		acc[dst[k]] *= 1 - s[j]
	}
}

// maxInto takes maxima: acc = max(acc, s).
func maxInto(acc *[maxBlock]float64, src []uint32, dst []uint16, s []float64) {
	dst = dst[:len(src)]
	for k, j := range src {
		acc[dst[k]] = max(acc[dst[k]], s[j])
	}
}
