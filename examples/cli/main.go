// Command debate runs a debate between language models in the terminal and
// prints it live: the Duelogic podcast format by default, or another format
// of this module.
//
//	debate "Should we use GraphQL or REST for the public API?"
//	debate --format duelogic --preset three_way_ethics --max-rounds 4 "Should cities ban cars?"
//	debate --perspectives 3 "How should we structure the plugin system?"
//	debate --format moderated --no-checkpoints "Postgres or DynamoDB?"
//	debate --list
//	debate --resume dl-0123456789abcdef
//	debate --fork dl-0123456789abcdef@12 --set arbiter.modelId=openai/gpt-4.1 --set flow.maxExchanges=4
//
// Install it with
//
//	go build -o debate ./examples/cli     # or: go install github.com/duelogic/duelogic/examples/cli@latest (installs "cli")
//
// or run it in place with go run ./examples/cli.
//
// Every format linked in is played the same way (--format lists them): its
// configuration is the one its flags make, and a finished debate ends with
// its verdict. Debates are recorded as JSONL files in --store (./debates by
// default; examples/pgcli is the same command with PostgreSQL linked in,
// for --store postgres://...), so --list shows them and --resume finishes
// one that stopped (a model error, Ctrl-C, or a paused question), whatever
// its format; --list names a file of --store that is not a readable debate
// on standard error, and lists the others. --fork ID@SEQ makes a new debate
// of the first SEQ records of a stored one, its configuration changed by
// --set (a dotted JSON path and a value), and plays it on: a podcast
// re-judged after its openings by another arbiter model, say. --out DIR
// writes the finished debate's documents: DIR/<id>.md, the transcript,
// DIR/<id>.json, the result, and the format's own documents as
// DIR/<id>.<name> (formal writes the seed's directory instead).
//
// The model is the offline stub (no key, no network) unless an
// OpenAI-compatible endpoint is configured: --base-url or DUELOGIC_BASE_URL
// (e.g. https://openrouter.ai/api/v1 or http://localhost:11434/v1), with the
// key in DUELOGIC_API_KEY (never on the command line). --model (or
// DUELOGIC_MODEL) seats one model in every seat, for endpoints that serve a
// single model; otherwise each format's default model IDs are sent.
//
// One speech is printed at a time: a speech streamed alone appears live, a
// sentence at a time (a speaker cut off mid-speech shows where the cut
// fell); speeches generated at once (the scored format's, the moderated
// format's arguments) are printed whole with their utterances, in the
// transcript's order. An unreachable --base-url fails before anything is
// stored.
//
// On a terminal the output has colours (unless NO_COLOR is set) and a status
// line with the segment, exchange, tokens and elapsed time. A format that
// asks its people something (the moderated format: a clarifying question,
// a checkpoint after each round, the approval of its synthesis, a
// workflow) asks on standard input, showing the question and its choices:
// [C]ontinue, [G]uide (then a line of guidance), [E]nd at a checkpoint;
// Enter takes the first choice. The end of input at a checkpoint pauses
// the debate, which --resume continues. --no-checkpoints runs it
// unattended, asking nothing; every format accepts it, and those that ask
// nothing ignore it, so one script can pass it to all of them.
//
// Exit status: 0 when the debate finished (or paused at a question), 1 when
// it failed or was interrupted, 2 for bad usage (flags, an unknown or
// unavailable format, an invalid configuration). --list exits 0 when it could
// read the store's directory, even if it found damaged files, and 1 when not.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/duelogic/duelogic/examples/internal/cliapp"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cliapp.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv, nil)
	stop()
	os.Exit(code)
}
