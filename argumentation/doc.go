// Package argumentation is duelogic's formal-argumentation layer (seed 002):
// bipolar argumentation frameworks with rebutting and undercutting attacks
// and supports, gradual and Dung semantics over them, and Prakken's
// persuasion dialogue, whose moves are turned into such a framework and
// judged by a moderator's verdict.
//
// # Graphs
//
// A [Graph] holds arguments, each with a base score in [0, 1], and relations
// between them: [Graph.AddAttack] with a kind ([Rebut] or [Undercut]) and
// [Graph.AddSupport]. Metadata (text, side, source move) rides along with
// [Graph.AddArgumentInfo]. Relations form a set. [Graph.Flatten] adds the
// attacks supports imply (supported and secondary attacks) for the Dung
// semantics. Errors wrap sentinels such as [ErrDuplicate] and
// [ErrUnknownArgument].
//
// # Gradual semantics
//
// [Evaluate] gives every argument a strength under a [Semantics]: [Additive]
// (the seed's formula: base + 0.2·supporters − 0.3·rebutters −
// 0.4·undercutters, clamped), [DFQuAD], [QuadraticEnergy], [EulerBased],
// [EulerBasedTop] or the base-weighted [HCategorizer]; the formulas are in
// Semantics' documentation and match the reference values in
// shared/argref, which the tests check case by case.
//
// An acyclic graph is computed exactly in one pass in topological order. On
// a cyclic graph the default ([Discrete]) is the synchronous iteration from
// the base scores until no strength moves by more than the tolerance; it
// can oscillate for ever (DF-QuAD on two mutually attacking arguments of base
// 1, for one), and then [Scores].Converged is false: the last iterate is
// returned but never passed off as an answer. [EvaluateWith] with
// [Continuous] integrates Potyka's model ds/dt = f(s) − s with RK4, which
// converges in those cases; [Auto] tries the discrete iteration first.
//
// # Dung semantics
//
// [Grounded], [Complete], [Preferred] and [Stable] compute extensions of the
// attack graph (rebuts and undercuts alike, supports ignored; use
// g.Flatten() for the bipolar reading). Grounded is linear-time
// propagation; the others search labellings with constraint propagation and
// backtracking. [ConflictFree], [Admissible], [CredulouslyAccepted] and
// [ScepticallyAccepted] answer the usual questions. Extensions are sorted by
// ID and lists of extensions lexicographically; "none" is an empty, non-nil
// list.
//
// # Persuasion dialogues
//
// A [Dialogue] takes [Move]s one at a time ([Dialogue.Apply]): the speech
// acts [Claim], [Why], [Concede], [Retract] and [Since], checked against the
// seed's legal-reply table, with the seed's effect rules on each
// participant's commitment store. Participants are free labels ("PRO",
// "OPP", chair positions), any number of them. Propositions are negated
// with a leading "¬" ([Negate], [Normalize]). [ParseMoves] reads moves from
// a language model's JSON reply. [Dialogue.Graph] maps the dialogue to its
// bipolar graph (the mapping is documented on [Dialogue]).
//
// # Verdicts and reports
//
// [Dialogue.Verdict] is the seed's moderator: surviving arguments (strength
// > 0.5) per side, side scores (sum of surviving strengths) and the winner,
// unanswered challenges, concessions, retractions, final commitments and the
// debate quality [Metrics]. [Dialogue.Judge] evaluates and judges in one
// call and returns a [Report], which [Report.WriteMarkdown] renders as the
// seed's output document and [WriteDOT] as a Graphviz graph.
//
// # Scale
//
// Arguments are interned to integers and relations kept in compressed
// sparse rows, built on first use. On a graph of 1M arguments and 5M
// relations one synchronous iteration takes tens of milliseconds on one core
// and Grounded well under a second (see the package benchmarks).
package argumentation
