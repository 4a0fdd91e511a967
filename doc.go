// Package duelogic runs structured debates between language models and judges
// them.
//
// The Duelogic podcast debate seats 2-6 chairs, each holding a philosophical
// framework (or an engineering perspective) and possibly a different model.
// An arbiter introduces the show, evaluates every response for steel-manning,
// self-critique, framework consistency and honesty, interjects on violations,
// lets chairs interrupt each other, and closes with a synthesis.
//
// # Running a debate
//
// A host supplies an [llm.Client] (its own, [llm/openai], a [llm.Router] over
// several, or the offline [llm.Stub]), a [Config] and a [Debate]:
//
//	cfg := duelogic.DefaultConfig()
//	o, err := duelogic.New(cfg, llm.NewStub(1), duelogic.WithSink(mySink))
//	res, err := o.Run(ctx, duelogic.Debate{Proposition: "Should AI development be paused?"})
//
// [Orchestrator.Run] plays the segments in order — introduction, openings,
// exchange, synthesis — and returns a [Result] with the transcript, token usage
// and [Metrics] checked against the seed's success targets.
//
// # Configuration
//
// [DefaultConfig] is the seed's DUELOGIC_DEFAULTS; [Presets] are its six
// matchups; [Config.Validate] names every violation at once. A partial JSON
// document decoded over DefaultConfig changes only the fields it names, so a
// web front end can accept the seed's Partial<DuelogicConfig>. The frameworks
// live in a [Catalog]; [Catalog.With] extends a copy with a host's own entries.
//
// # Events, persistence and resume
//
// Every step is appended to a [store.Store] before the [Event] announcing it
// reaches the [EventSink] ("persist, then emit"). Tokens stream to the sink
// when the client implements [llm.Streamer]. A debate stopped by a model
// error, a store error or a cancelled context is finished by
// [Orchestrator.Resume], which replays the records and generates nothing that
// was stored.
//
// # Prompts
//
// The prompt builders ([ChairSystemPrompt], [ArbiterIntroPrompt],
// [ArbiterClosingPrompt], [InterjectionPrompt], [EvaluationPrompt],
// [InterruptCheckPrompt]) are exported so a front end can show them; the
// option [WithPromptHook] lets a host rewrite any call's messages. Text from
// users — the proposition, the context, personas — is fenced as data, so a
// proposition that says "ignore previous instructions" stays a proposition.
//
// # Testing
//
// Package [llm/llmtest] provides a scriptable fake client; [store/storetest]
// checks a host's own Store.
//
// [llm/openai]: https://pkg.go.dev/github.com/duelogic/duelogic/llm/openai
// [llm/llmtest]: https://pkg.go.dev/github.com/duelogic/duelogic/llm/llmtest
// [store/storetest]: https://pkg.go.dev/github.com/duelogic/duelogic/store/storetest
package duelogic
