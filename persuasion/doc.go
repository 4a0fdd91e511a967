// Package persuasion runs the persuasion debate of seed 002: a proponent
// (PRO) and an opponent (OPP) argue a technical decision in Prakken's
// persuasion dialogue, every move a speech act checked against the
// protocol, and a moderator (MOD) judges the bipolar argumentation framework
// the moves imply. The result is the seed's output document.
//
// # Participants
//
// The three personas of the seed, with their biases stated to everyone, are
// [Config]'s defaults: a pragmatic engineer for PRO, a cautious architect for
// OPP, a senior staff engineer moderating. Hosts replace them and give each
// its own model. The topic is the [duelogic.Debate]'s Proposition; its
// Context and Config.Facts make up the shared context K, and
// Config.Perspective, when set, is a viewpoint every participant focuses on.
// All of it is fenced as data in the prompts.
//
// # Rounds
//
//	round 0            opening: PRO claims its thesis φ (a claim replying to
//	                   nothing); OPP answers it with claim ¬φ or why φ
//	rounds 1..Rounds   argumentation: Exchanges turns of PRO, then OPP
//	                   (default 2 rounds of 2 exchanges: PRO, OPP, PRO, OPP)
//	round Rounds+1     closing: final statements; retractions and
//	                   concessions are recorded
//
// In each turn the debater's model ([PurposeTurn]) returns JSON: its moves
// (claim, why, concede, retract, since; each replying to an earlier move of
// the other side by ID, or to nothing) and the text that makes them (see
// [ParseTurn]). The debate numbers the moves P1, P2, … and O1, O2, … and
// applies them to an [argumentation.Dialogue], which enforces the seed's
// legal-reply table and keeps the commitment stores. A turn with an
// illegal move, no moves, too many moves, no text or no JSON at all is shown
// back to the model with the problem — the protocol error, naming the move
// and the rule — and asked for again, at most Config.MaxReasks times
// (default 2); then the debate stops with an error wrapping [ErrInvalidTurn]
// and the last problem (e.g. [argumentation.ErrIllegalMove]). Such a debate
// is stored up to the failed turn and [Resume] asks for that turn again.
// The replies asked for again are kept in the accepted [Turn]'s Rejected.
//
// # Judgment
//
// After the closing, the dialogue is judged by [argumentation.Dialogue.Judge]
// with the semantics named by Config.Semantics (default the seed's additive
// one): the winner, the side scores, the surviving arguments, the valid
// points of the losing side, the unanswered challenges and the final
// commitments are computed, never asked of a model. The moderator's model
// ([PurposeVerdict]) is then shown that judgment and writes only the
// rationale, the consensus solution and the conditions for revisiting
// ([ParseModeration]); an incomplete reply is asked for again like a turn,
// and then fails with [ErrInvalidModeration].
//
// The [Result] holds the turns, the computed [argumentation.Verdict], the
// moderator's text, the [argumentation.Report] (whose WriteDOT draws the
// graph) and the seed's Markdown document, which Config.MarkdownPath also
// writes to a file.
//
// # Storage, events and resume
//
// Every turn is a stored step (its moves and text, record type [RecordTurn],
// announced by an [EventTurn]) followed by an utterance holding its text, so
// transcripts and front ends show the debate like any other; the
// moderator's text is a step ([RecordModeration], announced by an
// [EventVerdict] carrying the computed winner and scores) followed by the
// moderator's utterance. The segments are opening, argumentation, closing
// and judgment. A debate stopped by a model error, an unusable turn, a store
// error or cancellation is finished by [Resume], which replays the stored
// turns into the dialogue and asks only for what was not stored. Model calls
// are not retried here: wrap the client with [llm.Retry] for that.
package persuasion
