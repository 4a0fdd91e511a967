// Package engine is the machinery every debate format of duelogic plays on:
// the Duelogic podcast, the formal, scored, moderated and persuasion
// debates, and a host's own.
//
// # The shape
//
//	front ends     examples/cli   examples/web   events (SSE, hub, sinks)   a host's app
//	                      \             |              /                    /
//	                engine.Open(name, config) → engine.Run / engine.ResumeStored / engine.Fork
//	                                    |
//	formats        duelogic.Podcast   formal   scored   moderated   persuasion   yours
//	               (each a Format[R]: a plan of steps; owns its prompts and the stub's answers)
//	                                    |
//	engine         Session: stored, replay-aware steps; streaming; side steps; segments;
//	               persist-then-emit; argument mapping; Replay; enginetest
//	                                    |
//	plug-ins       llm.Client (openai, Router, Retry, Stub)   store.Store (memory, JSONL, ...)
//	               EventSink
//
// A lower layer never knows a higher one: engine knows no format, llm and
// store know no engine.
//
// # Playing any format
//
// Every format registers itself by name ([Register], like database/sql
// drivers), so a host handles a debate of any format without knowing it:
//
//	f, err := engine.Open("scored", nil) // nil or "{}": the defaults; a JSON object overrides fields
//	res, err := engine.Run(ctx, client, f, engine.Debate{Proposition: "..."},
//		engine.WithStore(st), engine.WithSink(sink), engine.WithHuman(person))
//	v := res.Detail.Verdict()      // Winner, Draw, Void, Summary: every format's
//	docs := res.Detail.Documents() // the format's Markdown documents
//	// later, or in another process with the same store:
//	res, err = engine.ResumeStored(ctx, client, res.DebateID, engine.WithStore(st))
//
// A host that knows its format uses its package directly — New(cfg), whose
// zero fields take the defaults, then [Run]; [Resume] with the zero Format
// of the package (&scored.Format{}) — and gets the format's own outcome
// type as [Result].Detail. [Formats] lists what is linked in.
//
// [Run] stores the format's configuration (its JSON, the object [Open]
// takes) in the debate's first record; [Resume] and [ResumeStored] decode
// it back, replay the stored steps (no model is asked again for anything
// stored) and continue at the first step not stored. Every format returns
// the same [Result] shape: the transcript, the usage (including calls made
// before a resume), the format's own Detail (an [Outcome]), and the
// argument map when [WithArgumentMap] is on.
//
// # Failures keep their debate
//
// Once a debate's first record is stored, Run, Resume and ResumeStored
// return a non-nil *Result with any error: the debate's ID, format and
// transcript and usage so far (Detail is the zero value). A model error
// ([*TurnError]), a store error, a cancelled context, a pause for a person
// ([ErrPaused]) or a panicking sink ([ErrSinkPanicked]) all leave a log
// that ResumeStored finishes. Errors before the debate exists (a bad
// debate or configuration, an option the format cannot honour, a debate
// already running or locked) return a nil result.
//
// # People
//
// A debate asks its person through one interface, [Human] ([WithHuman]):
// a [Question] of a kind (clarification, checkpoint, approval, topic,
// workflow) with the choices allowed, Choices[0] being what happens when
// nobody answers. Without a Human, or when [Debate].Unattended is set,
// nobody is asked and every question takes its first choice. A Human that
// returns [ErrPaused] pauses the debate: the pause is stored, [Pending]
// reads the question from the records, and a resume asks it again.
//
// # Forks
//
// [Fork] copies the first records of a debate into a new one, its
// configuration changed by a JSON merge patch; ResumeStored plays on from
// there: re-judge a podcast from its openings with another arbiter model,
// play a formal debate's last round again.
//
// # Steps, records and events
//
// Everything a Session stores is a step with a key unique in the debate:
// an utterance ([Session.Say], [Session.Record]), a value ([Session.Step]),
// side work beside the main flow ([Session.SideStep], found by key on
// resume), segment marks ([Session.Segment]). A record is appended to the
// store before the event announcing it reaches the [EventSink]; the record
// keeps that event, so [Replay] gives back exactly the events emitted live.
// Tokens stream to the sink as the model produces them and never wait
// behind a store write. An utterance may be watched as it streams
// ([Session.SayWatched]): checks run beside the stream at sentence
// boundaries and may cut the speaker off; the cut is stored with the
// utterance, so a resumed debate replays it as cut. The engine runs at most one step ahead of the
// store, so a failing store stops a debate after the model calls already in
// flight.
//
// # Judgments and token caps
//
// A call whose reply is one JSON object — an evaluation, a verdict,
// speech-act moves, an analysis — is a judgment, made with [Judge] (or
// [JudgeWith]) inside the step that stores its result: the request carries
// the reply's JSON Schema (llm.Request.Schema, written for OpenAI's strict
// mode; package enginetest's StrictSchema checks one), a reply that does
// not parse is asked again once with the problem stated and the reply
// quoted, clipped to [MaxQuotedReply] runes, and then the format's
// documented default applies and the debate goes on. A reply cut at its
// token cap (finish reason "length") is told apart from one with the wrong
// fields. How the judgments of each purpose were read is counted in
// [Result].Judgments and the debate_ended event ([Ended]); the counts are
// stored with the steps, so a resumed debate counts as an uninterrupted
// one would.
//
// Every call a format makes carries a completion cap (llm.Request.MaxTokens)
// that the format documents, derived from what the call is for (a speech's
// word range, a judgment's JSON); [WithMaxTokens] overrides it by purpose.
// A free-text reply cut at its cap is kept and marked
// ([Utterance].Truncated, [Session.Truncated]).
//
// # Writing a format
//
// Play must be deterministic given the stored results: on resume it runs
// from the start and must make the same Session calls with the same keys.
// The Session refuses a key used twice, a record type the engine owns and a
// model call still running after Play returned ([ErrMisuse]). Package
// [github.com/duelogic/duelogic/engine/enginetest] checks the rest of the
// contract for any Format. A format whose outcome implements [Outcome]
// registers itself from its package's init with an [Opener] built on
// [DecodeConfig] and [Erase].
package engine
