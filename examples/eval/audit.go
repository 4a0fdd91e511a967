package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/eval"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/openai"
	"github.com/duelogic/duelogic/store"

	// The judged formats the audit re-judges, by name.
	_ "github.com/duelogic/duelogic/formal"
	_ "github.com/duelogic/duelogic/moderated"
	_ "github.com/duelogic/duelogic/persuasion"
	_ "github.com/duelogic/duelogic/scored"
)

type auditOptions struct {
	store, out           string
	jurors, debates      []string
	forkBefore, jurorKey string
	swap                 bool
	swapPatch, labels    string
	baseURL, apiKey      string
	routes               []string // PATTERN=URL
	seed                 uint64
}

// jury returns the audit's client: an llm.Router sending each juror's
// model to the endpoint its -route names, and the rest to the -base-url
// endpoint (the offline stub without one).
func jury(o auditOptions) (llm.Client, error) {
	var def llm.Client = llm.NewStub(int64(o.seed))
	if o.baseURL != "" {
		def = openai.New(openai.Config{BaseURL: o.baseURL, APIKey: o.apiKey})
	}
	r := llm.NewRouter(def)
	for _, rt := range o.routes {
		pattern, u, ok := strings.Cut(rt, "=")
		if pu, err := url.Parse(u); !ok || pattern == "" || err != nil || pu.Scheme != "http" && pu.Scheme != "https" || pu.Host == "" {
			return nil, usagef("-route %q: want MODEL=URL (an http:// or https:// endpoint; MODEL may end in / or *)", rt)
		}
		r.Handle(pattern, openai.New(openai.Config{BaseURL: u, APIKey: o.apiKey}))
	}
	return r, nil
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
	case (o.jurorKey == "") != (o.forkBefore == ""):
		return exitUsage, usagef("-juror-key and -fork-before go together (neither: the judged format's own)")
	case o.swap && o.swapPatch != "":
		return exitUsage, usagef("-swap and -swap-patch: give one")
	}
	var swap *eval.Swap
	if o.swapPatch != "" {
		if !json.Valid([]byte(o.swapPatch)) {
			return exitUsage, usagef("-swap-patch: not JSON")
		}
		swap = &eval.Swap{Patch: json.RawMessage(o.swapPatch)}
	}
	// -labels is read here and parsed once the debates' format is known:
	// a podcast's labels are evaluations, the others' verdicts.
	var labelsFile []byte
	if o.labels != "" {
		var err error
		if labelsFile, err = os.ReadFile(o.labels); err != nil {
			return exitUsage, usagef("-labels: %v", err)
		}
	}
	client, err := jury(o)
	if err != nil {
		return exitUsage, err
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
	// The audit: the judged format's own, or -fork-before and -juror-key.
	var judged *eval.Judged
	if o.forkBefore == "" {
		format := ""
		var podcasts []string
		for _, id := range ids {
			sum, err := engine.Inspect(ctx, src, id)
			if err != nil {
				return exitFail, fmt.Errorf("read debate %s: %w", id, err)
			}
			j, ok := eval.JudgedFormat(sum.Format)
			podcast := sum.Format == duelogic.FormatName
			switch {
			case !ok && !podcast && len(o.debates) > 0:
				return exitUsage, usagef("debate %s is a %s debate, which has no built-in audit; give -fork-before and -juror-key", id, sum.Format)
			case !ok && !podcast:
				continue
			case format != "" && sum.Format != format:
				return exitUsage, usagef("%s holds %s and %s debates; name the ones to audit with -debates", o.store, format, sum.Format)
			}
			format = sum.Format
			if podcast {
				podcasts = append(podcasts, id)
			} else {
				judged = &j
			}
		}
		if format == duelogic.FormatName {
			return auditPodcasts(ctx, o, client, src, dst, podcasts, labelsFile, stdout, stderr)
		}
		if judged == nil {
			return exitUsage, usagef("%s holds no debate of a judged format (%s)", o.store, judgedNames())
		}
		o.forkBefore = judged.ForkBefore
		if o.swap {
			if judged.Swap == nil {
				return exitUsage, usagef("-swap: a %s verdict has no order of sides to swap", judged.Format)
			}
			swap = judged.Swap
		}
		fmt.Fprintf(stderr, "eval: auditing %s debates: %s\n", judged.Format, judged.Note)
	} else if o.swap {
		return exitUsage, usagef("-swap needs the judged format's own audit; with -fork-before give -swap-patch")
	}
	var labels map[string]string
	if o.labels != "" {
		if labels, err = eval.ReadLabels(bytes.NewReader(labelsFile)); err != nil {
			return exitUsage, usagef("-labels %s: %v", o.labels, err)
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
	var a eval.Audit
	if judged != nil {
		a = judged.Audit(chosen, o.jurors, false)
	} else {
		a = eval.Audit{Debates: chosen, ForkBefore: o.forkBefore}
		for _, m := range o.jurors {
			patch, _ := json.Marshal(map[string]string{o.jurorKey: m})
			a.Jurors = append(a.Jurors, eval.Juror{Name: m, Model: m, Patch: patch})
		}
	}
	a.Swap, a.Labels = swap, labels
	jurors := a.Jurors
	fmt.Fprintf(stderr, "eval: re-judging %d debates with %d jurors\n", len(chosen), len(jurors))
	rep, err := eval.RunAudit(ctx, client, dst, a)
	if err != nil {
		if errors.Is(err, eval.ErrBadConfig) {
			return exitUsage, err
		}
		return exitFail, err
	}
	return writeAudit(o.out, rep, rep.Markdown(), stdout)
}

// judgedNames lists the formats with a built-in audit.
func judgedNames() string {
	var names []string
	for _, j := range eval.JudgedFormats() {
		names = append(names, j.Format)
	}
	return strings.Join(append(names, duelogic.FormatName), ", ")
}

// LabelsTemplate is the file of auditPodcasts's output directory that
// lists every evaluation audited as a line of a labels file
// (eval.EvaluationLabel: the debate, the response's utterance seq and its
// chair), for a person to fill in and give to -labels.
const LabelsTemplate = "labels-template.jsonl"

// auditPodcasts audits the evaluations of the podcast debates ids of src
// (every one with an evaluation when -debates named none): they are copied
// into dst, and every evaluation is asked again of each juror on its own
// (eval.RunEvaluationAudit), so no speech is asked again. -labels gives
// people's evaluations (eval.ReadEvaluationLabels), which the arbiter and
// each juror are compared with; OUT/labels-template.jsonl lists the
// evaluations to label. A podcast's evaluations have no sides to swap, so
// -swap is refused.
func auditPodcasts(ctx context.Context, o auditOptions, client llm.Client, src, dst store.Store, ids []string, labelsFile []byte, stdout, stderr io.Writer) (int, error) {
	if o.swap {
		return exitUsage, usagef("-swap: a podcast's evaluations judge one response at a time: there is no order of sides to swap")
	}
	var labels []eval.EvaluationLabel
	if o.labels != "" {
		var err error
		if labels, err = eval.ReadEvaluationLabels(bytes.NewReader(labelsFile)); err != nil {
			return exitUsage, usagef("-labels %s: %v (a podcast's labels are evaluations: see %s)", o.labels, err, LabelsTemplate)
		}
	}
	var chosen []string
	for _, id := range ids {
		evals, err := duelogic.StoredEvaluations(ctx, src, id, nil)
		if err != nil {
			return exitFail, err
		}
		if len(evals) == 0 {
			if len(o.debates) > 0 {
				return exitUsage, usagef("debate %s has no evaluation (played at the relaxed accountability level?)", id)
			}
			continue
		}
		recs, err := src.Records(ctx, id)
		if err != nil {
			return exitFail, fmt.Errorf("read debate %s: %w", id, err)
		}
		if err := copyDebate(ctx, dst, id, recs); err != nil {
			return exitFail, err
		}
		chosen = append(chosen, id)
	}
	if len(chosen) == 0 {
		return exitUsage, usagef("%s holds no podcast debate with an evaluation", o.store)
	}
	fmt.Fprintf(stderr, "eval: auditing %s debates: the arbiter's evaluation of each chair response, asked again of every juror on its own (no speech is asked again; no position swap)\n", duelogic.FormatName)
	rep, err := eval.RunEvaluationAudit(ctx, client, dst, eval.EvaluationAudit{Debates: chosen, Jurors: o.jurors, Labels: labels})
	if err != nil {
		if errors.Is(err, eval.ErrBadConfig) || errors.Is(err, eval.ErrBadLabels) {
			return exitUsage, err
		}
		return exitFail, err
	}
	fmt.Fprintf(stderr, "eval: %d judgments asked\n", rep.Asked)
	var tmpl bytes.Buffer
	for _, d := range rep.Debates {
		for _, e := range d.Evaluations {
			line, err := json.Marshal(eval.EvaluationLabel{Debate: d.ID, Utterance: e.UtteranceSeq, Speaker: e.Speaker})
			if err != nil {
				return exitFail, err
			}
			tmpl.Write(append(line, '\n'))
		}
	}
	if err := os.WriteFile(filepath.Join(o.out, LabelsTemplate), tmpl.Bytes(), 0o644); err != nil {
		return exitFail, err
	}
	return writeAudit(o.out, rep, rep.Markdown(), stdout)
}

// writeAudit writes rep as OUT/audit.json and md as OUT/audit.md, and md
// to stdout.
func writeAudit(out string, rep any, md string, stdout io.Writer) (int, error) {
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return exitFail, err
	}
	for name, data := range map[string][]byte{"audit.json": append(js, '\n'), "audit.md": []byte(md)} {
		if err := os.WriteFile(filepath.Join(out, name), data, 0o644); err != nil {
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
