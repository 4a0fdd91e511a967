package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/jobs/riverjobs"
	"github.com/duelogic/duelogic/store/pgstore"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The job flags: with a postgres:// store, debates are queued for the
// workers of examples/worker (River jobs, jobs/riverjobs) rather than played
// here.
//
//	pgcli --store postgres://... --enqueue [--format F] [--format-config JSON] [--context TEXT] [--no-checkpoints] [--id ID] "question"
//	pgcli --store postgres://... --cancel ID
//	pgcli --store postgres://... --requeue ID [--answer TEXT] [--choice C]
//	pgcli --store postgres://... --list
//
// --enqueue prints the new debate's ID and returns; --cancel stops the
// debate's job wherever it plays (what was said stays); --requeue queues a
// cancelled, stopped or paused debate again, with the person's answer to
// the question it waits for; --list shows each debate's status: queued,
// running (and on which worker), paused, cancelled, stopped or finished.
var jobFlags = []string{"enqueue", "cancel", "requeue"}

// isJobs reports whether args ask for the job commands: a job flag, or
// --list with a postgres:// store.
func isJobs(args []string) bool {
	list, pg := false, false
	for i, a := range args {
		if a == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") {
			continue
		}
		for _, f := range jobFlags {
			if name == f {
				return true
			}
		}
		switch name {
		case "list":
			list = true
		case "store":
			if !hasValue && i+1 < len(args) {
				value = args[i+1]
			}
			pg = strings.HasPrefix(value, "postgres://") || strings.HasPrefix(value, "postgresql://")
		}
	}
	return list && pg
}

// jobOptions are the job commands' flags.
type jobOptions struct {
	store, cancel, requeue, format, config, context, id, answer, choice string
	enqueue, list, unattended                                           bool
	question                                                            string
}

func parseJobs(args []string, stderr io.Writer) (*jobOptions, error) {
	o := &jobOptions{}
	fs := flag.NewFlagSet("debate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.store, "store", "", "the postgres:// database of the queue")
	fs.BoolVar(&o.enqueue, "enqueue", false, "queue the debate for the workers (examples/worker), print its ID and return")
	fs.StringVar(&o.cancel, "cancel", "", "cancel the job of the debate with this ID, wherever it plays")
	fs.StringVar(&o.requeue, "requeue", "", "queue the stored debate with this ID again (cancelled, stopped or paused)")
	fs.StringVar(&o.answer, "answer", "", "with --requeue: the answer to the question the debate waits for")
	fs.StringVar(&o.choice, "choice", "", "with --requeue: the choice answering the question the debate waits for")
	fs.BoolVar(&o.list, "list", false, "list the debates with the status of their jobs")
	fs.StringVar(&o.format, "format", "duelogic", "with --enqueue: the debate format: "+strings.Join(engine.Formats(), ", "))
	fs.StringVar(&o.config, "format-config", "", "with --enqueue: the format's configuration as JSON (its fields; left out: defaults)")
	fs.StringVar(&o.context, "context", "", "with --enqueue: background for the question")
	fs.StringVar(&o.id, "id", "", "with --enqueue: the debate's ID (default a new one)")
	fs.BoolVar(&o.unattended, "no-checkpoints", false, "with --enqueue: the debate asks nobody anything")
	var words []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		words, args = append(words, fs.Arg(0)), fs.Args()[1:]
	}
	o.question = strings.TrimSpace(strings.Join(words, " "))
	n := 0
	for _, set := range []bool{o.enqueue, o.cancel != "", o.requeue != "", o.list} {
		if set {
			n++
		}
	}
	switch {
	case n != 1:
		return nil, errors.New("give one of --enqueue, --cancel, --requeue and --list")
	case strings.HasPrefix(o.store, sqlitePrefix):
		return nil, fmt.Errorf("--store %s: a SQLite store has no job queue: --enqueue, --cancel and --requeue queue debates in PostgreSQL (give --store postgres://URL); to play the debate here, leave out --enqueue", o.store)
	case !strings.HasPrefix(o.store, "postgres://") && !strings.HasPrefix(o.store, "postgresql://"):
		return nil, errors.New("the job commands queue debates in PostgreSQL: give --store postgres://URL")
	case o.enqueue && o.question == "":
		return nil, errors.New("--enqueue: no question to debate")
	case !o.enqueue && o.question != "":
		return nil, errors.New("only --enqueue takes a question")
	case (o.answer != "" || o.choice != "") && o.requeue == "":
		return nil, errors.New("--answer and --choice go with --requeue")
	}
	return o, nil
}

// runJobs runs the job commands; it returns the exit status (0 done, 1
// failed, 2 bad usage).
func runJobs(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseJobs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "debate:", err)
		return 2
	}
	q, closeAll, err := openQueue(ctx, o.store)
	if err != nil {
		fmt.Fprintf(stderr, "debate: open store %s: %v\n", masked(o.store), err)
		return 1
	}
	defer closeAll()
	switch {
	case o.enqueue:
		var cfg json.RawMessage
		if o.config != "" {
			cfg = json.RawMessage(o.config)
		}
		id, err := q.Enqueue(ctx, o.format, cfg, engine.Debate{ID: o.id, Proposition: o.question, Context: o.context, Unattended: o.unattended})
		if err != nil {
			fmt.Fprintln(stderr, "debate:", err)
			if errors.Is(err, engine.ErrInvalidDebate) || errors.Is(err, engine.ErrInvalidConfig) || errors.Is(err, engine.ErrUnknownFormat) {
				return 2
			}
			return 1
		}
		fmt.Fprintln(stdout, id)
	case o.cancel != "":
		if err := q.Cancel(ctx, o.cancel); err != nil {
			fmt.Fprintln(stderr, "debate:", err)
			return 1
		}
		fmt.Fprintf(stdout, "cancelled %s\n", o.cancel)
	case o.requeue != "":
		var a *engine.Answer
		if o.answer != "" || o.choice != "" {
			a = &engine.Answer{Text: o.answer, Choice: o.choice}
		}
		if err := q.Requeue(ctx, o.requeue, a); err != nil {
			fmt.Fprintln(stderr, "debate:", err)
			return 1
		}
		fmt.Fprintf(stdout, "queued %s\n", o.requeue)
	case o.list:
		list, err := q.List(ctx)
		if err != nil {
			fmt.Fprintln(stderr, "debate:", err)
			return 1
		}
		printList(stdout, list)
	}
	return 0
}

// masked is a database URL with its password masked, as the debate
// command shows it.
func masked(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(an unparsable URL)"
	}
	if _, ok := p.User.Password(); ok {
		p.User = url.UserPassword(p.User.Username(), "xxxxx")
	}
	return p.String()
}

// openQueue opens the store and the queue of the database url names.
func openQueue(ctx context.Context, url string) (*riverjobs.Queue, func(), error) {
	st, err := pgstore.Open(ctx, url)
	if err != nil {
		return nil, nil, err
	}
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		st.Close()
		return nil, nil, fmt.Errorf("database: %w", err)
	}
	closeAll := func() { pool.Close(); st.Close() }
	q, err := riverjobs.New(ctx, pool, riverjobs.Config{Store: st})
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	return q, closeAll, nil
}

// printList prints the debates as the debate command's --list does, with
// their jobs' statuses, and the worker of each running one or the question
// a paused one waits for.
func printList(w io.Writer, list []riverjobs.Status) {
	if len(list) == 0 {
		fmt.Fprintln(w, "no debates")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tFORMAT\tSTATUS\tUTTERANCES\tUPDATED\tWHERE\tQUESTION")
	for _, s := range list {
		where := "-"
		switch {
		case s.Worker != "":
			where = "on " + s.Worker
		case s.Question != "":
			where = "waits: " + s.Question
		case s.Error != "":
			where = "failed"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\n", s.DebateID, printable(s.Format), s.Status, s.Utterances,
			s.Updated.Local().Format(time.DateTime), printable(where), printable(clip(s.Proposition, 60)))
	}
	tw.Flush()
}

// printable is s with its control characters shown as spaces.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r >= 0x7f && r <= 0x9f {
			return ' '
		}
		return r
	}, s)
}

// clip shortens s to at most n characters.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
