// Package sqlitestore is a duelogic store in one SQLite database file: a
// [store.Store] whose record log several processes of one machine can
// share, and a [store.Locker] that lets one of them at a time play a
// debate.
//
//	st, err := sqlitestore.Open(ctx, "debates.db")
//	if err != nil { ... }
//	defer st.Close()
//	orch, err := duelogic.New(cfg, client, duelogic.WithStore(st))
//
// It is a module of its own (github.com/duelogic/duelogic/store/sqlitestore),
// so that the core module does not require a database driver. It uses
// modernc.org/sqlite through database/sql: SQLite in pure Go, no cgo.
//
// # The file
//
// [Open] creates the file and its schema, or opens a store it created
// before. The file's header says it is a duelogic store (its
// application_id is [ApplicationID]) and the schema's version (its
// user_version; the versions this package knows are applied in one
// transaction, see [SchemaVersion]). Open refuses, with an error wrapping
// [ErrForeign] that names the file, anything else: bytes that are not a
// SQLite database (a damaged file, another kind of file), another
// application's database; it writes nothing to such a file. An empty
// SQLite database becomes a store.
//
// The database is in WAL mode: readers do not wait for the writer, and the
// writer does not wait for readers. Every Append is one transaction that
// takes the database's write lock at its start (BEGIN IMMEDIATE), checks
// the debate's last Seq, inserts the record and commits; the WAL is synced
// at every commit (synchronous=FULL), so an acknowledged record survives a
// crash of the machine, not only of the process. Appends of one process
// that wait while another commits are committed together, in its next
// transaction (group commit: one sync for them all, each record in a
// savepoint of its own, so each Append has its own verdict); appends of
// several processes wait for one another in SQLite's busy handler, up to
// [BusyTimeout]. Many debates, played by many goroutines and processes,
// share one file.
//
// records is the log and the source of truth: one row per record, keyed by
// (debate_id, seq), with its type, its time (RFC 3339 with nanoseconds and
// the offset) and its data (the JSON, byte for byte):
//
//	-- the size of each debate's log
//	SELECT debate_id, max(seq) AS records FROM records GROUP BY debate_id;
//	-- what was said in a debate (the engine's utterance records)
//	SELECT seq, json_extract(data, '$.value.speaker') AS speaker, json_extract(data, '$.value.content') AS says
//	FROM records WHERE debate_id = ? AND type = 'utterance' ORDER BY seq;
//
// Beside the log are the tables people query, derived from it record by
// record: package sqlproj's definition in its SQLite dialect, the same one
// pgstore renders for PostgreSQL — debates, utterances and judgments for
// every debate, and each linked format's own tables (the podcast's
// debate_chairs, response_evaluations and chair_interruptions, moderated's
// debate_rounds, formal's entries, sources and verifications, scored's
// rounds, persuasion's moves, commitments and arguments). JSON columns are
// text (json_extract reads them), times RFC 3339 text in UTC, booleans 0
// and 1:
//
//	-- every formal verdict of the last week, with its winner
//	SELECT id, verdict_winner, verdict_summary FROM debates
//	WHERE format = 'formal' AND status = 'finished' AND ended_at >= strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-7 days');
//	-- the rounds of one moderated debate
//	SELECT round, json_array_length(arguments), decision FROM debate_rounds WHERE debate_id = ? ORDER BY round;
//
// A record's rows are written in the transaction of its Append, after the
// record, so the tables are never ahead of the log. When a projection
// fails for what it is (a format's projector, a table changed by hand)
// rather than for the database, its rows are rolled back and the failure
// kept ([Store.ProjectionFaults]): the record stays stored — the log is
// the truth, and a debate does not stop because a table disagrees — until
// [Store.Rebuild] derives the debate's rows again from its log. A format
// that is not linked into the process that appends gets the common tables
// only; Rebuild, in a process that links it, fills its own.
//
// # Faults
//
// A process killed in the middle of an Append (kill -9, a crash) leaves
// its transaction uncommitted: the next connection to the file rolls it
// back, and the log holds exactly the records acknowledged before. A full
// disk (or a size limit: SQLite's max_page_count, the process's file size
// limit) fails the Append with an error that names the file and says so,
// and stores nothing of the record; once there is room the debate resumes.
// A file damaged after Open (pages overwritten) fails reads with an error
// wrapping store.ErrCorrupt that names the file.
//
// # Several processes
//
// SQLite has no advisory locks, so [Store.Lock] uses the operating system's:
// an exclusive flock(2), taken without waiting, on a lock file of the
// debate in the directory <database>.locks beside the file (named by a
// hash of the debate's ID). The kernel frees a flock when its holder's
// process dies, however it dies, so a lock never outlives its holder; a
// killed holder leaves its lock file behind, unlocked, which the next
// holder takes and removes when it unlocks. [Store.Unfinished] lists the
// debates a worker would resume. All of this holds for the processes of
// one machine: SQLite's WAL mode, like flock, does not work across a
// network file system.
package sqlitestore
