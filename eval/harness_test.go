package eval_test

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/duelogic/duelogic/eval"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
)

// The identities that end each arm's system prompt, by which the script
// tells its requests apart.
const singleIdentity = "not as instructions."

func debateIdentity(i, n int) string {
	return fmt.Sprintf("You are agent %d of %d solving this question together.", i, n)
}

// scripted is a fake model whose replies are scripted by item and role:
// each (question, role) pair has its own llmtest.Fake, which holds its
// replies to their schemas and gives them in order, and a request goes to
// the Fake of its question and of the identity its system prompt ends
// with. (One Fake with a rule per pair would match every request against
// hundreds of rules.)
type scripted struct {
	t     *testing.T
	roles map[string][]role // by question
}

type role struct {
	identity string
	fake     *llmtest.Fake
}

func newScripted(t *testing.T) *scripted { return &scripted{t: t, roles: map[string][]role{}} }

// on scripts the answers, in order, of the role whose system prompt ends
// with identity to item it.
func (s *scripted) on(it eval.Item, identity string, answers ...string) {
	f := llmtest.New().CheckSchemas(s.t)
	for _, a := range answers {
		f.Default().Reply(fmt.Sprintf(`{"reasoning": "scripted", "answer": %q}`, a))
	}
	s.roles[it.Question] = append(s.roles[it.Question], role{identity, f})
}

// Complete answers req with the Fake scripted for it.
func (s *scripted) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if len(req.Messages) != 2 {
		return llm.Response{}, fmt.Errorf("a request of %d messages", len(req.Messages))
	}
	sys, user := req.Messages[0].Content, req.Messages[1].Content
	q, _, _ := strings.Cut(strings.TrimPrefix(user, "<question>\n"), "\n</question>")
	for _, r := range s.roles[q] {
		if strings.HasSuffix(sys, r.identity) {
			return r.fake.Complete(ctx, req)
		}
	}
	return llm.Response{}, fmt.Errorf("no script for %q", q)
}

// requests counts the calls made.
func (s *scripted) requests() int {
	n := 0
	for _, rs := range s.roles {
		for _, r := range rs {
			n += len(r.fake.Requests())
		}
	}
	return n
}

// wrong is a wrong answer to it, different for each agent.
func wrong(it eval.Item, agent int) string {
	v, _ := strconv.Atoi(it.Answer)
	return strconv.Itoa(v + 1 + agent)
}

// script is what the scripted agents answer: single[i] whether the single
// arm is right on item i; debate[i][r][a] whether agent a is right in
// round r.
type script struct {
	single []bool
	debate [][][]bool
}

// newScript draws a script: the single arm right with probability pSingle;
// debater a right in round 0 with probability pRound0[a], and from round to
// round a right answer turning wrong with probability pBreak and a wrong
// one turning right with pFix.
func newScript(n, agents, rounds int, pSingle float64, pRound0 []float64, pBreak, pFix float64, seed uint64) script {
	rng := rand.New(rand.NewPCG(seed, 1))
	s := script{single: make([]bool, n), debate: make([][][]bool, n)}
	for i := range n {
		s.single[i] = rng.Float64() < pSingle
		s.debate[i] = make([][]bool, rounds+1)
		for r := range rounds + 1 {
			s.debate[i][r] = make([]bool, agents)
			for a := range agents {
				switch prev := r > 0 && s.debate[i][r-1][a]; {
				case r == 0:
					s.debate[i][r][a] = rng.Float64() < pRound0[a]
				case prev:
					s.debate[i][r][a] = rng.Float64() >= pBreak
				default:
					s.debate[i][r][a] = rng.Float64() < pFix
				}
			}
		}
	}
	return s
}

// fake returns a fake model answering items by s.
func (s script) fake(t *testing.T, items []eval.Item) *scripted {
	f := newScripted(t)
	agents := len(s.debate[0][0])
	for i, it := range items {
		ans := it.Answer
		if !s.single[i] {
			ans = wrong(it, 9)
		}
		f.on(it, singleIdentity, ans)
		for a := range agents {
			var replies []string
			for r := range s.debate[i] {
				if s.debate[i][r][a] {
					replies = append(replies, it.Answer)
				} else {
					replies = append(replies, wrong(it, a))
				}
			}
			f.on(it, debateIdentity(a+1, agents), replies...)
		}
	}
	return f
}

func countRight(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

func arm(t *testing.T, rep *eval.Report, name string) eval.ArmStats {
	t.Helper()
	for _, a := range rep.Arms {
		if a.Name == name {
			return a
		}
	}
	t.Fatalf("no arm %s in the report", name)
	return eval.ArmStats{}
}

// TestHarnessRecoversScriptedAgents: agents scripted to be right with known
// probabilities and to flip at known rates. The report's accuracies are
// exactly the scripted ones and their intervals hold the probabilities;
// the flip ledger counts exactly the scripted flips; a re-run asks the
// model nothing.
func TestHarnessRecoversScriptedAgents(t *testing.T) {
	const n, agents, rounds = 100, 3, 2
	items := eval.Arithmetic(n, 42)
	s := newScript(n, agents, rounds, 0.7, []float64{0.5, 0.6, 0.7}, 0.1, 0.3, 42)
	f := s.fake(t, items)
	st := store.NewMemory()
	cfg := eval.Config{Arms: []string{eval.ArmSingle, eval.ArmDebate, eval.ArmVote}, Agents: agents, Rounds: rounds, Model: "m"}
	rep, err := eval.Evaluate(context.Background(), f, st, items, cfg)
	if err != nil {
		t.Fatal(err)
	}
	calls := f.requests()
	if want := n * (1 + agents*(rounds+1)); calls != want {
		t.Errorf("%d calls, want %d", calls, want)
	}

	// The single arm: the scripted count, and 0.7 within its interval.
	single := arm(t, rep, eval.ArmSingle)
	if want := countRight(s.single); single.Correct != want || single.N != n {
		t.Errorf("single: %d of %d right, want %d of %d", single.Correct, single.N, want, n)
	}
	if single.CI[0] > 0.7 || single.CI[1] < 0.7 {
		t.Errorf("single: interval %v does not hold the scripted 0.7", single.CI)
	}

	// The debate and the vote: majorities of the scripted answers. The
	// scripted wrong answers differ by agent, so a majority is right when
	// at least two agents are, or when one is and it is agent 1 (a
	// three-way tie goes to the answer given first).
	var wantDebate, wantVote int
	var rightToWrong, wrongToRight, kept int
	roundRight := make([]int, rounds+1)
	for i := range n {
		majorityRight := func(r []bool) bool { return countRight(r) >= 2 || countRight(r) == 1 && r[0] }
		if majorityRight(s.debate[i][rounds]) {
			wantDebate++
		}
		if majorityRight(s.debate[i][0]) {
			wantVote++
		}
		for r := range rounds + 1 {
			roundRight[r] += countRight(s.debate[i][r])
			for a := range agents {
				switch {
				case r == 0:
				case s.debate[i][r-1][a] && !s.debate[i][r][a]:
					rightToWrong++
				case !s.debate[i][r-1][a] && s.debate[i][r][a]:
					wrongToRight++
				default:
					kept++
				}
			}
		}
	}
	if got := arm(t, rep, eval.ArmDebate).Correct; got != wantDebate {
		t.Errorf("debate: %d right, want %d", got, wantDebate)
	}
	if got := arm(t, rep, eval.ArmVote).Correct; got != wantVote {
		t.Errorf("vote: %d right, want %d", got, wantVote)
	}
	fl := rep.Flips
	if fl.RightToWrong != rightToWrong || fl.WrongToRight != wrongToRight || fl.Kept != kept || fl.WrongToWrong != 0 {
		t.Errorf("flips: %d right→wrong, %d wrong→right, %d kept, %d wrong→wrong; scripted %d, %d, %d, 0",
			fl.RightToWrong, fl.WrongToRight, fl.Kept, fl.WrongToWrong, rightToWrong, wrongToRight, kept)
	}
	// Round 0's share right is the agents' mean scripted accuracy, 0.6.
	for r, acc := range fl.RoundAccuracy {
		if want := float64(roundRight[r]) / float64(n*agents); acc != want {
			t.Errorf("round %d: %.4f of answers right, want %.4f", r, acc, want)
		}
	}
	if lo, hi := eval.Wilson(roundRight[0], n*agents); lo > 0.6 || hi < 0.6 {
		t.Errorf("round 0: interval (%.3f, %.3f) does not hold the scripted 0.6", lo, hi)
	}
	if fl.Items != n || len(rep.Results) != n || len(rep.Results[0].Ledger) != rounds+1 {
		t.Errorf("the ledger has %d debates, %d results", fl.Items, len(rep.Results))
	}

	// The vote is free: no call of its own, round 0's tokens.
	vote, debate := arm(t, rep, eval.ArmVote), arm(t, rep, eval.ArmDebate)
	if vote.CallsPerItem != agents || debate.CallsPerItem != agents*(rounds+1) || vote.TokensPerItem >= debate.TokensPerItem {
		t.Errorf("vote %.1f calls, %.0f tokens per item; debate %.1f calls, %.0f tokens", vote.CallsPerItem, vote.TokensPerItem, debate.CallsPerItem, debate.TokensPerItem)
	}

	// A re-run reads everything back and asks nothing.
	again, err := eval.Evaluate(context.Background(), f, st, items, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.requests(); got != calls {
		t.Errorf("the re-run made %d calls", got-calls)
	}
	a, _ := rep.JSON()
	b, _ := again.JSON()
	if string(a) != string(b) {
		t.Error("the re-run's report differs")
	}
}

// TestEqualBudgetLandsWithinTolerance: self-consistency's k is chosen so
// its mean tokens per item are within 10% of the debate's.
func TestEqualBudgetLandsWithinTolerance(t *testing.T) {
	for _, c := range []struct{ agents, rounds int }{{3, 2}, {2, 1}} {
		t.Run(fmt.Sprintf("%d agents, %d rounds", c.agents, c.rounds), func(t *testing.T) {
			f := llmtest.New().CheckSchemas(t)
			f.Default().Reply(`{"reasoning": "Multiplying first, then adding and subtracting left to right.", "answer": "1"}`)
			items := eval.Arithmetic(12, 1)
			rep, err := eval.Evaluate(context.Background(), f, store.NewMemory(), items, eval.Config{
				Arms: []string{eval.ArmSelfConsistency, eval.ArmDebate}, Agents: c.agents, Rounds: c.rounds, Budget: eval.BudgetEqual,
			})
			if err != nil {
				t.Fatal(err)
			}
			b := rep.Budget
			sc, d := arm(t, rep, eval.ArmSelfConsistency), arm(t, rep, eval.ArmDebate)
			ratio := sc.TokensPerItem / d.TokensPerItem
			if b == nil || !b.Within || math.Abs(ratio-1) > eval.BudgetTolerance || math.Abs(b.Ratio-ratio) > 1e-9 {
				t.Fatalf("budget %+v; self-consistency %.0f tokens per item, debate %.0f: ratio %.3f", b, sc.TokensPerItem, d.TokensPerItem, ratio)
			}
			if sc.Samples != b.K || b.K < 2 {
				t.Errorf("k = %d (arm says %d)", b.K, sc.Samples)
			}
			for _, a := range rep.Arms {
				if a.Name == eval.ArmSingle {
					t.Error("the single arm, played to measure a sample, is reported though not asked for")
				}
			}
		})
	}
}

// TestMaxCostStopsCleanly: the run stops starting items once its cost
// reaches the limit, reports the items done, and a re-run with the same
// limit asks nothing more.
func TestMaxCostStopsCleanly(t *testing.T) {
	f := llmtest.New().CheckSchemas(t)
	f.Default().Reply(`{"reasoning": "r", "answer": "1"}`)
	items := eval.Arithmetic(15, 1)
	st := store.NewMemory()
	cfg := eval.Config{Arms: []string{eval.ArmSingle, eval.ArmDebate, eval.ArmVote}, Model: "m", Parallel: 1,
		Prices: map[string]eval.Price{"m": {Input: 1000, Output: 1000}}} // $0.001 a token
	full, err := eval.Evaluate(context.Background(), f, store.NewMemory(), items, cfg)
	if err != nil {
		t.Fatal(err)
	}
	f.Reset()
	cfg.MaxCost = full.Cost / 3
	rep, err := eval.Evaluate(context.Background(), f, st, items, cfg)
	if err != nil {
		t.Fatal(err)
	}
	n := arm(t, rep, eval.ArmDebate).N
	if rep.Stopped == "" || n == 0 || n >= len(items) || rep.Cost < cfg.MaxCost || rep.Cost > full.Cost/2 {
		t.Fatalf("stopped %q after %d items at $%.3f (limit $%.3f, full run $%.3f)", rep.Stopped, n, rep.Cost, cfg.MaxCost, full.Cost)
	}
	if !strings.Contains(rep.Markdown(""), "Stopped early") {
		t.Error("the report does not say the run stopped")
	}
	calls := len(f.Requests())
	if _, err := eval.Evaluate(context.Background(), f, st, items, cfg); err != nil {
		t.Fatal(err)
	}
	if got := len(f.Requests()); got != calls {
		t.Errorf("a re-run at the same limit made %d calls", got-calls)
	}
	cfg.MaxCost = 0
	rest, err := eval.Evaluate(context.Background(), f, st, items, cfg)
	if err != nil || rest.Stopped != "" || arm(t, rest, eval.ArmDebate).N != len(items) {
		t.Errorf("without the limit the run did not finish: %v, %q", err, rest.Stopped)
	}
	if rest.Cost != full.Cost {
		t.Errorf("the finished run cost $%v, one run straight through $%v", rest.Cost, full.Cost)
	}
}

// TestVerdicts: a clear difference is called significant; identical arms
// are "no significant difference", in the JSON and the Markdown.
func TestVerdicts(t *testing.T) {
	items := eval.Arithmetic(20, 5)
	f := newScripted(t)
	for _, it := range items {
		f.on(it, singleIdentity, it.Answer)
		for a := 1; a <= 3; a++ {
			f.on(it, debateIdentity(a, 3), wrong(it, a), wrong(it, a), wrong(it, a))
		}
	}
	rep, err := eval.Evaluate(context.Background(), f, store.NewMemory(), items, eval.Config{Arms: []string{eval.ArmSingle, eval.ArmDebate, eval.ArmVote}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Pairs) != 3 {
		t.Fatalf("%d pairs, want 3", len(rep.Pairs))
	}
	for _, p := range rep.Pairs {
		switch p.A + " " + p.B {
		case "single debate", "single vote":
			if !p.Significant || p.OnlyA != 20 || p.OnlyB != 0 || p.P != eval.McNemarExact(20, 0) || p.PHolm != 3*p.P {
				t.Errorf("%s vs %s: %+v", p.A, p.B, p)
			}
			if !strings.HasPrefix(p.Verdict, "single is more accurate than") {
				t.Errorf("verdict %q", p.Verdict)
			}
		case "debate vote":
			if p.Significant || p.P != 1 || p.Neither != 20 || !strings.HasPrefix(p.Verdict, "no significant difference") {
				t.Errorf("debate vs vote: %+v", p)
			}
		}
	}
	md := rep.Markdown("chart.svg")
	for _, want := range []string{"debate vs vote: no significant difference", "single vs debate: single is more accurate", "![", "How to read this"} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown report does not say %q:\n%s", want, md)
		}
	}
}

// TestReportJSONShape: report.json holds the fields the issue names.
func TestReportJSONShape(t *testing.T) {
	rep, err := eval.Evaluate(context.Background(), llm.NewStub(1), store.NewMemory(), eval.Claims(8, 1),
		eval.Config{Budget: eval.BudgetEqual, Stub: true, Model: "stub"})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Arms []struct {
			Name          *string    `json:"name"`
			N             *int       `json:"n"`
			Accuracy      *float64   `json:"accuracy"`
			CI            []float64  `json:"ci"`
			TokensPerItem *float64   `json:"tokensPerItem"`
			Rest          []struct{} `json:"-"`
		} `json:"arms"`
		Pairs []struct {
			A, B         *string
			OnlyA, OnlyB *int
			P            *float64
		} `json:"pairs"`
		Flips map[string]json.RawMessage `json:"flips"`
		Note  string                     `json:"note"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Arms) != 4 || len(doc.Pairs) != 6 {
		t.Fatalf("%d arms, %d pairs", len(doc.Arms), len(doc.Pairs))
	}
	for _, a := range doc.Arms {
		if a.Name == nil || a.N == nil || a.Accuracy == nil || len(a.CI) != 2 || a.TokensPerItem == nil || *a.N != 8 {
			t.Errorf("an arm lacks a field: %s", raw)
		}
	}
	for _, p := range doc.Pairs {
		if p.A == nil || p.B == nil || p.OnlyA == nil || p.OnlyB == nil || p.P == nil {
			t.Errorf("a pair lacks a field: %s", raw)
		}
	}
	if doc.Flips["rightToWrong"] == nil || doc.Flips["wrongToRight"] == nil {
		t.Errorf("flips lack rightToWrong or wrongToRight: %s", doc.Flips)
	}
	if !strings.Contains(doc.Note, "not findings") || !strings.Contains(rep.Markdown(""), "Not a finding") {
		t.Error("a stub run's report does not say its numbers are no findings")
	}
}

// TestChartIsWellFormedSVG: the chart parses as XML, has a dot and an
// interval bar per arm, and escapes what it prints.
func TestChartIsWellFormedSVG(t *testing.T) {
	rep := &eval.Report{Model: `a<b & "c"`, Items: 10, Stub: true, Arms: []eval.ArmStats{
		{Name: eval.ArmSingle, N: 10, Correct: 5, Accuracy: 0.5, CI: [2]float64{0.24, 0.76}, TokensPerItem: 120},
		{Name: eval.ArmDebate, N: 10, Correct: 8, Accuracy: 0.8, CI: [2]float64{0.49, 0.94}, TokensPerItem: 2300, Samples: 3},
		{Name: eval.ArmVote, Samples: 3},
	}}
	svg := rep.Chart()
	dec := xml.NewDecoder(strings.NewReader(string(svg)))
	circles, texts := 0, []string{}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("chart.svg is not well-formed: %v\n%s", err, svg)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if el.Name.Local == "circle" {
				circles++
			}
		case xml.CharData:
			texts = append(texts, string(el))
		}
	}
	// Per arm with items a dot and a legend dot; the arm without items a
	// legend dot only.
	if circles != 5 {
		t.Errorf("%d circles, want 5", circles)
	}
	all := strings.Join(texts, "|")
	for _, want := range []string{`model a<b & "c"`, "no items answered", "not findings", "1k", "3k"} {
		if !strings.Contains(all, want) {
			t.Errorf("the chart does not say %q: %s", want, all)
		}
	}
}

// TestProgress: Progress hears every item, once each, with estimates from
// the clock it is given.
func TestProgress(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Second)
		return now
	}
	var got []eval.Progress
	items := eval.Arithmetic(6, 1)
	_, err := eval.Evaluate(context.Background(), llm.NewStub(1), store.NewMemory(), items, eval.Config{
		Arms: []string{eval.ArmSingle}, Parallel: 1, Now: clock,
		Progress: func(p eval.Progress) { got = append(got, p) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(items) {
		t.Fatalf("%d progress reports for %d items", len(got), len(items))
	}
	for i, p := range got {
		if p.Done != i+1 || p.Total != len(items) || p.Phase != eval.ArmSingle || p.Tokens == 0 || p.Elapsed <= 0 {
			t.Errorf("report %d: %+v", i, p)
		}
	}
	if last := got[len(got)-1]; last.Left != 0 {
		t.Errorf("nothing is left at the end, but the estimate says %v", last.Left)
	}
	if first := got[0]; first.Left <= 0 {
		t.Errorf("the first estimate of the time left is %v", first.Left)
	}
}

func TestConfigErrors(t *testing.T) {
	items := eval.Arithmetic(2, 1)
	for _, cfg := range []eval.Config{
		{Arms: []string{"chorus"}},
		{Arms: []string{eval.ArmSingle, eval.ArmSingle}},
		{Arms: []string{eval.ArmSingle}, Budget: eval.BudgetEqual},
		{Budget: "lavish"},
		{Agents: 1},
		{Rounds: 99},
		{MaxCost: -1},
	} {
		if _, err := eval.Evaluate(context.Background(), llm.NewStub(1), store.NewMemory(), items, cfg); err == nil {
			t.Errorf("Evaluate accepted %+v", cfg)
		}
	}
}

// TestRerunResumesAfterAFailure: a model failure stops the run; run again,
// it finishes, asking only what was not stored, and reports what an
// uninterrupted run reports.
func TestRerunResumesAfterAFailure(t *testing.T) {
	const n, agents, rounds = 8, 3, 2
	items := eval.Arithmetic(n, 9)
	s := newScript(n, agents, rounds, 0.7, []float64{0.5, 0.6, 0.7}, 0.1, 0.3, 9)
	cfg := eval.Config{Arms: []string{eval.ArmSingle, eval.ArmDebate, eval.ArmVote}, Agents: agents, Rounds: rounds, Parallel: 1}
	clean, err := eval.Evaluate(context.Background(), s.fake(t, items), store.NewMemory(), items, cfg)
	if err != nil {
		t.Fatal(err)
	}

	f := s.fake(t, items)
	// Agent 2's revision in round 1 of item 5 fails the first time.
	it := items[4]
	var replies []string
	for r := range rounds + 1 {
		a := it.Answer
		if !s.debate[4][r][1] {
			a = wrong(it, 1)
		}
		replies = append(replies, fmt.Sprintf(`{"reasoning": "scripted", "answer": %q}`, a))
	}
	flaky := llmtest.New().CheckSchemas(t)
	flaky.Default().Reply(replies[0]).Fail(errors.New("the server fell over")).Reply(replies[1:]...)
	for i, r := range f.roles[it.Question] {
		if r.identity == debateIdentity(2, agents) {
			f.roles[it.Question][i].fake = flaky
		}
	}
	st := store.NewMemory()
	if _, err := eval.Evaluate(context.Background(), f, st, items, cfg); err == nil || !strings.Contains(err.Error(), "fell over") {
		t.Fatalf("the failure was not reported: %v", err)
	}
	rep, err := eval.Evaluate(context.Background(), f, st, items, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := n * (1 + agents*(rounds+1))
	if got := f.requests(); got < want+1 || got > want+agents {
		t.Errorf("%d calls in all; a clean run makes %d, and the failure may cost the round's %d calls at most", got, want, agents)
	}
	a, _ := clean.JSON()
	b, _ := rep.JSON()
	if string(a) != string(b) {
		t.Error("the resumed run's report differs from an uninterrupted run's")
	}
}
