// Package riverjobs plays duelogic debates as jobs of River
// (github.com/riverqueue/river), the PostgreSQL job queue, in the database
// store/pgstore keeps the debates in: any number of worker processes, on any
// number of machines, share one queue.
//
//	q, err := riverjobs.New(ctx, pool, riverjobs.Config{Store: st, Model: client, Concurrency: 4})
//	id, err := q.Enqueue(ctx, "formal", nil, engine.Debate{Proposition: "Should cities ban cars?"})
//	err = q.Start(ctx)         // a worker: plays jobs until Shutdown
//	err = q.Shutdown(30 * time.Second)
//
// # Enqueue
//
// [Queue.Enqueue] checks the format, its configuration ([engine.Open]) and
// the debate ([engine.ValidateDebate]) before anything is stored, then
// commits the debate's first record (as [engine.Run] writes it, through
// pgstore's AppendTx) and its River job in one transaction: no debate exists
// without its job, no job without its debate. A job is unique by debate ID
// among the jobs not yet finalized, so a debate is queued or played by one
// job at a time.
//
// # Workers
//
// A [Queue] with a Config.Model is a worker: its River client plays each job
// with [engine.ResumeStored] (the debate's format and configuration come from
// its first record, so a worker knows no format by name; linking the format's
// package registers it) and the model the host gives. An attempt plays for at
// most Config.AttemptLimit: past it the worker starts no new model call, the
// debate stops at its next step and the job is snoozed, to be resumed by any
// worker — resuming replays the log, which costs no model call. So River's
// rescue of a job whose worker died (RescueStuckJobsAfter, set from the
// attempt limit) can be short. It is not the bound: a worker holds a
// session-level advisory lock named after its ID while it runs, which the
// database frees when the worker's session ends, and every worker, every
// Config.RescueInterval (a second), makes the running jobs of workers whose
// lock is free available again (rescue.go). A worker killed on one machine
// has its debates resumed by another within about a second of the kill
// (TestChaos measures it); a machine that vanishes without closing its
// connections is noticed through the session's TCP keepalives, set to about
// 15 s.
//
// When the database goes away, the attempts under way stop with an error
// naming the database (their jobs are retried by River once it is back),
// and the worker logs that it lost its session; it keeps running and picks
// jobs up again when the database is back.
//
// A debate that asks its person a question ([engine.ErrPaused]) completes its
// job as waiting; [Queue.Requeue] with the person's answer enqueues it again,
// and the worker answers the waiting question with it. [Queue.Cancel] cancels
// a debate's job from any process (River's JobCancel, which reaches the
// playing worker through LISTEN/NOTIFY): the model call under way is
// abandoned, what was said stays stored, and [Queue.Requeue] resumes it later.
// A job whose debate cannot be played — no such debate, an unknown format, a
// damaged log — fails once, with the reason, and is not retried; so does a
// debate whose budget (engine.WithBudget in [Config].Options) is spent,
// which workers with a larger budget finish when it is queued again. A
// model or database error is retried with River's backoff.
//
// [Queue.Shutdown] stops fetching jobs, lets each running debate stop at its
// next step (its job snoozed for another worker), and cancels what is left at
// its bound.
//
// [Queue.List] tells each debate's status: queued, running (and on which
// worker), paused, cancelled, stopped (failed, or left without a job) or
// finished.
//
// # Provider limits
//
// [Limiter] keeps at most N model calls in flight per provider across every
// worker of the database: a table of slots with leases, so that the slot of a
// worker that died comes back when its lease runs out. It can also keep a
// provider's rate ([Limits.Rate]): at most M calls begin in any minute
// (LimiterConfig.RateWindow) across every worker. The rate is a sliding
// window of the calls' starts, stamped with the database's clock in a table
// that a call checks and adds to under a transaction-scoped advisory lock
// named after the provider; rows older than the window are pruned, so a
// worker that died consumes the rate for no longer than the window. A call
// takes its slot first and waits for the rate in it, so that its stamp is
// its start. Waits for a slot and for the rate are logged (Info).
//
// It is a module of its own, so that the core module does not require River
// or a database driver.
package riverjobs
