// Package sqlproj is the one definition of the tables SQL stores keep
// beside a debate's record log, and of how records fill them, for two
// dialects: [Postgres] (store/pgstore) and [SQLite] (store/sqlitestore).
// The log is the truth; the tables are what people query, derived from it
// record by record and rebuilt from it, equal to it always.
//
// # Tables
//
// The common tables, for every format, come from the engine's own records:
//
//   - debates(id, format, status, proposition, context, config,
//     duelogic_config, verdict_winner, verdict_draw, verdict_void,
//     verdict_summary, started_at, ended_at, ...): one row per debate;
//   - utterances(debate_id, seq, speaker, kind, segment, round, content,
//     cut, truncated, interrupted, ...): the transcript;
//   - judgments(debate_id, seq, purpose, first, reasked, defaulted,
//     truncated, ...): how each step's judgments were read.
//
// A format adds tables of its own by implementing [engine.Projector]; this
// package finds it in the engine's registry by the format's name
// ([engine.ProjectorOf]) and never imports a format. [Tables] lists them
// all; [Dialect.Schema] creates them.
//
// # Use from a store
//
// When the store opens, run [Dialect.Schema] (CREATE TABLE IF NOT
// EXISTS ...; [Dialect.AddColumns] for a table of an earlier schema). In
// the transaction of each Append, after the record is inserted, run the
// statements of [Dialect.Project] for it, given the debate's [Debate]
// (from its first record: [DebateOf]; a debate whose first record is not
// the engine's has no projections). Rebuild a debate by running
// [Dialect.Rebuild] of its records in one transaction. Statements are
// [Stmt]s with plain Go arguments: pgx's Exec takes them, and so does
// database/sql's ExecContext ([Exec]).
//
// # One set of rules
//
// Both dialects get the same rows: text without NUL (U+FFFD; PostgreSQL
// cannot hold it), JSON without \u0000, NaN and infinities as NULL, times
// from the year 1 on (SQLite: RFC 3339 text in UTC with nine decimals,
// which sorts as time), booleans as 0 and 1 in SQLite. A row given again
// for its key merges into the one there (see [engine.Merge]): a moderated
// round's arguments are appended one record at a time.
package sqlproj
