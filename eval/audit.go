package eval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// A judge audit re-judges stored debates of a judged format (scored,
// formal, a podcast's evaluations, a host's own) without playing their
// speeches again: each debate is forked ([engine.Fork]) just before its
// first judgment, with the configuration patched to seat another judge,
// and played on ([engine.ResumeStored]), which replays what was said and
// asks only for what follows the fork.

// Juror is one judge of an audit's jury: the JSON merge patch of the
// judged format's configuration that seats it (for scored,
// {"arbiterModel": "openai/gpt-4o"}) and the model it seats, which the
// self-preference check compares with the debaters' models.
type Juror struct {
	Name  string          `json:"name"`
	Model string          `json:"model"`
	Patch json.RawMessage `json:"patch"`
}

// Swap describes the position-swap audit: Patch, merged after a juror's
// own, presents the sides to the judge in the other order (a field of the
// judged format's configuration), and Mirror maps a verdict of the swapped
// debate back to the sides as they were ("pro" ↔ "opp"); a verdict Mirror
// does not name ("draw") maps to itself.
type Swap struct {
	Patch  json.RawMessage   `json:"patch"`
	Mirror map[string]string `json:"mirror"`
}

// Audit is what to re-judge and how.
type Audit struct {
	// Debates are the IDs of the stored debates to re-judge.
	Debates []string
	// ForkBefore is the record type of the judged format's first
	// judgment (scored: "scored_verdict"): each debate is forked at the
	// record before the first of that type. The records after the fork
	// are played again, so this suits formats whose judgments come after
	// the speeches they judge.
	ForkBefore string
	// ForkKey, when not "", narrows ForkBefore to the record of the step
	// with this key (formal: the "verdict" step of its "formal_decision"
	// records).
	ForkKey string
	// Carry, when set, copies into each fork the original's side steps
	// after the fork that are not of type ForkBefore (scored: the
	// arguments and rebuttals of the later rounds, generated apart from
	// the verdicts), which the resumed fork finds by their keys instead
	// of asking for them again. Set it only for a format whose side steps
	// do not depend on its judgments.
	Carry bool
	// Jurors re-judge every debate.
	Jurors []Juror
	// Swap, when not nil, has every juror judge every debate a second
	// time with the sides swapped.
	Swap *Swap
	// Labels, when not nil, are people's verdicts by debate ID (as
	// [ReadLabels] reads them), which each juror is compared with
	// (Cohen's kappa).
	Labels map[string]string
	// Options are passed to every ResumeStored (WithLogger, ...); the
	// store is st.
	Options []engine.Option
}

// AuditReport is an audit's outcome.
type AuditReport struct {
	Jurors  []string        `json:"jurors"`
	Debates []AuditedDebate `json:"debates"`
	// FleissKappa is the jurors' agreement beyond chance over the debates
	// ([FleissKappa]; null with fewer than two jurors), Agreement the
	// share of juror pairs that agreed.
	FleissKappa *float64 `json:"fleissKappa"`
	Agreement   float64  `json:"agreement"`
	// SwapConsistency is, per juror, the share of debates whose verdict
	// stayed the same when the sides were swapped (mapped back); absent
	// without a Swap.
	SwapConsistency map[string]float64 `json:"swapConsistency,omitempty"`
	// CohenKappa is, per juror, its agreement with the labels beyond
	// chance, over the debates labelled; absent without labels (null
	// when undefined).
	CohenKappa map[string]*float64 `json:"cohenKappa,omitempty"`
	// SelfJudged lists the verdicts a juror gave on a debate one of whose
	// debaters was its own model.
	SelfJudged []SelfJudged `json:"selfJudged,omitempty"`
}

// AuditedDebate is one debate's verdicts.
type AuditedDebate struct {
	ID string `json:"id"`
	// Original is the stored debate's own verdict.
	Original string `json:"original"`
	// Verdicts[j] is juror j's; Swapped[j] its verdict with the sides
	// swapped, mapped back.
	Verdicts []string `json:"verdicts"`
	Swapped  []string `json:"swapped,omitempty"`
	// Forks[j] is the ID of juror j's fork.
	Forks []string `json:"forks"`
	Label string   `json:"label,omitempty"`
}

// SelfJudged is a juror's verdict on a debate in which its own model
// spoke as Side: ForSelf says whether it ruled for that side.
type SelfJudged struct {
	Juror   string `json:"juror"`
	Debate  string `json:"debate"`
	Side    string `json:"side"`
	Verdict string `json:"verdict"`
	ForSelf bool   `json:"forSelf"`
}

// VerdictLabel is a verdict as an audit compares it: the winner's speaker
// ID, "draw", "void", or "none".
func VerdictLabel(v engine.Verdict) string {
	switch {
	case v.Void:
		return "void"
	case v.Draw:
		return "draw"
	case v.Winner != "":
		return v.Winner
	}
	return "none"
}

// RunAudit re-judges every debate of a with every juror (and again with
// the sides swapped, when a.Swap is set), using client for the calls and
// st for the records, and measures the jury: Fleiss' kappa, each juror's
// consistency under the swap, its Cohen's kappa with the labels, and the
// verdicts it gave on debates its own model argued. Each re-judging is a
// new fork; the original debates are not changed.
func RunAudit(ctx context.Context, client llm.Client, st store.Store, a Audit) (*AuditReport, error) {
	if len(a.Jurors) == 0 || len(a.Debates) == 0 || a.ForkBefore == "" {
		return nil, fmt.Errorf("%w: an audit needs debates, jurors and the record type to fork before", ErrBadConfig)
	}
	opts := append(slices.Clone(a.Options), engine.WithStore(st))
	rep := &AuditReport{}
	for _, j := range a.Jurors {
		rep.Jurors = append(rep.Jurors, j.Name)
	}
	forks, err := forksIn(ctx, st)
	if err != nil {
		return nil, err
	}
	for _, id := range a.Debates {
		orig, err := engine.ResumeStored(ctx, client, id, opts...)
		if err != nil {
			return nil, fmt.Errorf("eval: audit: read debate %s: %w", id, err)
		}
		recs, err := st.Records(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("eval: audit: %s: %w", id, err)
		}
		at := slices.IndexFunc(recs, func(r store.Record) bool {
			return r.Type == a.ForkBefore && (a.ForkKey == "" || stepKey(r) == a.ForkKey)
		})
		if at < 1 {
			return nil, fmt.Errorf("%w: debate %s has no %q record (key %q) after its first", ErrBadConfig, id, a.ForkBefore, a.ForkKey)
		}
		var carry []store.Record
		if a.Carry {
			for _, r := range recs[at:] {
				if r.Type != a.ForkBefore && isSideStep(r) {
					carry = append(carry, r)
				}
			}
		}
		fk := forker{client: client, st: st, id: id, at: int64(at), carry: carry, opts: opts, forks: forks[id]}
		d := AuditedDebate{ID: id, Original: VerdictLabel(orig.Detail.Verdict()), Label: a.Labels[id]}
		speakers := debaterModels(orig.Transcript)
		for _, j := range a.Jurors {
			fid, v, err := fk.rejudge(ctx, j.Patch)
			if err != nil {
				return nil, fmt.Errorf("eval: audit: juror %s on %s: %w", j.Name, id, err)
			}
			d.Forks, d.Verdicts = append(d.Forks, fid), append(d.Verdicts, v)
			if a.Swap != nil {
				patch, err := mergePatches(j.Patch, a.Swap.Patch)
				if err != nil {
					return nil, err
				}
				_, sv, err := fk.rejudge(ctx, patch)
				if err != nil {
					return nil, fmt.Errorf("eval: audit: juror %s on %s swapped: %w", j.Name, id, err)
				}
				if m, ok := a.Swap.Mirror[sv]; ok {
					sv = m
				}
				d.Swapped = append(d.Swapped, sv)
			}
			for side, model := range speakers {
				if j.Model != "" && model == j.Model {
					rep.SelfJudged = append(rep.SelfJudged, SelfJudged{Juror: j.Name, Debate: id, Side: side, Verdict: v, ForSelf: v == side})
				}
			}
		}
		rep.Debates = append(rep.Debates, d)
	}
	rep.measure(a)
	return rep, nil
}

// forker re-judges one debate: it forks it at record at (or finds the
// fork an earlier audit made) and plays the fork on.
type forker struct {
	client llm.Client
	st     store.Store
	id     string
	at     int64
	carry  []store.Record
	opts   []engine.Option
	forks  []engine.Summary // the forks of the debate an earlier audit made
}

// rejudge forks the debate with patch, or finds the fork with patch an
// earlier audit of st made, and plays it on (a finished fork is read
// back, an unfinished one resumed), returning its ID and verdict.
func (fk forker) rejudge(ctx context.Context, patch json.RawMessage) (string, string, error) {
	fid, err := fk.existing(ctx, patch)
	if err != nil {
		return "", "", err
	}
	if fid == "" {
		if fid, err = engine.Fork(ctx, fk.st, fk.id, fk.at, patch); err != nil {
			return fid, "", err
		}
		for i, r := range fk.carry {
			r.DebateID, r.Seq = fid, fk.at+1+int64(i)
			if err := fk.st.Append(ctx, r); err != nil {
				return fid, "", fmt.Errorf("carry %s's record %d into %s: %w", fk.id, r.Seq, fid, err)
			}
		}
	}
	res, err := engine.ResumeStored(ctx, fk.client, fid, fk.opts...)
	if err != nil {
		return fid, "", err
	}
	return fid, VerdictLabel(res.Detail.Verdict()), nil
}

// existing returns the ID of a fork of the debate at the same record whose
// configuration is the debate's patched with patch, or "".
func (fk forker) existing(ctx context.Context, patch json.RawMessage) (string, error) {
	orig, err := engine.Inspect(ctx, fk.st, fk.id)
	if err != nil {
		return "", err
	}
	spec, err := mergePatches(orig.Spec, patch)
	if err != nil {
		return "", err
	}
	f, err := engine.Open(orig.Format, spec)
	if err != nil {
		return "", fmt.Errorf("%w: the patched configuration of %s: %w", ErrBadConfig, fk.id, err)
	}
	want, err := canonical(f)
	if err != nil {
		return "", err
	}
	for _, sum := range fk.forks {
		if sum.Debate.ForkOf != fk.id || sum.Debate.ForkAt != fk.at || sum.Format != orig.Format {
			continue
		}
		if got, err := canonical(sum.Spec); err == nil && got == want {
			return sum.ID, nil
		}
	}
	return "", nil
}

// forksIn returns the summaries of the forks st holds, by the debate they
// were forked from.
func forksIn(ctx context.Context, st store.Store) (map[string][]engine.Summary, error) {
	ids, err := st.Debates(ctx)
	if err != nil {
		return nil, fmt.Errorf("eval: audit: list the debates: %w", err)
	}
	out := map[string][]engine.Summary{}
	for _, id := range ids {
		if sum, err := engine.Inspect(ctx, st, id); err == nil && sum.Debate.ForkOf != "" {
			out[sum.Debate.ForkOf] = append(out[sum.Debate.ForkOf], sum)
		}
	}
	return out, nil
}

// canonical is v's JSON with its objects' keys sorted.
func canonical(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		return "", err
	}
	b, err = json.Marshal(x)
	return string(b), err
}

// stepKey is the key of the step a record stores ("" when it has none).
func stepKey(r store.Record) string {
	var e struct {
		Key string `json:"key"`
	}
	_ = json.Unmarshal(r.Data, &e)
	return e.Key
}

// isSideStep reports whether a record stores a side step.
func isSideStep(r store.Record) bool {
	var e struct {
		Side bool `json:"side"`
	}
	_ = json.Unmarshal(r.Data, &e)
	return e.Side
}

// debaterModels returns the model of each speaker of tr but the arbiter
// and people, by speaker (the last model a speaker used).
func debaterModels(tr []engine.Utterance) map[string]string {
	m := map[string]string{}
	for _, u := range tr {
		if u.Speaker != engine.SpeakerArbiter && u.Speaker != engine.SpeakerHuman && u.Model != "" {
			m[u.Speaker] = u.Model
		}
	}
	return m
}

// mergePatches merges JSON merge patch b into a (both objects; nil is {}).
func mergePatches(a, b json.RawMessage) (json.RawMessage, error) {
	var x, y map[string]any
	if len(bytes.TrimSpace(a)) > 0 {
		if err := json.Unmarshal(a, &x); err != nil {
			return nil, fmt.Errorf("%w: a juror's patch is not a JSON object: %v", ErrBadConfig, err)
		}
	}
	if err := json.Unmarshal(b, &y); err != nil {
		return nil, fmt.Errorf("%w: the swap's patch is not a JSON object: %v", ErrBadConfig, err)
	}
	var merge func(dst, src map[string]any) map[string]any
	merge = func(dst, src map[string]any) map[string]any {
		if dst == nil {
			dst = map[string]any{}
		}
		for k, v := range src {
			if sub, ok := v.(map[string]any); ok {
				d, _ := dst[k].(map[string]any)
				dst[k] = merge(d, sub)
			} else {
				dst[k] = v
			}
		}
		return dst
	}
	return json.Marshal(merge(x, y))
}

// measure computes the jury's statistics from the verdicts.
func (rep *AuditReport) measure(a Audit) {
	// Fleiss' kappa over the categories the jurors used.
	var cats []string
	for _, d := range rep.Debates {
		for _, v := range d.Verdicts {
			if !slices.Contains(cats, v) {
				cats = append(cats, v)
			}
		}
	}
	slices.Sort(cats)
	counts := make([][]int, len(rep.Debates))
	agree, pairs := 0, 0
	for i, d := range rep.Debates {
		counts[i] = make([]int, len(cats))
		for _, v := range d.Verdicts {
			counts[i][slices.Index(cats, v)]++
		}
		for x := range d.Verdicts {
			for y := x + 1; y < len(d.Verdicts); y++ {
				pairs++
				if d.Verdicts[x] == d.Verdicts[y] {
					agree++
				}
			}
		}
	}
	if k := FleissKappa(counts); !math.IsNaN(k) {
		rep.FleissKappa = &k
	}
	if pairs > 0 {
		rep.Agreement = float64(agree) / float64(pairs)
	}
	if a.Swap != nil {
		rep.SwapConsistency = map[string]float64{}
		for j, name := range rep.Jurors {
			same := 0
			for _, d := range rep.Debates {
				if d.Verdicts[j] == d.Swapped[j] {
					same++
				}
			}
			rep.SwapConsistency[name] = float64(same) / float64(len(rep.Debates))
		}
	}
	if a.Labels != nil {
		rep.CohenKappa = map[string]*float64{}
		for j, name := range rep.Jurors {
			var got, want []string
			for _, d := range rep.Debates {
				if d.Label != "" {
					got, want = append(got, d.Verdicts[j]), append(want, d.Label)
				}
			}
			if k := CohenKappa(got, want); !math.IsNaN(k) {
				rep.CohenKappa[name] = &k
			} else {
				rep.CohenKappa[name] = nil
			}
		}
	}
}

// ReadLabels reads people's verdicts: JSON Lines of {"id": debate ID,
// "label": verdict} (a winner's speaker ID, "draw", "void" or "none", as
// [VerdictLabel] writes them). An ID given twice, a blank one or label,
// or a line that is not such an object is an error naming the line.
func ReadLabels(r io.Reader) (map[string]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), MaxLineBytes)
	out := map[string]string{}
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var l struct {
			ID    string `json:"id"`
			Label string `json:"label"`
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return nil, fmt.Errorf("eval: labels: line %d: %v", line, err)
		}
		l.ID, l.Label = strings.TrimSpace(l.ID), strings.TrimSpace(l.Label)
		switch _, dup := out[l.ID]; {
		case l.ID == "" || l.Label == "":
			return nil, fmt.Errorf("eval: labels: line %d: want a non-empty id and label", line)
		case dup:
			return nil, fmt.Errorf("eval: labels: line %d: debate %s labelled twice", line, l.ID)
		}
		out[l.ID] = l.Label
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("eval: labels: line %d: longer than %d bytes", line+1, MaxLineBytes)
		}
		return nil, fmt.Errorf("eval: read labels: %w", err)
	}
	return out, nil
}

// Markdown returns the audit for people.
func (rep *AuditReport) Markdown() string {
	var b strings.Builder
	b.WriteString("# Judge audit\n\n")
	fmt.Fprintf(&b, "%d debates re-judged by %d jurors (%s).\n\n", len(rep.Debates), len(rep.Jurors), strings.Join(rep.Jurors, ", "))
	if rep.FleissKappa != nil {
		fmt.Fprintf(&b, "- Jury agreement: Fleiss' κ = %.3f (juror pairs agreeing: %.0f%%).\n", *rep.FleissKappa, 100*rep.Agreement)
	}
	for _, j := range rep.Jurors {
		if c, ok := rep.SwapConsistency[j]; ok {
			fmt.Fprintf(&b, "- %s: the same verdict with the sides swapped in %.0f%% of debates.\n", j, 100*c)
		}
		if k, ok := rep.CohenKappa[j]; ok {
			if k == nil {
				fmt.Fprintf(&b, "- %s: Cohen's κ with the labels undefined (no labelled debate).\n", j)
			} else {
				fmt.Fprintf(&b, "- %s: Cohen's κ with the labels = %.3f.\n", j, *k)
			}
		}
	}
	for _, s := range rep.SelfJudged {
		fmt.Fprintf(&b, "- Self-preference check: %s judged debate %s, where its own model argued as %s, and ruled %s.\n", s.Juror, s.Debate, s.Side, s.Verdict)
	}
	b.WriteString("\nκ is agreement beyond chance: 1 complete, 0 what chance gives, below 0 worse than chance.\n")
	return b.String()
}

// Judged is how [RunAudit] re-judges the debates of one judged format:
// where to fork, which seat a juror takes, and how the sides are swapped.
type Judged struct {
	// Format is the judged format's name.
	Format string
	// ForkBefore, ForkKey and Carry are [Audit]'s.
	ForkBefore, ForkKey string
	Carry               bool
	// Seat returns the configuration patch that seats model as the judge.
	Seat func(model string) json.RawMessage
	// Swap is the position swap; nil when the format's verdict has no
	// order of sides to swap.
	Swap *Swap
	// Note says what the audit of this format measures.
	Note string
}

// JudgedFormats returns how the built-in judged formats are audited:
//
//   - scored: each round's verdict, forked before the first and with the
//     later rounds' arguments carried over (they are generated apart from
//     the verdicts), so that no argument is asked again; the juror is the
//     arbiter; the swap shows the arbiter the challenger's argument and
//     rebuttal first (scored.Config.JudgeSwapped).
//   - formal: the chair's verdict, forked just before it; the juror is
//     the chair (the chair's documents after the verdict are written
//     again); the swap lists the Detractor's record first
//     (formal.Config.JudgeSwapped).
//   - persuasion: forked before the moderation; the juror is the
//     moderator. Its winner is computed from the dialogue's argument
//     graph, not judged: the jury can only agree, and there is no order
//     to swap.
//
// The sides keep their names when swapped, so a verdict needs no
// mirroring. The podcast's evaluations are not here: they are made
// between the speeches, so a fork before them would ask for the speeches
// that follow again; [RunEvaluationAudit] asks each of them again on its
// own instead.
func JudgedFormats() []Judged {
	seat := func(key string) func(string) json.RawMessage {
		return func(m string) json.RawMessage {
			b, _ := json.Marshal(map[string]string{key: m})
			return b
		}
	}
	return []Judged{
		{Format: "scored", ForkBefore: "scored_verdict", Carry: true, Seat: seat("arbiterModel"),
			Swap: &Swap{Patch: json.RawMessage(`{"judgeSwapped": true}`)},
			Note: "each round's verdict by the arbiter; the swap shows the challenger's argument and rebuttal first"},
		{Format: "formal", ForkBefore: "formal_decision", ForkKey: "verdict", Seat: seat("chairModel"),
			Swap: &Swap{Patch: json.RawMessage(`{"judgeSwapped": true}`)},
			Note: "the chair's verdict; the swap lists the Detractor's record first"},
		{Format: "persuasion", ForkBefore: "persuasion_moderation",
			Seat: func(m string) json.RawMessage {
				b, _ := json.Marshal(map[string]map[string]string{"mod": {"modelId": m}})
				return b
			},
			Note: "the moderator's rationale; the winner is computed from the argument graph, so jurors agree by construction"},
	}
}

// JudgedFormat returns how the format named name is audited.
func JudgedFormat(name string) (Judged, bool) {
	i := slices.IndexFunc(JudgedFormats(), func(j Judged) bool { return j.Format == name })
	if i < 0 {
		return Judged{}, false
	}
	return JudgedFormats()[i], true
}

// Audit returns the audit of debates by jurors of these models, each seated
// by j.Seat and named by its model, with the position swap when swap is
// set (and j has one).
func (j Judged) Audit(debates, models []string, swap bool) Audit {
	a := Audit{Debates: debates, ForkBefore: j.ForkBefore, ForkKey: j.ForkKey, Carry: j.Carry}
	for _, m := range models {
		a.Jurors = append(a.Jurors, Juror{Name: m, Model: m, Patch: j.Seat(m)})
	}
	if swap {
		a.Swap = j.Swap
	}
	return a
}
