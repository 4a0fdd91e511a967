package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/duelogic/duelogic/eval"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/openai"
	"github.com/duelogic/duelogic/store"

	// The judged formats the audit re-judges, by name.
	_ "github.com/duelogic/duelogic"
	_ "github.com/duelogic/duelogic/formal"
	_ "github.com/duelogic/duelogic/moderated"
	_ "github.com/duelogic/duelogic/persuasion"
	_ "github.com/duelogic/duelogic/scored"
)

type auditOptions struct {
	store, out           string
	jurors, debates      []string
	forkBefore, jurorKey string
	swapPatch, labels    string
	baseURL, apiKey      string
	seed                 uint64
}

// audit re-judges the judged debates of o.store with a jury: the debates
// are copied into OUT/audit-store first, so the forks never touch the
// original store; it writes OUT/audit.md and OUT/audit.json.
func audit(ctx context.Context, o auditOptions, stdout, stderr io.Writer) (int, error) {
	switch {
	case o.out == "":
		return exitUsage, usagef("-out DIR is required: where the audit writes")
	case len(o.jurors) == 0:
		return exitUsage, usagef("-audit needs -jurors: the judges' model IDs")
	case o.jurorKey == "" || o.forkBefore == "":
		return exitUsage, usagef("-audit needs -juror-key and -fork-before")
	}
	var swap *eval.Swap
	if o.swapPatch != "" {
		if !json.Valid([]byte(o.swapPatch)) {
			return exitUsage, usagef("-swap-patch: not JSON")
		}
		swap = &eval.Swap{Patch: json.RawMessage(o.swapPatch)}
	}
	var labels map[string]string
	if o.labels != "" {
		f, err := os.Open(o.labels)
		if err != nil {
			return exitUsage, usagef("-labels: %v", err)
		}
		labels, err = eval.ReadLabels(f)
		f.Close()
		if err != nil {
			return exitUsage, err
		}
	}
	var client llm.Client = llm.NewStub(int64(o.seed))
	if o.baseURL != "" {
		client = openai.New(openai.Config{BaseURL: o.baseURL, APIKey: o.apiKey})
	}
	src, err := store.OpenJSONL(o.store)
	if err != nil {
		return exitUsage, usagef("-audit %s: %v", o.store, err)
	}
	defer src.Close()
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return exitFail, err
	}
	dst, err := store.OpenJSONL(filepath.Join(o.out, "audit-store"))
	if err != nil {
		return exitFail, err
	}
	defer dst.Close()

	ids := o.debates
	if len(ids) == 0 {
		if ids, err = src.Debates(ctx); err != nil {
			return exitFail, err
		}
	}
	var chosen []string
	for _, id := range ids {
		recs, err := src.Records(ctx, id)
		if err != nil {
			return exitFail, fmt.Errorf("read debate %s: %w", id, err)
		}
		if !slices.ContainsFunc(recs, func(r store.Record) bool { return r.Type == o.forkBefore }) {
			if len(o.debates) > 0 {
				return exitUsage, usagef("debate %s has no %q record to fork before", id, o.forkBefore)
			}
			continue
		}
		if err := copyDebate(ctx, dst, id, recs); err != nil {
			return exitFail, err
		}
		chosen = append(chosen, id)
	}
	if len(chosen) == 0 {
		return exitUsage, usagef("%s holds no debate with a %q record", o.store, o.forkBefore)
	}
	var jurors []eval.Juror
	for _, m := range o.jurors {
		patch, _ := json.Marshal(map[string]string{o.jurorKey: m})
		jurors = append(jurors, eval.Juror{Name: m, Model: m, Patch: patch})
	}
	fmt.Fprintf(stderr, "eval: re-judging %d debates with %d jurors\n", len(chosen), len(jurors))
	rep, err := eval.RunAudit(ctx, client, dst, eval.Audit{Debates: chosen, ForkBefore: o.forkBefore, Jurors: jurors, Swap: swap, Labels: labels})
	if err != nil {
		if errors.Is(err, eval.ErrBadConfig) {
			return exitUsage, err
		}
		return exitFail, err
	}
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return exitFail, err
	}
	md := rep.Markdown()
	for name, data := range map[string][]byte{"audit.json": append(js, '\n'), "audit.md": []byte(md)} {
		if err := os.WriteFile(filepath.Join(o.out, name), data, 0o644); err != nil {
			return exitFail, err
		}
	}
	fmt.Fprint(stdout, md)
	return exitOK, nil
}

// copyDebate copies a debate's records into dst, unless dst holds it
// already (a copy an earlier audit cut short is completed).
func copyDebate(ctx context.Context, dst store.Store, id string, recs []store.Record) error {
	have, err := dst.Records(ctx, id)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if len(have) > len(recs) {
		return fmt.Errorf("the audit's copy of debate %s has more records than the original", id)
	}
	for _, r := range recs[len(have):] {
		if err := dst.Append(ctx, r); err != nil {
			return fmt.Errorf("copy debate %s: %w", id, err)
		}
	}
	return nil
}
