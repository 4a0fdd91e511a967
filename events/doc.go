// Package events holds the parts every duelogic front end needs on top of the
// engine's [duelogic.Event] stream: fanning events out to many readers,
// serving them to browsers as Server-Sent Events, logging them, consuming
// them as an iterator, and turning stored records back into events.
//
// # Live events and stored records
//
// The engine stores a record before it announces it, and every event but a
// token carries the Seq of the record it announces. [FromRecord] turns a
// stored record back into the event the engine announced for it, so a reader
// that missed part of a debate can catch up from the store and continue live
// without gaps or duplicates: that is what [SSE] does for a reconnecting
// browser (the SSE event ID is the record's Seq, and a reconnect's
// Last-Event-ID says where to resume). Token events are not stored; a reader
// joining in the middle of an utterance may miss some of its tokens, but the
// utterance event that follows carries the whole text.
//
// # Fan-out
//
// A [Hub] is the [duelogic.EventSink] of one or more running debates; each
// reader [Hub.Subscribe]s to one debate and gets its events through a
// bounded buffer. A reader that falls further behind than the buffer is
// dropped, never waited for: the debate does not slow down for a slow
// browser. [FanOut] sends every event to several sinks, [Slog] logs them.
//
// # Iterating a run
//
// [Run] runs a debate in its own goroutine and yields its events as an
// [iter.Seq2], so that a program can range over a debate:
//
//	for e, err := range events.Run(ctx, func(ctx context.Context, sink duelogic.EventSink) (*duelogic.Result, error) {
//		o, err := duelogic.New(cfg, client, duelogic.WithSink(sink))
//		if err != nil {
//			return nil, err
//		}
//		return o.Run(ctx, duelogic.Debate{Proposition: "..."})
//	}) {
//		...
//	}
package events
