// Package formal is the formal debate of seed 001 as a format of the
// duelogic engine: a neutral chair, a promoter (affirmative) and a detractor
// (negative) who must source their claims, a verifier that checks every
// source, an audience that asks questions, a reporter that writes the
// documents and an assessor that reviews them — each on its own model.
//
// # Running a debate
//
// One way, as every format of the engine: open the format, run it, resume
// it. By name, with the [Config] as JSON (the fields it leaves out take
// [DefaultConfig]'s values; nil or "{}" is the default debate):
//
//	f, err := engine.Open("formal", json.RawMessage(`{"maxRounds": 4}`))
//	if err != nil { ... } // a bad configuration: an *engine.ValidationError
//	res, err := engine.Run(ctx, client, f, engine.Debate{Proposition: "Cities should ban cars from their centres."},
//		engine.WithStore(st), engine.WithSink(sink))
//	v := res.Detail.Verdict()   // engine.Verdict: Winner "promoter", Summary "promoter wins", ...
//	docs := res.Detail.Documents() // transcript.md, summary.md, blog-post.md, assessor-report.md
//
// Or typed, with the formal debate's own options ([WithVerifier]): [New]
// takes a Config whose zero fields take DefaultConfig's values (the time
// budget with the rounds: see Config), so New(Config{}) is the default
// debate, and res.Detail is the [*Outcome]:
//
//	f, err := formal.New(formal.Config{PromoterModel: "openai/gpt-5"}, formal.WithVerifier(formal.FetchThenJudge(formal.HTTPOptions{})))
//	res, err := engine.Run(ctx, client, f, d, engine.WithStore(st))
//
// The engine's options (store, sink, clock, logger, prompt hook, argument
// map) go to [engine.Run]. The [engine.Result] holds the debate's ID, its
// transcript, its usage (the chair's under [engine.SpeakerArbiter], every
// other participant's under its [Speaker] name) and, as its Detail, the
// [*Outcome]: the chair's verdict ([Outcome.Decision]) and its reason, the
// log, the redactions and the documents. The engine stores the Config, as
// JSON, with the debate (a Format's JSON is its Config's).
//
// A debate stopped by a model error, an unusable reply ([ErrInvalidReply]),
// a store error or a cancelled context returns its result so far (ID,
// transcript, usage) beside the error, and is finished by
// [engine.ResumeStored] with the same store — it opens the format by the
// name stored with the debate — or by [engine.Resume] with a &Format{}:
// the configuration stored with the debate is decoded into it, and what
// was stored is replayed, not asked again. A debate run with options of
// its own ([Option], not stored) resumes with a Format from New given them
// again.
// [DefaultConfig] runs offline: the default verifier asks the LLM judge
// only ([JudgeOnly]).
//
// # The outcome in common terms
//
// [*Outcome] is an [engine.Outcome]. Its [Outcome.Verdict] names the
// winner by the debater's speaker ID: "promoter" when the affirmative wins,
// "detractor" when the negative does; a draw is Draw and a void debate
// Void; the summary is one line, naming rule 12 when a disqualification
// decided it ("promoter wins (rule 12: detractor disqualified)"). Its
// [Outcome.Documents] are the Markdown documents of the seed's output
// directory (below), with their file names.
//
// # The transcript and the events
//
// Every log entry is said: right after its [RecordEntry] record (announced
// as [EventEntry], Data the [Entry]) comes its utterance
// ([engine.EventUtterance]), so the result's Transcript holds every entry in
// order — Speaker the chair as [engine.SpeakerArbiter] or the participant's
// name, Kind the entry's [EntryType], Exchange its round, ReplyTo the
// utterance of the entry it rebuts or is about, Target the speaker a ruling
// or redaction calls out. Findings made beside the debate are announced as
// [EventVerification] (Data a [Finding]). With [engine.WithArgumentMap], the
// debaters' turns are mapped ([Format] is an [engine.Cast]).
//
// # The course of a debate
//
// Setup: the debate's setup is announced ([EventSetup]: the topic and the
// output directory created, the seed's Steps B and C), the chair opens the
// log ("setup") and announces the topic. The topic is the debate's
// proposition; a debate given none ([engine.Run] calls [Format.Propose])
// takes Config.TopicPrompt, the seed's topic_prompt, else asks its person
// (engine.WithHuman) "What should the debate topic be?" ([TopicQuestion],
// kind [engine.QuestionTopic]); with nobody to ask it fails with
// [ErrNoTopic] before anything is stored. The seed's configuration file,
// config/debate-config.json, is read and written back by
// [LoadSeedConfig] and [SaveSeedConfig] (a host's concern: the CLI's
// --config). Opening statements: the promoter, then the detractor. Rounds, between Config.MinRounds and
// Config.MaxRounds: the chair reviews the verifier's findings and announces
// the round; the promoter, then the detractor, make a "new_point", a
// "rebuttal" naming the entry it rebuts (none named: the other side's
// latest argument, as the seed's chair cues it), or a "conjecture" — or
// first ask the chair for a clarification (below), and may raise a point
// of order (below); the audience asks up to
// two questions,
// and the chair relays the fair ones ("audience_question"), which are put to
// their debater in its next turn. From MinRounds on, the chair ends the rounds
// when the time budget is spent (read on the session clock) or when it judges
// that the debate has reached a natural conclusion; after MaxRounds they end.
// Closing statements: the detractor, then the promoter. Conclusion: the chair
// declares "affirmative_wins", "negative_wins", "draw" or "void" with its
// reason, and the audience gives its 200-400 word conclusion. Report: the
// reporter writes summary.md and (unless the debate is void) blog-post.md,
// transcript.md is rendered from the log, and the assessor writes
// assessor-report.md on them.
//
// # Clarification requests
//
// In a round, a debater may answer its cue with a "clarification_request"
// (its question to the chair as the content), as the seed's Phase 2
// "Handling interruptions" has it: "Clarification requests: respond
// immediately, log ruling, resume turn." The request is logged, the chair
// answers it ([PurposeClarification], JSON {"ruling"}) with a "ruling" on
// the request's entry, and the turn resumes: the debater is asked again,
// shown the ruling, for a turn of the round's other types (one request per
// turn). A request is no argument: it is not rebutted, verified or counted
// against its side.
//
// Every decision that matters later — a debater's turn, the findings applied,
// the relayed questions, the end of the rounds, the verdict, every document —
// is a stored step of the session, so a resumed debate continues exactly as
// the stopped one would have.
//
// # Points of order
//
// "6. No ad hominem. 7. No misrepresentation." — rules the chair enforces.
// In a round, a debater's turn may carry a point of order
// ("point_of_order": {target_seq, rule, complaint}) on an argument of the
// other side still on the record: it breaks rule 6 (it attacks the
// debater, not the argument) or rule 7 (it mischaracterises the
// debater's stated position). As on a source challenge, the turn pauses:
// the chair rules on it ([PurposePointOfOrder], JSON {"upheld", "ruling"};
// unreadable: not upheld) with a "ruling" on the entry named, quoting the
// complaint, and the turn resumes. Upheld, the ruling counts against the
// entry's side (the verdict prompt's "rulings on its entries") and is put
// to its debater as a warning in its next turn; dismissed, it does
// neither. An entry is ruled on once; the schema offers only the entries
// a point of order may name.
//
// # Debater turns and the rules
//
// A debater answers with a JSON object: type, content, sources ([{url, title,
// accessed}]), rebuttal_to_seq, and optionally a source_challenge {target_seq,
// url, claim}. Its JSON Schema says every rule the parser holds a turn to
// but one: the allowed types, non-empty content, at most five sources, each
// an http(s) URL with a host, a title and a real date YYYY-MM-DD (as
// patterns a grammar can enforce), rebuttal_to_seq among the entries the
// debater may rebut, a challenge naming a challengeable entry, one of its
// URLs and a claim. So a server that constrains its output to the schema
// (llama.cpp, vLLM, Ollama, OpenAI's strict mode) is held to a turn that
// parses even by a weak model. The reply is read leniently (code fences,
// prose around the object, key spellings), but a reply that breaks the
// rules of its phase — an unknown type or one the phase does not allow, a
// rebuttal naming an entry that is not an argument of the other side, a
// malformed source, content of white space only (the rule the schema
// cannot say) — is shown back to the model (clipped) with the problems and
// asked again once. A turn still unusable is forfeited: the
// chair announces that the debater's turn could not be used and why, the
// debater's pending questions and warnings wait for its next turn, and the
// debate goes on.
//
// # Judgments and their defaults
//
// Every call that expects JSON carries its JSON Schema (llm.Request.Schema),
// so a server that constrains its output to a schema answers in shape, and
// goes through [engine.Judge]: a reply that cannot be used is asked again
// once, with the problem stated; then its default applies and the debate
// goes on:
//
//	debater turn ([PurposeTurn])                 the turn is forfeited (above)
//	audience questions ([PurposeAudienceQuestions]) no questions this round
//	relay ([PurposeRelay])                       no question relayed
//	conclusion check ([PurposeConclusionCheck])  the rounds go on
//	verdict ([PurposeVerdict])                   a draw, the reason saying why
//	verification ([PurposeVerification])         the source is unreliable: unconfirmed
//	clarification ([PurposeClarification])       the chair's ruling says it could not rule; the turn resumes
//
// How the replies were read (first time, after the re-ask, defaulted, cut at
// the token cap) is counted by purpose in engine.Result.Judgments and the
// debate_ended event. The free-text replies — the audience's conclusion
// (200 to 400 words), the documents — are asked again once when unusable;
// the audience's conclusion is then kept as it is, and an empty document
// stops the debate with [ErrInvalidReply] (Resume asks again).
//
// # Token caps
//
// Every call carries a completion cap, which [engine.WithMaxTokens]
// overrides by purpose: [MaxTokensTurn] (2000: a turn is 120-250 words and
// up to five sources, the longest its schema allows), [MaxTokensVerification], [MaxTokensAudienceQuestions],
// [MaxTokensRelay], [MaxTokensConclusionCheck], [MaxTokensVerdict],
// [MaxTokensClarification],
// [MaxTokensAudienceConclusion] and [MaxTokensDocument]. A reply cut at its
// cap (finish reason "length") is logged; a JSON reply cut at its cap that
// does not parse is asked again, the model told it was cut off.
//
// The conjecture rules are checked on the accepted turn, deterministically,
// and a breach draws a chair "ruling": a conjecture must begin with
// [ConjectureLabel]; an opening statement, new point or rebuttal without
// sources must carry the label; and a rebuttal may not rest on conjecture
// alone (no sources).
//
// # Verification
//
// Every source of a debater entry is checked by a [SourceVerifier] beside
// the debate (a side step started when the entry is logged, at most four
// at once; Play waits for every check it started before it returns). The
// default verifier is [JudgeOnly]: an [LLMVerifier] on the verifier model.
// [WithVerifier] replaces it; [FetchThenJudge] first fetches the page with
// an [HTTPVerifier] — never from a private, loopback or link-local
// address — and then asks the judge ([Combine]).
//
// "At the start of each round, review pending Verifier findings": at the
// start of round N the chair applies the findings on every entry made
// before it, the previous round's included, waiting for checks still
// running (they run beside the audience's questions and the chair's
// decisions that end a round), so a fabrication is struck right before the
// next round begins. Which findings each review applied is stored, so a
// resumed debate rules as the stopped one did. The closing statements and
// the conclusion are preceded by a review of all pending findings. Each
// finding is logged ("verification_result"); a fabricated source draws a
// "redaction" of its entry and a ruling, an unreliable one a warning ruling
// that is put to the debater in its next turn. A source challenge is logged
// ("source_challenge") and verified at once, then ruled on.
//
// # Disqualification
//
// Rule 12: "Citing a non-existent URL is an immediate disqualification
// offence." A debater with an entry struck for a fabricated source is
// disqualified at once — the chair's ruling says so — and speaks no more:
// the chair announces it, the rounds end there (the round under way is
// not finished, and no round begins: [EndDisqualification]; Outcome.Rounds
// counts the rounds begun), the pending findings are reviewed, and the
// other side alone delivers its closing statement. The outcome follows by
// rule, not by the chair model's judgement: the other side wins
// ("negative_wins" when the promoter is disqualified, "affirmative_wins"
// when the detractor is), unless the other side is disqualified too, when
// the debate is "void" at once — no closing statement is delivered (the
// seed's example of a void debate: "both debaters had fabricated
// sources"). The chair model is asked for the verdict only when neither
// side is disqualified ([Outcome.Disqualified]).
//
// # Redactions
//
// A redacted entry is struck from every output: [Strike] replaces its
// content and sources with a notice (and those of the source challenges,
// findings and rulings on points of order about it, which may quote it;
// the chair's other rulings never quote an entry), and prompts written
// after the redaction, [Outcome.Entries], the result's transcript (amended
// with [engine.Session.Amend]), [ExportLog] and all documents — including
// everything the reporter and assessor models are shown — see only the
// struck log. The store keeps the entry as it was said, for audit, and so
// do the events announced before the redaction, an argument map
// (engine.WithArgumentMap), whose moves are extracted from each turn as it
// is said, and the seed's append-only debate-log.jsonl in the output
// directory (below), where the redaction follows the entry. What the other debater said about the entry
// before it was struck (a rebuttal quoting it, say) is that debater's own
// words and stays.
//
// # The log
//
// Every entry is a stored record ([RecordEntry]) holding an [Entry] in the
// seed's JSONL schema, announced to the sink as [EventEntry] and followed by
// its utterance. [ExportLog] writes the log as the seed's JSONL; [ImportLog]
// reads and validates one; [EntriesFromRecords] recovers the log of a stored
// debate.
//
// # Documents
//
// The documents are in [Outcome.Docs] and, with their file names and
// titles, [Outcome.Documents]. The seed's output directory,
// <timestamp>-<slug>, holds transcript.md, summary.md, blog-post.md (none
// on a void debate), assessor-report.md and debate-log.jsonl, the log in
// the seed's schema (read it back with [ImportLog]); its name, [DirName],
// is the debate's recorded start ([Outcome.Started], UTC) and the topic's
// [Slug], as the seed's shell snippet computes them.
//
// With Config.OutputDir set, the debate creates the directory in it when
// it starts (Step C; a name taken gets a suffix, "-2", "-3", ...) and
// appends every entry to its debate-log.jsonl as the entry is stored, as
// said — the seed's "append-only debate log": a reader can follow it
// (tail -f), a debate stopped midway leaves the log of what it stored, a
// struck entry stays as it was, followed by its redaction entry, and a
// resumed debate appends after the lines it finds, never rewriting one (a
// replayed debate that adds no entry writes nothing). The documents are
// written into it as the debate's last stored step, each file whole or
// not at all.
//
// [WriteOutput] writes the directory for a finished debate from its
// outcome, whose entries are struck: its debate-log.jsonl is the struck
// log ([ExportLog]). Writing the same outcome again finds the directory it
// wrote. Files are 0644 in a 0755 directory; a file is never written over
// ([ErrOutputExists]).
package formal
