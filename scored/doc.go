// Package scored runs the scored debate of seed 003: an idea that has been
// evaluated category by category is debated one round per category, an
// advocate defending it and a challenger (the red team) attacking it, and an
// arbiter's verdict on each round adjusts that category's score.
//
// # Rounds
//
// A round debates one [Category] (by default the seed's three:
// Problem Validity, Solution Fit, Market Opportunity; hosts supply their
// own). Both sides see the idea (the [duelogic.Debate]'s Proposition and
// Context), the category's score and evidence ([Evaluation]) and the red-team
// [Challenge]s bearing on it, all fenced as data in the prompts. Each side
// argues its position, then rebuts the other side's argument; the arbiter
// then returns a [Verdict] as JSON:
//
//	{"winner": "advocate" | "challenger" | "draw", "reasoning": "...",
//	 "keyPoints": ["..."], "confidence": 0.8}
//
// A verdict with an unknown winner, a confidence outside 0..1, empty
// reasoning or no key points is rejected by [ParseVerdict] and the arbiter is
// asked again, with the problems named, up to Config.MaxAttempts calls; then
// the debate stops with an error wrapping [ErrInvalidVerdict]. Likewise an
// argument shorter than Config.MinArgumentWords is asked for again, and then
// fails with [ErrThinArgument].
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
// default 1..10 scale) and no score leaves the scale. The [Result] holds
// every [Round] with its pre and post score and delta, and a [ScoreCard]
// with the scores before and after and the adjustments by category and in
// total; [Result.Markdown] renders the seed's debate.md.
//
// # Concurrency, order and resume
//
// Rounds are independent; they run one after another, as the seed plays
// them, unless Config.Parallel lets several run at once. Inside a round the two
// arguments are written at once, then the two rebuttals, then the verdict.
// Every reply is stored by a [duelogic.Session.SideStep] under a key naming
// its category, side and kind ("gen:market:challenger:rebuttal"), so a
// resumed debate finds each by key whatever order they were written in.
// Only when every round is done are the utterances recorded — on the
// debate's own goroutine, round by round in category order: advocate's
// argument, challenger's argument, advocate's rebuttal, challenger's
// rebuttal, the arbiter's verdict — so the transcript's order never depends
// on timing. The score card is stored last. Utterances of this format are
// not streamed token by token; each round's verdict is announced by an
// [EventVerdict] as soon as it is stored, the score card by an [EventScores].
//
// A debate stopped by a model error, a store error or cancellation is
// finished by [Resume], which generates only what was not stored. Model
// calls are not retried here: wrap the client with [llm.Retry] for that.
package scored
