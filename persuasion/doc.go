// Package persuasion is the persuasion debate of seed 002 as an
// [engine.Format]: a proponent (PRO) and an opponent (OPP) argue a
// technical decision in Prakken's persuasion dialogue, every move a speech
// act checked against the protocol, and a moderator (MOD) judges the
// bipolar argumentation framework the moves imply. The outcome is the
// seed's output document.
//
// # Playing a debate
//
// One way, as every format: open the format by name with its configuration
// as JSON (the fields of [Config]; those left out keep [DefaultConfig]'s
// values) or build it with [New] (zero fields of the Config take
// DefaultConfig's values, so New(Config{}) is the default debate), play it
// with engine.Run, and finish a stopped debate with engine.ResumeStored:
//
//	f, err := engine.Open("persuasion", json.RawMessage(`{"maxRounds": 1, "perspective": "on-call load"}`))
//	// or: f, err := persuasion.New(persuasion.Config{MaxRounds: 1, Perspective: "on-call load"})
//	...
//	res, err := engine.Run(ctx, client, f, engine.Debate{Proposition: "Should we rewrite billing in Go?"},
//		engine.WithStore(st), engine.WithSink(sink))
//	if err != nil && res != nil {
//		// stopped: res holds its ID and transcript so far
//		res, err = engine.ResumeStored(ctx, client, res.DebateID, engine.WithStore(st))
//	}
//	v := res.Detail.Verdict()               // v.Winner "pro" or "opp", v.Draw, v.Summary
//	doc := res.Detail.Documents()[0]        // "dialogue.md", the seed's output document
//	out := res.Detail.(*persuasion.Outcome) // with New, res.Detail is an *Outcome already
//
// The result's Detail is an [*Outcome], an [engine.Outcome]: its Verdict
// names the winning side's speaker ID ([SpeakerPro] or [SpeakerOpp]) or a
// draw, and its Documents return the seed's output document
// ([Outcome].Markdown) as "dialogue.md".
//
// engine.Run stores the Config's JSON with the debate (see
// [Format.MarshalJSON]): the object engine.Open takes, so a stored debate
// reopens, forks and patches like any. A debate stopped by a model error,
// an unusable turn, a store error or cancellation stays stored; Run returns
// its result so far (ID, transcript, usage) with the error, and
// engine.ResumeStored(ctx, client, id, ...), or engine.Resume(ctx, client,
// &persuasion.Format{}, id, ...), finishes it with the configuration stored
// with it, replaying the stored turns into the dialogue and asking only for
// what was not stored; a finished debate resumes without a model call.
// Debates stored by earlier versions resume too (see below). The options
// of New ([WithMarkdownFile]) are not stored: give engine.Resume a Format
// from New with them. Model calls are not retried here: wrap the client
// with [llm.Retry] for that.
//
// # Participants
//
// The three personas of the seed, with their biases stated to everyone, are
// [Config]'s defaults: a pragmatic engineer for PRO, a cautious architect for
// OPP, a senior staff engineer moderating. Hosts replace them and give each
// its own model. The topic is the [engine.Debate]'s Proposition; its
// Context and Config.Facts make up the shared context K, and
// Config.Perspective, when set, is a viewpoint every participant focuses on.
// All of it is fenced as data in the prompts. Each persona's model is its
// ModelID.
//
// # Speakers and sides
//
// The debaters' speaker IDs, the Speaker of their utterances and events,
// are [SpeakerPro] ("pro") and [SpeakerOpp] ("opp"), lowercase identifiers
// like every format's; the moderator speaks as [engine.SpeakerArbiter]. The
// result's UsageBySpeaker, the participants of argument mapping and
// [Outcome.Verdict]'s Winner use them. The seed's side labels [SidePro]
// ("PRO"), [SideOpp] ("OPP") and [SideMod] ("MOD") are what models and
// readers see: the Speaker of the dialogue's moves (P2 PRO since …), the
// prompts, the report and its verdict line, and the fields that hold the
// dialogue's terms: [Turn].Side, [Judgment].Winner and Sides, and
// [Outcome].Computed. [SideOf] and [SpeakerID] turn one into the other, and
// [Format.Label] names either ("PRO, the proponent: …").
//
// # Rounds
//
//	round 0               opening: PRO claims its thesis φ (a claim replying
//	                      to nothing); OPP answers it with claim ¬φ or why φ
//	rounds 1..MaxRounds   argumentation: Exchanges turns of PRO, then OPP
//	                      (default 2 rounds of 2 exchanges: PRO, OPP, PRO,
//	                      OPP)
//	round MaxRounds+1     closing: final statements; retractions and
//	                      concessions are recorded
//
// In each turn the debater's model ([PurposeTurn]) returns JSON: its moves
// (claim, why, concede, retract, since; each replying to an earlier move of
// the other side by ID, or to nothing) and the text that makes them (see
// [ParseTurn]). The debate numbers the moves P1, P2, … and O1, O2, … and
// applies them to an [argumentation.Dialogue], which enforces the seed's
// legal-reply table and keeps the commitment stores. A turn with an
// illegal move, no moves, too many moves, no text or no JSON at all is shown
// back to the model with the problem — the protocol error, naming the move
// and the rule — and its reply quoted (clipped to engine.MaxQuotedReply
// runes), and asked for again once. A turn still unusable is a pass: it
// makes no move ([Turn].Defaulted; its utterance is marked Defaulted) and
// its text is what the last reply said, when that could be read, or a note
// saying the turn could not be used; challenges left open by a pass count
// against the side that passed, and the debate goes on. The unusable
// replies are kept in the [Turn]'s Rejected. Every turn request carries
// the turn's JSON Schema (llm.Request.Schema), so a server that constrains
// its output to a schema answers in shape; the protocol is still checked
// here.
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
// ([ParseModeration]); an incomplete reply is asked for again once like a
// turn, and then the moderation is the default one ([Moderation].Defaulted):
// a rationale saying the moderator's text could not be used, no consensus
// and no conditions; the computed verdict stands. How every turn and
// moderation reply was read (first time, after the re-ask, defaulted, cut
// at its cap) is counted in engine.Result.Judgments.
//
// # Token caps
//
// Every call carries a completion cap (llm.Request.MaxTokens), which
// [engine.WithMaxTokens] overrides by purpose: [PurposeTurn]
// [MaxTokensTurn], [PurposeVerdict] [MaxTokensModeration]. A reply cut at its
// cap (finish reason "length") that does not parse is asked again, the
// model told it was cut off and to be brief.
//
// The [Outcome] holds the turns, the computed [argumentation.Verdict]
// (Outcome.Computed, with the final commitment stores), every argument with
// its score, the moderator's text, the [argumentation.Report] (whose
// WriteDOT draws the graph) and the seed's Markdown document, which
// [WithMarkdownFile] also writes to a file.
//
// # Storage and events
//
// The segments are opening, argumentation, closing and judgment. Every turn
// is a stored step (its moves and text, record type [RecordTurn], announced
// by an [EventTurn] whose Data is the [Turn]) followed by an utterance
// holding its text, so transcripts and front ends show the debate like any
// other; the moderator's text is a step ([RecordModeration], announced by
// an [EventVerdict] whose Data is a [Judgment]: the computed winner and
// scores with the moderator's text) followed by the moderator's utterance.
// Every event comes from a stored record, so [engine.Replay] gives back
// exactly the events emitted live, each as itself. The keys of a turn's
// records name it by round, exchange and side label ("turn:1:2:PRO",
// "say:1:2:PRO"), as in every version.
//
// # Debates stored by earlier versions
//
// A debate stored by an earlier version resumes (engine.ResumeStored,
// engine.Resume), forks and replays. Its configuration may be under
// "config" (the oldest shape), and may name MaxRounds "rounds" and a
// persona's ModelID "model": [Config.UnmarshalJSON] and engine.Open read
// those names when the current one is absent, and the configuration is
// written back under the current names only.
//
// Its debaters spoke as their side labels, "PRO" and "OPP", not as
// [SpeakerPro] and [SpeakerOpp]. A stored record is never rewritten, so the
// format reads such records this way: their keys and their turns' Side,
// which hold the side label in every version, replay as they are; a
// replayed utterance whose Speaker is a side label is named by its speaker
// ID in the result's Transcript (the format amends it: see
// engine.Session.Amend); the turns played after the resume speak as "pro"
// and "opp", and the verdict's Winner is a speaker ID whatever the log
// holds. What the engine reads from the records without the format keeps
// the old IDs: the events [engine.Replay] gives back for the stored part
// ([Format.Label] names those speakers too, and [SpeakerID] turns them into
// IDs), the usage of the stored turns in UsageBySpeaker, under "PRO" and
// "OPP", and argument mapping, which maps the turns of the participants
// "pro" and "opp" only, not the stored turns of such a debate.
//
// # Argument mapping
//
// The debate is itself an argument map, but [engine.WithArgumentMap] works
// on it as on any format: [Format] implements [engine.Cast], so the engine
// maps the turns of "pro" and "opp" (labelled by side and persona) with the
// moderator's model, and never the verdict, into [engine.Result].Arguments,
// beside the format's own verdict.
//
// # Offline
//
// The package registers the offline stub model's answers to its prompts
// ([llm.RegisterStub]): with llm.NewStub(seed) a debate runs without a
// network, legal moves most of the time and an illegal one or an incomplete
// judgment now and then (so that asking again is exercised), the same for
// the same seed on any day.
package persuasion
