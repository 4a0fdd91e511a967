// Command stub runs a whole Duelogic debate offline on the deterministic stub
// model — no key, no network — and prints it live as it streams: segment
// headers, speaker labels, the arbiter's evaluations, interruptions and
// interjections, then the metrics.
//
//	go run ./examples/stub
//	go run ./examples/stub -preset battle_royale -exchanges 4 -accountability strict
//	go run ./examples/stub -chairs precautionary,pragmatic,care_ethics -jsonl ./debates
//	go run ./examples/stub -jsonl ./debates -resume dl-0123456789abcdef
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/examples/internal/render"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

func main() {
	os.Exit(exitCode(run(os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}

// errUsage marks a command line the flags could not parse; the flag
// package has printed the usage and the error.
var errUsage = errors.New("bad usage")

// exitCode is the exit status of run's err, which it prints: 0 when run
// finished or -h asked for the usage (printed), 2 for bad flags, 1 when
// the debate failed.
func exitCode(err error, stderr io.Writer) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	}
	fmt.Fprintln(stderr, "stub:", err)
	return 1
}

// run runs the debate the flags in args describe, printing it to out; the
// usage (-h, or bad flags) goes to errOut.
func run(args []string, out, errOut io.Writer) error {
	fs := flag.NewFlagSet("stub", flag.ContinueOnError)
	fs.SetOutput(errOut)
	proposition := fs.String("proposition", "Major AI labs should voluntarily pause development of frontier models for two years to allow governance to catch up.", "the proposition to debate")
	context_ := fs.String("context", "", "optional background for the proposition")
	preset := fs.String("preset", "", "a preset matchup: "+presetIDs())
	chairs := fs.String("chairs", "", "comma-separated frameworks, one per chair (overrides -preset)")
	exchanges := fs.Int("exchanges", 3, "exchange rounds (3..30)")
	accountability := fs.String("accountability", "moderate", "relaxed, moderate or strict")
	seed := fs.Int64("seed", 1, "the stub model's seed")
	dir := fs.String("jsonl", "", "record the debate as JSONL files in this directory")
	resume := fs.String("resume", "", "resume the debate with this ID from -jsonl")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}

	cfg := duelogic.DefaultConfig()
	if *preset != "" {
		p, ok := duelogic.LookupPreset(*preset)
		if !ok {
			return fmt.Errorf("unknown preset %q (have %s)", *preset, presetIDs())
		}
		cfg = p.Apply(cfg)
	}
	if *chairs != "" {
		var fws []duelogic.Framework
		for _, f := range strings.Split(*chairs, ",") {
			fws = append(fws, duelogic.Framework(strings.TrimSpace(f)))
		}
		cfg = duelogic.Preset{Frameworks: fws}.Apply(cfg)
	}
	cfg.Flow.MaxExchanges = *exchanges
	cfg.Arbiter.AccountabilityLevel = duelogic.AccountabilityLevel(*accountability)

	var st store.Store = store.NewMemory()
	if *dir != "" {
		j, err := store.OpenJSONL(*dir)
		if err != nil {
			return err
		}
		defer j.Close()
		st = j
	}
	r := render.New(out, cfg, render.Options{})
	o, err := duelogic.New(cfg, llm.NewStub(*seed), duelogic.WithStore(st), duelogic.WithSink(r))
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	var res *duelogic.Result
	if *resume != "" {
		if *dir == "" {
			return errors.New("-resume needs -jsonl")
		}
		res, err = o.Resume(ctx, *resume)
	} else {
		res, err = o.Run(ctx, duelogic.Debate{Proposition: *proposition, Context: *context_})
	}
	if err != nil {
		if id := r.DebateID(); id != "" && *dir != "" {
			fmt.Fprintf(out, "\nstopped; resume with: go run ./examples/stub -jsonl %s -resume %s\n", *dir, id)
		}
		return err
	}
	r.Metrics(res.Metrics, res.Usage)
	return nil
}

func presetIDs() string {
	var ids []string
	for _, p := range duelogic.Presets() {
		ids = append(ids, p.ID)
	}
	return strings.Join(ids, ", ")
}
