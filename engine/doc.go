// Package engine is the machinery every debate format of duelogic plays on:
// the Duelogic podcast, the formal, scored, moderated and persuasion
// debates, and a host's own.
//
// # The shape
//
//	front ends     examples/cli   examples/web   events (SSE, hub, sinks)   a host's app
//	                      \             |              /                    /
//	                       engine.Run / engine.Resume (ctx, client, format, debate, options)
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
// # Playing a format
//
// A [Format] is a value whose exported fields are its configuration and
// whose Play method walks the debate's steps on a [Session]:
//
//	f, err := scored.New(scored.DefaultConfig())
//	res, err := engine.Run(ctx, client, f, engine.Debate{Proposition: "..."},
//		engine.WithStore(st), engine.WithSink(sink))
//	// later, or in another process with the same store:
//	res, err = engine.Resume(ctx, client, &scored.Format{}, res.DebateID, engine.WithStore(st))
//
// [Run] stores the format's configuration in the debate's first record;
// [Resume] decodes it back, replays the stored steps (no model is asked
// again for anything stored) and continues at the first step not stored.
// Every format returns the same [Result] shape: the transcript, the usage
// (including calls made before a resume), the format's own Detail, and the
// argument map when [WithArgumentMap] is on.
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
// Package [github.com/duelogic/duelogic/engine/enginetest] checks that, and
// the rest of the contract, for any Format.
package engine
