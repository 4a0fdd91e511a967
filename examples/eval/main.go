// Command eval asks whether a debate helps: it runs the same items through
// one answer, self-consistency, a Du-style debate and the vote of the
// debate's first answers, at an equal budget, and reports accuracy with
// intervals, paired tests, the flip ledger and a chart.
//
//	go run ./examples/eval -gen arith -n 50 -arms single,selfconsistency,debate,vote -budget equal -out DIR
//	go run ./examples/eval -items questions.jsonl -out DIR -base-url http://localhost:8080/v1
//	go run ./examples/eval -out DIR -base-url https://openrouter.ai/api/v1 -model openai/gpt-4o-mini \
//		-price openai/gpt-4o-mini=0.15/0.60 -max-cost 2
//
// A run is a directory: DIR/config.json (what the run is), DIR/items.jsonl
// (its items), DIR/store/ (every model call's result, as JSONL debate logs),
// and what it found: DIR/results.jsonl (each item's answers),
// DIR/report.md, DIR/report.json and DIR/chart.svg. Running the same
// command again resumes what did not finish and asks the model nothing it
// was asked before; a command whose settings differ from DIR/config.json
// is refused (use another -out). -max-cost, -price and -parallel may
// change between runs.
//
// The model is the offline stub (no key, no network) unless -base-url (or
// DUELOGIC_BASE_URL) names an OpenAI-compatible endpoint, with the key in
// DUELOGIC_API_KEY; without -model the server's first model is used. The
// stub is not a model: it answers right with the probability package eval
// documents (StubAccuracy), so a stub run shows the harness working and
// its report says that its numbers are no findings.
//
// Arms read from other formats answer yes/no items (-gen claims):
// persuasion (a persuasion dialogue's computed verdict) and claimstrength
// (the strength of PRO's thesis in its argument graph); moderated (a
// moderated debate's recommendation, read as one of the choices through a
// schema) answers any items with choices:
//
//	go run ./examples/eval -gen claims -n 20 -arms single,persuasion,claimstrength,moderated -out DIR
//
// With -audit STORE the command audits judges instead: the judged debates
// of a JSONL store (scored, formal or persuasion, found by their format;
// -fork-before and -juror-key name another format's judgment record and
// judge field) are copied into DIR/audit-store, forked before their first
// judgment with each of -jurors seated as the judge, and played on
// without their speeches being asked again; -swap judges each again with
// the sides shown in the other order; -route MODEL=URL sends a juror's
// model to its own endpoint (the jury is an llm.Router). DIR/audit.md and
// DIR/audit.json give the jury's Fleiss' kappa, each juror's consistency
// under the swap, its Cohen's kappa with the people's verdicts of -labels,
// and the verdicts a juror gave on debates its own model argued. The same
// command again reuses the forks it made: it asks nothing twice.
//
//	go run ./examples/eval -audit ./debates -jurors openai/gpt-4o,x-ai/grok-3,anthropic/claude-sonnet-4 -swap -labels labels.jsonl -out DIR
//
// A store of Duelogic podcasts (format "duelogic") is audited on the
// arbiter's evaluations instead: each stored evaluation's request is
// rebuilt from the transcript and asked again of every juror on its own
// (no speech is asked again, and the debate's flow is never changed).
// DIR/audit.md and DIR/audit.json give, per field (the adherence score in
// bands of 25, steel-manning and self-critique attempted or not), the
// jury's Fleiss' kappa, the juror pairs agreeing, and each juror's
// agreement with the debate's arbiter, and flag a juror's evaluations of
// its own model's responses. There is no position swap (one response is
// judged at a time). -labels gives people's evaluations, one JSON line per
// response, {"debate", "utterance", "adherence", "steelManning",
// "selfCritique"} (eval.EvaluationLabel: "utterance" is the response's
// seq; any field may be left out), and the report gives the arbiter's and
// each juror's Cohen's kappa with them per field. DIR/labels-template.jsonl
// lists every evaluation audited as such a line, to fill in.
//
// Progress goes to standard error; the summary to standard output. Exit
// status: 0 when the report was written (also when -max-cost stopped the
// run early), 1 when the run failed or was interrupted (run it again to
// continue), 2 for bad usage.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/eval"
	"github.com/duelogic/duelogic/examples/internal/render"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/openai"
	"github.com/duelogic/duelogic/store"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// runConfig is what a run is, stored as DIR/config.json: a later run of
// the same directory must have the same.
type runConfig struct {
	Gen         string   `json:"gen,omitempty"`
	Items       string   `json:"items,omitempty"` // the -items file, as given
	N           int      `json:"n,omitempty"`
	Seed        uint64   `json:"seed"`
	Arms        []string `json:"arms"`
	Agents      int      `json:"agents"`
	Rounds      int      `json:"rounds"`
	Samples     int      `json:"samples"`
	Budget      string   `json:"budget,omitempty"`
	Model       string   `json:"model"`
	Temperature *float64 `json:"temperature,omitempty"`
	Stub        bool     `json:"stub"`
}

// listFlag collects a repeated flag's values.
type listFlag []string

// String lists the values, for flag.Value.
func (l *listFlag) String() string { return strings.Join(*l, " ") }

// Set adds a value, for flag.Value.
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// usageError is a command line that cannot run.
type usageError struct{ msg string }

// Error is the message.
func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	gen := fs.String("gen", "", "a built-in item generator: arith (Du et al.'s a+b*c+d-e*f) or claims (yes/no claims built from it); arith without -items")
	itemsFile := fs.String("items", "", `a JSONL file of items {"id", "question", "answer", "choices"?}`)
	n := fs.Int("n", 50, "items to generate")
	seed := fs.Uint64("seed", 1, "the generator's seed (and the stub's)")
	arms := fs.String("arms", strings.Join(eval.Arms(), ","), "the arms to compare, comma-separated: "+strings.Join(eval.Arms(), ", ")+
		"; and, for yes/no items (-gen claims), "+eval.ArmPersuasion+" and "+eval.ArmClaimStrength+", for items with choices, "+eval.ArmModerated)
	agents := fs.Int("agents", eval.DefaultAgents, "the debate's agents")
	rounds := fs.Int("rounds", eval.DefaultRounds, "the debate's rounds of revision after the first answers")
	k := fs.Int("k", eval.DefaultSamples, "self-consistency's samples (without -budget equal)")
	budget := fs.String("budget", "", `"equal": pick self-consistency's k so its tokens per item match the debate's within 10%`)
	model := fs.String("model", "", "the model ID (default: the server's first model; \"stub\" offline)")
	temp := fs.String("temperature", "", "the sampling temperature, 0 to 2 (default: the provider's)")
	baseURL := fs.String("base-url", getenv("DUELOGIC_BASE_URL"), "an OpenAI-compatible endpoint (default $DUELOGIC_BASE_URL; none: the offline stub); the key is $DUELOGIC_API_KEY")
	ps := engine.Prices{}
	fs.Var(ps, "price", "MODEL=IN/OUT or MODEL=IN/CACHED/OUT: dollars per million input (cached input) and output tokens; MODEL * for any other model (repeatable)")
	maxCost := fs.Float64("max-cost", 0, "stop starting items once the run has cost this many dollars (0: no limit)")
	parallel := fs.Int("parallel", 4, "items played at once")
	out := fs.String("out", "", "the run's directory (required)")
	auditStore := fs.String("audit", "", "audit judges instead: a JSONL store directory of judged debates (e.g. examples/cli's ./debates) to re-judge (podcasts: their evaluations)")
	jurors := fs.String("jurors", "", "-audit: the jurors' model IDs, comma-separated")
	debates := fs.String("debates", "", "-audit: the debate IDs to re-judge, comma-separated (default: every debate with a judgment)")
	forkBefore := fs.String("fork-before", "", "-audit: the record type of the judged format's first judgment (default: the judged format's own audit: "+judgedNames()+")")
	jurorKey := fs.String("juror-key", "", "-audit: with -fork-before, the configuration field that seats the judge's model")
	swapFlag := fs.Bool("swap", false, "-audit: judge every debate again with the sides shown in the other order (position swap)")
	swapPatch := fs.String("swap-patch", "", "-audit: with -fork-before, a JSON merge patch of the configuration that swaps the order of the sides for the judge")
	var routes listFlag
	fs.Var(&routes, "route", "-audit: MODEL=URL sends a juror's model to another OpenAI-compatible endpoint (repeatable; MODEL may end in / or *)")
	labels := fs.String("labels", "", `-audit: a JSONL file of people's verdicts {"id", "label"} to compare each juror with (podcasts: evaluations {"debate", "utterance", "adherence", "steelManning", "selfCritique"}; see DIR/labels-template.jsonl)`)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if *auditStore != "" {
		code, err := audit(ctx, auditOptions{store: *auditStore, jurors: splitList(*jurors), debates: splitList(*debates),
			forkBefore: *forkBefore, jurorKey: *jurorKey, swap: *swapFlag, swapPatch: *swapPatch, labels: *labels, out: *out,
			baseURL: *baseURL, apiKey: getenv("DUELOGIC_API_KEY"), routes: routes, seed: *seed}, stdout, stderr)
		if err != nil {
			fmt.Fprintln(stderr, "eval:", render.Sanitize(err.Error()))
		}
		return code
	}
	code, err := evaluate(ctx, options{
		gen: *gen, itemsFile: *itemsFile, n: *n, seed: *seed, arms: *arms, agents: *agents, rounds: *rounds, k: *k,
		budget: *budget, model: *model, temperature: *temp, baseURL: *baseURL, apiKey: getenv("DUELOGIC_API_KEY"),
		prices: ps, maxCost: *maxCost, parallel: *parallel, out: *out,
	}, stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "eval:", render.Sanitize(err.Error()))
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintln(stderr, "run eval -h for the flags")
		}
	}
	return code
}

type options struct {
	gen, itemsFile  string
	n               int
	seed            uint64
	arms            string
	agents, rounds  int
	k               int
	budget, model   string
	temperature     string
	baseURL, apiKey string
	prices          engine.Prices
	maxCost         float64
	parallel        int
	out             string
}

// counting counts the model calls a run makes.
type counting struct {
	llm.Client
	calls atomic.Int64
}

// Complete counts the call and passes it on.
func (c *counting) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	c.calls.Add(1)
	return c.Client.Complete(ctx, req)
}

func evaluate(ctx context.Context, o options, stdout, stderr io.Writer) (int, error) {
	if o.out == "" {
		return exitUsage, usagef("-out DIR is required: the run's directory")
	}
	if o.gen != "" && o.itemsFile != "" {
		return exitUsage, usagef("-gen and -items: give one")
	}
	if o.gen == "" && o.itemsFile == "" {
		o.gen = "arith"
	}
	if o.gen != "" && !slices.Contains(eval.Generators(), o.gen) {
		return exitUsage, usagef("-gen %q: want one of %s", o.gen, strings.Join(eval.Generators(), ", "))
	}
	if o.n < 1 || o.n > 100000 {
		return exitUsage, usagef("-n %d: want 1 to 100000", o.n)
	}
	rc := runConfig{Gen: o.gen, Items: o.itemsFile, Seed: o.seed, Arms: splitList(o.arms), Agents: o.agents, Rounds: o.rounds,
		Samples: o.k, Budget: o.budget, Model: o.model, Stub: o.baseURL == ""}
	if o.gen != "" {
		rc.N = o.n
	}
	if o.temperature != "" {
		t, err := strconv.ParseFloat(o.temperature, 64)
		if err != nil || t < 0 || t > 2 {
			return exitUsage, usagef("-temperature %q: want a number from 0 to 2", o.temperature)
		}
		rc.Temperature = &t
	}

	var client llm.Client
	if rc.Stub {
		client = llm.NewStub(int64(o.seed))
		if rc.Model == "" {
			rc.Model = "stub"
		}
	} else {
		if u, err := url.Parse(o.baseURL); err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
			return exitUsage, usagef("-base-url: want an http:// or https:// URL")
		}
		oc := openai.New(openai.Config{BaseURL: o.baseURL, APIKey: o.apiKey})
		if rc.Model == "" {
			ids, err := oc.Models(ctx)
			if err != nil || len(ids) == 0 {
				return exitFail, fmt.Errorf("no -model given and the server at %s names none (%v); give -model", redacted(o.baseURL), err)
			}
			rc.Model = ids[0]
			fmt.Fprintf(stderr, "eval: using the server's model %s\n", render.Sanitize(rc.Model))
		}
		client = oc
	}

	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return exitFail, fmt.Errorf("make the run's directory: %w", err)
	}
	if code, err := checkConfig(filepath.Join(o.out, "config.json"), rc); err != nil {
		return code, err
	}
	items, err := loadItems(o, rc, stderr)
	if err != nil {
		var ue usageError
		if errors.As(err, &ue) || errors.Is(err, eval.ErrBadItems) {
			return exitUsage, err
		}
		return exitFail, err
	}
	st, err := store.OpenJSONL(filepath.Join(o.out, "store"))
	if err != nil {
		return exitFail, fmt.Errorf("open the run's store: %w", err)
	}
	defer st.Close()

	cc := &counting{Client: client}
	prog := newProgress(stderr)
	cfg := eval.Config{
		Arms: rc.Arms, Model: rc.Model, Temperature: rc.Temperature, Agents: rc.Agents, Rounds: rc.Rounds, Samples: rc.Samples,
		Budget: rc.Budget, Prices: o.prices, MaxCost: o.maxCost, Parallel: o.parallel, Stub: rc.Stub, Progress: prog.update,
	}
	start := time.Now()
	rep, err := eval.Evaluate(ctx, cc, st, items, cfg)
	prog.end()
	switch {
	case errors.Is(err, eval.ErrBadConfig):
		return exitUsage, usageError{err.Error()}
	case err != nil && ctx.Err() != nil:
		return exitFail, fmt.Errorf("interrupted: what was answered is stored in %s; run the same command again to continue", o.out)
	case err != nil:
		return exitFail, fmt.Errorf("%w\nwhat was answered is stored in %s; run the same command again to continue", err, o.out)
	}
	if err := writeOutputs(o.out, rep); err != nil {
		return exitFail, err
	}
	summary(stdout, rep, o.out, cc.calls.Load(), time.Since(start))
	return exitOK, nil
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// redacted is raw with any password masked.
func redacted(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(an unparsable URL)"
	}
	return u.Redacted()
}

// checkConfig writes rc to path, or, when path holds a run's configuration
// already, checks that rc is the same run.
func checkConfig(path string, rc runConfig) (int, error) {
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		b, _ := json.MarshalIndent(rc, "", "  ")
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			return exitFail, fmt.Errorf("write %s: %w", path, err)
		}
		return exitOK, nil
	case err != nil:
		return exitFail, fmt.Errorf("read %s: %w", path, err)
	}
	var old runConfig
	if err := json.Unmarshal(data, &old); err != nil {
		return exitFail, fmt.Errorf("%s is not a run's configuration: %w", path, err)
	}
	var diffs []string
	ov, nv := reflect.ValueOf(old), reflect.ValueOf(rc)
	for i := range ov.NumField() {
		name, _, _ := strings.Cut(ov.Type().Field(i).Tag.Get("json"), ",")
		a, _ := json.Marshal(ov.Field(i).Interface())
		b, _ := json.Marshal(nv.Field(i).Interface())
		if string(a) != string(b) {
			diffs = append(diffs, fmt.Sprintf("%s %s (this command: %s)", name, a, b))
		}
	}
	if len(diffs) > 0 {
		return exitUsage, usagef("%s holds a run with other settings: %s; use another -out, or the same settings to continue it",
			filepath.Dir(path), strings.Join(diffs, ", "))
	}
	return exitOK, nil
}

// loadItems reads the run's items from DIR/items.jsonl, or makes them (from
// the generator or -items) and writes them there.
func loadItems(o options, rc runConfig, stderr io.Writer) ([]eval.Item, error) {
	path := filepath.Join(o.out, "items.jsonl")
	if f, err := os.Open(path); err == nil {
		defer f.Close()
		items, err := eval.ReadItems(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return items, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	var items []eval.Item
	if rc.Gen != "" {
		var err error
		if items, err = eval.Generate(rc.Gen, rc.N, rc.Seed); err != nil {
			return nil, err
		}
	} else {
		f, err := os.Open(o.itemsFile)
		if err != nil {
			return nil, usagef("-items: %v", err)
		}
		defer f.Close()
		if items, err = eval.ReadItems(f); err != nil {
			return nil, fmt.Errorf("%s: %w", o.itemsFile, err)
		}
	}
	tmp := path + ".tmp"
	w, err := os.Create(tmp)
	if err != nil {
		return nil, err
	}
	if err := eval.WriteItems(w, items); err != nil {
		w.Close()
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "eval: %d items in %s\n", len(items), path)
	return items, nil
}

// writeOutputs writes report.md, report.json, chart.svg and results.jsonl.
func writeOutputs(dir string, rep *eval.Report) error {
	js, err := rep.JSON()
	if err != nil {
		return err
	}
	var results strings.Builder
	enc := json.NewEncoder(&results)
	for _, r := range rep.Results {
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("encode the results: %w", err)
		}
	}
	for name, data := range map[string][]byte{
		"report.md":     []byte(rep.Markdown("chart.svg")),
		"report.json":   js,
		"chart.svg":     rep.Chart(),
		"results.jsonl": []byte(results.String()),
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path+".tmp", data, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		if err := os.Rename(path+".tmp", path); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	return nil
}

// summary prints the arms and the pairs' verdicts.
func summary(w io.Writer, rep *eval.Report, dir string, calls int64, took time.Duration) {
	if rep.Stub {
		fmt.Fprintln(w, "Offline stub: these numbers follow the stub's rule and test the harness; they are not findings.")
	}
	if rep.Stopped != "" {
		fmt.Fprintf(w, "Stopped early: %s.\n", rep.Stopped)
	}
	fmt.Fprintf(w, "%-28s %7s %17s %12s %10s\n", "arm", "right", "95% interval", "tokens/item", "cost")
	for _, a := range rep.Arms {
		label := a.Name
		switch a.Name {
		case eval.ArmSelfConsistency:
			label += fmt.Sprintf(" (k = %d)", a.Samples)
		case eval.ArmDebate, eval.ArmVote:
			label += fmt.Sprintf(" (%d agents)", a.Samples)
		}
		fmt.Fprintf(w, "%-28s %3d/%-3d %8.3f – %.3f %12.0f %10s\n", label, a.Correct, a.N, a.CI[0], a.CI[1], a.TokensPerItem, fmt.Sprintf("$%.4f", a.Cost))
	}
	if b := rep.Budget; b != nil && len(b.Tried) > 0 {
		fmt.Fprintf(w, "equal budget: k = %d, %.3f times the debate's tokens per item\n", b.K, b.Ratio)
	}
	for _, p := range rep.Pairs {
		fmt.Fprintf(w, "%s vs %s: %s\n", p.A, p.B, p.Verdict)
	}
	if f := rep.Flips; f.Items > 0 {
		fmt.Fprintf(w, "flips: %d right→wrong, %d wrong→right; the final answer was the vote in %.0f%% of debates\n",
			f.RightToWrong, f.WrongToRight, 100*f.FinalIsVoteShare)
	}
	fmt.Fprintf(w, "%d model calls this run", calls)
	if calls == 0 {
		fmt.Fprint(w, " (every answer was stored)")
	}
	fmt.Fprintf(w, ", %s; the run used %d tokens, $%.4f in all\n", took.Round(time.Millisecond), rep.Tokens, rep.Cost)
	fmt.Fprintf(w, "wrote %s, %s, %s\n", filepath.Join(dir, "report.md"), filepath.Join(dir, "report.json"), filepath.Join(dir, "chart.svg"))
}

// progress draws the run's progress on standard error: one line redrawn
// in place on a terminal, a line per tenth of a phase otherwise.
type progress struct {
	w        io.Writer
	terminal bool
	phase    string
	shown    int // the last tenth printed, off a terminal
	drawn    bool
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.terminal = true
		}
	}
	return p
}

// update is eval.Config.Progress: Evaluate calls it one call at a time.
func (p *progress) update(pr eval.Progress) {
	if pr.Phase != p.phase {
		p.end()
		p.phase, p.shown = pr.Phase, -1
	}
	line := fmt.Sprintf("%s: %d/%d items · %d tokens", pr.Phase, pr.Done, pr.Total, pr.Tokens)
	if pr.Cost > 0 {
		line += fmt.Sprintf(" · $%.4f", pr.Cost)
	}
	line += " · " + clock(pr.Elapsed)
	if pr.Done < pr.Total {
		line += " · about " + clock(pr.Left) + " left"
	}
	if p.terminal {
		fmt.Fprintf(p.w, "\r\x1b[K%s", line)
		p.drawn = true
		return
	}
	if tenth := 10 * pr.Done / max(pr.Total, 1); tenth != p.shown {
		p.shown = tenth
		fmt.Fprintln(p.w, line)
	}
}

// end finishes the line being redrawn.
func (p *progress) end() {
	if p.terminal && p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}

// clock writes d as m:ss (h:mm:ss past an hour).
func clock(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
