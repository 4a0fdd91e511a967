// Package scored is the scored debate of seed 003 as an [engine.Format]: an
// idea that has been evaluated category by category is debated one round
// per category, an advocate defending it and a challenger (the red team)
// attacking it, and an arbiter's verdict on each round adjusts that
// category's score.
//
// # Playing a debate
//
// Make the format by name with [engine.Open] (its configuration as JSON,
// the fields left out taking [DefaultConfig]'s values) or with [New] (a
// [Config], its zero fields taking DefaultConfig's values, so New(Config{})
// is the default debate), play it with [engine.Run], and finish a debate
// that stopped with [engine.ResumeStored]:
//
//	f, err := engine.Open("scored", json.RawMessage(`{"maxAdjustment": 2}`))
//	// or: f, err := scored.New(scored.Config{MaxAdjustment: 2})
//	...
//	res, err := engine.Run(ctx, client, f, engine.Debate{Proposition: idea}, engine.WithStore(st))
//	if err != nil && res != nil { // stopped once stored: a model error, a store error, a cancel
//		res, err = engine.ResumeStored(ctx, client, res.DebateID, engine.WithStore(st))
//	}
//	v := res.Detail.Verdict()      // who won: the side the scores favour
//	docs := res.Detail.Documents() // debate.md
//
// The result's Detail is the debate's [*Outcome] (an [engine.Outcome]
// through Open and ResumeStored): [Outcome.Verdict] names the side the score
// integration favours, or a draw, and [Outcome.Documents] gives the seed's
// debate.md, which [Outcome.Markdown] renders too. A debate stopped by a
// model error, a store error or cancellation returns its result so far (its
// ID, the transcript, the usage) with the error. [engine.ResumeStored], or
// [engine.Resume] given &scored.Format{}, finishes it with the configuration
// stored when it started, and generates only what was not stored: the
// configuration the engine stores is the Config's JSON, the object Open
// takes (see [Format.MarshalJSON]). [DefaultConfig] is valid and plays
// offline on [github.com/duelogic/duelogic/llm.NewStub], whose answers to
// this format's prompts are registered by this package. Every engine option
// works as for any format: store, sink, clock, logger, prompt hook, and
// argument mapping ([engine.WithArgumentMap]), which maps the advocate's and
// the challenger's turns (not the arbiter's verdicts) with the arbiter's
// model. Model calls are not retried here: wrap the client with
// [github.com/duelogic/duelogic/llm.Retry] for that.
//
// # Rounds
//
// A round debates one [Category] (by default the seed's three:
// Problem Validity, Solution Fit, Market Opportunity; hosts supply their
// own). Both sides see the idea (the [engine.Debate]'s Proposition and
// Context), the category's score and evidence ([Evaluation]) and the red-team
// challenges ([Challenge]) bearing on it, all fenced as data in the prompts. Each side
// argues its position, then rebuts the other side's argument; the arbiter
// then returns a [Verdict] as JSON:
//
//	{"winner": "advocate" | "challenger" | "draw", "reasoning": "...",
//	 "keyPoints": ["..."], "confidence": 0.8}
//
// A verdict with an unknown winner, a confidence outside 0..1, empty
// reasoning or no key points is rejected by [ParseVerdict] and the arbiter is
// asked again once, with the problems named and its reply quoted (clipped);
// a reply still unusable gives the round its default verdict: a draw at
// confidence 0, marked [Verdict].Defaulted (and the verdict utterance
// Defaulted), which leaves the category's score unchanged, and the debate
// goes on. The request carries the verdict's JSON Schema
// (llm.Request.Schema), so a server that constrains its output to a schema
// answers in shape. How the verdicts were read is counted in the result's
// Judgments (engine.Result.Judgments). An argument shorter than
// Config.MinArgumentWords is asked for again, up to Config.MaxAttempts
// calls, and then fails with [ErrThinArgument].
//
// # Evidence
//
// The seed's debate starts from an evaluation of the idea: a score and the
// evidence behind it per category, and the red team's challenges. A host
// puts them in Config.Evaluations and Config.Challenges, or reads them from
// a JSON document with [ParseEvidence] (strict: every problem is named by
// its JSON path in an [*EvidenceError]) and applies them to a config with
// [Evidence.Apply]. A category nothing was supplied for starts at the middle
// of the scale as a neutral default ([NeutralEvaluations], marked
// [Evaluation].Neutral): the prompts tell the debaters that the score is no
// finding, and [Outcome.Markdown] and [Outcome.NeutralCategories] tell the
// reader. [DefaultConfig]'s evaluations are all neutral.
//
// # Token caps
//
// Every call carries a completion cap (llm.Request.MaxTokens), which
// [engine.WithMaxTokens] overrides by purpose:
//
//	PurposeArgument, PurposeRebuttal  MaxTokensArgument (440: the prompt asks for 120-220 words)
//	PurposeVerdict                    MaxTokensVerdict (640)
//
// An argument cut at its cap (finish reason "length") is kept, marked
// [engine.Utterance].Truncated, and logged; a verdict cut at its cap that
// does not parse is asked again, the model told it was cut off.
//
// # Score integration
//
// Each verdict moves its category's score by [Adjust]:
//
//	raw   = +MaxAdjustment × confidence   if the advocate wins
//	        −MaxAdjustment × confidence   if the challenger wins
//	        0                             for a draw
//	        (rounded to two decimals, and never beyond ±MaxAdjustment)
//	post  = clamp(pre + raw, Scale.Min, Scale.Max)
//	delta = post − pre
//
// so no verdict moves a score by more than MaxAdjustment (default 1 on the
// default 1..10 scale) and no score leaves the scale. The [Outcome] holds
// every [Round] with its pre and post score and delta, and a [ScoreCard]
// with the scores before and after and the adjustments by category and in
// total; [Outcome.Markdown] renders the seed's debate.md.
//
// # Order, events and resume
//
// Rounds run one after another, as the seed plays them, unless
// Config.Parallel lets several be generated at once. Inside a round the two
// arguments are written at once, then the two rebuttals, then the verdict.
// Every reply is stored by an [engine.Session.SideStep] under a key naming
// its category, side and kind ("gen:market:challenger:rebuttal"), so a
// resumed debate finds each by key whatever order they were written in.
// As soon as a round and the rounds before it are generated, the round is
// recorded on the debate's own goroutine: the advocate's argument, the
// challenger's argument, the advocate's rebuttal, the challenger's
// rebuttal, the arbiter's verdict (each an [engine.EventUtterance]), and
// then the verdict's effect on the score (an [EventVerdict] with a
// [RoundVerdict]). The score card comes last (an [EventScores] with a
// [ScoreCard]). So the transcript and the events are in category order and
// the same whatever Config.Parallel is and whichever round finished first.
// Utterances of this format are not streamed token by token.
//
// Every event announces a stored record, so [engine.Replay] of a debate's
// records gives back exactly the events its sink received.
package scored
