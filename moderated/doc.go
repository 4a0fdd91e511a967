// Package moderated runs the moderated debate of seed 004: a moderator
// analyses a design question, seats two to four engineering perspectives
// that pull against each other, runs rounds of arguments and rebuttals
// until the perspectives converge, stagnate, one dominates or the round cap
// is reached — with an optional human checkpoint after every round — and
// writes a synthesis document with a recommendation.
//
// It is a format of package [engine]: [New] makes the [Format], and
// [engine.Run] and [engine.Resume] play it, with the engine's options
// (store, sink, clock, logger, prompt hook, argument map). The format's own
// behaviour — the human checkpoint, the follow-up — is set by options of New:
//
//	f, err := moderated.New(moderated.DefaultConfig(), moderated.WithCheckpointer(myCheckpointer))
//	...
//	res, err := engine.Run(ctx, client, f,
//		engine.Debate{Proposition: "Should we use Redis or PostgreSQL for caching?"},
//		engine.WithStore(st))
//	// res.Transcript: everything said; res.Detail: the *Outcome (rounds, synthesis)
//
// A debate that stops — paused at a checkpoint ([ErrPaused]), timed out,
// failed, cancelled — stays stored, and engine.Resume with a Format made
// with the same options continues it:
//
//	f, _ := moderated.New(moderated.DefaultConfig(), moderated.WithCheckpointer(myCheckpointer))
//	res, err := engine.Resume(ctx, client, f, debateID, engine.WithStore(st))
//
// The configuration a resumed debate plays with is the one stored when it
// started, whatever Config the Format given to Resume holds.
//
// # Analysis and perspectives
//
// The moderator first analyses the question (purpose
// [PurposeAnalysis]): its domain, the implicit constraints it reveals, how
// many debaters it needs (2 for a binary choice, 3-4 for a multi-faceted
// one; clamped to 2..4) and which perspectives of the catalog should argue.
// The catalog is [duelogic.Perspectives] plus the host's
// Config.CustomPerspectives. The seats are filled, in order, by the
// perspectives the moderator named (unknown names are dropped), then by
// those the question's keywords call for ("caching" → Performance Advocate,
// "auth" → Security Advocate, "ship fast" → Simplicity Advocate, a host
// perspective's priorities → that perspective), then in catalog order. A
// reply without JSON is asked for again once and, failing that, the keyword
// heuristic decides alone ([Analysis].Fallback). The seats are then balanced: they must include a
// pair of opposites (Performance Advocate vs Simplicity Advocate or
// Operational Simplicity, Security Advocate vs User Experience, Future
// Flexibility vs Simplicity Advocate, plus Config.Opposites); if they do
// not, the last seat goes to an opposite of the first perspective that has
// one. Config.Perspectives seats perspectives directly, and must itself be
// balanced.
//
// # Rounds
//
// The debaters' Speaker is their perspective's ID; the moderator's is
// [SpeakerModerator], which is [engine.SpeakerArbiter].
//
// Each round the moderator opens (the question in round 1, then its summary
// of the last round, the human's guidance, and its redirections); every
// debater argues at once (Session.Call on its own goroutine, each reply
// stored by a side step keyed "roundN:argument:<perspective>:gen"); the
// arguments are recorded in seat order; then the debaters rebut in turn,
// each seeing every argument and the rebuttals before it; then the
// moderator judges the round (purpose [PurposeJudgment]): converging,
// stagnating, new ground, a clear winner, perspectives off topic, and a
// summary. A judgment that cannot be read, even when asked again, is
// replaced by one that counts only the measured signals ([Judgment].Fallback).
//
// The debate ends after a round when the moderator sees convergence (so
// debaters who agree at once end it after round 1), a clear winner, or
// stagnation; when every debater's argument repeated more than
// [RepetitionThreshold] (60%) of what the previous round said, as measured
// by [Repetition] — word trigram overlap, not the model's opinion; or at
// Config.MaxRounds
// (default 5). The [Judgment] records the measured repetition and the
// [EndReason].
//
// # Checkpoints, pauses and listing
//
// After every round that does not end the debate, the host's
// [Checkpointer] ([WithCheckpointer]) decides: [Continue], [Guide] (the
// guidance is given, fenced as data, to the next round's debaters and
// moderator, and recorded as the human's utterance, Speaker [SpeakerHuman])
// or [End] (synthesize now). Without a Checkpointer every round continues
// and the debate runs to its end without pausing. The decision is stored
// ([CheckpointOutcome]), so a resumed debate replays it. A checkpoint not
// answered within Config.CheckpointTimeout (default 30 minutes), or
// answered with [ErrPaused], pauses the debate: the pause is stored and
// engine.Run returns an error wrapping ErrPaused; engine.Resume with a
// Format carrying a Checkpointer asks that checkpoint again. [List]
// reports every moderated debate of a store with its [Status]: analyzing,
// in_round, checkpoint, synthesizing, complete or paused.
//
// # Guardrails
//
// Token budget: Config.TokenBudget (default 2000; 0 is unlimited) bounds
// the completion tokens each debater spends per round. The argument may
// use three fifths of it and the rebuttal what the argument left; a reply
// whose completion tokens (as the client reports them, else estimated at
// four characters a token) exceed its share is cut to the same share of its
// text, marked " […]" and flagged [Argument].OverBudget. Usage still counts
// what the model spent.
//
// Token caps: every call carries a completion cap (llm.Request.MaxTokens),
// which [engine.WithMaxTokens] overrides by purpose: [PurposeAnalysis]
// MaxTokensAnalysis (400), [PurposeJudgment] MaxTokensJudgment (600),
// [PurposeSynthesis] MaxTokensSynthesis (1500), and a debater's
// [PurposeArgument] or [PurposeRebuttal] the smaller of its budget share and
// MaxTokensDebater (440: the prompt asks for 120-220 words). A debater's
// reply that stops at its cap (finish reason "length") is kept, marked
// [engine.Utterance].Truncated and logged; a moderator's reply cut at its
// cap that does not parse is asked again, the model told it was cut off.
//
// Timeouts: each round's model calls run under Config.RoundTimeout
// (default 2 minutes). A round that overruns stops the debate with an error
// wrapping [ErrRoundTimeout] (and context.DeadlineExceeded) that names the
// round and the turn; what the round stored stays stored and Resume
// retries only the missing turns, with a fresh round timeout.
// Config.TotalTimeout (default 30 minutes) bounds the time one engine.Run
// or engine.Resume call spends on the debate, checkpoint waits excluded;
// what is spent is read on the session's clock ([engine.WithClock]), and
// running out stops the debate with [ErrTotalTimeout].
//
// Rate limits: the format adds no retries of its own, so that retries live
// in one layer: the client's (package llm/openai's client retries 429 and 5xx, honouring
// Retry-After), or [llm.Retry] wrapped around a client that does not.
//
// Scope: a perspective the moderator names off topic is redirected in the
// next round's opening and in its own prompt; one named off topic in two
// rounds running is muted for the rest of the debate, as long as two
// debaters remain. A debater whose argument repeated the previous round is
// told to bring new points.
//
// # Synthesis and follow-up
//
// The moderator writes the synthesis (purpose [PurposeSynthesis]) as JSON;
// the format completes it with the date, debate ID, rounds, question and
// every seated perspective, and when the round cap was reached without
// convergence sets the confidence to Low with a caveat saying so.
// [Synthesis.Markdown] renders the seed's document (Decision, Date, Debate
// ID, Rounds, Perspectives; Question; Perspectives Considered; Points of
// Agreement; Key Tensions; Recommendation with Confidence and Caveats;
// Dissenting View); it is also the moderator's last utterance. A synthesis
// that cannot be read, even when asked again, is replaced by one the format
// writes from the rounds ([Synthesis].Fallback): no recommendation, Low
// confidence, each perspective's last argument. Then the host's follow-up ([WithFollowUp]), when
// set, receives the synthesis — the seed's "create a workflow from this
// decision" — once: its success is stored, its failure stops the debate and
// Resume calls it again.
//
// # Judgments
//
// The moderator's analysis, round judgments and synthesis are JSON
// judgments: each request carries its JSON Schema (llm.Request.Schema), so
// a server that constrains its output to a schema answers in shape; a reply
// that cannot be read is asked for again once, with the problem stated and
// the reply quoted (clipped); then the default above applies — analysis by
// keywords, judgment by the measured signals, synthesis from the rounds —
// marked Fallback in the value its event carries, logged, and counted as
// defaulted in engine.Result.Judgments (and the debate_ended event), and
// the debate goes on.
//
// # Events and outcome
//
// Beside the engine's events (debate and segments started and ended, every
// utterance, argument moves when mapped), a debate announces the
// moderator's analysis ([EventAnalysis], Data an [Analysis]), the seats
// ([EventAssignment], a []Perspective), each round's judgment
// ([EventJudgment], a [Judgment]), each checkpoint ([EventCheckpoint], a
// [CheckpointOutcome]), the synthesis ([EventSynthesis], a [Synthesis]) and
// the follow-up ([EventFollowUp], a bool); read Data with [engine.DataAs].
// The result's Detail is an [*Outcome]: the configuration, analysis,
// perspectives, rounds, end reason and synthesis.
//
// # Argument mapping
//
// With [engine.WithArgumentMap], every utterance but the moderator's is
// mapped — the debaters' turns and the human's guidance — by the
// moderator's model; [Format] names the speakers ([engine.Cast]).
//
// # Determinism and resume
//
// Every model reply, decision and judgment is stored before it is used,
// under a key naming its round and perspective, and the utterances are
// recorded on the debate's own goroutine in a fixed order, so a debate
// stopped anywhere — an error, a timeout, a pause, a cancelled context, a
// failing store — is finished by engine.Resume with the transcript it would
// have had; the format passes package enginetest. Debater turns are
// recorded whole, not streamed token by token. The offline stub model
// ([llm.NewStub]) answers this package's prompts (registered with
// [llm.RegisterStub] in this package) from the seed and the request alone.
package moderated
