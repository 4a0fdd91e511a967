// Package events holds the parts every debate front end needs on top of the
// engine's [engine.Event] stream, for debates of any format: fanning events
// out to many readers, serving them to browsers as Server-Sent Events,
// logging them, consuming them as an iterator, and summarizing stored
// debates.
//
// # Live events and stored records
//
// The engine stores a record before it announces it, every event but a token
// carries the Seq and Time of the record it announces, and the record keeps
// that event: [engine.Replay] (or [FromRecord], one record at a time) gives
// back exactly the events a sink received live. So a reader that missed part
// of a debate can catch up from the store and continue live without gaps or
// duplicates: that is what [SSE] does for a reconnecting browser (the SSE
// event ID is the record's Seq, and a reconnect's Last-Event-ID says where to
// resume). Token events are not stored; a reader joining in the middle of an
// utterance may miss some of its tokens, but the utterance event that follows
// carries the whole text.
//
// An event's Data is raw JSON whose shape its type and the debate's format
// define; decode it with [engine.DataAs] (an [engine.Ended] on debate_ended,
// an [engine.MovesUpdate] on argument_map; a format's own events carry its
// own types, such as the podcast's interrupt candidate). The package knows no
// format: it handles a debate of any format the same way.
//
// # Fan-out
//
// A [Hub] is the [engine.EventSink] of one or more running debates; each
// reader [Hub.Subscribe]s to one debate and gets its events through a
// bounded buffer. A reader that falls further behind than the buffer is
// dropped, never waited for: the debate does not slow down for a slow
// browser. [FanOut] sends every event to several sinks, [Slog] logs them.
//
// # Iterating a run
//
// [RunFormat] plays a debate of any [engine.Format] with [engine.Run] in its
// own goroutine and yields its events as an [iter.Seq2], so that a program
// can range over a debate; [ResumeFormat] does the same with
// [engine.Resume], and [Run] with any function given the sink:
//
//	podcast, err := duelogic.NewPodcast(cfg)
//	...
//	for e, err := range events.RunFormat(ctx, client, podcast, engine.Debate{Proposition: "..."}, engine.WithStore(st)) {
//		...
//	}
//
// # Stored debates
//
// [Summarize] describes a stored debate for a list of debates: the
// engine's [engine.Summary], its [Status], how many utterances it holds and,
// for a Duelogic podcast debate, its configuration.
package events
