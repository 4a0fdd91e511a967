// Package pgstore is a duelogic store in PostgreSQL: a [store.Store] whose
// record log several processes can share, a [store.Locker] that lets one of
// them at a time play a debate, and the tables of the Duelogic seed kept as
// projections of the log, for a host to query.
//
//	st, err := pgstore.Open(ctx, "postgres://app@db.internal/duelogic")
//	if err != nil { ... }
//	defer st.Close()
//	orch, err := duelogic.New(cfg, client, duelogic.WithStore(st))
//
// It is a module of its own (github.com/duelogic/duelogic/store/pgstore), so
// that the core module does not require a database driver; it uses pgx.
//
// # Schema
//
// [Open] brings the schema up to date: the migrations embedded in the package
// are versioned in schema_migrations and applied in one transaction under an
// advisory lock. Every table lives in the connection's current schema (set
// search_path in the DSN to use another than public).
//
// records is the log and the source of truth: one row per record, keyed by
// (debate_id, seq). The database keeps each debate's sequence whole: a Seq
// that is taken or that does not follow the debate's last fails the insert,
// and [Store.Append] reports it as store.ErrConflict. Every Append is one
// transaction that inserts the record and updates the projections below, so
// they are never behind the log and never ahead of it. The projection runs
// under a savepoint: if the database refuses it (a bug in a format's
// projector, a table changed by hand), it is rolled back, the record is
// stored all the same, and the fault is kept in projection_faults
// ([Store.ProjectionFaults]) until [Store.Rebuild] of the debate succeeds.
//
//	-- the size of each debate's log
//	SELECT debate_id, max(seq) AS records FROM records GROUP BY debate_id;
//
// The projections are the ones every SQL store shares, defined once in
// package [sqlproj] for PostgreSQL and SQLite: the common tables debates,
// utterances and judgments, from the engine's records, and the tables of
// each registered format that implements [engine.Projector], found in the
// engine's registry by the format's name in the debate's first record (a
// store knows no format): the podcast's debate_chairs, response_evaluations
// and chair_interruptions below, moderated's debate_rounds,
// moderated_decisions and moderated_perspectives, formal's formal_entries,
// formal_sources and formal_verifications, scored's scored_rounds and
// scored_scores, persuasion's persuasion_moves, persuasion_commitments and
// persuasion_arguments. [Open] creates the tables of the formats linked
// into the process; a record of a format not linked projects only the
// common tables. They are written for the debates whose first record is
// the engine's debate record; [Store.Rebuild] derives a debate's again from
// its log, [Store.RebuildAll] every debate's (Open does it once, when it
// upgrades a database of schema version 2 or older).
//
// debates has a row per debate: id, format (and debate_mode, its first
// name), config (every format's configuration as JSONB) and duelogic_config
// (seed 000's name: the podcast's configuration, NULL for other formats),
// proposition, context, status ("running" until the record that ends the
// debate, then "finished"), records (the last Seq), the verdict
// (verdict_winner, verdict_draw, verdict_void, verdict_summary), the usage
// and cost, fork_of and fork_at, created_at and started_at (the first
// record's time), updated_at (the last's) and ended_at.
//
//	-- debates that have not ended, oldest first (what Store.Unfinished lists)
//	SELECT id, debate_mode, proposition, updated_at FROM debates
//	WHERE status <> 'finished' ORDER BY created_at;
//
// debate_chairs has a row per chair of a configuration with a "chairs" array
// (the podcast's): chair_position, framework, model_id, model_display_name,
// provider_name.
//
//	-- which models argued which framework, and how often
//	SELECT framework, model_id, count(*) FROM debate_chairs GROUP BY 1, 2 ORDER BY 3 DESC;
//
// utterances has a row per utterance event of every format: debate_id, seq
// (the record's), speaker, kind, segment, exchange and round (the same),
// content, model, interrupted and interrupted_by (set when an interruption
// cuts into it), cut, truncated, defaulted, reply_to, reason, violation,
// target. judgments has a row per step and purpose of the judgments the
// step made: first, reasked, defaulted, truncated.
//
//	-- a debate's transcript
//	SELECT seq, speaker, kind, content FROM utterances WHERE debate_id = $1 ORDER BY seq;
//
// response_evaluations has a row per evaluation event, with the seed's
// columns: adherence_score, steel_manning_attempted, steel_manning_quality,
// self_critique_attempted, self_critique_quality, framework_consistent, and
// the whole evaluation as evaluation_data (JSONB); utterance_seq links it to
// the utterance it evaluates.
//
//	-- adherence by chair across debates
//	SELECT c.framework, c.model_id, avg(e.adherence_score) AS adherence,
//	       avg(e.steel_manning_attempted::int) AS steel_manning_rate, count(*) AS responses
//	FROM response_evaluations e
//	JOIN debate_chairs c ON c.debate_id = e.debate_id AND c.chair_position = e.speaker
//	GROUP BY c.framework, c.model_id ORDER BY adherence DESC;
//
// chair_interruptions has a row per interruption event (the podcast's
// "interruption", whose Data is its InterruptCandidate): interrupting_chair,
// interrupted_chair, trigger_reason, trigger_content, urgency (0 to 1),
// timestamp_ms (milliseconds since the debate's first record) and
// utterance_seq, the utterance cut into.
//
//	-- who interrupts whom, and why
//	SELECT interrupting_chair, interrupted_chair, trigger_reason, count(*), avg(urgency)
//	FROM chair_interruptions GROUP BY 1, 2, 3 ORDER BY 4 DESC;
//
// Text PostgreSQL cannot hold (a NUL character) is stored in the projections
// as U+FFFD; the log keeps every record byte for byte.
//
// # Several processes
//
// Any number of processes may open one database. [Store.Lock] takes a
// session-level advisory lock on a connection of its own, so that a debate
// is played by one process at a time (the engine takes it in Run and Resume)
// and a process that dies frees its locks with its connections. Holding the
// lock is not what keeps a log whole: the keys of records are, so even two
// writers that both believe they hold a debate cannot interleave its log.
// [Store.Unfinished] lists the debates a worker would resume.
package pgstore
