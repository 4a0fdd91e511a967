package argumentation

import "errors"

// Sentinel errors; callers branch on them with errors.Is. Every error the
// package returns wraps one of these and says which argument, move or option
// was at fault.
var (
	// ErrInvalidID means an argument ID is empty.
	ErrInvalidID = errors.New("argumentation: invalid argument id")
	// ErrDuplicate means an argument with the same ID is already in the graph.
	ErrDuplicate = errors.New("argumentation: duplicate argument")
	// ErrInvalidBase means a base score is NaN or outside [0, 1].
	ErrInvalidBase = errors.New("argumentation: base score outside [0,1]")
	// ErrUnknownArgument means a relation or query names an argument that is
	// not in the graph.
	ErrUnknownArgument = errors.New("argumentation: unknown argument")
	// ErrInvalidKind means an AttackKind other than Rebut or Undercut.
	ErrInvalidKind = errors.New("argumentation: invalid attack kind")
	// ErrTooLarge means the graph would exceed the internal limits (2^30-1
	// arguments, 2^31-1 relations).
	ErrTooLarge = errors.New("argumentation: graph too large")
	// ErrInvalidSemantics means a zero or otherwise unusable Semantics value,
	// or additive weights that are negative or not finite.
	ErrInvalidSemantics = errors.New("argumentation: invalid semantics")
	// ErrInvalidOptions means evaluation options out of range.
	ErrInvalidOptions = errors.New("argumentation: invalid options")
	// ErrCyclic means Method Exact was asked for on a graph with a cycle.
	ErrCyclic = errors.New("argumentation: graph has a cycle")
	// ErrIllegalMove means a dialogue move breaks the protocol; the error says
	// which rule, and the dialogue is left unchanged.
	ErrIllegalMove = errors.New("argumentation: illegal move")
	// ErrParse means ParseMoves found no usable JSON moves.
	ErrParse = errors.New("argumentation: cannot parse moves")
)
