package eval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// The podcast's evaluations are audited apart from the verdicts of
// [RunAudit]: the arbiter evaluates each chair response between the
// speeches, and what it finds decides what follows (an interjection, the
// turn the next response answers), so a fork before an evaluation would
// ask for the speeches after it again. Instead each stored evaluation is
// asked again on its own: [duelogic.StoredEvaluations] rebuilds the very
// request the arbiter was sent from the stored transcript, and each juror
// is sent it under its own model. No speech is asked, and the flow of the
// debate is never changed. A juror's judgments are a debate of their own
// ([FormatRejudge]) in the audit's store, one step per evaluation keyed by
// the evaluation's own key, so an audit run again asks nothing again, and
// one cut short goes on where it stopped.

// FormatRejudge is the format of one juror's re-judging of one podcast's
// evaluations ([Rejudge]). It is not registered with the engine: the
// requests it asks are rebuilt from the podcast debate, which its stored
// configuration names but cannot hold.
const FormatRejudge = "eval.rejudge"

// RecordRejudged is the record type of a juror's evaluation of one
// response.
const RecordRejudged = "eval_rejudged"

// SpeakerJuror is who a juror's judgments are charged to.
const SpeakerJuror = "juror"

// The fields of an evaluation a jury's agreement is measured on, each read
// as a category ([EvaluationCategory]).
const (
	// FieldAdherence is the adherence score in bands of 25: "0-24",
	// "25-49", "50-74", "75-100".
	FieldAdherence = "adherence"
	// FieldSteelManning is whether the response steel-manned the position
	// it answers: "attempted" or "not attempted".
	FieldSteelManning = "steelManning"
	// FieldSelfCritique is whether it acknowledged a limitation of its
	// own framework: "attempted" or "not attempted".
	FieldSelfCritique = "selfCritique"
)

// EvaluationFields lists the fields audited, in the report's order.
func EvaluationFields() []string {
	return []string{FieldAdherence, FieldSteelManning, FieldSelfCritique}
}

// Unscored is the category of every field of an evaluation whose reply
// could not be used.
const Unscored = "unscored"

// EvaluationCategory is the category ev gives field (one of
// [EvaluationFields]); [Unscored] when ev is nil.
func EvaluationCategory(ev *duelogic.ResponseEvaluation, field string) string {
	if ev == nil {
		return Unscored
	}
	attempted := func(b bool) string {
		if b {
			return "attempted"
		}
		return "not attempted"
	}
	switch field {
	case FieldAdherence:
		lo := min(max(ev.AdherenceScore, 0), 100) / 25 * 25
		if lo == 100 {
			lo = 75
		}
		hi := lo + 24
		if lo == 75 {
			hi = 100
		}
		return fmt.Sprintf("%d-%d", lo, hi)
	case FieldSteelManning:
		return attempted(ev.SteelManning.Attempted)
	case FieldSelfCritique:
		return attempted(ev.SelfCritique.Attempted)
	}
	return ""
}

// Rejudge is one juror's re-judging of the evaluations of one podcast
// debate: one judgment (PurposeEvaluation, the podcast's own request and
// schema, sent to the juror's model) per evaluation, each a step keyed by
// the evaluation's key. Make it with [RunEvaluationAudit].
type Rejudge struct {
	// Debate is the podcast debate's ID, Juror the juror's model.
	Debate string `json:"debate"`
	Juror  string `json:"juror"`
	// Keys are the keys of the evaluations re-judged, in order.
	Keys []string `json:"keys"`

	evals []duelogic.StoredEvaluation
}

// Name is [FormatRejudge].
func (f *Rejudge) Name() string { return FormatRejudge }

// Purposes names the purpose of the juror's calls ([engine.Purposer]).
func (f *Rejudge) Purposes() []string { return []string{duelogic.PurposeEvaluation} }

// Rejudged is a juror's evaluations, by evaluation key.
type Rejudged struct {
	Debate      string                 `json:"debate"`
	Juror       string                 `json:"juror"`
	Evaluations map[string]Reevaluated `json:"evaluations"`
}

// Reevaluated is a juror's evaluation of one response: nil when its reply
// could not be used (Problem says why).
type Reevaluated struct {
	Evaluation *duelogic.ResponseEvaluation `json:"evaluation"`
	Problem    string                       `json:"problem,omitempty"`
}

// Verdict is none: the audit compares evaluations, not winners.
func (r *Rejudged) Verdict() engine.Verdict {
	return engine.Verdict{Summary: fmt.Sprintf("%s re-evaluated %d responses of %s", r.Juror, len(r.Evaluations), r.Debate)}
}

// Documents is one line per evaluation.
func (r *Rejudged) Documents() []engine.Document {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s's evaluations of %s\n\n", r.Juror, r.Debate)
	for _, k := range slices.Sorted(maps.Keys(r.Evaluations)) {
		e := r.Evaluations[k]
		fmt.Fprintf(&b, "- %s:", k)
		for _, f := range EvaluationFields() {
			fmt.Fprintf(&b, " %s %s;", f, EvaluationCategory(e.Evaluation, f))
		}
		b.WriteString("\n")
	}
	return []engine.Document{{Name: "rejudged.md", Title: "Re-judged evaluations", Markdown: b.String()}}
}

// Play asks (or replays) the juror's evaluation of every response.
func (f *Rejudge) Play(ctx context.Context, s *engine.Session) (*Rejudged, error) {
	if len(f.evals) != len(f.Keys) {
		return nil, fmt.Errorf("eval: rejudge %s: the evaluations were not given (it is played by RunEvaluationAudit)", f.Debate)
	}
	out := &Rejudged{Debate: f.Debate, Juror: f.Juror, Evaluations: map[string]Reevaluated{}}
	for _, e := range f.evals {
		var v Reevaluated
		if _, err := s.Step(ctx, e.Key, RecordRejudged, SpeakerJuror, &v, func(ctx context.Context) (any, llm.Usage, error) {
			req := e.Request
			req.Model = f.Juror
			ev, res, usage, err := engine.Judge(ctx, s, req, duelogic.SegmentExchange, SpeakerJuror, duelogic.ParseEvaluation)
			if err != nil {
				return nil, usage, err
			}
			if res.Defaulted {
				return Reevaluated{Problem: res.Problem}, usage, nil
			}
			return Reevaluated{Evaluation: ev}, usage, nil
		}, nil); err != nil {
			return nil, err
		}
		out.Evaluations[e.Key] = v
	}
	return out, nil
}

// EvaluationAudit is what to re-evaluate and by whom.
type EvaluationAudit struct {
	// Debates are the IDs of the stored podcast debates.
	Debates []string
	// Jurors are the models that evaluate every response again (each
	// named by its model in the report).
	Jurors []string
	// Catalog is the catalog the debates were played with (nil: the
	// default one).
	Catalog *duelogic.Catalog
	// Options are passed to every run of a juror's judgments (WithLogger,
	// WithClock...); the store is the audit's.
	Options []engine.Option
	// Labels, when not empty, are people's evaluations (as
	// [ReadEvaluationLabels] reads them), which the arbiter and each
	// juror are compared with, field by field (Cohen's kappa). A label of
	// a debate not audited is ignored; one naming no evaluation of an
	// audited debate, or the wrong speaker, is an error ([ErrBadLabels])
	// before any juror is asked.
	Labels []EvaluationLabel
}

// EvaluationAuditReport is an audit of podcast evaluations.
type EvaluationAuditReport struct {
	Jurors []string `json:"jurors"`
	// Fields are the fields compared ([EvaluationFields]).
	Fields  []string         `json:"fields"`
	Debates []AuditedPodcast `json:"debates"`
	// Agreement is, per field, the jury's agreement.
	Agreement []FieldAgreement `json:"agreement"`
	// SelfJudged lists the evaluations a juror made of a response by a
	// chair of its own model.
	SelfJudged []SelfEvaluated `json:"selfJudged,omitempty"`
	// Asked counts the judgments this run asked (re-asks included): 0
	// when an audit is run again. It is not in the JSON, nor in
	// [EvaluationAuditReport.Markdown], so that an audit run again writes
	// the same report.
	Asked int `json:"-"`
	// Note says why there is no position swap.
	Note string `json:"note"`
}

// NoSwapNote is why an audit of evaluations has no position swap.
const NoSwapNote = "No position swap: each evaluation judges one chair's response on its own (with the turn it answers as context), so there is no order of sides to swap"

// AuditedPodcast is one podcast's evaluations, as made and as re-made.
type AuditedPodcast struct {
	ID string `json:"id"`
	// Rejudged[j] is the ID of juror j's debate of judgments.
	Rejudged    []string            `json:"rejudged"`
	Evaluations []AuditedEvaluation `json:"evaluations"`
}

// AuditedEvaluation is one response's evaluation by the arbiter
// (Original) and by each juror (Jurors[j]), as categories by field; the
// adherence scores beside them (null when unscored).
type AuditedEvaluation struct {
	Key string `json:"key"`
	// UtteranceSeq is the evaluated response's seq, by which a labels
	// file names it ([EvaluationLabel]).
	UtteranceSeq int64  `json:"utteranceSeq"`
	Speaker      string `json:"speaker"`
	Model        string `json:"model"`
	// Original and Jurors[j] map each field to its category.
	Original          map[string]string   `json:"original"`
	Jurors            []map[string]string `json:"jurors"`
	OriginalAdherence *int                `json:"originalAdherence"`
	Adherence         []*int              `json:"adherence"`
	// Labels are a person's categories, by field, of the fields labelled
	// (absent when none is).
	Labels map[string]string `json:"labels,omitempty"`
}

// FieldAgreement is the jury's agreement on one field: Fleiss' kappa over
// the evaluations (null with fewer than two jurors or no evaluation), the
// share of juror pairs that chose the same category, and, per juror, the
// share of evaluations on which it chose the original arbiter's category
// (its consistency with the debate).
//
// With labels, Labelled counts the evaluations a person labelled on the
// field, and CohenKappa gives each juror's agreement with them beyond
// chance over those evaluations, ArbiterCohenKappa the debate's own
// arbiter's (null when undefined: no evaluation labelled).
type FieldAgreement struct {
	Field             string              `json:"field"`
	FleissKappa       *float64            `json:"fleissKappa"`
	Agreement         float64             `json:"agreement"`
	WithOriginal      map[string]float64  `json:"withOriginal"`
	Labelled          int                 `json:"labelled,omitempty"`
	CohenKappa        map[string]*float64 `json:"cohenKappa,omitempty"`
	ArbiterCohenKappa *float64            `json:"arbiterCohenKappa,omitempty"`
}

// SelfEvaluated is a juror's evaluation of a response by a chair of its
// own model, with the adherence it gave and the original arbiter's.
type SelfEvaluated struct {
	Juror             string `json:"juror"`
	Debate            string `json:"debate"`
	Key               string `json:"key"`
	Speaker           string `json:"speaker"`
	Adherence         *int   `json:"adherence"`
	OriginalAdherence *int   `json:"originalAdherence"`
}

// RunEvaluationAudit asks every juror again for every evaluation of the
// podcast debates of a, with the requests the arbiter was sent
// ([duelogic.StoredEvaluations]) and the juror's model, through client (an
// llm.Router sends each juror's model to its endpoint), storing each
// juror's judgments of a debate in st as a debate of [FormatRejudge]
// (whose ID is made of the podcast's, the juror's and the evaluations'):
// an audit run again reads them back and asks nothing. The podcast debates
// must be in st; they are not changed, and none of their speeches is
// asked.
func RunEvaluationAudit(ctx context.Context, client llm.Client, st store.Store, a EvaluationAudit) (*EvaluationAuditReport, error) {
	if len(a.Debates) == 0 || len(a.Jurors) == 0 {
		return nil, fmt.Errorf("%w: an audit of evaluations needs debates and jurors", ErrBadConfig)
	}
	cc := &callCounter{Client: client}
	opts := append(slices.Clone(a.Options), engine.WithStore(st))
	rep := &EvaluationAuditReport{Jurors: slices.Clone(a.Jurors), Fields: EvaluationFields(), Note: NoSwapNote}
	// Every debate's evaluations and labels first, so that a label naming
	// no evaluation is found before any juror is asked.
	stored := make([][]duelogic.StoredEvaluation, len(a.Debates))
	for i, id := range a.Debates {
		evals, err := duelogic.StoredEvaluations(ctx, st, id, a.Catalog)
		if err != nil {
			if errors.Is(err, duelogic.ErrNotPodcast) {
				return nil, fmt.Errorf("%w: %w", ErrBadConfig, err)
			}
			return nil, fmt.Errorf("eval: audit: %w", err)
		}
		labels, err := labelsOf(id, evals, a.Labels)
		if err != nil {
			return nil, err
		}
		d := AuditedPodcast{ID: id}
		for k, e := range evals {
			d.Evaluations = append(d.Evaluations, AuditedEvaluation{Key: e.Key, UtteranceSeq: e.UtteranceSeq, Speaker: e.Speaker, Model: e.Model,
				Original: categories(e.Evaluation), OriginalAdherence: adherence(e.Evaluation), Labels: labels[k]})
		}
		stored[i] = evals
		rep.Debates = append(rep.Debates, d)
	}
	for di, id := range a.Debates {
		evals, d := stored[di], &rep.Debates[di]
		sum, err := engine.Inspect(ctx, st, id)
		if err != nil {
			return nil, fmt.Errorf("eval: audit: %s: %w", id, err)
		}
		for _, m := range a.Jurors {
			rid, res, err := rejudge(ctx, cc, sum.Debate, m, evals, opts)
			if err != nil {
				return nil, fmt.Errorf("eval: audit: juror %s on %s: %w", m, id, err)
			}
			d.Rejudged = append(d.Rejudged, rid)
			for i, e := range evals {
				ev := res.Evaluations[e.Key].Evaluation
				ae := &d.Evaluations[i]
				ae.Jurors = append(ae.Jurors, categories(ev))
				ae.Adherence = append(ae.Adherence, adherence(ev))
				if e.Model == m {
					rep.SelfJudged = append(rep.SelfJudged, SelfEvaluated{Juror: m, Debate: id, Key: e.Key, Speaker: e.Speaker,
						Adherence: adherence(ev), OriginalAdherence: ae.OriginalAdherence})
				}
			}
		}
	}
	rep.Asked = int(cc.n.Load())
	rep.measure(len(a.Labels) > 0)
	return rep, nil
}

// rejudge plays (or resumes, or reads back) juror model's judgments of
// evals, the evaluations of debate d.
func rejudge(ctx context.Context, client llm.Client, d engine.Debate, model string, evals []duelogic.StoredEvaluation, opts []engine.Option) (string, *Rejudged, error) {
	f := &Rejudge{Debate: d.ID, Juror: model, evals: evals}
	for _, e := range evals {
		f.Keys = append(f.Keys, e.Key)
	}
	cfg, err := json.Marshal(f)
	if err != nil {
		return "", nil, err
	}
	sum := sha256.Sum256(cfg)
	id := "rejudge-" + itemKey(d.ID) + "-" + hex.EncodeToString(sum[:4])
	var res *engine.Result[*Rejudged]
	switch _, err := engine.StoreOf(opts...).Records(ctx, id); {
	case errors.Is(err, store.ErrNotFound):
		prop := []rune("The evaluations of: " + d.Proposition)
		res, err = engine.Run(ctx, client, f, engine.Debate{ID: id, Proposition: string(prop[:min(len(prop), engine.MaxPropositionRunes)]), Unattended: true}, opts...)
		if err != nil {
			return id, nil, err
		}
	case err != nil:
		return id, nil, fmt.Errorf("look up %s: %w", id, err)
	default:
		if res, err = engine.Resume(ctx, client, f, id, opts...); err != nil {
			return id, nil, fmt.Errorf("resume %s: %w", id, err)
		}
	}
	return id, res.Detail, nil
}

// categories is ev's category of every field.
func categories(ev *duelogic.ResponseEvaluation) map[string]string {
	m := map[string]string{}
	for _, f := range EvaluationFields() {
		m[f] = EvaluationCategory(ev, f)
	}
	return m
}

// adherence is ev's adherence score, nil when ev is.
func adherence(ev *duelogic.ResponseEvaluation) *int {
	if ev == nil {
		return nil
	}
	return &ev.AdherenceScore
}

// measure computes the jury's agreement on every field, and its agreement
// with the labels when labelled.
func (rep *EvaluationAuditReport) measure(labelled bool) {
	for _, field := range rep.Fields {
		fa := FieldAgreement{Field: field, WithOriginal: map[string]float64{}}
		var cats []string
		var items []AuditedEvaluation
		for _, d := range rep.Debates {
			for _, e := range d.Evaluations {
				items = append(items, e)
				for _, j := range e.Jurors {
					if !slices.Contains(cats, j[field]) {
						cats = append(cats, j[field])
					}
				}
			}
		}
		slices.Sort(cats)
		counts := make([][]int, len(items))
		agree, pairs := 0, 0
		same := make([]int, len(rep.Jurors))
		for i, e := range items {
			counts[i] = make([]int, len(cats))
			for x, j := range e.Jurors {
				counts[i][slices.Index(cats, j[field])]++
				if j[field] == e.Original[field] {
					same[x]++
				}
				for y := x + 1; y < len(e.Jurors); y++ {
					pairs++
					if j[field] == e.Jurors[y][field] {
						agree++
					}
				}
			}
		}
		if len(rep.Jurors) > 1 && len(items) > 0 {
			if k := FleissKappa(counts); !math.IsNaN(k) {
				fa.FleissKappa = &k
			}
		}
		if pairs > 0 {
			fa.Agreement = float64(agree) / float64(pairs)
		}
		for x, name := range rep.Jurors {
			if len(items) > 0 {
				fa.WithOriginal[name] = float64(same[x]) / float64(len(items))
			}
		}
		if labelled {
			fa.labelKappas(items, rep.Jurors)
		}
		rep.Agreement = append(rep.Agreement, fa)
	}
}

// labelKappas sets fa's Cohen's kappas of the arbiter and of each juror
// with the labels of items on fa's field.
func (fa *FieldAgreement) labelKappas(items []AuditedEvaluation, jurors []string) {
	var labels, arbiter []string
	byJuror := make([][]string, len(jurors))
	for _, e := range items {
		l, ok := e.Labels[fa.Field]
		if !ok {
			continue
		}
		labels, arbiter = append(labels, l), append(arbiter, e.Original[fa.Field])
		for x := range jurors {
			byJuror[x] = append(byJuror[x], e.Jurors[x][fa.Field])
		}
	}
	kappa := func(got []string) *float64 {
		if k := CohenKappa(got, labels); !math.IsNaN(k) {
			return &k
		}
		return nil
	}
	fa.Labelled = len(labels)
	fa.ArbiterCohenKappa = kappa(arbiter)
	fa.CohenKappa = map[string]*float64{}
	for x, name := range jurors {
		fa.CohenKappa[name] = kappa(byJuror[x])
	}
}

// Markdown returns the audit for people.
func (rep *EvaluationAuditReport) Markdown() string {
	var b strings.Builder
	n := 0
	for _, d := range rep.Debates {
		n += len(d.Evaluations)
	}
	b.WriteString("# Judge audit of the podcast's evaluations\n\n")
	fmt.Fprintf(&b, "%d evaluations of %d debate(s) asked again of %d jurors (%s), each on its own: no speech was asked again.\n\n",
		n, len(rep.Debates), len(rep.Jurors), strings.Join(rep.Jurors, ", "))
	b.WriteString("| field | Fleiss' κ | juror pairs agreeing |")
	for _, j := range rep.Jurors {
		fmt.Fprintf(&b, " %s = arbiter |", j)
	}
	b.WriteString("\n|---|---|---|" + strings.Repeat("---|", len(rep.Jurors)) + "\n")
	for _, fa := range rep.Agreement {
		k := "n/a"
		if fa.FleissKappa != nil {
			k = fmt.Sprintf("%.3f", *fa.FleissKappa)
		}
		fmt.Fprintf(&b, "| %s | %s | %.0f%% |", fa.Field, k, 100*fa.Agreement)
		for _, j := range rep.Jurors {
			fmt.Fprintf(&b, " %.0f%% |", 100*fa.WithOriginal[j])
		}
		b.WriteString("\n")
	}
	if len(rep.Agreement) > 0 && rep.Agreement[0].CohenKappa != nil {
		b.WriteString("\nAgainst people's labels (Cohen's κ over the evaluations labelled on the field):\n\n| field | labelled | arbiter |")
		for _, j := range rep.Jurors {
			fmt.Fprintf(&b, " %s |", j)
		}
		b.WriteString("\n|---|---|---|" + strings.Repeat("---|", len(rep.Jurors)) + "\n")
		k := func(k *float64) string {
			if k == nil {
				return "n/a"
			}
			return fmt.Sprintf("%.3f", *k)
		}
		for _, fa := range rep.Agreement {
			fmt.Fprintf(&b, "| %s | %d | %s |", fa.Field, fa.Labelled, k(fa.ArbiterCohenKappa))
			for _, j := range rep.Jurors {
				fmt.Fprintf(&b, " %s |", k(fa.CohenKappa[j]))
			}
			b.WriteString("\n")
		}
	}
	fmt.Fprintf(&b, "\nFields: adherence in bands of 25 (0-24, 25-49, 50-74, 75-100); steel-manning and self-critique attempted or not; %q when a reply could not be used.\n", Unscored)
	type tally struct{ n, own, orig int }
	self := map[string]*tally{}
	for _, s := range rep.SelfJudged {
		t := self[s.Juror]
		if t == nil {
			t = &tally{}
			self[s.Juror] = t
		}
		if s.Adherence != nil && s.OriginalAdherence != nil {
			t.n++
			t.own += *s.Adherence
			t.orig += *s.OriginalAdherence
		}
	}
	for _, j := range rep.Jurors {
		if t := self[j]; t != nil {
			fmt.Fprintf(&b, "- Self-preference check: %s evaluated responses of its own model", j)
			if t.n > 0 {
				fmt.Fprintf(&b, " (%d scored by both): mean adherence %.1f, the arbiter's %.1f", t.n, float64(t.own)/float64(t.n), float64(t.orig)/float64(t.n))
			}
			b.WriteString(".\n")
		}
	}
	fmt.Fprintf(&b, "- %s.\n", rep.Note)
	b.WriteString("\nκ is agreement beyond chance: 1 complete, 0 what chance gives, below 0 worse than chance.\n")
	return b.String()
}
