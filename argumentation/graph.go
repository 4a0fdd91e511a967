package argumentation

import (
	"fmt"
	"math"
	"strings"
	"sync"
)

// AttackKind says how an attack defeats its target (Pollock's defeaters).
type AttackKind int

const (
	// Rebut is a rebutting attack: the attacker contradicts the target's
	// conclusion.
	Rebut AttackKind = iota
	// Undercut is an undercutting attack: the attacker breaks the inference
	// that leads to the target's conclusion without claiming the opposite.
	Undercut
)

// String returns "rebut" or "undercut".
func (k AttackKind) String() string {
	switch k {
	case Rebut:
		return "rebut"
	case Undercut:
		return "undercut"
	}
	return fmt.Sprintf("AttackKind(%d)", int(k))
}

// MarshalText encodes k as "rebut" or "undercut".
func (k AttackKind) MarshalText() ([]byte, error) {
	if k != Rebut && k != Undercut {
		return nil, fmt.Errorf("%w: %d", ErrInvalidKind, int(k))
	}
	return []byte(k.String()), nil
}

// UnmarshalText decodes "rebut" or "undercut" (any case; "rebutting" and
// "undercutting" too).
func (k *AttackKind) UnmarshalText(b []byte) error {
	switch strings.ToLower(strings.TrimSpace(string(b))) {
	case "rebut", "rebutting", "rebuttal":
		*k = Rebut
	case "undercut", "undercutting":
		*k = Undercut
	default:
		return fmt.Errorf("%w: %q", ErrInvalidKind, b)
	}
	return nil
}

// RelationType tells attacks from supports.
type RelationType int

const (
	// Attack is an attack relation (R⁻): From weakens To.
	Attack RelationType = iota
	// Support is a support relation (R⁺): From strengthens To.
	Support
)

// String returns "attack" or "support".
func (t RelationType) String() string {
	if t == Support {
		return "support"
	}
	return "attack"
}

// Derivation says where a relation comes from: added directly, or derived by
// [Graph.Flatten] from a support and an attack.
type Derivation int

const (
	// Direct is a relation added with AddAttack or AddSupport.
	Direct Derivation = iota
	// SupportedAttack is X attacks Z derived from X supports … Y and Y
	// attacks Z.
	SupportedAttack
	// SecondaryAttack is X attacks Z derived from X attacks Y and Y
	// supports … Z.
	SecondaryAttack
)

// String returns "direct", "supported attack" or "secondary attack".
func (d Derivation) String() string {
	switch d {
	case SupportedAttack:
		return "supported attack"
	case SecondaryAttack:
		return "secondary attack"
	}
	return "direct"
}

// Argument is one argument of a graph with its optional metadata. Only ID and
// Base take part in the semantics; Text, Side and Move are carried for
// verdicts and renderings.
type Argument struct {
	ID   string  `json:"id"`
	Base float64 `json:"base"` // base score (intrinsic strength) in [0, 1]
	Text string  `json:"text"` // what the argument says, e.g. the proposition
	Side string  `json:"side"` // who put it forward: any label ("PRO", a chair position, …)
	Move string  `json:"move"` // ID of the dialogue move that introduced it
}

// Relation is one attack or support between two arguments.
type Relation struct {
	From       string       `json:"from"`
	To         string       `json:"to"`
	Type       RelationType `json:"type"`       // a number: 0 attack, 1 support
	Kind       AttackKind   `json:"kind"`       // attacks only; Rebut for supports
	Derivation Derivation   `json:"derivation"` // Direct unless produced by Flatten; a number
}

// Internal limits: argument indexes use the low 30 bits of a uint32, the top
// two carry the relation kind; CSR offsets are int32.
const (
	maxArgs      = 1<<30 - 1
	maxRelations = math.MaxInt32
	idxMask      = 1<<30 - 1
	kindShift    = 30
)

// Relation kind codes inside the graph, in the order a node's incoming
// relations are grouped.
const (
	codeSupport  = 0
	codeRebut    = 1
	codeUndercut = 2
)

// edge is one relation as added: from carries the kind code in its top two
// bits.
type edge struct{ from, to uint32 }

type argMeta struct{ text, side, move string }

// Graph is a bipolar argumentation framework ⟨A, R⁻, R⁺⟩: arguments with base
// scores, rebutting and undercutting attacks, and supports.
//
// Argument IDs are interned to dense integers; relations are stored as a flat
// list while the graph is built and turned into compressed sparse rows the
// first time the graph is read (evaluated, or queried for extensions). A
// mutation after that drops the compressed form, which is rebuilt on the next
// read. The graph holds 1M arguments and 5M relations in about 200 MB, and
// about 230 MB once evaluated (the cache-blocked layout of the relations).
//
// Relations form a set: adding the same relation again changes nothing, and
// when A both rebuts and undercuts B the attack counts once, as an undercut.
// Self-relations are allowed (a self-attacking argument is in no Dung
// extension).
//
// Concurrency: any number of goroutines may read a graph (Evaluate, the Dung
// functions, the accessors) at the same time; a mutation (Add*, SetBase, Grow)
// must not run concurrently with any other use.
type Graph struct {
	ids     []string
	index   map[string]uint32
	base    []float64
	meta    map[uint32]argMeta
	edges   []edge
	derived []Derivation // parallel to edges; nil unless made by Flatten

	mu sync.Mutex
	c  *csr // compressed form, nil until first read after a mutation
}

// NewGraph returns an empty graph.
func NewGraph() *Graph {
	return &Graph{index: make(map[string]uint32)}
}

// Grow preallocates room for about args more arguments and rels more
// relations, like strings.Builder.Grow; it is an optimisation for building
// large graphs.
func (g *Graph) Grow(args, rels int) {
	if args > 0 {
		g.ids = growSlice(g.ids, args)
		g.base = growSlice(g.base, args)
		if len(g.index) == 0 {
			g.index = make(map[string]uint32, args)
		}
	}
	if rels > 0 {
		g.edges = growSlice(g.edges, rels)
	}
}

func growSlice[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	t := make([]T, len(s), len(s)+n)
	copy(t, s)
	return t
}

// Len returns the number of arguments.
func (g *Graph) Len() int { return len(g.ids) }

// AddArgument adds an argument with the given base score in [0, 1]. It fails
// with ErrInvalidID for an empty id, ErrDuplicate if id is already present,
// and ErrInvalidBase for NaN or a base outside [0, 1].
func (g *Graph) AddArgument(id string, base float64) error {
	return g.AddArgumentInfo(Argument{ID: id, Base: base})
}

// AddArgumentInfo adds an argument with its metadata (text, side, source
// move); it fails like AddArgument.
func (g *Graph) AddArgumentInfo(a Argument) error {
	if a.ID == "" {
		return fmt.Errorf("%w: empty id", ErrInvalidID)
	}
	if err := checkBase(a.ID, a.Base); err != nil {
		return err
	}
	if _, ok := g.index[a.ID]; ok {
		return fmt.Errorf("%w: %q", ErrDuplicate, a.ID)
	}
	if len(g.ids) >= maxArgs {
		return fmt.Errorf("%w: more than %d arguments", ErrTooLarge, maxArgs)
	}
	if g.index == nil {
		g.index = make(map[string]uint32)
	}
	i := uint32(len(g.ids))
	g.index[a.ID] = i
	g.ids = append(g.ids, a.ID)
	g.base = append(g.base, a.Base)
	if a.Text != "" || a.Side != "" || a.Move != "" {
		if g.meta == nil {
			g.meta = make(map[uint32]argMeta)
		}
		g.meta[i] = argMeta{a.Text, a.Side, a.Move}
	}
	g.invalidate()
	return nil
}

func checkBase(id string, base float64) error {
	if math.IsNaN(base) || base < 0 || base > 1 {
		return fmt.Errorf("%w: argument %q has base %v", ErrInvalidBase, id, base)
	}
	return nil
}

// SetBase changes the base score of an existing argument.
func (g *Graph) SetBase(id string, base float64) error {
	i, ok := g.index[id]
	if !ok {
		return fmt.Errorf("%w: %q", ErrUnknownArgument, id)
	}
	if err := checkBase(id, base); err != nil {
		return err
	}
	g.base[i] = base
	return nil
}

// Has reports whether the graph has an argument with this ID.
func (g *Graph) Has(id string) bool {
	_, ok := g.index[id]
	return ok
}

// Argument returns the argument with this ID and its metadata.
func (g *Graph) Argument(id string) (Argument, bool) {
	i, ok := g.index[id]
	if !ok {
		return Argument{}, false
	}
	return g.arg(i), true
}

func (g *Graph) arg(i uint32) Argument {
	m := g.meta[i]
	return Argument{ID: g.ids[i], Base: g.base[i], Text: m.text, Side: m.side, Move: m.move}
}

// Arguments returns all arguments in the order they were added.
func (g *Graph) Arguments() []Argument {
	out := make([]Argument, len(g.ids))
	for i := range g.ids {
		out[i] = g.arg(uint32(i))
	}
	return out
}

// AddAttack adds an attack of the given kind from one argument to another.
// Both must be in the graph (ErrUnknownArgument otherwise).
func (g *Graph) AddAttack(from, to string, kind AttackKind) error {
	var code uint32
	switch kind {
	case Rebut:
		code = codeRebut
	case Undercut:
		code = codeUndercut
	default:
		return fmt.Errorf("%w: %d (attack %q -> %q)", ErrInvalidKind, int(kind), from, to)
	}
	return g.addEdge(from, to, code, "attack")
}

// AddSupport adds a support from one argument to another. Both must be in
// the graph (ErrUnknownArgument otherwise).
func (g *Graph) AddSupport(from, to string) error {
	return g.addEdge(from, to, codeSupport, "support")
}

func (g *Graph) addEdge(from, to string, code uint32, what string) error {
	f, ok := g.index[from]
	if !ok {
		return fmt.Errorf("%w: %q (%s %q -> %q)", ErrUnknownArgument, from, what, from, to)
	}
	t, ok := g.index[to]
	if !ok {
		return fmt.Errorf("%w: %q (%s %q -> %q)", ErrUnknownArgument, to, what, from, to)
	}
	if len(g.edges) >= maxRelations {
		return fmt.Errorf("%w: more than %d relations", ErrTooLarge, maxRelations)
	}
	g.edges = append(g.edges, edge{from: f | code<<kindShift, to: t})
	if g.derived != nil {
		g.derived = append(g.derived, Direct)
	}
	g.invalidate()
	return nil
}

func (g *Graph) invalidate() {
	if g.c != nil {
		g.mu.Lock()
		g.c = nil
		g.mu.Unlock()
	}
}

// Relations returns the graph's relations in the order they were first
// added, without duplicates; an attack added both as a rebut and as an
// undercut is listed once, as an undercut (where the first of the two was
// added).
func (g *Graph) Relations() []Relation {
	type key struct {
		from, to uint32
		support  bool
	}
	pos := make(map[key]int, len(g.edges))
	var out []Relation
	for k, e := range g.edges {
		code := e.from >> kindShift
		f := e.from & idxMask
		kk := key{f, e.to, code == codeSupport}
		if j, ok := pos[kk]; ok {
			if code == codeUndercut {
				out[j].Kind = Undercut
			}
			continue
		}
		pos[kk] = len(out)
		r := Relation{From: g.ids[f], To: g.ids[e.to]}
		switch code {
		case codeSupport:
			r.Type = Support
		case codeUndercut:
			r.Kind = Undercut
		}
		if g.derived != nil {
			r.Derivation = g.derived[k]
		}
		out = append(out, r)
	}
	return out
}

// String returns a short description, e.g. "Graph(3 arguments, 4 relations)".
func (g *Graph) String() string {
	return fmt.Sprintf("Graph(%d arguments, %d relations)", len(g.ids), len(g.edges))
}
