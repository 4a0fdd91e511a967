package eval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// BudgetEqual is the [Config].Budget that matches self-consistency's
// budget to the debate's: k is chosen so that its mean tokens per item
// come within BudgetTolerance of the debate's.
const BudgetEqual = "equal"

// BudgetTolerance is how far, as a share, self-consistency's mean tokens
// per item may be from the debate's under [BudgetEqual].
const BudgetTolerance = 0.10

// maxBudgetTries bounds the values of k the equal-budget search runs.
const maxBudgetTries = 3

// ErrBadConfig: a [Config] Evaluate cannot run; the error says why.
var ErrBadConfig = errors.New("eval: bad config")

// Price is what a model's tokens cost, per million: the engine's
// [engine.Price], cached prompt tokens included.
type Price = engine.Price

// Config is an evaluation: which arms, on which model, how large, at
// what budget.
type Config struct {
	// Arms to compare, of [Arms]; nil: all four. ArmVote needs the
	// debate, which is played (and not reported) when ArmDebate is not
	// among them.
	Arms []string `json:"arms"`
	// Model is the model ID sent with every call.
	Model string `json:"model,omitempty"`
	// Temperature of every call; nil: the provider's default.
	Temperature *float64 `json:"temperature,omitempty"`
	// Agents and Rounds of the debate; 0: DefaultAgents, DefaultRounds.
	Agents int `json:"agents"`
	Rounds int `json:"rounds"`
	// Samples is self-consistency's k when Budget is not BudgetEqual; 0:
	// DefaultSamples.
	Samples int `json:"samples"`
	// Budget is "" (Samples as given) or BudgetEqual. BudgetEqual plays
	// the single arm (as the cost of one sample; reported only when among
	// Arms) and the debate first, picks k, and tries again with a
	// corrected k, at most three values in all, until self-consistency's
	// mean tokens per item are within BudgetTolerance of the debate's;
	// the report gives the ratio reached.
	Budget string `json:"budget,omitempty"`
	// Prices by model ID; a model without a price costs 0.
	Prices map[string]Price `json:"prices,omitempty"`
	// MaxCost, when positive, stops the run cleanly once what it cost
	// reaches it (dollars): no item starts after that, the items already
	// playing finish, and the report covers the items done. A re-run
	// counts what the stored calls cost, so it stops at the same place
	// unless MaxCost is raised.
	MaxCost float64 `json:"maxCost,omitempty"`
	// Parallel is how many items play at once; 0: 4.
	Parallel int `json:"parallel,omitempty"`
	// Stub marks a run on the offline stub (llm.Stub): the report says its
	// numbers are the stub's rule (see [StubAccuracy]), not findings.
	Stub bool `json:"stub,omitempty"`

	// Progress, when not nil, is told how the run goes after each item,
	// one call at a time.
	Progress func(Progress) `json:"-"`
	// Now is the clock of the progress estimates and the records; nil:
	// time.Now.
	Now func() time.Time `json:"-"`
	// Logger receives what the engine notices (unreadable replies); nil:
	// discard.
	Logger *slog.Logger `json:"-"`
}

// Progress is how a run goes.
type Progress struct {
	// Phase names the arms being played ("single, debate",
	// "selfconsistency k=7").
	Phase string
	// Done of Total items of the phase.
	Done, Total int
	// Tokens and Cost of the whole run so far, stored calls included.
	Tokens int
	Cost   float64
	// Elapsed in the phase, and Left, an estimate of the phase's rest.
	Elapsed, Left time.Duration
}

func (c Config) withDefaults() Config {
	if c.Arms == nil {
		c.Arms = Arms()
	}
	if c.Agents == 0 {
		c.Agents = DefaultAgents
	}
	if c.Rounds == 0 {
		c.Rounds = DefaultRounds
	}
	if c.Samples == 0 {
		c.Samples = DefaultSamples
	}
	if c.Parallel <= 0 {
		c.Parallel = 4
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// check reports every problem of c (with its defaults) as one error.
func (c Config) check() error {
	var probs []string
	seen := map[string]bool{}
	for _, a := range c.Arms {
		if !slices.Contains(Arms(), a) && !slices.Contains(FormatArms(), a) {
			probs = append(probs, fmt.Sprintf("arm %q: want one of %s", a, strings.Join(append(Arms(), FormatArms()...), ", ")))
		}
		if seen[a] {
			probs = append(probs, fmt.Sprintf("arm %q named twice", a))
		}
		seen[a] = true
	}
	if len(c.Arms) == 0 {
		probs = append(probs, "no arms")
	}
	if c.Agents < 2 || c.Agents > MaxAgents {
		probs = append(probs, fmt.Sprintf("agents %d: want 2 to %d", c.Agents, MaxAgents))
	}
	if c.Rounds < 1 || c.Rounds > MaxRounds {
		probs = append(probs, fmt.Sprintf("rounds %d: want 1 to %d", c.Rounds, MaxRounds))
	}
	if c.Samples < 1 || c.Samples > MaxSamples {
		probs = append(probs, fmt.Sprintf("samples %d: want 1 to %d", c.Samples, MaxSamples))
	}
	switch c.Budget {
	case "":
	case BudgetEqual:
		if !seen[ArmSelfConsistency] || !seen[ArmDebate] {
			probs = append(probs, "budget equal: needs the arms selfconsistency and debate")
		}
	default:
		probs = append(probs, fmt.Sprintf("budget %q: want \"\" or %q", c.Budget, BudgetEqual))
	}
	if c.Temperature != nil && (*c.Temperature < 0 || *c.Temperature > 2) {
		probs = append(probs, fmt.Sprintf("temperature %v: want 0 to 2", *c.Temperature))
	}
	if c.MaxCost < 0 || math.IsNaN(c.MaxCost) {
		probs = append(probs, fmt.Sprintf("max cost %v: want 0 (none) or more", c.MaxCost))
	}
	if len(probs) > 0 {
		return fmt.Errorf("%w: %s", ErrBadConfig, strings.Join(probs, "; "))
	}
	return nil
}

// runner is one Evaluate.
type runner struct {
	cfg    Config
	client llm.Client
	st     store.Store
	items  []Item

	mu      sync.Mutex // guards the fields below
	tokens  int
	cost    float64
	stopped bool
	// charged holds the shared dialogues charged to the run's total;
	// sharedTokens and sharedCalls count what the second arm to read one
	// was charged in its own figures but not in the total.
	charged                   map[string]bool
	sharedTokens, sharedCalls int

	progressMu sync.Mutex // one Progress call at a time
}

// played is one arm's result on one item.
type played struct {
	id      string
	answers *Answers
	usage   llm.Usage
	calls   int
	cost    float64
	// shared, when not "", is the ID of the dialogue the arm shares with
	// another ([FormatDialogue]), whose usage and calls are sharedUsage and
	// sharedCalls (part of usage and calls).
	shared      string
	sharedUsage llm.Usage
	sharedCalls int
}

// spec is an arm as played: how its debate of an item is made.
type spec struct {
	arm    string // the arm's name (ArmSingle...)
	prefix string // of its debate IDs
	format func(t Task) engine.Format[*Answers]
	zero   func() engine.Format[*Answers]
	// name, when not nil, is told the debate's ID (and its item) before it
	// is played.
	name func(f engine.Format[*Answers], id string, it Item)
}

func (r *runner) task(it Item) Task {
	return Task{Model: r.cfg.Model, Question: it.Question, Choices: it.Choices, Temperature: r.cfg.Temperature}
}

func singleSpec() spec {
	return spec{arm: ArmSingle, prefix: "single",
		format: func(t Task) engine.Format[*Answers] { return &Single{Task: t} },
		zero:   func() engine.Format[*Answers] { return &Single{} }}
}

func scSpec(k int) spec {
	return spec{arm: ArmSelfConsistency, prefix: fmt.Sprintf("sc%d", k),
		format: func(t Task) engine.Format[*Answers] { return &SelfConsistency{Task: t, Samples: k} },
		zero:   func() engine.Format[*Answers] { return &SelfConsistency{} }}
}

func debateSpec(agents, rounds int) spec {
	return spec{arm: ArmDebate, prefix: "debate",
		format: func(t Task) engine.Format[*Answers] { return &Debate{Task: t, Agents: agents, Rounds: rounds} },
		zero:   func() engine.Format[*Answers] { return &Debate{} }}
}

// itemKey makes an item ID safe in a debate ID: the characters a debate ID
// may not hold become '_', and an ID that changed or is long gets a hash of
// the original, so that two items never share a key.
func itemKey(id string) string {
	var b strings.Builder
	changed := false
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' {
			b.WriteByte(c)
		} else {
			b.WriteByte('_')
			changed = true
		}
	}
	k := b.String()
	if changed || len(k) > 60 {
		sum := sha256.Sum256([]byte(id))
		k = k[:min(len(k), 60)] + "." + hex.EncodeToString(sum[:4])
	}
	return k
}

// debateID names the debate of arm sp on item it: the arm, the item, and
// a hash of the arm's whole configuration, so that a run with another
// model, question or k never resumes this one.
func debateID(sp spec, it Item, f engine.Format[*Answers]) (string, error) {
	cfg, err := json.Marshal(f)
	if err != nil {
		return "", fmt.Errorf("eval: encode the %s configuration: %w", sp.arm, err)
	}
	sum := sha256.Sum256(cfg)
	return sp.prefix + "-" + itemKey(it.ID) + "-" + hex.EncodeToString(sum[:4]), nil
}

// play plays (or resumes, or reads back) arm sp on item it.
func (r *runner) play(ctx context.Context, sp spec, it Item) (*played, error) {
	f := sp.format(r.task(it))
	id, err := debateID(sp, it, f)
	if err != nil {
		return nil, err
	}
	if sp.name != nil {
		sp.name(f, id, it)
	}
	opts := []engine.Option{engine.WithStore(r.st), engine.WithLogger(r.cfg.Logger), engine.WithClock(r.cfg.Now)}
	var res *engine.Result[*Answers]
	switch _, err := r.st.Records(ctx, id); {
	case errors.Is(err, store.ErrNotFound):
		prop := []rune(it.Question)
		prop = prop[:min(len(prop), engine.MaxPropositionRunes)]
		res, err = engine.Run(ctx, r.client, f, engine.Debate{ID: id, Proposition: string(prop), Unattended: true}, opts...)
		if err != nil {
			return nil, fmt.Errorf("eval: %s on item %s: %w", sp.arm, it.ID, err)
		}
	case err != nil:
		return nil, fmt.Errorf("eval: %s on item %s: look up %s: %w", sp.arm, it.ID, id, err)
	default:
		f = sp.zero() // the stored configuration, decoded by Resume
		if res, err = engine.Resume(ctx, r.client, f, id, opts...); err != nil {
			return nil, fmt.Errorf("eval: %s on item %s: resume %s: %w", sp.arm, it.ID, id, err)
		}
	}
	p := &played{id: id, answers: res.Detail, usage: res.Usage, cost: r.price(res.Usage)}
	for _, round := range res.Detail.Rounds {
		for _, a := range round {
			p.calls += a.Calls
		}
	}
	if ff, ok := f.(*FromFormat); ok && sharesDialogue(ff.Arm) && strings.HasPrefix(ff.Inner, dialoguePrefix) && len(res.Detail.Rounds) > 0 && len(res.Detail.Rounds[0]) > 0 {
		a := res.Detail.Rounds[0][0]
		p.shared, p.sharedUsage, p.sharedCalls = ff.Inner, a.Usage, a.Calls
	}
	return p, nil
}

// price is what usage of the run's model costs.
func (r *runner) price(u llm.Usage) float64 {
	return r.cfg.Prices[r.cfg.Model].Cost(u)
}

// phase plays the arms of specs on the items marked in todo, Parallel
// items at once, each item's arms one after another, and returns the
// results by arm and item (nil where not played). It stops starting items
// once the run's cost reaches MaxCost.
func (r *runner) phase(ctx context.Context, name string, specs []spec, todo []bool) ([][]*played, error) {
	out := make([][]*played, len(specs))
	for i := range out {
		out[i] = make([]*played, len(r.items))
	}
	total := 0
	for _, t := range todo {
		if t {
			total++
		}
	}
	start := r.cfg.Now()
	done := 0
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(r.cfg.Parallel)
	for i, it := range r.items {
		if !todo[i] {
			continue
		}
		if r.overBudget() {
			break
		}
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			for s, sp := range specs {
				p, err := r.play(gctx, sp, it)
				if err != nil {
					return err
				}
				out[s][i] = p
				r.charge(p)
			}
			r.mu.Lock()
			done++
			pr := Progress{Phase: name, Done: done, Total: total, Tokens: r.tokens, Cost: r.cost}
			r.mu.Unlock()
			r.report(pr, start)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return out, err
	}
	return out, ctx.Err()
}

// charge adds p to the run's tokens and cost, a dialogue another arm
// shares once.
func (r *runner) charge(p *played) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p.shared != "" {
		if r.charged[p.shared] {
			r.sharedTokens += p.sharedUsage.Total()
			r.sharedCalls += p.sharedCalls
			r.tokens += p.usage.Total() - p.sharedUsage.Total()
			r.cost += p.cost - r.price(p.sharedUsage)
			return
		}
		if r.charged == nil {
			r.charged = map[string]bool{}
		}
		r.charged[p.shared] = true
	}
	r.tokens += p.usage.Total()
	r.cost += p.cost
}

// overBudget reports whether the run's cost has reached MaxCost, and
// marks the run stopped if so.
func (r *runner) overBudget() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cfg.MaxCost > 0 && r.cost >= r.cfg.MaxCost {
		r.stopped = true
	}
	return r.stopped
}

// report tells Progress about pr, with the time estimates.
func (r *runner) report(pr Progress, start time.Time) {
	if r.cfg.Progress == nil {
		return
	}
	pr.Elapsed = r.cfg.Now().Sub(start)
	if pr.Done > 0 {
		pr.Left = time.Duration(float64(pr.Elapsed) / float64(pr.Done) * float64(pr.Total-pr.Done))
	}
	r.progressMu.Lock()
	defer r.progressMu.Unlock()
	r.cfg.Progress(pr)
}

// Evaluate plays every item through every arm of cfg, with client for the
// model calls and st for the records, and returns the report. Each arm's
// play of an item is a debate of its format ([Single], [SelfConsistency],
// [Debate]) stored in st under an ID made of the arm, the item and a hash
// of the arm's configuration: Evaluate given the same store again resumes
// what did not finish and reads back what did, asking the model nothing
// it was asked before. The vote arm is read from the stored debates.
//
// When the run stops at cfg.MaxCost, the report covers the items done and
// says so (Report.Stopped), with a nil error. A model or store failure
// stops the run with an error; a re-run continues it.
func Evaluate(ctx context.Context, client llm.Client, st store.Store, items []Item, cfg Config) (*Report, error) {
	cfg = cfg.withDefaults()
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if err := CheckItems(items); err != nil {
		return nil, err
	}
	if err := checkArmItems(cfg.Arms, items); err != nil {
		return nil, err
	}
	if client == nil || st == nil {
		return nil, fmt.Errorf("%w: a client and a store are needed", ErrBadConfig)
	}
	r := &runner{cfg: cfg, client: client, st: st, items: items}
	wants := func(arm string) bool { return slices.Contains(cfg.Arms, arm) }
	all := make([]bool, len(items))
	for i := range all {
		all[i] = true
	}
	res := map[string][]*played{}

	// Phase 1: the arms whose size is fixed; under an equal budget, the
	// single arm measures one sample's cost.
	var first []spec
	if wants(ArmSingle) || cfg.Budget == BudgetEqual {
		first = append(first, singleSpec())
	}
	if wants(ArmDebate) || wants(ArmVote) {
		first = append(first, debateSpec(cfg.Agents, cfg.Rounds))
	}
	if wants(ArmSelfConsistency) && cfg.Budget != BudgetEqual {
		first = append(first, scSpec(cfg.Samples))
	}
	for _, arm := range FormatArms() {
		if wants(arm) {
			first = append(first, r.formatSpec(arm))
		}
	}
	var names []string
	for _, sp := range first {
		names = append(names, sp.arm)
	}
	out, err := r.phase(ctx, strings.Join(names, ", "), first, all)
	for i, sp := range first {
		res[sp.arm] = out[i]
	}
	if err != nil {
		return nil, err
	}

	// Phase 2: self-consistency at the debate's budget.
	var budget *BudgetResult
	if cfg.Budget == BudgetEqual {
		if budget, err = r.equalBudget(ctx, res); err != nil {
			return nil, err
		}
	}
	return r.buildReport(res, budget), nil
}

// BudgetResult is how the equal-budget search went.
type BudgetResult struct {
	// Mode is BudgetEqual.
	Mode string `json:"mode"`
	// K is self-consistency's samples chosen; Ratio its mean tokens per
	// item over the debate's, on the items both played; Within: |Ratio −
	// 1| ≤ BudgetTolerance.
	K      int     `json:"k"`
	Ratio  float64 `json:"ratio"`
	Within bool    `json:"within"`
	// Tried lists every k played, in order, with its ratio.
	Tried []BudgetTry `json:"tried"`
	// DebateTokensPerItem and SampleTokensPerItem are what the search
	// started from: the debate's mean tokens per item and one sample's
	// (the single arm's).
	DebateTokensPerItem float64 `json:"debateTokensPerItem"`
	SampleTokensPerItem float64 `json:"sampleTokensPerItem"`
}

// BudgetTry is one k the equal-budget search played.
type BudgetTry struct {
	K     int     `json:"k"`
	Ratio float64 `json:"ratio"`
}

// meanTokens is the mean tokens per item of ps over the items both ps and
// over have (over nil: every item ps has).
func meanTokens(ps, over []*played) (float64, int) {
	sum, n := 0, 0
	for i, p := range ps {
		if p == nil || over != nil && over[i] == nil {
			continue
		}
		sum += p.usage.Total()
		n++
	}
	if n == 0 {
		return 0, 0
	}
	return float64(sum) / float64(n), n
}

// equalBudget picks self-consistency's k so that its mean tokens per item
// match the debate's within BudgetTolerance, playing it on the items the
// debate played: k from one sample's cost first, then corrected by the
// ratio reached, at most maxBudgetTries values; the k whose ratio is
// nearest 1 is kept in res.
func (r *runner) equalBudget(ctx context.Context, res map[string][]*played) (*BudgetResult, error) {
	debate := res[ArmDebate]
	d, nd := meanTokens(debate, nil)
	one, _ := meanTokens(res[ArmSingle], debate)
	b := &BudgetResult{Mode: BudgetEqual, DebateTokensPerItem: d, SampleTokensPerItem: one}
	if nd == 0 || one == 0 {
		return b, nil // stopped before the debate: nothing to match
	}
	todo := make([]bool, len(r.items))
	for i, p := range debate {
		todo[i] = p != nil
	}
	k := clampK(int(math.Round(d / one)))
	var best []*played
	for len(b.Tried) < maxBudgetTries {
		out, err := r.phase(ctx, fmt.Sprintf("%s k=%d", ArmSelfConsistency, k), []spec{scSpec(k)}, todo)
		if err != nil {
			return nil, err
		}
		sc, n := meanTokens(out[0], debate)
		if n == 0 {
			break // stopped at the cost limit
		}
		dd, _ := meanTokens(debate, out[0])
		ratio := sc / dd
		b.Tried = append(b.Tried, BudgetTry{K: k, Ratio: ratio})
		if best == nil || math.Abs(ratio-1) < math.Abs(b.Ratio-1) {
			best, b.K, b.Ratio = out[0], k, ratio
		}
		if math.Abs(ratio-1) <= BudgetTolerance {
			break
		}
		next := clampK(int(math.Round(float64(k) / ratio)))
		if slices.ContainsFunc(b.Tried, func(t BudgetTry) bool { return t.K == next }) {
			break
		}
		k = next
	}
	b.Within = best != nil && math.Abs(b.Ratio-1) <= BudgetTolerance
	res[ArmSelfConsistency] = best
	return b, nil
}

func clampK(k int) int { return min(max(k, 1), MaxSamples) }

// checkArmItems checks that the arms read from other formats have the
// items they can answer: yes/no items for ArmPersuasion and
// ArmClaimStrength, items with choices for ArmModerated.
func checkArmItems(arms []string, items []Item) error {
	var probs []string
	for _, arm := range arms {
		for _, it := range items {
			switch {
			case (arm == ArmPersuasion || arm == ArmClaimStrength) && !yesNo(it.Choices):
				probs = append(probs, fmt.Sprintf("arm %s answers yes/no items only (item %s has choices %q; try -gen claims)", arm, it.ID, it.Choices))
			case arm == ArmModerated && len(it.Choices) == 0:
				probs = append(probs, fmt.Sprintf("arm %s answers items with choices only (item %s has none)", arm, it.ID))
			default:
				continue
			}
			break
		}
	}
	if len(probs) > 0 {
		return fmt.Errorf("%w: %s", ErrBadConfig, strings.Join(probs, "; "))
	}
	return nil
}

// yesNo reports whether choices are "yes" and "no", in either order.
func yesNo(choices []string) bool {
	if len(choices) != 2 {
		return false
	}
	a, b := Normalize(choices[0]), Normalize(choices[1])
	return a == "yes" && b == "no" || a == "no" && b == "yes"
}
