package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/duelogic/duelogic/events"
	"github.com/duelogic/duelogic/store"
)

// list prints the debates recorded in dir, oldest first.
func list(ctx context.Context, dir string, w io.Writer) error {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(w, "no debates in %s\n", dir)
		return nil
	}
	js, err := store.OpenJSONL(dir)
	if err != nil {
		return err
	}
	defer js.Close()
	ids, err := js.Debates(ctx)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		fmt.Fprintf(w, "no debates in %s\n", dir)
		return nil
	}
	var sums []events.Summary
	for _, id := range ids {
		recs, err := js.Records(ctx, id)
		if err != nil {
			return err
		}
		s, err := events.Summarize(recs)
		if err != nil {
			return fmt.Errorf("debate %s: %w", id, err)
		}
		sums = append(sums, s)
	}
	// Oldest first, so the newest is next to the prompt.
	slices.SortStableFunc(sums, func(a, b events.Summary) int { return a.Started.Compare(b.Started) })
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tFORMAT\tSTATUS\tUTTERANCES\tUPDATED\tQUESTION")
	for _, s := range sums {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", s.ID, s.Format, s.Status, s.Utterances,
			s.Updated.Local().Format(time.DateTime), clip(s.Debate.Proposition, 60))
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
