// Package eval measures whether a debate helps: on a set of items with
// gold answers, it compares arms at an equal budget with paired statistics.
//
// # Arms
//
// Each arm is an engine format ([Single], [SelfConsistency], [Debate],
// registered as "eval.single", "eval.selfconsistency", "eval.debate"), so
// every answer is a stored step and [Evaluate], given the same store again,
// resumes what did not finish and asks the model nothing it was asked
// before. The vote arm is the majority of the debate's round-0 answers,
// read from the stored debates at no call of its own (Choi et al. 2025,
// "Debate or Vote"). Every answer is a judgment read through a JSON schema
// ([AnswerSchema], engine.Judge), never from prose.
//
// The arms of [FormatArms] play another duelogic format on each item
// ([FromFormat]) and read the answer from its structured outcome: a
// persuasion dialogue's computed verdict ([ArmPersuasion]), the strength
// of PRO's thesis in its argument graph ([ArmClaimStrength]), and a
// moderated debate's recommendation, read as one of the choices by a
// schema-bound judgment ([ArmModerated]). Their tokens and calls are
// counted like the other arms'. The two persuasion arms read one stored
// dialogue per item ([FormatDialogue]), played once: each arm is charged
// the whole dialogue, what it would cost alone, and the run's total
// counts it once (Report.SharedTokens).
//
// # Budget and cost
//
// Every arm's tokens and calls are counted per item. Under [BudgetEqual],
// self-consistency's k is chosen so that its mean tokens per item come
// within [BudgetTolerance] of the debate's (the report gives the ratio);
// [Price] turns tokens into dollars and Config.MaxCost stops a run
// cleanly.
//
// # Statistics
//
// [Wilson] intervals for each arm's accuracy, [McNemarExact] for every
// pair of arms on the same items (adjusted by [Holm]), a [PairedBootstrap]
// interval for the difference, and the debate's flip ledger ([Flips]). The
// [Report] says "no significant difference" when a pair's test finds
// none, and explains that this is not evidence of equality. Judge audits
// ([RunAudit]) re-judge stored debates through engine.Fork with a jury
// ([FleissKappa]), a position swap, and people's labels ([CohenKappa]).
// A podcast's evaluations, made between its speeches, are audited apart
// ([RunEvaluationAudit]): each is asked again of every juror on its own,
// with the request the arbiter was sent, so no speech is asked again;
// people's evaluations of the same responses ([EvaluationLabel], named by
// the response's utterance seq) give each juror's Cohen's kappa per field.
//
// # The offline stub
//
// The package teaches the stub model (llm.NewStub) to answer its purposes
// by a documented rule ([StubAccuracy], [StubRethink]), so that a run works
// offline. The stub is not a model; a report on it says that its numbers
// are no findings.
package eval
