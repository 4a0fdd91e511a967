package moderated

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
)

var cachingQuestion = engine.Debate{
	ID:          "deb-cache",
	Proposition: "Should we use Redis or PostgreSQL for caching? We need to ship fast.",
	Context:     "A team of four runs one PostgreSQL database today.",
}

const (
	analysisTwo = `{"domain":"data","constraints":["ship fast"],"debaters":2,"perspectives":["Performance Advocate","Simplicity Advocate"]}`
	synthesisOK = `{"title":"Caching store","perspectives":[{"name":"Performance Advocate","keyArguments":["Redis is faster"],"tradeOffsAccepted":["another service"]}],` +
		`"agreement":["Measure first"],"tensions":["Speed vs simplicity"],"recommendation":"Start with PostgreSQL.","confidence":"Medium","caveats":["Revisit at 10x load"],"dissent":"Performance Advocate prefers Redis."}`
	judgeOn       = `{"converging":false,"stagnating":false,"newGround":true,"clearWinner":"","offTopic":[],"summary":"Still apart on latency."}`
	judgeAgree    = `{"converging":true,"newGround":false,"summary":"They agree: PostgreSQL first."}`
	judgeStagnant = `{"stagnating":true,"summary":"Going in circles."}`
	clear         = `{"vague":false,"question":"","assumption":""}`
)

// texts returns n distinct texts of kind, with no word trigram in common.
func texts(kind string, n int) []string {
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		fmt.Fprintf(&b, "%s %d:", kind, i)
		for j := range 40 {
			fmt.Fprintf(&b, " %s%dw%d", kind, i, j)
		}
		out[i] = b.String() + "."
	}
	return out
}

// newFake answers every purpose: the analysis seats Performance Advocate
// and Simplicity Advocate, every argument and rebuttal is new, the
// judgments are given (or never end the debate), the synthesis is valid.
func newFake(judgments ...string) *llmtest.Fake {
	return newFakeArgs(texts("argument", 50), judgments...)
}

// newFakeArgs is newFake whose arguments are args, one per call, the last
// repeated.
func newFakeArgs(args []string, judgments ...string) *llmtest.Fake {
	return newFakeWith([]string{analysisTwo}, args, judgments...)
}

// newFakeWith is newFake with the given analyses and arguments.
func newFakeWith(analyses, args []string, judgments ...string) *llmtest.Fake {
	return addRules(llmtest.New(), analyses, args, judgments...)
}

// addRules adds newFake's rules to f, after the rules f already has.
func addRules(f *llmtest.Fake, analyses, args []string, judgments ...string) *llmtest.Fake {
	if len(judgments) == 0 {
		judgments = []string{judgeOn}
	}
	f.OnPurpose(PurposeAnalysis).Reply(analyses...)
	f.OnPurpose(PurposeArgument).Reply(args...)
	f.OnPurpose(PurposeRebuttal).Reply(texts("rebuttal", 50)...)
	f.OnPurpose(PurposeJudgment).Reply(judgments...)
	f.OnPurpose(PurposeSynthesis).Reply(synthesisOK)
	f.OnPurpose(PurposeClarity).Reply(clear)
	return f
}

// requests returns the requests of purpose.
func requests(f *llmtest.Fake, purpose string) []llm.Request {
	var out []llm.Request
	for _, r := range f.Requests() {
		if r.Purpose == purpose {
			out = append(out, r)
		}
	}
	return out
}

func lastUser(r llm.Request) string { return r.Messages[len(r.Messages)-1].Content }

// shape is who said what kind of thing in which round.
func shape(us []engine.Utterance) []string {
	var out []string
	for _, u := range us {
		out = append(out, fmt.Sprintf("%d %s %s", u.Exchange, u.Speaker, u.Kind))
	}
	return out
}

// roundShape is the transcript of a round of the given speakers.
func roundShape(n int, speakers ...string) []string {
	out := []string{fmt.Sprintf("%d %s opening", n, SpeakerModerator)}
	for _, kind := range []string{"argument", "rebuttal"} {
		for _, s := range speakers {
			out = append(out, fmt.Sprintf("%d %s %s", n, s, kind))
		}
	}
	return append(out, fmt.Sprintf("%d %s judgment", n, SpeakerModerator))
}

// decisions is a Checkpointer answering from a list, one per checkpoint,
// then Continue; it records the states it saw.
type decisions struct {
	mu     sync.Mutex
	list   []Decision
	states []State
}

func (d *decisions) Checkpoint(_ context.Context, st State) (Decision, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.states = append(d.states, st)
	if len(d.list) == 0 {
		return Decision{Action: Continue}, nil
	}
	dec := d.list[0]
	d.list = d.list[1:]
	return dec, nil
}

var errDisk = errors.New("disk full")

// testConfig is DefaultConfig with at most 3 rounds, and the number of
// debaters left to the moderator's analysis (Debaters 0), which most tests
// script.
func testConfig() Config {
	cfg := DefaultConfig()
	cfg.MaxRounds = 3
	cfg.Debaters = 0
	return cfg
}

// result is a finished debate as the tests read it: the engine's result
// and the format's outcome side by side.
type result struct {
	*engine.Result[*Outcome]
	*Outcome
}

// run plays a debate of a Format made by New(cfg, opts...).
func run(ctx context.Context, client llm.Client, cfg Config, d engine.Debate, opts []Option, eopts ...engine.Option) (*result, error) {
	f, err := New(cfg, opts...)
	if err != nil {
		return nil, err
	}
	return wrap(engine.Run(ctx, client, f, d, eopts...))
}

// resume continues debate id with a Format carrying opts.
func resume(ctx context.Context, client llm.Client, id string, opts []Option, eopts ...engine.Option) (*result, error) {
	f, err := New(DefaultConfig(), opts...)
	if err != nil {
		return nil, err
	}
	return wrap(engine.Resume(ctx, client, f, id, eopts...))
}

func wrap(res *engine.Result[*Outcome], err error) (*result, error) {
	if err != nil {
		return nil, err
	}
	return &result{res, res.Detail}, nil
}

func mustRun(t *testing.T, client llm.Client, cfg Config, d engine.Debate, opts []Option, eopts ...engine.Option) *result {
	t.Helper()
	res, err := run(t.Context(), client, cfg, d, opts, eopts...)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
