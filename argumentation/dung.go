package argumentation

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// DungSemantics names one of Dung's extension-based semantics, for the
// acceptance queries.
type DungSemantics int

const (
	// DungGrounded is the grounded extension: the least fixed point of the
	// characteristic function.
	DungGrounded DungSemantics = iota
	// DungComplete: conflict-free sets that contain exactly the arguments
	// they defend.
	DungComplete
	// DungPreferred: ⊆-maximal admissible (equivalently complete) sets.
	DungPreferred
	// DungStable: conflict-free sets that attack every argument outside.
	DungStable
)

// String returns "grounded", "complete", "preferred" or "stable".
func (d DungSemantics) String() string {
	switch d {
	case DungGrounded:
		return "grounded"
	case DungComplete:
		return "complete"
	case DungPreferred:
		return "preferred"
	case DungStable:
		return "stable"
	}
	return fmt.Sprintf("DungSemantics(%d)", int(d))
}

// Labels of a labelling, and domains of the search (bit sets of labels).
const (
	labUndec uint8 = 0
	labIn    uint8 = 1
	labOut   uint8 = 2

	dIn    uint8 = 1
	dOut   uint8 = 2
	dUndec uint8 = 4
	dAll         = dIn | dOut | dUndec
)

// Grounded returns the grounded extension of g's attack graph (rebuts and
// undercuts alike; supports ignored), sorted by ID. It runs in time linear in
// the size of the graph: arguments whose attackers are all out are labelled
// in, arguments attacked by an in argument out, propagated with a counter of
// not-yet-out attackers per argument. A nil graph gives an empty extension.
// For the bipolar reading with derived attacks use Grounded(g.Flatten()).
func Grounded(g *Graph) []string {
	if g == nil {
		return []string{}
	}
	c := g.frozen()
	return g.names(groundedLabels(c))
}

func groundedLabels(c *csr) []uint8 {
	lab := make([]uint8, c.n)
	left := make([]int32, c.n) // attackers not yet labelled out
	queue := make([]uint32, 0, 64)
	for i := range c.n {
		left[i] = c.off[i+1] - c.supEnd[i]
		if left[i] == 0 {
			lab[i] = labIn
			queue = append(queue, uint32(i))
		}
	}
	for h := 0; h < len(queue); h++ {
		for _, y := range c.attacked(queue[h]) {
			if lab[y] != labUndec {
				continue // already out (an in argument has no in attacker)
			}
			lab[y] = labOut
			for _, z := range c.attacked(y) {
				left[z]--
				if left[z] == 0 && lab[z] == labUndec {
					lab[z] = labIn
					queue = append(queue, z)
				}
			}
		}
	}
	return lab
}

// names returns the sorted IDs of the arguments labelled in.
func (g *Graph) names(lab []uint8) []string {
	out := []string{}
	for i, l := range lab {
		if l == labIn {
			out = append(out, g.ids[i])
		}
	}
	slices.Sort(out)
	return out
}

// Complete returns all complete extensions of g's attack graph. Each
// extension is sorted by ID and the list is sorted lexicographically; the
// grounded extension is always among them, so the list is never empty.
//
// Complete, Preferred and Stable search the space of labellings (in, out,
// undecided) by backtracking with constraint propagation: an argument is in
// iff all its attackers are out, out iff some attacker is in, undecided
// otherwise. The grounded labelling falls out of the first propagation, so
// only the arguments it leaves undecided are branched on. The worst case is
// exponential, as the problems are intractable in general.
func Complete(g *Graph) [][]string {
	if g == nil {
		return [][]string{{}}
	}
	sv := newSolver(g.frozen(), dAll)
	var exts [][]string
	sv.search(func() bool {
		exts = append(exts, g.names(sv.labels()))
		return true
	}, nil)
	return sortExtensions(exts)
}

// Preferred returns all preferred extensions of g's attack graph, sorted as
// Complete's. There is always at least one (possibly empty) extension.
// The search tries in before not-in and prunes any branch whose arguments
// that may still be in all lie within an extension already found.
func Preferred(g *Graph) [][]string {
	if g == nil {
		return [][]string{{}}
	}
	c := g.frozen()
	sv := newSolver(c, dAll)
	var found []bitset
	words := (c.n + 63) / 64
	potential := make(bitset, words)
	prune := func() bool {
		clear(potential)
		for i, d := range sv.dom {
			if d&dIn != 0 {
				potential.set(i)
			}
		}
		for _, f := range found {
			if potential.subsetOf(f) {
				return true
			}
		}
		return false
	}
	sv.search(func() bool {
		b := make(bitset, words)
		for i, d := range sv.dom {
			if d == dIn {
				b.set(i)
			}
		}
		found = append(found, b)
		return true
	}, prune)
	var exts [][]string
	for i, f := range found {
		maximal := true
		for j, h := range found {
			if i != j && f.subsetOf(h) && !h.subsetOf(f) {
				maximal = false
				break
			}
		}
		if maximal {
			exts = append(exts, g.names(f.labels(c.n)))
		}
	}
	return sortExtensions(exts)
}

// Stable returns all stable extensions of g's attack graph, sorted as
// Complete's: [][]string{} when there is none, [][]string{{}} when the empty
// set is the only one (the empty graph).
func Stable(g *Graph) [][]string {
	if g == nil {
		return [][]string{{}}
	}
	sv := newSolver(g.frozen(), dIn|dOut)
	exts := [][]string{}
	sv.search(func() bool {
		exts = append(exts, g.names(sv.labels()))
		return true
	}, nil)
	return sortExtensions(exts)
}

// Extensions returns the extensions of g under sem: a one-element list for
// DungGrounded, Complete, Preferred or Stable otherwise.
func Extensions(g *Graph, sem DungSemantics) ([][]string, error) {
	switch sem {
	case DungGrounded:
		return [][]string{Grounded(g)}, nil
	case DungComplete:
		return Complete(g), nil
	case DungPreferred:
		return Preferred(g), nil
	case DungStable:
		return Stable(g), nil
	}
	return nil, fmt.Errorf("%w: %v", ErrInvalidSemantics, sem)
}

// CredulouslyAccepted reports whether the argument id is in at least one
// extension of g under sem. Under complete and preferred semantics this is
// one search for a labelling with id in (no enumeration). It fails with
// ErrUnknownArgument for an ID not in g.
func CredulouslyAccepted(g *Graph, id string, sem DungSemantics) (bool, error) {
	i, err := g.lookup(id)
	if err != nil {
		return false, err
	}
	c := g.frozen()
	switch sem {
	case DungGrounded:
		return groundedLabels(c)[i] == labIn, nil
	case DungComplete, DungPreferred:
		return newSolver(c, dAll).exists(i, dIn), nil
	case DungStable:
		return newSolver(c, dIn|dOut).exists(i, dIn), nil
	}
	return false, fmt.Errorf("%w: %v", ErrInvalidSemantics, sem)
}

// ScepticallyAccepted reports whether the argument id is in every extension
// of g under sem. Under grounded and complete semantics this is membership of
// the grounded extension; under stable semantics it is true when there is no
// stable extension at all (every extension, vacuously). It fails with
// ErrUnknownArgument for an ID not in g.
func ScepticallyAccepted(g *Graph, id string, sem DungSemantics) (bool, error) {
	i, err := g.lookup(id)
	if err != nil {
		return false, err
	}
	c := g.frozen()
	switch sem {
	case DungGrounded, DungComplete:
		return groundedLabels(c)[i] == labIn, nil
	case DungPreferred:
		for _, ext := range Preferred(g) {
			if _, ok := slices.BinarySearch(ext, id); !ok {
				return false, nil
			}
		}
		return true, nil
	case DungStable:
		return !newSolver(c, dIn|dOut).exists(i, dOut), nil
	}
	return false, fmt.Errorf("%w: %v", ErrInvalidSemantics, sem)
}

func (g *Graph) lookup(id string) (uint32, error) {
	if g == nil {
		return 0, fmt.Errorf("%w: %q (nil graph)", ErrUnknownArgument, id)
	}
	i, ok := g.index[id]
	if !ok {
		return 0, fmt.Errorf("%w: %q", ErrUnknownArgument, id)
	}
	return i, nil
}

// ConflictFree reports whether no argument of set attacks an argument of
// set. A set naming an argument that is not in g is not a set of g's
// arguments: the result is false.
func ConflictFree(g *Graph, set []string) bool {
	c, in, ok := g.setOf(set)
	if !ok {
		return false
	}
	for _, i := range in.members(c.n) {
		for _, b := range c.attackers(i) {
			if in.has(int(b)) {
				return false
			}
		}
	}
	return true
}

// Admissible reports whether set is conflict-free and defends each of its
// arguments: every attacker of a member is attacked by some member. Unknown
// IDs make it false, as for ConflictFree.
func Admissible(g *Graph, set []string) bool {
	if !ConflictFree(g, set) {
		return false
	}
	c, in, _ := g.setOf(set)
	for _, i := range in.members(c.n) {
	attackers:
		for _, b := range c.attackers(i) {
			for _, d := range c.attackers(b) {
				if in.has(int(d)) {
					continue attackers
				}
			}
			return false
		}
	}
	return true
}

func (g *Graph) setOf(set []string) (*csr, bitset, bool) {
	if g == nil {
		return nil, nil, false
	}
	c := g.frozen()
	b := make(bitset, (c.n+63)/64)
	for _, id := range set {
		i, ok := g.index[id]
		if !ok {
			return nil, nil, false
		}
		b.set(int(i))
	}
	return c, b, true
}

func sortExtensions(exts [][]string) [][]string {
	if exts == nil {
		exts = [][]string{}
	}
	slices.SortFunc(exts, slices.Compare[[]string])
	return exts
}

// bitset is a set of argument indexes.
type bitset []uint64

func (b bitset) set(i int)      { b[i>>6] |= 1 << (i & 63) }
func (b bitset) has(i int) bool { return b[i>>6]&(1<<(i&63)) != 0 }

func (b bitset) subsetOf(o bitset) bool {
	for k, w := range b {
		if w&^o[k] != 0 {
			return false
		}
	}
	return true
}

func (b bitset) members(n int) []uint32 {
	var out []uint32
	for k, w := range b {
		for w != 0 {
			i := k*64 + bits.TrailingZeros64(w)
			if i < n {
				out = append(out, uint32(i))
			}
			w &= w - 1
		}
	}
	return out
}

func (b bitset) labels(n int) []uint8 {
	lab := make([]uint8, n)
	for _, i := range b.members(n) {
		lab[i] = labIn
	}
	return lab
}

// solver searches complete labellings of a csr's attack graph. dom[i] is the
// set of labels argument i may still take.
type solver struct {
	c      *csr
	dom    []uint8
	trail  []trailItem
	queue  []uint32
	queued []bool
}

type trailItem struct {
	node uint32
	old  uint8
}

// newSolver starts with every domain set to init (dAll for complete
// labellings, dIn|dOut for stable ones) and every constraint to revise.
func newSolver(c *csr, init uint8) *solver {
	sv := &solver{
		c:      c,
		dom:    make([]uint8, c.n),
		queue:  make([]uint32, c.n),
		queued: make([]bool, c.n),
	}
	for i := range c.n {
		sv.dom[i] = init
		sv.queue[i] = uint32(i)
		sv.queued[i] = true
	}
	return sv
}

func (sv *solver) enqueue(i uint32) {
	if !sv.queued[i] {
		sv.queued[i] = true
		sv.queue = append(sv.queue, i)
	}
}

// restrict narrows dom[x] to dom[x]∩d, records the change and schedules the
// constraints that read dom[x]. It returns false if the domain became empty.
func (sv *solver) restrict(x uint32, d uint8) bool {
	old := sv.dom[x]
	nd := old & d
	if nd == old {
		return true
	}
	sv.trail = append(sv.trail, trailItem{x, old})
	sv.dom[x] = nd
	if nd == 0 {
		return false
	}
	sv.enqueue(x)
	for _, y := range sv.c.attacked(x) {
		sv.enqueue(y)
	}
	return true
}

func (sv *solver) undo(mark int) {
	for k := len(sv.trail) - 1; k >= mark; k-- {
		t := sv.trail[k]
		sv.dom[t.node] = t.old
	}
	sv.trail = sv.trail[:mark]
}

func (sv *solver) clearQueue() {
	for _, i := range sv.queue {
		sv.queued[i] = false
	}
	sv.queue = sv.queue[:0]
}

// propagate revises queued constraints to a fixed point; false means a
// domain became empty.
func (sv *solver) propagate() bool {
	for len(sv.queue) > 0 {
		x := sv.queue[len(sv.queue)-1]
		sv.queue = sv.queue[:len(sv.queue)-1]
		sv.queued[x] = false
		if !sv.revise(x) {
			sv.clearQueue()
			return false
		}
	}
	return true
}

// revise enforces lab(a) = in iff all attackers are out, out iff some
// attacker is in, undecided otherwise, on the domains of a and its
// attackers. Every pruning is sound: no complete labelling is lost.
func (sv *solver) revise(a uint32) bool {
	att := sv.c.attackers(a)
	dom := sv.dom
	allCanOut, anyCanIn, allOutOrUndec, anyCanUndec := true, false, true, false
	for _, b := range att {
		d := dom[b]
		allCanOut = allCanOut && d&dOut != 0
		anyCanIn = anyCanIn || d&dIn != 0
		allOutOrUndec = allOutOrUndec && d&(dOut|dUndec) != 0
		anyCanUndec = anyCanUndec || d&dUndec != 0
	}
	var allowed uint8
	if allCanOut {
		allowed |= dIn
	}
	if anyCanIn {
		allowed |= dOut
	}
	if allOutOrUndec && anyCanUndec {
		allowed |= dUndec
	}
	if !sv.restrict(a, allowed) {
		return false
	}
	da := dom[a]
	if da == dIn { // all attackers out
		for _, b := range att {
			if !sv.restrict(b, dOut) {
				return false
			}
		}
		return true
	}
	if da&dOut == 0 { // in or undecided: no attacker in
		for _, b := range att {
			if !sv.restrict(b, dOut|dUndec) {
				return false
			}
		}
	}
	if da == dOut { // some attacker in
		if b, n := sv.only(att, dIn); n == 1 {
			return sv.restrict(b, dIn)
		}
	}
	if da&dIn == 0 { // out or undecided: some attacker not out
		if b, n := sv.only(att, dIn|dUndec); n == 1 && !sv.restrict(b, dIn|dUndec) {
			return false
		}
	}
	if da == dUndec { // some attacker undecided
		if b, n := sv.only(att, dUndec); n == 1 {
			return sv.restrict(b, dUndec)
		}
	}
	return true
}

// only counts the arguments of att whose domain meets d (up to 2) and
// returns the last one.
func (sv *solver) only(att []uint32, d uint8) (uint32, int) {
	var last uint32
	n := 0
	for _, b := range att {
		if sv.dom[b]&d != 0 {
			last = b
			n++
			if n > 1 {
				break
			}
		}
	}
	return last, n
}

// pick returns an argument with more than one label left: one with all
// three labels still open if any (measured on random graphs, deciding these
// first and leaving out-or-undecided choices for last makes the search tree
// four times smaller), the most connected among them; ok is false when
// every domain is a single label.
func (sv *solver) pick() (x uint32, ok bool) {
	best := int32(math.MinInt32)
	c := sv.c
	for i, d := range sv.dom {
		if d&(d-1) == 0 {
			continue
		}
		score := c.off[i+1] - c.supEnd[i] + c.attOff[i+1] - c.attOff[i]
		if d != dAll {
			score -= 1 << 30
		}
		if score > best {
			best, x, ok = score, uint32(i), true
		}
	}
	return x, ok
}

// search enumerates the complete labellings consistent with the current
// domains, calling visit at each (until it returns false). prune, if not
// nil, is asked after each propagation whether to skip the branch. It
// returns false if visit stopped it.
func (sv *solver) search(visit func() bool, prune func() bool) bool {
	if !sv.propagate() {
		return true
	}
	if prune != nil && prune() {
		return true
	}
	x, ok := sv.pick()
	if !ok {
		return visit()
	}
	// Binary branching: in or not, then out or undecided.
	d := sv.dom[x]
	first := dIn
	if d&dIn == 0 {
		first = dOut
	}
	for _, v := range [...]uint8{first, d &^ first} {
		mark := len(sv.trail)
		if sv.restrict(x, v) {
			if !sv.search(visit, prune) {
				sv.undo(mark)
				return false
			}
		}
		sv.clearQueue()
		sv.undo(mark)
	}
	return true
}

// exists reports whether some labelling has dom[i] within d.
func (sv *solver) exists(i uint32, d uint8) bool {
	found := false
	if sv.restrict(i, d) {
		sv.search(func() bool { found = true; return false }, nil)
	}
	return found
}

// labels returns the current labelling (all domains single).
func (sv *solver) labels() []uint8 {
	lab := make([]uint8, len(sv.dom))
	for i, d := range sv.dom {
		switch d {
		case dIn:
			lab[i] = labIn
		case dOut:
			lab[i] = labOut
		}
	}
	return lab
}
