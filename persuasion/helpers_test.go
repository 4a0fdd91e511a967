package persuasion

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
)

var update = flag.Bool("update", false, "rewrite the testdata/*.golden files")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got; go test -update rewrites it):\n%s", name, diff)
	}
}

var testDebate = engine.Debate{
	ID:          "go-rewrite",
	Proposition: "Should we rewrite the billing service in Go?",
	Context:     "The billing service is 40k lines of Python 2 maintained by five engineers.",
}

// run plays d with New(cfg) on client.
func run(ctx context.Context, client llm.Client, cfg Config, d engine.Debate, opts ...engine.Option) (*engine.Result[*Outcome], error) {
	f, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return engine.Run(ctx, client, f, d, opts...)
}

// resume finishes debate id with the configuration stored with it.
func resume(ctx context.Context, client llm.Client, id string, opts ...engine.Option) (*engine.Result[*Outcome], error) {
	return engine.Resume(ctx, client, &Format{}, id, opts...)
}

// Model IDs of the scripted tests' participants.
const (
	proModel = "m-pro"
	oppModel = "m-opp"
	modModel = "m-mod"
)

// shortConfig is one argumentation round of one exchange, so that a script
// has six turns: PRO and OPP opening, argumentation and closing.
func shortConfig() Config {
	return Config{
		Pro:       Persona{ModelID: proModel},
		Opp:       Persona{ModelID: oppModel},
		Mod:       Persona{ModelID: modModel},
		MaxRounds: 1,
		Exchanges: 1,
		Facts:     []string{"All five engineers have shipped Go services", "Nightly builds take 40 minutes"},
		// The scripts test the seed's table; TestProtocolChallenges the
		// rules version 2 adds.
		Protocol: 1,
	}
}

// Move shorthands for scripts.
func claim(p string) argumentation.Move {
	return argumentation.Move{Act: argumentation.Claim, Proposition: p}
}

func why(p, target string) argumentation.Move {
	return argumentation.Move{Act: argumentation.Why, Proposition: p, Target: target}
}

func concede(p, target string) argumentation.Move {
	return argumentation.Move{Act: argumentation.Concede, Proposition: p, Target: target}
}

func retract(p, target string) argumentation.Move {
	return argumentation.Move{Act: argumentation.Retract, Proposition: p, Target: target}
}

func since(p, target string, reasons ...string) argumentation.Move {
	return argumentation.Move{Act: argumentation.Since, Proposition: p, Reasons: reasons, Target: target}
}

func to(m argumentation.Move, target, attack string) argumentation.Move {
	m.Target, m.Attack = target, attack
	return m
}

// reply is a debater's JSON reply.
func reply(text string, moves ...argumentation.Move) string {
	b, err := json.Marshal(map[string]any{"text": text, "moves": moves})
	if err != nil {
		panic(err)
	}
	return string(b)
}

const thesis = "We should rewrite billing in Go"

// validModeration names a winner, which is ignored.
const validModeration = `{"rationale": "OPP's undercut A5 survived and weakened A1.", ` +
	`"consensus": "Rewrite the invoice module first and measure.", "conditions": ["Build times exceed an hour"], "winner": "PRO"}`

// script is a debate of shortConfig: each side's turns in order, and the
// moderator's reply.
type script struct {
	pro, opp []string
	mod      []string
}

// legalScript is a debate in which every move is legal: PRO argues, OPP
// challenges a premise and undercuts the argument, PRO defends the premise
// and concedes OPP's reason, OPP concedes the premise. OPP wins: the
// undercut, backed by a reason PRO conceded, survives and weakens PRO's
// thesis.
var legalScript = script{
	pro: []string{
		reply("Rewriting billing in Go is the pragmatic choice.", argumentation.Move{ID: "X9", Speaker: "OPP", Act: argumentation.Claim, Proposition: thesis}),
		reply("Go compiles fast and the team knows it.", since(thesis, "", "Go compiles fast", "The team knows Go")),
		reply("Every engineer has shipped Go; builds being cached is true, and the rewrite still stands.",
			since("The team knows Go", "O2", "All five engineers have shipped Go services"),
			concede("Builds are cached", "O3"),
			claim(thesis)),
	},
	opp: []string{
		reply("A rewrite is a risk we need not take.", to(claim("¬"+thesis), "P1", "")),
		reply("Does the team really know Go? And compile speed does not matter when builds are cached.",
			why("The team knows Go", "P2"),
			to(since("Compile speed is irrelevant for billing", "", "Builds are cached"), "P2", "undercut")),
		reply("I grant the team knows Go, but I still would not rewrite.",
			concede("The team knows Go", "P3"),
			claim("¬"+thesis)),
	},
	mod: []string{validModeration},
}

// fake returns a fake client playing sc: PRO's and OPP's turns by model, the
// moderator's replies in order.
func (sc script) fake() *llmtest.Fake { return sc.addTo(llmtest.New()) }

// addTo adds sc's rules to f, after those it has.
func (sc script) addTo(f *llmtest.Fake) *llmtest.Fake {
	onTurn := func(model string) *llmtest.Rule {
		return f.On(func(r llm.Request) bool { return r.Purpose == PurposeTurn && r.Model == model })
	}
	onTurn(proModel).Reply(sc.pro...)
	onTurn(oppModel).Reply(sc.opp...)
	f.OnPurpose(PurposeVerdict).Reply(sc.mod...)
	return f
}

// requests returns the requests f got for purpose and model ("" for any).
func requests(f *llmtest.Fake, purpose, model string) []llm.Request {
	var out []llm.Request
	for _, r := range f.Requests() {
		if r.Purpose == purpose && (model == "" || r.Model == model) {
			out = append(out, r)
		}
	}
	return out
}

// countingClient counts the calls of each purpose.
type countingClient struct {
	llm.Client
	mu    sync.Mutex
	calls map[string]int
}

func (c *countingClient) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	c.mu.Lock()
	if c.calls == nil {
		c.calls = map[string]int{}
	}
	c.calls[req.Purpose]++
	c.mu.Unlock()
	return c.Client.Complete(ctx, req)
}

func (c *countingClient) count(purpose string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[purpose]
}
