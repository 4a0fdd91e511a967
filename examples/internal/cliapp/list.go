package cliapp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/events"
	"github.com/duelogic/duelogic/examples/internal/render"
	"github.com/duelogic/duelogic/store"
)

// lister is a store that can name its debates (JSONL and pgstore can).
type lister interface {
	store.Store
	Debates(ctx context.Context) ([]string, error)
}

// list prints the debates recorded in dir (a JSONL directory, or a URL
// openURL opens), oldest first, to w. A debate it cannot read (a damaged
// file) is left out of the table and named in a note on errw, so that one
// bad file does not hide the others; list returns an error only when it
// cannot list the store at all.
func list(ctx context.Context, dir string, openURL StoreOpener, w, errw io.Writer) error {
	name := storeName(dir)
	if local := strings.TrimPrefix(dir, sqlitePrefix); !isURL(dir) || local != dir {
		if _, err := os.Stat(local); errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(w, "no debates in %s\n", name)
			return nil
		}
	}
	st, err := openStore(ctx, dir, openURL, errw)
	if err != nil {
		return err
	}
	defer closeStore(st)
	ls, ok := st.(lister)
	if !ok {
		return fmt.Errorf("the store %s cannot list its debates", name)
	}
	ids, err := ls.Debates(ctx)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		fmt.Fprintf(w, "no debates in %s\n", name)
		return nil
	}
	var sums []events.Summary
	var damaged []string
	for _, id := range ids {
		s, err := summary(ctx, st, id)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		what := id
		if !isURL(dir) {
			what = filepath.Join(dir, id+".jsonl")
		}
		switch {
		case errors.Is(err, store.ErrNotFound):
			// Listed, then read without a record: the file was removed
			// or replaced in between.
			if isURL(dir) {
				break
			}
			if _, serr := os.Stat(what); serr == nil {
				damaged = append(damaged, fmt.Sprintf("%s is damaged (not listed): it holds no complete record", what))
			}
		case err != nil:
			damaged = append(damaged, fmt.Sprintf("%s is damaged (not listed): %s", what, safeError(err)))
		default:
			sums = append(sums, s)
		}
	}
	if len(sums) == 0 {
		fmt.Fprintf(w, "no readable debates in %s\n", name)
	} else if err := table(w, sums); err != nil {
		return err
	}
	for _, d := range damaged {
		fmt.Fprintln(errw, "debate:", d)
	}
	return nil
}

// summary reads the stored debate id.
func summary(ctx context.Context, js store.Store, id string) (events.Summary, error) {
	recs, err := js.Records(ctx, id)
	if err != nil {
		return events.Summary{}, err
	}
	return summarize(recs)
}

// statusPaused is the status of a debate paused at a question to its
// person (engine.Pending), beside the store's finished and stopped.
const statusPaused events.Status = "paused"

// summarize is events.Summarize, with the status of a debate paused at a
// question said as such ("paused", not "stopped").
func summarize(recs []store.Record) (events.Summary, error) {
	sum, err := events.Summarize(recs)
	if err != nil {
		return sum, err
	}
	if _, ok := engine.Pending(recs); ok && sum.Status == events.StatusStopped {
		sum.Status = statusPaused
	}
	return sum, nil
}

// table prints sums, oldest first, so the newest is next to the prompt.
func table(w io.Writer, sums []events.Summary) error {
	slices.SortStableFunc(sums, func(a, b events.Summary) int { return a.Started.Compare(b.Started) })
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tFORMAT\tSTATUS\tUTTERANCES\tUPDATED\tQUESTION")
	for _, s := range sums {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", render.Sanitize(s.ID), render.Sanitize(s.Format), s.Status, s.Utterances,
			s.Updated.Local().Format(time.DateTime), render.Sanitize(clip(s.Debate.Proposition, 60)))
	}
	return tw.Flush()
}

// clip shortens s to at most n characters on one line.
func clip(s string, n int) string {
	out := make([]rune, 0, n)
	for _, r := range s {
		if r == '\n' || r == '\r' || r == '\t' {
			r = ' '
		}
		out = append(out, r)
	}
	if utf8.RuneCountInString(string(out)) > n {
		return string(out[:n-1]) + "…"
	}
	return string(out)
}
