package eval

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/duelogic/duelogic/internal/llmtext"
	"github.com/duelogic/duelogic/llm"
)

// StubNote is what a report on the offline stub says first.
const StubNote = "These numbers come from the offline stub, which is not a model: it answers right with a fixed probability " +
	"(first answers 60%; a debater revising re-solves 20% of the time and otherwise joins the majority it read). " +
	"They show that the harness works; they are not findings about debate."

// StubFormatsNote is added to [StubNote] when arms of [FormatArms] ran on
// the stub.
const StubFormatsNote = " The persuasion and claim-strength arms follow the persuasion format's scripted stub dialogues, " +
	"which do not read the question (their answers are about chance); the moderated arm's reading of the recommendation " +
	"is answered like a first answer (right 60% of the time), whatever the recommendation said."

// Report is an evaluation's outcome: per arm, per pair of arms, the
// debate's flips, and every item's answers. Its JSON is report.json.
type Report struct {
	// Note says what the numbers are not (set on the stub: StubNote).
	Note string `json:"note,omitempty"`
	// Stub: the run was on the offline stub (Config.Stub).
	Stub bool `json:"stub"`
	// Model is the model every arm asked.
	Model string `json:"model,omitempty"`
	// Items is how many items the run has; an arm's N may be fewer when
	// the run stopped (Stopped says why).
	Items   int    `json:"items"`
	Stopped string `json:"stopped,omitempty"`
	// Agents and Rounds of the debate.
	Agents int `json:"agents"`
	Rounds int `json:"rounds"`
	// Arms, in the order of Arms().
	Arms []ArmStats `json:"arms"`
	// Pairs compares every two arms on the items both answered.
	Pairs []PairStats `json:"pairs"`
	// Flips is the debate's flip ledger (zero without a debate).
	Flips Flips `json:"flips"`
	// Budget is the equal-budget search, when Config.Budget asked for it.
	Budget *BudgetResult `json:"budget,omitempty"`
	// Tokens and Cost of the whole run, the equal-budget search's tries
	// included.
	Tokens int     `json:"tokens"`
	Cost   float64 `json:"cost"`
	// SharedTokens and SharedCalls are what the persuasion and
	// claimstrength arms' figures both count: the persuasion dialogue they
	// read on each item is played once and charged in full to each arm
	// (what the arm costs alone), once to Tokens and Cost.
	SharedTokens int `json:"sharedTokens,omitempty"`
	SharedCalls  int `json:"sharedCalls,omitempty"`
	// Results has every item's answers.
	Results []ItemResult `json:"results"`
}

// ArmStats is one arm's accuracy and cost.
type ArmStats struct {
	// Name is the arm's (ArmSingle...).
	Name string `json:"name"`
	// N items answered, Correct of them right; Accuracy = Correct/N, CI
	// its 95% Wilson interval.
	N        int        `json:"n"`
	Correct  int        `json:"correct"`
	Accuracy float64    `json:"accuracy"`
	CI       [2]float64 `json:"ci"`
	// Mean tokens (and calls) per item, what they cost in all, and the
	// accuracy bought per 1000 tokens per item (Accuracy /
	// (TokensPerItem/1000)).
	TokensPerItem     float64 `json:"tokensPerItem"`
	PromptPerItem     float64 `json:"promptTokensPerItem"`
	CompletionPerItem float64 `json:"completionTokensPerItem"`
	// CachedPerItem are the prompt tokens per item the server reported
	// it served from its cache (of PromptPerItem); 0 when it reports none.
	CachedPerItem       float64 `json:"cachedTokensPerItem,omitempty"`
	CallsPerItem        float64 `json:"callsPerItem"`
	Cost                float64 `json:"cost"`
	AccuracyPer1kTokens float64 `json:"accuracyPer1kTokens"`
	// Samples: the k of self-consistency, the agents of the debate and
	// the vote.
	Samples int `json:"samples,omitempty"`
	// Note says how the arm was played ("free: the debate's round 0").
	Note string `json:"note,omitempty"`
}

// PairStats compares arms A and B on the N items both answered: OnlyA
// items A alone got right, OnlyB B alone, Both and Neither. P is McNemar's
// exact p-value ([McNemarExact]), PHolm the same adjusted for the number
// of pairs ([Holm]); Diff is A's accuracy minus B's and DiffCI its 95%
// paired bootstrap interval ([PairedBootstrap]). Significant: PHolm <
// [Alpha]. Verdict says it in words.
type PairStats struct {
	A           string     `json:"a"`
	B           string     `json:"b"`
	N           int        `json:"n"`
	OnlyA       int        `json:"onlyA"`
	OnlyB       int        `json:"onlyB"`
	Both        int        `json:"both"`
	Neither     int        `json:"neither"`
	P           float64    `json:"p"`
	PHolm       float64    `json:"pHolm"`
	Diff        float64    `json:"diff"`
	DiffCI      [2]float64 `json:"diffCI"`
	Significant bool       `json:"significant"`
	Verdict     string     `json:"verdict"`
}

// Flips is the debate's flip ledger: how the agents' answers moved from
// round to round.
type Flips struct {
	// Items with a debate, of Agents agents over Rounds rounds of
	// revision.
	Items int `json:"items"`
	// RightToWrong and WrongToRight count an agent's answer going from
	// right to wrong, or wrong to right, from one round to the next;
	// WrongToWrong a wrong answer changed for another wrong one;
	// Kept the answers that stayed as they were.
	RightToWrong int `json:"rightToWrong"`
	WrongToRight int `json:"wrongToRight"`
	WrongToWrong int `json:"wrongToWrong"`
	Kept         int `json:"kept"`
	// RoundAccuracy[r] is the share of the agents' answers right in round
	// r.
	RoundAccuracy []float64 `json:"roundAccuracy"`
	// FinalIsVote counts the items whose final answer is the round-0
	// majority (the vote), and FinalIsVoteShare their share: how often
	// the debate only repeated the vote.
	FinalIsVote      int     `json:"finalIsVote"`
	FinalIsVoteShare float64 `json:"finalIsVoteShare"`
	// Fixed counts items the vote got wrong and the debate right; Broken
	// the other way.
	Fixed  int `json:"fixed"`
	Broken int `json:"broken"`
}

// ItemResult is one item's answers.
type ItemResult struct {
	// ID is the item's; Gold its gold answer.
	ID   string `json:"id"`
	Gold string `json:"gold"`
	// Arms holds each arm's answer, by arm name.
	Arms map[string]ArmResult `json:"arms"`
	// Ledger[r][i] is debate agent i's answer in round r.
	Ledger [][]string `json:"ledger,omitempty"`
}

// ArmResult is one arm's answer to one item.
type ArmResult struct {
	// DebateID is where it is stored (the vote's is the debate's).
	DebateID string `json:"debateId"`
	// Answer is the arm's answer, Correct whether it is the gold one.
	Answer  string `json:"answer"`
	Correct bool   `json:"correct"`
	// Usage, Calls and Cost are what the arm spent on the item.
	Usage llm.Usage `json:"usage"`
	Calls int       `json:"calls"`
	Cost  float64   `json:"cost"`
}

// report_ builds the report from the arms' results by item.
func (r *runner) buildReport(res map[string][]*played, budget *BudgetResult) *Report {
	cfg := r.cfg
	rep := &Report{Stub: cfg.Stub, Model: cfg.Model, Items: len(r.items), Agents: cfg.Agents, Rounds: cfg.Rounds, Budget: budget}
	if cfg.Stub {
		rep.Note = StubNote
		if slices.ContainsFunc(cfg.Arms, func(a string) bool { return slices.Contains(FormatArms(), a) }) {
			rep.Note += StubFormatsNote
		}
	}
	r.mu.Lock()
	rep.Tokens, rep.Cost = r.tokens, r.cost
	rep.SharedTokens, rep.SharedCalls = r.sharedTokens, r.sharedCalls
	if r.stopped {
		rep.Stopped = fmt.Sprintf("the run reached its cost limit of $%.4g; the arms cover the items done", cfg.MaxCost)
	}
	r.mu.Unlock()

	// Each reported arm's answer to each item.
	arms := map[string][]*ArmResult{}
	for _, arm := range append(Arms(), FormatArms()...) {
		if !slices.Contains(cfg.Arms, arm) {
			continue
		}
		rs := make([]*ArmResult, len(r.items))
		for i, it := range r.items {
			if arm == ArmVote {
				if p := at(res[ArmDebate], i); p != nil {
					u, calls := p.answers.RoundUsage(0)
					vote, _ := Majority(p.answers.Texts(0))
					rs[i] = &ArmResult{DebateID: p.id, Answer: vote, Correct: it.Correct(vote), Usage: u, Calls: calls, Cost: r.price(u)}
				}
				continue
			}
			if p := at(res[arm], i); p != nil {
				rs[i] = &ArmResult{DebateID: p.id, Answer: p.answers.Final, Correct: it.Correct(p.answers.Final), Usage: p.usage, Calls: p.calls, Cost: p.cost}
			}
		}
		arms[arm] = rs
		rep.Arms = append(rep.Arms, armStats(arm, rs, r.samples(arm, budget)))
	}
	rep.Pairs = pairs(rep.Arms, arms)
	rep.Flips = flips(r.items, res[ArmDebate])
	for i, it := range r.items {
		ir := ItemResult{ID: it.ID, Gold: it.Answer, Arms: map[string]ArmResult{}}
		for arm, rs := range arms {
			if rs[i] != nil {
				ir.Arms[arm] = *rs[i]
			}
		}
		if p := at(res[ArmDebate], i); p != nil {
			for r := range p.answers.Rounds {
				ir.Ledger = append(ir.Ledger, p.answers.Texts(r))
			}
		}
		rep.Results = append(rep.Results, ir)
	}
	return rep
}

// at is ps[i], or nil.
func at(ps []*played, i int) *played {
	if i < len(ps) {
		return ps[i]
	}
	return nil
}

// samples is what an arm's Samples says.
func (r *runner) samples(arm string, b *BudgetResult) int {
	switch arm {
	case ArmSelfConsistency:
		if b != nil {
			return b.K
		}
		return r.cfg.Samples
	case ArmDebate, ArmVote:
		return r.cfg.Agents
	}
	return 1
}

func armStats(arm string, rs []*ArmResult, samples int) ArmStats {
	a := ArmStats{Name: arm, Samples: samples}
	var tokens, prompt, completion, cached, calls int
	for _, x := range rs {
		if x == nil {
			continue
		}
		a.N++
		if x.Correct {
			a.Correct++
		}
		tokens += x.Usage.Total()
		prompt += x.Usage.PromptTokens
		completion += x.Usage.CompletionTokens
		cached += x.Usage.CachedPromptTokens
		calls += x.Calls
		a.Cost += x.Cost
	}
	a.CI[0], a.CI[1] = Wilson(a.Correct, a.N)
	if a.N > 0 {
		n := float64(a.N)
		a.Accuracy = float64(a.Correct) / n
		a.TokensPerItem, a.PromptPerItem, a.CompletionPerItem = float64(tokens)/n, float64(prompt)/n, float64(completion)/n
		a.CallsPerItem, a.CachedPerItem = float64(calls)/n, float64(cached)/n
		if a.TokensPerItem > 0 {
			a.AccuracyPer1kTokens = a.Accuracy / (a.TokensPerItem / 1000)
		}
	}
	switch arm {
	case ArmVote:
		a.Note = "majority of the debate's round-0 answers, read from the stored debates: no call of its own; its tokens are round 0's"
	case ArmSelfConsistency:
		a.Note = fmt.Sprintf("majority of %d independent samples", samples)
	case ArmDebate:
		a.Note = "majority of the agents' answers after the last round"
	case ArmPersuasion:
		a.Note = "a persuasion dialogue's computed verdict: PRO's win is yes, OPP's no, a draw no answer; charged the whole dialogue (shared with claimstrength when both run)"
	case ArmClaimStrength:
		a.Note = fmt.Sprintf("the strength of PRO's thesis in the persuasion dialogue's argument graph: yes at %.2f or more; charged the whole dialogue (shared with persuasion when both run)", ClaimStrengthThreshold)
	case ArmModerated:
		a.Note = "a moderated debate's recommendation, read as one of the choices by a structured judgment"
	}
	return a
}

// pairs compares every two arms on the items both answered.
func pairs(stats []ArmStats, arms map[string][]*ArmResult) []PairStats {
	var out []PairStats
	for i := range stats {
		for j := i + 1; j < len(stats); j++ {
			a, b := stats[i].Name, stats[j].Name
			ps := PairStats{A: a, B: b}
			var ra, rb []bool
			for k := range arms[a] {
				x, y := arms[a][k], arms[b][k]
				if x == nil || y == nil {
					continue
				}
				ra, rb = append(ra, x.Correct), append(rb, y.Correct)
				switch {
				case x.Correct && y.Correct:
					ps.Both++
				case x.Correct:
					ps.OnlyA++
				case y.Correct:
					ps.OnlyB++
				default:
					ps.Neither++
				}
			}
			ps.N = len(ra)
			ps.P = McNemarExact(ps.OnlyA, ps.OnlyB)
			if ps.N > 0 {
				ps.Diff = float64(ps.OnlyA-ps.OnlyB) / float64(ps.N)
				ps.DiffCI[0], ps.DiffCI[1] = PairedBootstrap(ra, rb, uint64(len(out)+1))
			}
			out = append(out, ps)
		}
	}
	p := make([]float64, len(out))
	for i := range out {
		p[i] = out[i].P
	}
	for i, adj := range Holm(p) {
		ps := &out[i]
		ps.PHolm = adj
		ps.Significant = ps.N > 0 && adj < Alpha
		ps.Verdict = verdict(*ps)
	}
	return out
}

// verdict says what a pair's test shows, in words.
func verdict(ps PairStats) string {
	switch {
	case ps.N == 0:
		return "not compared: no item answered by both"
	case !ps.Significant:
		return fmt.Sprintf("no significant difference (McNemar exact %s, Holm-adjusted %s, on %d discordant of %d items)",
			peq(ps.P), peq(ps.PHolm), ps.OnlyA+ps.OnlyB, ps.N)
	}
	better, worse := ps.A, ps.B
	if ps.OnlyB > ps.OnlyA {
		better, worse = worse, better
	}
	return fmt.Sprintf("%s is more accurate than %s (McNemar exact %s, Holm-adjusted %s, on %d discordant of %d items)",
		better, worse, peq(ps.P), peq(ps.PHolm), ps.OnlyA+ps.OnlyB, ps.N)
}

// pval writes a p-value for a table cell.
func pval(p float64) string {
	if p < 0.001 {
		return "< 0.001"
	}
	return fmt.Sprintf("%.3f", p)
}

// peq writes "p = 0.123" or "p < 0.001".
func peq(p float64) string {
	if p < 0.001 {
		return "p < 0.001"
	}
	return fmt.Sprintf("p = %.3f", p)
}

// flips builds the flip ledger of the debates.
func flips(items []Item, debates []*played) Flips {
	var f Flips
	var right, total []int
	for i, p := range debates {
		if p == nil {
			continue
		}
		it := items[i]
		a := p.answers
		f.Items++
		for r, round := range a.Rounds {
			if r >= len(right) {
				right, total = append(right, 0), append(total, 0)
			}
			for ag, x := range round {
				total[r]++
				if it.Correct(x.Answer) {
					right[r]++
				}
				if r == 0 {
					continue
				}
				before := a.Rounds[r-1][ag].Answer
				wasRight, isRight := it.Correct(before), it.Correct(x.Answer)
				switch {
				case wasRight && !isRight:
					f.RightToWrong++
				case !wasRight && isRight:
					f.WrongToRight++
				case Normalize(before) != Normalize(x.Answer):
					f.WrongToWrong++
				default:
					f.Kept++
				}
			}
		}
		vote, _ := Majority(a.Texts(0))
		if Normalize(vote) == Normalize(a.Final) {
			f.FinalIsVote++
		}
		switch vr, fr := it.Correct(vote), it.Correct(a.Final); {
		case !vr && fr:
			f.Fixed++
		case vr && !fr:
			f.Broken++
		}
	}
	for r := range right {
		f.RoundAccuracy = append(f.RoundAccuracy, float64(right[r])/float64(max(total[r], 1)))
	}
	if f.Items > 0 {
		f.FinalIsVoteShare = float64(f.FinalIsVote) / float64(f.Items)
	}
	return f
}

// JSON returns the report as indented JSON (report.json).
func (rep *Report) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("eval: encode the report: %w", err)
	}
	return append(b, '\n'), nil
}

// Markdown returns the report for people (report.md): the arms with their
// intervals and costs, every pair's test in words, the flip ledger, the
// equal-budget search, and how to read them. chart, when not empty, is
// the file name of the chart to show.
func (rep *Report) Markdown(chart string) string {
	var b strings.Builder
	b.WriteString("# Does the debate help?\n\n")
	if rep.Note != "" {
		fmt.Fprintf(&b, "> **Not a finding.** %s\n\n", rep.Note)
	}
	model := rep.Model
	if model == "" {
		model = "(the server's default)"
	}
	fmt.Fprintf(&b, "Model %s; %d items; debate of %d agents over %d rounds of revision.", mdText(model), rep.Items, rep.Agents, rep.Rounds)
	if rep.Cost > 0 {
		fmt.Fprintf(&b, " The run used %d tokens, $%.4f.", rep.Tokens, rep.Cost)
	} else {
		fmt.Fprintf(&b, " The run used %d tokens.", rep.Tokens)
	}
	if rep.SharedTokens > 0 {
		fmt.Fprintf(&b, " The persuasion and claimstrength arms read one persuasion dialogue per item, played once: each arm's tokens, calls and cost below are the whole dialogue's (what the arm costs alone), so the arms' figures count %d tokens (%d calls) twice that the run's total counts once.", rep.SharedTokens, rep.SharedCalls)
	}
	b.WriteString("\n\n")
	if rep.Stopped != "" {
		fmt.Fprintf(&b, "**Stopped early:** %s.\n\n", rep.Stopped)
	}
	if chart != "" {
		fmt.Fprintf(&b, "![Accuracy against mean tokens per item, with 95%% intervals](%s)\n\n", chart)
	}

	b.WriteString("## Arms\n\n")
	b.WriteString("| arm | items | right | accuracy | 95% interval (Wilson) | tokens/item | calls/item | cost | accuracy per 1k tokens |\n")
	b.WriteString("|---|---:|---:|---:|---|---:|---:|---:|---:|\n")
	for _, a := range rep.Arms {
		fmt.Fprintf(&b, "| %s | %d | %d | %.3f | %.3f – %.3f | %.0f | %.1f | $%.4f | %.3f |\n",
			armLabel(a), a.N, a.Correct, a.Accuracy, a.CI[0], a.CI[1], a.TokensPerItem, a.CallsPerItem, a.Cost, a.AccuracyPer1kTokens)
	}
	b.WriteString("\n")
	for _, a := range rep.Arms {
		if a.Note != "" {
			fmt.Fprintf(&b, "- %s: %s.\n", a.Name, a.Note)
		}
	}
	b.WriteString("\n")

	if bu := rep.Budget; bu != nil {
		b.WriteString("## Equal budget\n\n")
		if len(bu.Tried) == 0 {
			b.WriteString("Self-consistency was not played: the debate has no items to match.\n\n")
		} else {
			fmt.Fprintf(&b, "The debate used %.0f tokens per item and one sample %.0f, so self-consistency was tried with k = ", bu.DebateTokensPerItem, bu.SampleTokensPerItem)
			var tries []string
			for _, t := range bu.Tried {
				tries = append(tries, fmt.Sprintf("%d (ratio %.3f)", t.K, t.Ratio))
			}
			b.WriteString(strings.Join(tries, ", "))
			fmt.Fprintf(&b, ". Kept: k = %d, whose mean tokens per item are %.3f times the debate's", bu.K, bu.Ratio)
			if bu.Within {
				fmt.Fprintf(&b, " (within %.0f%%).\n\n", BudgetTolerance*100)
			} else {
				fmt.Fprintf(&b, ": **not within %.0f%%**; compare the arms' costs with that in mind.\n\n", BudgetTolerance*100)
			}
		}
	}

	if len(rep.Pairs) > 0 {
		b.WriteString("## Pairs\n\n")
		b.WriteString("Each pair is compared on the items both answered: McNemar's exact test on the items only one got right, ")
		b.WriteString("Holm-adjusted for the number of pairs, and a paired bootstrap interval for the difference of accuracies.\n\n")
		b.WriteString("| A | B | only A right | only B right | p | p (Holm) | A − B | 95% interval | |\n")
		b.WriteString("|---|---|---:|---:|---:|---:|---:|---|---|\n")
		for _, p := range rep.Pairs {
			sig := "no significant difference"
			if p.Significant {
				sig = "**significant**"
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %s | %s | %+.3f | %+.3f – %+.3f | %s |\n",
				p.A, p.B, p.OnlyA, p.OnlyB, pval(p.P), pval(p.PHolm), p.Diff, p.DiffCI[0], p.DiffCI[1], sig)
		}
		b.WriteString("\n")
		for _, p := range rep.Pairs {
			fmt.Fprintf(&b, "- %s vs %s: %s.\n", p.A, p.B, p.Verdict)
		}
		b.WriteString("\n")
	}

	if f := rep.Flips; f.Items > 0 {
		b.WriteString("## Flip ledger\n\n")
		fmt.Fprintf(&b, "Over %d debates, from one round to the next an agent's answer went right → wrong %d times and wrong → right %d times; ",
			f.Items, f.RightToWrong, f.WrongToRight)
		fmt.Fprintf(&b, "a wrong answer changed to another wrong one %d times, and %d answers stayed as they were.\n\n", f.WrongToWrong, f.Kept)
		var accs []string
		for r, a := range f.RoundAccuracy {
			accs = append(accs, fmt.Sprintf("round %d: %.3f", r, a))
		}
		fmt.Fprintf(&b, "Share of the agents' answers right, by round: %s.\n\n", strings.Join(accs, ", "))
		fmt.Fprintf(&b, "The final answer was the round-0 majority (the vote) in %d of %d debates (%.0f%%); ",
			f.FinalIsVote, f.Items, 100*f.FinalIsVoteShare)
		fmt.Fprintf(&b, "the debate fixed a wrong vote %d times and broke a right one %d times.\n\n", f.Fixed, f.Broken)
	}

	b.WriteString("## How to read this\n\n")
	b.WriteString("- An arm's interval is where its accuracy on items like these plausibly lies; two intervals that overlap do not by themselves mean the arms are alike — the pair's test says that.\n")
	b.WriteString("- \"No significant difference\" means these items cannot tell the two arms apart at the 5% level: the difference seen is within what chance gives. ")
	b.WriteString("It is not evidence that the arms are equal; more items (more discordant ones) would narrow the difference's interval.\n")
	b.WriteString("- Only the items exactly one arm got right count in McNemar's test: items both got right or both got wrong say nothing about which is better.\n")
	b.WriteString("- Compare accuracy at equal cost: tokens per item and accuracy per 1k tokens say what each point of accuracy cost. ")
	b.WriteString("If the debate beats the single answer but not the vote or self-consistency at the same budget, the gain came from voting, not from debating.\n")
	return b.String()
}

// armLabel is an arm's name with its size.
func armLabel(a ArmStats) string {
	switch a.Name {
	case ArmSelfConsistency:
		return fmt.Sprintf("%s (k = %d)", a.Name, a.Samples)
	case ArmDebate, ArmVote:
		return fmt.Sprintf("%s (%d agents)", a.Name, a.Samples)
	}
	return a.Name
}

// mdText makes text safe on a Markdown line.
func mdText(s string) string {
	s = llmtext.OneLine(s)
	return strings.NewReplacer("|", "\\|", "<", "&lt;", "*", "\\*", "_", "\\_", "`", "\\`", "[", "\\[").Replace(s)
}
