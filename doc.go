// Package duelogic runs structured debates between language models and judges
// them.
//
// The Duelogic podcast debate seats 2-6 chairs, each holding a philosophical
// framework (or an engineering perspective) and possibly a different model.
// An arbiter introduces the show, evaluates every response for steel-manning,
// self-critique, framework consistency and honesty, interjects on violations,
// lets chairs interrupt each other, and closes with a synthesis.
//
// Interruptions are real: while a chair's exchange response streams, the
// interrupt check runs on what it has said so far (at sentence boundaries,
// bounded by [InterruptionConfig]'s CheckMinChars and MaxChecksPerTurn); a
// check that clears the urgency threshold, the cooldown and the rules cuts
// the chair off at the end of the sentence under way — the utterance is
// stored as said, ending with an em dash, Cut and Interrupted — and the
// interrupter answers the trigger at once. An interruption takes no turn
// away: every chair responds in every exchange, as the seed's
// executeExchange plays them, and an interrupter whose turn comes next
// goes on from its interruption. The arbiter may cut in the same way, with
// an interjection, when AllowArbiterInterruptions is set. A client that
// cannot stream is checked after the whole response, and so is a response
// too short for a check beside its stream; the chair is then marked, not
// cut. A chair that was cut off is judged on what it said, the evaluation
// told of the cut ([CutNote]): a self-critique it had no time for is no
// violation and draws no interjection, and [Metrics] says how cut
// responses count.
//
// # Running a debate
//
// The root package is one format of the [engine]: [Podcast] implements
// engine.Format and registers itself as "duelogic", so the podcast is
// played the way every format is — engine.Open (or [NewPodcast]), then
// engine.Run, then, for a debate that stopped, engine.ResumeStored. A host
// supplies an [llm.Client] (its own, [llm/openai], a [llm.Router] over
// several, or the offline [llm.Stub]) and a [Debate]:
//
//	f, err := engine.Open("duelogic", json.RawMessage(`{"flow": {"maxExchanges": 3}}`))
//	res, err := engine.Run(ctx, llm.NewStub(1), f, duelogic.Debate{Proposition: "Should AI development be paused?"},
//		engine.WithStore(st))
//	// res, err = engine.ResumeStored(ctx, llm.NewStub(1), res.DebateID, engine.WithStore(st))
//	fmt.Println(res.Detail.Verdict().Summary) // 2 chairs, 3 exchanges; steel-manning 67%, ...
//
// engine.Open takes the [Config]'s JSON, the seed's DuelogicConfig: the
// fields it leaves out keep [DefaultConfig]'s values. In Go,
// duelogic.NewPodcast(cfg) is the same format, typed (the result's Detail
// is an [*Outcome]); the fields of cfg left at zero take their defaults
// where zero is no setting, and NewPodcast(Config{}) is the default debate
// (see [NewPodcast] for the rule on booleans). engine.Resume with
// &Podcast{} resumes a debate as engine.ResumeStored does. The debate's
// stored configuration is its Config's JSON, which engine.Open reads again.
//
// The outcome is an engine.Outcome: its [Outcome.Verdict] names no winner
// (the arbiter synthesizes; it does not judge) and sums the debate up in a
// line; its [Outcome.Documents] are the transcript in Markdown, with the
// arbiter's synthesis and the metrics ("transcript.md").
//
// [Orchestrator] is the podcast's convenience API over the same engine,
// which adds manual interjections ([Orchestrator.Interject]):
//
//	o, err := duelogic.New(cfg, client, duelogic.WithSink(mySink))
//	res, err := o.Run(ctx, duelogic.Debate{Proposition: "Should AI development be paused?"})
//	// res, err = o.Resume(ctx, res.DebateID)
//	fmt.Println(res.Metrics.SteelManningRate) // res.Result is the engine.Result[*Outcome]
//
// The debate plays the segments in order — introduction, openings,
// exchange, synthesis — and returns the transcript, token usage and
// [Metrics] checked against the seed's success targets: steel-manning in
// more than 80% of the responses that critique an opponent, self-critique in
// more than 70% of the substantive ones (the arbiter says which a response
// is when it evaluates it; a rate with nothing to count is not measured),
// and the spoken length at [SpokenWordsPerMinute] beside the target
// duration, which paces the episode: the chairs' turns within the seed's
// 150-300 words ([MinTurnWords], [MaxTurnWords]) first, then the number
// of exchanges, between 3 and Flow.MaxExchanges (see [FlowConfig]). The other formats
// of the specification live in their own packages (formal, scored,
// moderated, persuasion) and play on the same engine; the types they share
// (Debate, Utterance, Event, EventSink, ...) are the engine's, named here by
// alias.
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
// error, a store error or a cancelled context returns its result so far
// (its ID, format, transcript and usage) with the error, and is finished by
// engine.ResumeStored (or engine.Resume with &Podcast{}, or
// [Orchestrator.Resume]), which replays the records and generates nothing
// that was stored.
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
// checks a host's own Store; [engine/enginetest] checks a host's own format.
//
// [llm/openai]: https://pkg.go.dev/github.com/duelogic/duelogic/llm/openai
// [llm/llmtest]: https://pkg.go.dev/github.com/duelogic/duelogic/llm/llmtest
// [store/storetest]: https://pkg.go.dev/github.com/duelogic/duelogic/store/storetest
// [engine/enginetest]: https://pkg.go.dev/github.com/duelogic/duelogic/engine/enginetest
package duelogic
