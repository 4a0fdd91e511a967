// Package otelduelogic traces and measures duelogic debates with
// OpenTelemetry, by the GenAI semantic conventions.
//
// [WrapClient] wraps the llm.Client a debate runs on: every model call
// becomes a span ("chat {model}") with the gen_ai.* attributes of the
// request, the response and its token usage, and is counted in the
// metrics gen_ai.client.token.usage and gen_ai.client.operation.duration.
// Judgments (calls whose request carries a Schema) record a
// gen_ai.evaluation.result event: a judgment of a speech (the podcast's
// evaluations and interrupt checks, engine.JudgingOf) as a log record in
// the context of that speech's span, through the logger provider
// ([WithLoggerProvider]), its own span linked to the speech's; any other
// as an event of its own span.
//
// [StartDebate] makes a span for the debate itself and puts it, with the
// debate's ID, in the context given to engine.Run: the call spans become
// its children and carry gen_ai.conversation.id. [Debate.Sink] wraps the
// host's engine.EventSink to record how the debate ended.
//
//	client := otelduelogic.WrapClient(openaiClient)
//	ctx, span := otelduelogic.StartDebate(ctx, debate.ID)
//	res, err := engine.Run(ctx, client, format, debate, engine.WithSink(span.Sink(sink)))
//	span.End(err)
//
// The GenAI conventions are still in development; this package follows
// the names they give at the time of writing (gen_ai.provider.name,
// gen_ai.usage.cache_read.input_tokens) and records no prompt or reply
// content.
package otelduelogic
