package cliapp

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/examples/internal/render"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/openai"
	"github.com/duelogic/duelogic/store"
)

// oneSlot warns that a llama.cpp server of one slot makes the podcast's
// interrupt check wait for the speech it watches.
const oneSlot = "debate: the model server generates one reply at a time (llama-server --parallel 1): the interrupt check waits until the speech it watches has ended, so cuts come late and each turn takes longer; start llama-server with --parallel 2"

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// options are the parsed command line.
type options struct {
	format        string
	perspectives  int
	rounds        int
	noCheckpoints bool
	resume        string
	fork          string
	sets          setFlags
	list          bool
	out           string
	storeDir      string
	baseURL       string
	model         string
	seed          int64
	stubDelay     time.Duration
	context       string
	question      string
	prices        engine.Prices
	maxCost       float64
	maxTokens     int

	// own are the values of each format's own flags, by format name (see
	// formatCLI.declare).
	own map[string]any

	set map[string]bool // the flags given
}

// ownFlags returns the values of the own flags of the format name, as a
// *T (see formatCLI.declare); zero values when it declared none.
func ownFlags[T any](o *options, name string) *T {
	if v, ok := o.own[name].(*T); ok {
		return v
	}
	return new(T)
}

// countFlag is a count flag that reads "auto" too, as 0: the format's
// choice.
type countFlag struct{ n *int }

func (c countFlag) String() string {
	if c.n == nil || *c.n == 0 {
		return "auto"
	}
	return strconv.Itoa(*c.n)
}

func (c countFlag) Set(s string) error {
	if s == "auto" {
		*c.n = 0
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("want a number, or auto")
	}
	*c.n = n
	return nil
}

// usageError is a mistake on the command line: exit 2 with the usage.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

const usageHead = `usage: debate [flags] "question"
       debate --list
       debate --resume ID
       debate --fork ID@SEQ [--set key=value ...]

Runs a debate between language models and prints it live.

formats (--format):
`

func newFlagSet(o *options, getenv func(string) string) *flag.FlagSet {
	fs := flag.NewFlagSet("debate", flag.ContinueOnError)
	// run prints the usage and the error, once: Parse calls Usage itself on
	// -h and on a bad flag.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&o.format, "format", duelogic.FormatName, "the debate format: "+strings.Join(engine.Formats(), ", "))
	fs.Var(countFlag{&o.perspectives}, "perspectives", "the number of debaters, a `count` or auto (the default): duelogic seats that many engineering perspectives (auto: its preset's chairs); moderated asks for that many (auto: the moderator's choice, 2 for a binary question, 3-4 for a multi-faceted one)")
	fs.IntVar(&o.rounds, "max-rounds", 0, "rounds (exchanges) to debate; 0: the format's default")
	fs.IntVar(&o.rounds, "exchanges", 0, "same as --max-rounds")
	fs.IntVar(&o.rounds, "rounds", 0, "same as --max-rounds")
	fs.BoolVar(&o.noCheckpoints, "no-checkpoints", false, "run to completion without asking anything: the debate is unattended (moderated: no clarifying question, the moderator's assumption stands; no checkpoints; no approval of the synthesis, which stays unreviewed; no workflow); formats that ask nothing accept it and do nothing")
	fs.StringVar(&o.resume, "resume", "", "resume the stopped or paused debate with this ID, or with a prefix of it that names one debate (dl-4b41, or 4b41)")
	fs.StringVar(&o.fork, "fork", "", "fork the stored debate ID (or an ID prefix) after its record SEQ (1 is its first), as ID@SEQ, into a new debate, its configuration changed by --set, and play the fork on")
	fs.Var(&o.sets, "set", "with --fork: set a field of the forked debate's configuration, as a dotted JSON path and a value read as JSON when it is JSON, else as text (--set arbiter.modelId=gpt-4o --set flow.maxExchanges=4); repeatable")
	fs.BoolVar(&o.list, "list", false, "list the debates in --store with their format and status")
	fs.StringVar(&o.out, "out", "", "write the finished debate's documents to this directory: <id>.md (transcript), <id>.json (result) and the format's own as <id>.<name>; formal writes the seed's <timestamp>-<slug>/ (transcript.md, summary.md, blog-post.md, assessor-report.md, debate-log.jsonl)")
	fs.StringVar(&o.storeDir, "store", "debates", "where debates are recorded: a directory of JSONL files, or a postgres:// URL or sqlite:FILE in a build with the SQL stores (examples/pgcli)")
	fs.StringVar(&o.baseURL, "base-url", getenv("DUELOGIC_BASE_URL"), "an OpenAI-compatible API (default $DUELOGIC_BASE_URL; empty: the offline stub model); the key is read from $DUELOGIC_API_KEY")
	fs.StringVar(&o.model, "model", getenv("DUELOGIC_MODEL"), "seat this model ID in every seat (default $DUELOGIC_MODEL)")
	fs.Int64Var(&o.seed, "seed", 1, "the stub model's seed")
	fs.DurationVar(&o.stubDelay, "stub-delay", 0, "the stub model's pause per word, to watch it stream (e.g. 20ms)")
	fs.StringVar(&o.context, "context", "", "background for the question, given to every participant")
	fs.Var(o.prices, "price", "MODEL=IN/OUT or MODEL=IN/CACHED/OUT: dollars per million input, cached input and output tokens of a model ID (MODEL * for any model without its own); repeatable. The running line and the summary show the cost")
	fs.Float64Var(&o.maxCost, "max-cost", 0, "stop the debate before its next step once it has cost this many dollars, at the --price rates (0: no limit); it stays stored, to --resume with a larger budget")
	fs.IntVar(&o.maxTokens, "max-tokens", 0, "stop the debate before its next step once its calls have used this many tokens, prompt and completion (0: no limit); it stays stored, to --resume with a larger budget")
	o.own = map[string]any{}
	for _, name := range slices.Sorted(maps.Keys(formatCLIs)) {
		if f := formatCLIs[name]; f.declare != nil {
			o.own[name] = f.declare(fs)
		}
	}
	return fs
}

// printUsage writes the usage of the flags of fs to w.
func printUsage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprint(w, usageHead)
	for _, name := range engine.Formats() {
		fmt.Fprintf(w, "  %-11s %s\n", name, cliOf(name).about)
	}
	fmt.Fprint(w, "\nflags:\n")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// parse reads the command line; flags and the question may come in any
// order, and the words of an unquoted question are joined.
func parse(args []string, getenv func(string) string) (*options, *flag.FlagSet, error) {
	o := &options{set: map[string]bool{}, prices: engine.Prices{}}
	fs := newFlagSet(o, getenv)
	var words []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, fs, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			words = append(words, rest...)
			break
		}
		words, args = append(words, rest[0]), rest[1:]
	}
	// Text that reaches the prompts, the store and the terminal: a control
	// character in it (an escape sequence pasted, or made up to rewrite
	// the terminal of whoever shows the debate) is refused before anything
	// is stored.
	if err := printable("the question", strings.Join(words, " ")); err != nil {
		return nil, fs, err
	}
	var bad error
	fs.Visit(func(f *flag.Flag) {
		o.set[f.Name] = true
		if bad == nil {
			bad = printable("--"+f.Name, f.Value.String())
		}
	})
	if bad != nil {
		return nil, fs, bad
	}
	o.question = strings.TrimSpace(strings.Join(words, " "))
	stored := o.resume != "" || o.fork != ""
	switch {
	case o.list && (o.question != "" || stored):
		return nil, fs, usagef("--list takes no question, no --resume and no --fork")
	case o.resume != "" && o.fork != "":
		return nil, fs, usagef("--resume and --fork: give one")
	case stored && o.question != "":
		return nil, fs, usagef("%s takes no question: the debate's is stored", o.given("resume", "fork"))
	case len(o.sets) > 0 && o.fork == "":
		return nil, fs, usagef("--set changes the configuration of a fork: give --fork ID@SEQ")
	case o.rounds < 0:
		return nil, fs, usagef("%s %d: must not be negative", o.given(roundsFlags...), o.rounds)
	case o.perspectives < 0:
		return nil, fs, usagef("--perspectives %d: must not be negative", o.perspectives)
	case o.maxCost < 0 || math.IsNaN(o.maxCost) || math.IsInf(o.maxCost, 0):
		return nil, fs, usagef("--max-cost %v: want a number of dollars, 0 for no limit", o.maxCost)
	case o.maxTokens < 0:
		return nil, fs, usagef("--max-tokens %d: must not be negative", o.maxTokens)
	case o.maxCost > 0 && len(o.prices) == 0:
		return nil, fs, usagef("--max-cost needs the models' prices: give --price MODEL=IN/OUT (MODEL * for any model); without them a debate costs nothing")
	case o.list:
		return o, fs, nil
	case stored:
		// A stored debate keeps its configuration: --fork --set changes it.
		if bad := flagsOnly(o, formatFlags()...); len(bad) > 0 {
			return nil, fs, usagef("%s: %s keeps the stored configuration; fork it with --set to change it", strings.Join(bad, ", "), o.given("resume", "fork"))
		}
		return o, fs, nil
	}
	// The format and its own flags before the question: a flag of
	// another format is what is wrong, whatever else is missing.
	if err := known(o.format); err != nil {
		return nil, fs, err
	}
	if err := check(o.format, o); err != nil {
		return nil, fs, err
	}
	fc := cliOf(o.format)
	if q := fc.question; q != nil {
		found, err := q(o)
		if err != nil {
			return nil, fs, usageError{err.Error()}
		}
		if o.question == "" {
			o.question = found
		}
	}
	if o.question == "" && !fc.asks {
		return nil, fs, usagef("no question to debate")
	}
	return o, fs, nil
}

// printable returns a usage error naming what (the question, or a flag)
// when text holds a control character other than newline and tab, or is
// not UTF-8.
func printable(what, text string) error {
	if !utf8.ValidString(text) {
		return usagef("%s is not valid UTF-8 text", what)
	}
	for i, c := range text {
		if c < 0x20 && c != '\n' && c != '\t' || c >= 0x7f && c <= 0x9f {
			return usagef("%s has a control character (%U at byte %d); only newlines and tabs may be given", what, c, i)
		}
	}
	return nil
}

// roundsFlags are the names of the rounds flag.
var roundsFlags = []string{"max-rounds", "exchanges", "rounds"}

// given is the first of the flags names that the command line set, as
// "--name"; "" when it set none.
func (o *options) given(names ...string) string {
	for _, n := range names {
		if o.set[n] {
			return "--" + n
		}
	}
	return ""
}

// env is what a format needs to run.
type env struct {
	opt    *options
	client llm.Client
	store  store.Store
	// sink is where the debate's events go: the renderer (and, in a test,
	// a recorder beside it).
	sink engine.EventSink
	// render is the one writer of standard output while the debate runs:
	// the events, the program's lines and the questions to the person at
	// the terminal go through it, in order.
	render *render.Renderer
	stdin  *lines
	stderr io.Writer
	// now is the debate's clock (engine.WithClock); nil: the system's.
	now func() time.Time
	// unattended: the debate asks nobody (engine.Debate.Unattended, as
	// given or as stored).
	unattended bool
	// hooks are what the build adds ([Option]).
	hooks hooks
	// spend counts what the model calls spend, for the running line.
	spend *spendMeter
}

// budgeted reports whether prices or a budget were given: the running
// line is then printed at every segment's end.
func (e *env) budgeted() bool {
	return len(e.opt.prices) > 0 || e.opt.maxCost > 0 || e.opt.maxTokens > 0
}

// budget is the engine's budget of the flags.
func (o *options) budget() engine.Budget {
	return engine.Budget{Tokens: o.maxTokens, Cost: o.maxCost}
}

// largerBudget is the budget flags of a resume hint after a stop at the
// budget: the prices again, and each limit given, doubled.
func (o *options) largerBudget() string {
	var b strings.Builder
	for _, m := range slices.Sorted(maps.Keys(o.prices)) {
		b.WriteString(" --price " + priceArg(m, o.prices[m]))
	}
	if o.maxCost > 0 {
		fmt.Fprintf(&b, " --max-cost %g", 2*o.maxCost)
	}
	if o.maxTokens > 0 {
		fmt.Fprintf(&b, " --max-tokens %d", 2*o.maxTokens)
	}
	return b.String()
}

// spentLine is the running line of what the debate spent so far.
func (e *env) spentLine() string {
	u, cost := e.spend.spent()
	return spentLine(u, cost, len(e.opt.prices) > 0, e.opt.budget())
}

// asks reports whether the person at the terminal is asked the debate's
// questions: unless the debate is unattended or --no-checkpoints is given.
func (e *env) asks() bool { return !e.unattended && !e.opt.noCheckpoints }

// StoreOpener opens the store a --store URL names (postgres://...); a
// build of the command that links a SQL store passes one to [Run].
type StoreOpener func(ctx context.Context, url string) (store.Store, error)

// run is the program with JSONL stores only; it returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	return Run(ctx, args, stdin, stdout, stderr, getenv, nil)
}

// Option adds to [Run] what a build of the command that links more than
// the core module (examples/pgcli) brings.
type Option func(*hooks)

// hooks are what the options set.
type hooks struct {
	// yaml turns a YAML document into the JSON document it holds; nil:
	// the build reads no YAML.
	yaml func(data []byte) ([]byte, error)
}

// WithYAML lets --settings read a YAML file (named *.yaml or *.yml, as the
// seed's settings.amelia.yaml): decode turns it into the JSON document it
// holds, which is then read as a JSON settings file is. Without it, the
// core build refuses a YAML file and names the build that reads one: the
// core module links no YAML library.
func WithYAML(decode func(data []byte) (json []byte, err error)) Option {
	return func(h *hooks) { h.yaml = decode }
}

// Run is the debate command: it parses args, runs what they ask and
// returns the exit status (0 done or paused, 1 failed, 2 bad usage).
// getenv reads the environment (DUELOGIC_BASE_URL, DUELOGIC_API_KEY,
// DUELOGIC_MODEL, NO_COLOR). openURL opens a --store value that is a
// postgres:// or postgresql:// URL; when it is nil such a value is a usage
// error naming the build that has it. opts add what a fuller build links
// ([WithYAML]).
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string, openURL StoreOpener, opts ...Option) int {
	return runAt(ctx, nil, args, stdin, stdout, stderr, getenv, openURL, opts...)
}

// runAt is Run with the debate on the clock now (nil: the system's), which
// its records, its synthesis's date and its documents' names read.
func runAt(ctx context.Context, now func() time.Time, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string, openURL StoreOpener, opts ...Option) int {
	var h hooks
	for _, opt := range opts {
		opt(&h)
	}
	// The store's warnings come from the engine's goroutine, the
	// program's notes from the debate's.
	stderr = &syncWriter{w: stderr}
	opt, fs, err := parse(args, getenv)
	// A usage error is its cause and where the flags are described, not
	// the whole usage, which -h prints.
	badUsage := func(err error) int {
		fmt.Fprintln(stderr, "debate:", err)
		fmt.Fprintln(stderr, "run debate -h for the flags")
		return exitUsage
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
		printUsage(fs, stderr)
		return exitOK
	case err != nil:
		return badUsage(err)
	}
	if isURL(opt.storeDir) && openURL == nil {
		return badUsage(usagef("--store %s: this build of debate records to JSONL directories only; for PostgreSQL or SQLite run examples/pgcli (go -C examples/pgcli run . --store postgres://... or --store sqlite:FILE)", storeName(opt.storeDir)))
	}
	if opt.list {
		if err := list(ctx, opt.storeDir, openURL, stdout, stderr); err != nil {
			fmt.Fprintln(stderr, "debate:", safeError(err))
			return exitFail
		}
		return exitOK
	}

	client, err := newClient(opt, getenv)
	if err != nil {
		return badUsage(err)
	}
	if oc, ok := client.(*openai.Client); ok && opt.model == "" && opt.resume == "" {
		// A local server serves the model it loaded, not the hosted
		// models the formats name by default: seat it, and label it so.
		ids, err := oc.Models(ctx)
		switch {
		case err != nil && unreachable(err):
			// Before the store is opened: no empty debate is left
			// behind.
			fmt.Fprintf(stderr, "debate: cannot reach the model server at %s: %s\nis it running, and is --base-url (or DUELOGIC_BASE_URL) right?\n", redactedURL(opt.baseURL), safeError(err))
			return exitFail
		case err != nil:
			// It answered: a server without GET /models (some answer
			// 404) still serves completions.
			fmt.Fprintf(stderr, "debate: could not list the server's models (%s); seating the formats' default model IDs (set --model)\n", safeError(err))
		case len(ids) == 0:
			fmt.Fprintln(stderr, "debate: the server lists no model; seating the formats' default model IDs (set --model)")
		default:
			opt.model = ids[0]
			fmt.Fprintf(stderr, "debate: seating the server's model %s in every seat (set --model to choose)\n", render.Sanitize(opt.model))
		}
	}
	if oc, ok := client.(*openai.Client); ok && opt.format == duelogic.FormatName {
		// The podcast checks for interruptions beside the speech it
		// watches: a server of one slot runs the check after the speech.
		if n, err := oc.Slots(ctx); err == nil && n == 1 {
			fmt.Fprintln(stderr, oneSlot)
		}
	}

	spend := &spendMeter{prices: opt.prices}
	client = metered(client, spend)

	js, err := openStore(ctx, opt.storeDir, openURL, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "debate:", safeError(err))
		return exitFail
	}
	defer closeStore(js)

	term := isTerminal(stdout)
	color := term && getenv("NO_COLOR") == ""
	// Output that is kept, not watched, is only what stands.
	r := render.New(stdout, duelogic.Config{}, render.Options{Color: color, Progress: term, Settled: !term})
	e := &env{opt: opt, client: client, store: js, sink: r, render: r, stdin: newLines(stdin), stderr: stderr, now: now, hooks: h, spend: spend}
	if e.budgeted() || term {
		r.SetSpent(func() string { return e.spentLine() })
	}
	defer e.stdin.stop()
	if term {
		stop := ticking(r)
		defer stop()
	}

	var id string
	var res *engine.Result[engine.Outcome]
	switch {
	case opt.resume != "":
		id, res, err = resume(ctx, e, opt.resume)
	case opt.fork != "":
		id, res, err = fork(ctx, e, opt.fork, opt.sets)
	default:
		id = engine.NewDebateID()
		e.unattended = opt.noCheckpoints
		d := engine.Debate{ID: id, Proposition: opt.question, Context: opt.context, Unattended: opt.noCheckpoints}
		res, err = start(ctx, e, opt.format, d)
	}
	r.Clear()
	switch {
	case errors.As(err, new(usageError)):
		return badUsage(err)
	case errors.Is(err, engine.ErrBudget):
		fmt.Fprintln(stderr, "\ndebate:", safeError(err))
		if res != nil {
			for _, line := range usageLines(res, len(opt.prices) > 0) {
				fmt.Fprintln(stderr, line)
			}
		}
		fmt.Fprintf(stderr, "the debate is stored, everything said kept; continue it with a larger budget: debate --store %s --resume %s%s\n", storeName(opt.storeDir), id, opt.largerBudget())
		return exitFail
	case errors.Is(err, engine.ErrPaused):
		fmt.Fprintf(stderr, "\npaused at %s; continue with: debate --store %s --resume %s\n", pausedAt(ctx, js, id), storeName(opt.storeDir), id)
		return exitOK
	case err != nil:
		if interrupted := ctx.Err() != nil && errors.Is(err, context.Canceled); interrupted {
			// Ctrl-C or a SIGTERM: the person stopped it, no server failed.
			fmt.Fprintln(stderr, "\ndebate: interrupted")
		} else {
			fmt.Fprintln(stderr, "\ndebate:", safeError(err))
		}
		stored := false
		if _, serr := js.Records(context.WithoutCancel(ctx), id); serr == nil {
			stored = true
		}
		switch {
		case errors.Is(err, engine.ErrCorruptLog), errors.Is(err, store.ErrCorrupt):
			// Resuming would read the same log and fail the same way.
			fmt.Fprintln(stderr, damaged(opt.storeDir, id, err))
		case errors.Is(err, llm.ErrContextOverflow):
			// Resuming as it is would send the same prompt again.
			fmt.Fprintln(stderr, "the prompt does not fit the model's context window: start the server with a larger context (llama-server -c / --ctx-size, Ollama num_ctx, LM Studio's context length) or use a model with a longer one")
			if stored {
				fmt.Fprintf(stderr, "then continue the stored debate with: debate --store %s --resume %s\n", storeName(opt.storeDir), id)
			}
		case stored:
			fmt.Fprintf(stderr, "the debate is stored; continue it with: debate --store %s --resume %s\n", storeName(opt.storeDir), id)
		}
		return exitFail
	}
	showOutcome(r, res)
	if line := timingLine(res); line != "" {
		fmt.Fprintln(stderr, line)
	}
	for _, line := range usageLines(res, len(opt.prices) > 0) {
		fmt.Fprintln(stderr, line)
	}
	if v := viewOf(res.Detail); v.finish != nil {
		files, err := v.finish(e, res)
		if err != nil {
			fmt.Fprintln(stderr, "debate:", safeError(err))
			return exitFail
		}
		for _, name := range files {
			fmt.Fprintln(stderr, "wrote", name)
		}
	}
	if opt.out != "" {
		files, err := writeDocs(opt.out, res)
		if err != nil {
			fmt.Fprintln(stderr, "debate:", safeError(err))
			return exitFail
		}
		for _, name := range files {
			fmt.Fprintln(stderr, "wrote", name)
		}
	}
	return exitOK
}

// pausedAt names the question the paused debate id waits for ("a
// checkpoint question"), as its records say (engine.Pending); "a question"
// when they do not.
func pausedAt(ctx context.Context, st store.Store, id string) string {
	recs, err := st.Records(context.WithoutCancel(ctx), id)
	if err != nil {
		return "a question"
	}
	q, ok := engine.Pending(recs)
	if !ok || q.Kind == "" {
		return "a question"
	}
	return "a " + render.Sanitize(q.Kind) + " question"
}

// resume shows what the stored debate id (or the one an ID prefix names)
// said so far, then continues it with its format. It returns the debate's
// full ID.
func resume(ctx context.Context, e *env, id string) (string, *engine.Result[engine.Outcome], error) {
	id, err := resolveID(ctx, e.store, id, "--resume")
	if err != nil {
		return id, nil, err
	}
	st, err := load(ctx, e, id)
	if err != nil {
		return id, nil, err
	}
	res, err := playOn(ctx, e, st, fmt.Sprintf("\n── resumed %s (%s, %d records stored) ──", id, st.sum.Status, st.sum.Records))
	return id, res, err
}

// resolveID returns the stored debate that id names: the debate id itself,
// or, like git's abbreviated commits, the one debate whose ID starts with
// id (with or without the "dl-" of engine.NewDebateID). A prefix that names
// several debates is a usage error listing them; one that names none is
// returned as it is, for resume to report.
func resolveID(ctx context.Context, st store.Store, id, what string) (string, error) {
	if _, err := st.Records(ctx, id); !errors.Is(err, store.ErrNotFound) {
		return id, nil
	}
	ls, ok := st.(lister)
	if !ok {
		return id, nil
	}
	ids, err := ls.Debates(ctx)
	if err != nil {
		return "", fmt.Errorf("resolve %s %s: %w", what, id, err)
	}
	var match []string
	for _, cand := range ids {
		name := cand
		if !strings.HasPrefix(id, "dl-") {
			// Without its "dl-", id is a prefix of the hex part: "d"
			// names the IDs whose hex starts with d, not every dl- ID.
			name = strings.TrimPrefix(cand, "dl-")
		}
		if strings.HasPrefix(name, id) {
			match = append(match, cand)
		}
	}
	switch len(match) {
	case 0:
		return id, nil
	case 1:
		return match[0], nil
	}
	const shown = 5
	names := strings.Join(match[:min(len(match), shown)], ", ")
	if len(match) > shown {
		names += ", ..."
	}
	return "", usagef("%s %s is ambiguous: %d debates start with it (%s); give more of the ID", what, id, len(match), names)
}

// newClient returns the stub, or an OpenAI-compatible client when a base URL
// is configured.
func newClient(opt *options, getenv func(string) string) (llm.Client, error) {
	if opt.baseURL == "" {
		s := llm.NewStub(opt.seed)
		s.TokenDelay = opt.stubDelay
		return s, nil
	}
	if !strings.HasPrefix(opt.baseURL, "http://") && !strings.HasPrefix(opt.baseURL, "https://") {
		return nil, usagef("--base-url %q: want an http:// or https:// URL", opt.baseURL)
	}
	return openai.New(openai.Config{BaseURL: opt.baseURL, APIKey: getenv("DUELOGIC_API_KEY")}), nil
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// ticking redraws the renderer's status line every second until stopped.
func ticking(r *render.Renderer) (stop func()) {
	t := time.NewTicker(time.Second)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for {
			select {
			case <-t.C:
				r.Tick()
			case <-done:
				return
			}
		}
	}()
	return func() {
		t.Stop()
		close(done)
		<-finished
	}
}

// flagsOnly lists the set flags among names.
func flagsOnly(o *options, names ...string) []string {
	var out []string
	for _, n := range names {
		if o.set[n] {
			out = append(out, "--"+n)
		}
	}
	slices.Sort(out)
	return out
}

// isURL reports whether a --store value names a database rather than a
// directory: a postgres:// URL, or sqlite:FILE.
func isURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://") || strings.HasPrefix(s, sqlitePrefix)
}

// sqlitePrefix starts a --store value that names a SQLite file.
const sqlitePrefix = "sqlite:"

// storeName is a --store value as the command prints it: a URL's password
// is masked, so that a hint to resume never echoes a secret.
func storeName(s string) string {
	if !isURL(s) || strings.HasPrefix(s, sqlitePrefix) {
		return s // a file's name holds no password
	}
	u, err := url.Parse(s)
	if err != nil {
		return "(an unparsable URL)"
	}
	return u.Redacted()
}

// openStore opens the JSONL directory or, through openURL, the database
// that dir names. A JSONL store's warnings (a torn last line it cuts off)
// go to stderr.
func openStore(ctx context.Context, dir string, openURL StoreOpener, stderr io.Writer) (store.Store, error) {
	if !isURL(dir) {
		js, err := store.OpenJSONL(dir)
		if err != nil {
			return nil, err
		}
		js.Logger = warnings(stderr)
		return js, nil
	}
	st, err := openURL(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", storeName(dir), err)
	}
	return st, nil
}

// warnings is a logger writing warnings and errors to w, one a line,
// without a time: "debate: WARN store: cutting off torn last line file=...".
func warnings(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(prefixed{w}, &slog.HandlerOptions{
		Level: slog.LevelWarn,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
}

// prefixed writes each line it is given (slog writes one a call) after
// "debate: ".
type prefixed struct{ w io.Writer }

func (p prefixed) Write(b []byte) (int, error) {
	if _, err := io.WriteString(p.w, "debate: "); err != nil {
		return 0, err
	}
	return p.w.Write(b)
}

// unreachable reports whether err is a failure to reach a server at all (no
// connection, no TLS, no reply), as opposed to an answer it gave.
func unreachable(err error) bool {
	var ue *url.Error
	return errors.As(err, &ue) && !errors.Is(err, context.Canceled)
}

// redactedURL is raw with any password masked.
func redactedURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(an unparsable URL)"
	}
	return u.Redacted()
}

// safeError is err's message as the terminal shows it: it may quote a
// model's server or a stored text (render.Sanitize).
func safeError(err error) string { return render.Sanitize(err.Error()) }

// damaged is the hint after err, an error saying that the stored log of
// debate id is damaged: store.ErrCorrupt, a line of the file that is not
// the debate's next record (the error names the line), or
// engine.ErrCorruptLog, records that do not make a debate this program can
// continue (the error names the record, when it is one). The hint names the
// file and what to do; not --resume, which would read the same log and
// fail the same way.
func damaged(storeDir, id string, err error) string {
	where, what := "in "+storeName(storeDir), "is damaged at the line the error names"
	if !isURL(storeDir) {
		where = filepath.Join(storeDir, id+".jsonl")
	}
	if !errors.Is(err, store.ErrCorrupt) {
		what = "does not make a debate this program can continue (the error says why"
		if !isURL(storeDir) {
			what += "; record n is line n of the file"
		}
		what += ")"
	}
	return fmt.Sprintf("the log of debate %s, %s, %s: resuming it would fail the same way.\n"+
		"repair it by hand or restore it from a backup; debate --list shows the debates that can be read", id, where, what)
}

// syncWriter serializes the writes to w.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// closeStore closes st if it has a Close method (JSONL's returns an error,
// pgstore's does not).
func closeStore(st store.Store) {
	switch c := st.(type) {
	case interface{ Close() error }:
		c.Close()
	case interface{ Close() }:
		c.Close()
	}
}
