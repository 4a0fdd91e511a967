// Package moderated runs the moderated debate of seed 004: a moderator
// analyses a design question, seats two to four engineering perspectives
// that pull against each other, runs rounds of arguments and rebuttals
// until the perspectives converge, stagnate, one dominates or the round cap
// is reached — with the people who asked the question consulted after
// every round — and writes a synthesis document with a recommendation.
//
// It is a format of package [engine], registered as "moderated" ([FormatName]):
// [engine.Open] makes it from its configuration as JSON (or [New] from a
// [Config]), [engine.Run] plays it, with the engine's options (store, sink,
// clock, logger, prompt hook, argument map, and the person who answers its
// questions, [engine.WithHuman]), and [engine.ResumeStored] (or
// [engine.Resume] with &Format{}) continues a debate that stopped:
//
//	f, err := engine.Open("moderated", json.RawMessage(`{"maxRounds": 3}`))
//	// or: f, err := moderated.New(moderated.Config{MaxRounds: 3})
//	...
//	res, err := engine.Run(ctx, client, f,
//		engine.Debate{Proposition: "Should we use Redis or PostgreSQL for caching?"},
//		engine.WithStore(st), engine.WithHuman(person))
//	// res.Transcript: everything said; res.Detail: the *Outcome (rounds,
//	// synthesis), an engine.Outcome (verdict, documents)
//
// A debate that stops — paused at a question to its people
// ([engine.ErrPaused]), timed out, failed, cancelled — stays stored, and
// Run returns its result so far (its ID, transcript and usage) beside the
// error; engine.ResumeStored continues it with the configuration stored
// when it started:
//
//	res, err := engine.ResumeStored(ctx, client, debateID, engine.WithStore(st), engine.WithHuman(person))
//
// The configuration stored is the [Config]'s JSON, the same object
// engine.Open takes. The follow-up ([WithFollowUp]) is not stored: a host
// that sets it gives it again on resume (with [New] and [engine.Resume], or
// [engine.ForFormat]).
//
// # The people who asked
//
// The seed's human initiates the debate, may clarify a vague question,
// guides or ends it at checkpoints and approves the synthesis. The debate
// asks them through the engine: [engine.Session.Ask] puts an
// [engine.Question] to the [engine.Human] given with [engine.WithHuman],
// stores the answer, and replays it on resume. Its questions, each with
// what the person needs in its Text (a front end shows Text and Choices)
// and its Choices, the first being what happens when nobody answers:
//
//   - [engine.QuestionClarification], before the perspectives are
//     assigned, when the question is too vague: the moderator's question
//     and the assumption it makes without an answer; free text (no
//     Choices), "" keeps the assumption.
//   - [engine.QuestionCheckpoint], after each round that does not end the
//     debate: the moderator's judgment of the round; Choices [Continue],
//     [Guide] (the answer's Text is the guidance) and [End].
//   - [engine.QuestionApproval], once the synthesis is written, and
//     again once the moderator has revised a synthesis the people
//     rejected: the synthesis document; Choices [ChoiceSkip] (it stays
//     [Unreviewed]), [ChoiceApprove] and [ChoiceReject] (the Text is the
//     reason).
//   - [engine.QuestionWorkflow], when the host set a follow-up
//     ([WithFollowUp]) and the people approved the synthesis: the seed's
//     "Would you like me to create a workflow from this decision?" and
//     the recommendation; Choices [ChoiceYes] (the decision is handed to
//     the follow-up) and [ChoiceNo].
//
// Without a Human nobody is asked: every question takes its first choice,
// and the debate runs to its end without pausing — the moderator's
// assumption stands, every round continues, the synthesis stays
// unreviewed. An unattended debate ([engine.Debate].Unattended, stored
// with it, the seed's --no-checkpoints) asks nobody either, whatever Human
// or deprecated hook a Run or Resume is given: Unattended wins.
//
// A Human that returns [engine.ErrPaused] (a person who will answer later)
// pauses the debate: the pause is stored, Run returns an error wrapping
// ErrPaused with the result so far, [engine.Pending] reads the question
// from the store, and resuming asks it again. Every question — the
// clarifying question, a checkpoint, the approval, the workflow question —
// not answered within Config.CheckpointTimeout (default 30 minutes)
// pauses the debate the same way (the seed's "Auto-pause if human doesn't
// respond"): its context ends with ErrPaused as its cause, and a Human
// that returns then (as [engine.Human] must) has the pause stored. (One
// that answers after the time ran out is not heard: the debate pauses
// with nothing of the question stored, and resuming asks it again all the
// same.)
//
// The hooks of earlier versions — [WithClarifier], [WithCheckpointer],
// [WithApprover] — are deprecated but work as they did: a Format with one
// asks it rather than the Human, and stores its answers and pauses in the
// format's own records ([RecordClarification], [RecordCheckpoint],
// [RecordApproval], with Paused set for a pause), as front ends written
// for them read them. A debate whose log holds such records — also one
// stored by an earlier version — replays them; a question still open is
// asked of the hook if the Format has one, else of the Human. Either way,
// what came of each question is stored in the format's record
// ([CheckpointOutcome], [Clarification], [ApprovalOutcome]) and announced
// by its event.
//
// # A vague question
//
// Before anything else the moderator checks the question (purpose
// [PurposeClarity], a JSON judgment with a strict schema): is it too vague
// to debate, and if so, what would it ask, and what will it assume without
// an answer. A vague question is put to the people (the clarification
// question) before the perspectives are assigned; their answer — or,
// without one, the moderator's assumption — is stored ([Clarification],
// [EventClarification]), reported by the moderator in the transcript
// ([KindClarification]), given fenced as data to every later prompt, and
// recorded in the synthesis. A resumed debate never asks again once
// answered. A check whose replies cannot be read counts as clear. The offline stub
// finds a question vague, deterministically, when it and its background
// have fewer than five words.
//
// # Analysis and perspectives
//
// The moderator then analyses the question (purpose
// [PurposeAnalysis]): its domain, the implicit constraints it reveals, how
// many debaters it needs (2 for a binary choice, 3-4 for a multi-faceted
// one; clamped to 2..4) and which perspectives of the catalog should argue.
// How many argue is Config.Debaters: the seed's default_perspectives, 2 by
// default ([DefaultPerspectives]); Debaters 0 lets the moderator's count
// decide.
// The catalog is [catalog.Perspectives] plus the host's
// Config.CustomPerspectives. The seats are filled, in order, by the
// perspectives the moderator named (unknown names are dropped), then by
// those the question's keywords call for ("caching" → Performance Advocate,
// "auth" → Security Advocate, "ship fast" → Simplicity Advocate, a host
// perspective's priorities → that perspective), then in catalog order. A
// reply without JSON is asked for again once and, failing that, the keyword
// heuristic decides alone ([Analysis].Fallback). The perspective that best
// matches the analysis's domain ("security" → Security Advocate) always has
// a seat: the last one, when the moderator did not name it. The seats are
// then balanced: they must include a pair of opposites (Performance
// Advocate vs Simplicity Advocate or Operational Simplicity, Security
// Advocate vs User Experience, Future Flexibility vs Simplicity Advocate,
// plus Config.Opposites); if they do not, the least relevant seat that can
// be — the last, else the one before — goes to an opposite of a
// perspective that stays, never the domain's best match's seat. Config.Perspectives seats
// perspectives directly, and must itself be balanced.
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
// # Checkpoints and listing
//
// After every round that does not end the debate, the people decide (the
// checkpoint question): [Continue], [Guide] (the guidance is given, fenced
// as data, to the next round's debaters and moderator, and recorded as the
// human's utterance, Speaker [SpeakerHuman]; Guide without guidance is
// Continue) or [End] (synthesize now). The decision is stored
// ([CheckpointOutcome]), so a resumed debate replays it. [List] reports
// every moderated debate of a store with its [Status]: analyzing,
// in_round, checkpoint, synthesizing, complete or paused (at any question
// to its people), and the time it has spent.
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
// MaxTokensAnalysis (600), [PurposeJudgment] MaxTokensJudgment (600),
// [PurposeSynthesis] MaxTokensSynthesis (3600: the longest synthesis its schema allows), and a debater's
// [PurposeArgument] or [PurposeRebuttal] the smaller of its budget share and
// MaxTokensDebater (440: the prompt asks for 120-220 words). A debater's
// reply that stops at its cap (finish reason "length") is kept, marked
// [engine.Utterance].Truncated and logged; a moderator's reply cut at its
// cap that does not parse is asked again, the model told it was cut off.
//
// Timeouts (the seed's "Default round timeout: 2 minutes", "Checkpoint
// timeout: 30 minutes before auto-pause", "Total debate timeout: 30
// minutes"): each round's model calls, and the synthesis's, run under
// Config.RoundTimeout. A round that overruns stops the debate with an
// error wrapping [ErrRoundTimeout] (and context.DeadlineExceeded) that
// names the round and the turn; what the round stored stays stored and
// Resume retries only the missing turns, with a fresh round timeout. Every
// question to the people who asked waits at most Config.CheckpointTimeout,
// then pauses the debate. Config.TotalTimeout bounds the time the debate
// spends across engine.Run and every engine.Resume: the time spent is
// measured on the session's clock ([engine.WithClock]; never the wall clock
// unless that is the host's clock) and stored ([RecordElapsed]) after the
// analysis, after each round and after the synthesis, and a resumed debate
// starts from the stored time. Excluded are the waits for people
// (clarification, checkpoints, approval) and the time between a stop and
// its resume; the part of a round played before a crash or error in its
// middle is not stored, so it is not counted. A round's model calls run
// under the round timeout or what is left of the total, whichever is less:
// when the total runs out during a round, the round is cut short there —
// what was said stays, the moderator does not judge the round, its
// [Judgment] says where it was cut (Cut) and the cut is stored
// ([RecordCut]), so a resumed debate plays the round as it was — and the
// rounds end ([EndTimeout]); a total spent between rounds ends them too.
// Then the moderator writes the synthesis, with Low confidence and a
// caveat saying when the time ran out, as at the round cap; the synthesis
// has a round timeout of its own, so that a debate whose time ran out still
// ends with one. So a debate spends at most TotalTimeout plus one round
// timeout. The check and analysis of the question run under what is left
// of the total, and stop the debate with [ErrTotalTimeout] when they
// overrun it.
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
// confidence, each perspective's last argument.
//
// Then the people who asked approve or reject it (the approval question):
// [Approved], [Rejected] (with a note, if any) or neither ([Unreviewed],
// also what happens when nobody answers); the answer is stored
// ([ApprovalOutcome], [EventApproval]) and set on the outcome's
// Synthesis.Approval, whose Markdown then carries a Status line, and for a
// rejection a warning under its title; the synthesis announced before
// (and the transcript's document) has none.
//
// A rejection goes back to the moderator with the people's reason (the
// answer's text): it revises the synthesis once (purpose
// [PurposeSynthesis] again, given the rejected document and the reason;
// stored, announced as [EventSynthesis] and said as another synthesis
// document, carrying [Synthesis].Revision), and the people review the
// revision in turn. Approved, the revision is the decision; rejected too,
// it is recorded as rejected and there is no decision; skipped, it stays
// unreviewed. The outcome keeps the rejected synthesis, with its review,
// in Rejected.
//
// Then, when the host set a follow-up ([WithFollowUp]) and the people
// approved the synthesis, they are asked the seed's "Would you like me to
// create a workflow from this decision?" (the workflow question), and on
// yes the follow-up receives the approved synthesis once: its success is
// stored, a no or [ErrDeclined] is stored as declined, any other error
// stops the debate and Resume calls it again. A synthesis that was not
// approved — rejected, skipped, or reviewed by nobody, as when nobody is
// asked — is not the decision: nobody is asked about a workflow, and
// nothing is handed over.
//
// # Settings file
//
// [ParseSettings] reads the seed's settings ("max_rounds",
// "default_perspectives", "token_budget_per_round", the timeouts in
// seconds, "custom_perspectives" with name, priorities and trade_offs)
// from a JSON document over a Config, naming each problem by its path in
// the file.
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
// [CheckpointOutcome]), the clarification of a vague question
// ([EventClarification], a [Clarification]), the synthesis
// ([EventSynthesis], a [Synthesis]), its approval ([EventApproval], an
// [ApprovalOutcome]) and the follow-up ([EventFollowUp], a bool); read Data
// with [engine.DataAs]. A question to the people is also announced by
// the engine ([engine.EventAsked], an [engine.Asked]).
//
// The result's Detail is an [*Outcome]: the configuration, clarification,
// analysis, perspectives, rounds, end reason, reviewed synthesis and time
// spent. It is an [engine.Outcome]: its [Outcome.Verdict] names no winner
// (a moderated debate has none) and sums up the recommendation in one
// line, with its review ("recommendation (approved): …"); its
// [Outcome.Documents] are the decision document, "decision.md"
// ([Synthesis.DecisionMarkdown], for docs/decisions/<date>-<slug>.md, with
// a Status line whatever the review) and the synthesis as reviewed,
// "synthesis.md" ([Synthesis.Markdown]).
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
