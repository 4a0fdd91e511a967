package eval_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/eval"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// evaluation is an evaluation reply: an adherence score and whether the
// response steel-manned and self-critiqued.
type evaluation struct {
	adherence   int
	steel, self bool
}

func (e evaluation) reply() string {
	q := func(b bool) string {
		if b {
			return "adequate"
		}
		return "absent"
	}
	return fmt.Sprintf(`{"critiquesOpponent": true, "substantive": true, "adherenceScore": %d,
 "steelManning": {"attempted": %t, "quality": %q, "notes": ""}, "selfCritique": {"attempted": %t, "quality": %q, "notes": ""},
 "frameworkConsistency": {"consistent": true, "violations": []}, "intellectualHonesty": {"score": "high", "issues": []},
 "requiresInterjection": false, "interjectionReason": ""}`, e.adherence, e.steel, q(e.steel), e.self, q(e.self))
}

// The scripted evaluations of the six responses of the stored podcast
// (x1:chair_1, x1:chair_2, x2:chair_1, ...), by the debate's arbiter and
// by the two jurors. chair_1 speaks with judge/y's model.
var (
	arbiterScript = []evaluation{{80, true, true}, {80, true, false}, {60, true, true}, {60, true, false}, {40, true, true}, {40, true, false}}
	jurorScripts  = map[string][]evaluation{
		"judge/x": {{90, true, true}, {85, true, false}, {70, true, true}, {30, true, false}, {45, false, true}, {10, false, false}},
		"judge/y": {{76, true, true}, {55, true, false}, {20, true, true}, {35, false, false}, {45, false, true}, {100, true, false}},
	}
)

// scriptedArbiter answers the podcast's evaluations from arbiterScript in
// order, and everything else from the stub.
type scriptedArbiter struct {
	llm.Client
	mu sync.Mutex
	n  int
}

func (a *scriptedArbiter) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if req.Purpose != duelogic.PurposeEvaluation {
		return a.Client.Complete(ctx, req)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.n++
	return llm.Response{Content: arbiterScript[(a.n-1)%len(arbiterScript)].reply(), Model: req.Model}, nil
}

// scriptedJuror answers an evaluation of the i-th response (found by its
// request's text) with script[i].
type scriptedJuror struct {
	script []evaluation
	asked  map[string]int // the last message of each evaluation's request → its index
}

func (j scriptedJuror) Complete(_ context.Context, req llm.Request) (llm.Response, error) {
	i, ok := j.asked[req.Messages[len(req.Messages)-1].Content]
	if !ok {
		return llm.Response{}, fmt.Errorf("juror: an unknown request (%s)", req.Purpose)
	}
	return llm.Response{Content: j.script[i].reply(), Model: req.Model}, nil
}

// storePodcast plays a podcast of three exchanges between two chairs, one
// of them judge/y's model, with arbiterScript's evaluations, into st.
func storePodcast(t *testing.T, st store.Store, id string) {
	t.Helper()
	f, err := engine.Open(duelogic.FormatName, json.RawMessage(`{"arbiter": {"modelId": "arbiter/a"},
		"chairs": [{"position": "chair_1", "framework": "utilitarian", "modelId": "judge/y"}, {"position": "chair_2", "framework": "virtue_ethics", "modelId": "m/b"}],
		"flow": {"maxExchanges": 3}, "interruptions": {"enabled": false}}`))
	if err != nil {
		t.Fatal(err)
	}
	r := llm.NewRouter(llm.NewStub(3))
	r.Handle("arbiter/a", &scriptedArbiter{Client: llm.NewStub(3)})
	if _, err := engine.Run(context.Background(), r, f, engine.Debate{ID: id, Proposition: "Should cities ban private cars from their centres?"}, engine.WithStore(st)); err != nil {
		t.Fatal(err)
	}
}

// TestAuditPodcastEvaluations: a stored podcast's six evaluations are
// asked again of two jurors behind an llm.Router: no speech (nor any
// other call of the podcast) is asked, each juror is asked each
// evaluation once, with the arbiter's request under its own model; the
// agreement figures are those worked out by hand below; the juror whose
// model is chair_1's is flagged on chair_1's three responses; an audit cut
// short by a juror's failure goes on where it stopped, and a run after a
// finished one asks nothing and reports the same.
func TestAuditPodcastEvaluations(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	storePodcast(t, st, "pod")
	evals, err := duelogic.StoredEvaluations(ctx, st, "pod", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(evals) != len(arbiterScript) {
		t.Fatalf("%d evaluations stored, want %d", len(evals), len(arbiterScript))
	}
	asked := map[string]int{}
	for i, e := range evals {
		asked[e.Request.Messages[len(e.Request.Messages)-1].Content] = i
	}
	jurors := map[string]*recorder{}
	router := llm.NewRouter(newRecorder(llm.NewStub(9)))
	for m, s := range jurorScripts {
		jurors[m] = newRecorder(scriptedJuror{script: s, asked: asked})
		router.Handle(m, jurors[m])
	}
	all := newRecorder(router) // every call of the audit, by purpose
	a := eval.EvaluationAudit{Debates: []string{"pod"}, Jurors: []string{"judge/x", "judge/y"}}

	// judge/y's server fails on its third evaluation: the audit stops.
	jurors["judge/y"].failOn, jurors["judge/y"].failAfter = duelogic.PurposeEvaluation, 2
	if _, err := eval.RunEvaluationAudit(ctx, all, st, a); err == nil || !strings.Contains(err.Error(), "fell over") {
		t.Fatalf("the failure was not reported: %v", err)
	}
	rep, err := eval.RunEvaluationAudit(ctx, all, st, a)
	if err != nil {
		t.Fatal(err)
	}
	for p, reqs := range all.reqs {
		if p != duelogic.PurposeEvaluation {
			t.Errorf("the audit asked %d calls of purpose %q", len(reqs), p)
		}
	}
	if n := jurors["judge/x"].count(duelogic.PurposeEvaluation); n != 6 {
		t.Errorf("judge/x was asked %d evaluations, want 6", n)
	}
	if n := jurors["judge/y"].count(duelogic.PurposeEvaluation); n != 7 {
		t.Errorf("judge/y was asked %d evaluations, want 6 and the one that failed", n)
	}
	if rep.Asked != 4 {
		t.Errorf("the resumed audit asked %d judgments, want judge/y's last 4", rep.Asked)
	}
	for m, c := range jurors {
		for i, req := range c.reqs[duelogic.PurposeEvaluation] {
			want := evals[asked[req.Messages[len(req.Messages)-1].Content]].Request
			if req.Model != m || req.Schema == nil || string(req.Schema) != string(want.Schema) || *req.Temperature != *want.Temperature {
				t.Errorf("juror %s's request %d: model %s, not the arbiter's request", m, i, req.Model)
			}
		}
	}

	// The figures, worked out by hand (Fleiss 1971: P̄ the mean agreement
	// of each item's rater pairs, P̄e the sum of the squared shares of the
	// categories, κ = (P̄ − P̄e)/(1 − P̄e)); two raters, six items:
	//   steel-manning  x: A A A A N N, y: A A A N N A — pairs agree on 4;
	//     shares A 8/12, N 4/12, P̄e = 5/9, κ = (2/3 − 5/9)/(4/9) = 1/4;
	//     the arbiter said A throughout: x and y each agree with it on 4.
	//   self-critique: both as the arbiter: κ = 1, agreement 1.
	//   adherence bands x: 75 75 50 25 25 0, y: 75 50 0 25 25 75,
	//     arbiter 75 75 50 50 25 25 — pairs agree on 3; shares 0: 2/12,
	//     25: 4/12, 50: 2/12, 75: 4/12, P̄e = 40/144, κ = (1/2 − 5/18)/(13/18)
	//     = 4/13; x agrees with the arbiter on 4, y on 2.
	want := map[string]struct {
		kappa, agreement, x, y float64
	}{
		eval.FieldSteelManning: {0.25, 4.0 / 6, 4.0 / 6, 4.0 / 6},
		eval.FieldSelfCritique: {1, 1, 1, 1},
		eval.FieldAdherence:    {4.0 / 13, 0.5, 4.0 / 6, 2.0 / 6},
	}
	if len(rep.Agreement) != len(want) {
		t.Fatalf("agreement on %d fields, want %d", len(rep.Agreement), len(want))
	}
	close := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	for _, fa := range rep.Agreement {
		w := want[fa.Field]
		if fa.FleissKappa == nil || !close(*fa.FleissKappa, w.kappa) || !close(fa.Agreement, w.agreement) ||
			!close(fa.WithOriginal["judge/x"], w.x) || !close(fa.WithOriginal["judge/y"], w.y) {
			t.Errorf("%s: κ %v, agreement %v, with the arbiter %v; want %+v", fa.Field, fa.FleissKappa, fa.Agreement, fa.WithOriginal, w)
		}
	}
	// judge/y is chair_1's model: its evaluations of chair_1's responses
	// (76, 20, 45; the arbiter's 80, 60, 40) are flagged.
	if len(rep.SelfJudged) != 3 {
		t.Fatalf("self-judged %+v, want judge/y on chair_1's 3 responses", rep.SelfJudged)
	}
	for i, s := range rep.SelfJudged {
		e := 2 * i
		if s.Juror != "judge/y" || s.Speaker != "chair_1" || s.Debate != "pod" || *s.Adherence != jurorScripts["judge/y"][e].adherence || *s.OriginalAdherence != arbiterScript[e].adherence {
			t.Errorf("self-judged %d: %+v", i, s)
		}
	}
	md := rep.Markdown()
	for _, s := range []string{"| steelManning | 0.250 | 67% | 67% | 67% |", "| adherence | 0.308 | 50% | 67% | 33% |",
		"judge/y evaluated responses of its own model (3 scored by both): mean adherence 47.0, the arbiter's 60.0", "No position swap"} {
		if !strings.Contains(md, s) {
			t.Errorf("the report lacks %q:\n%s", s, md)
		}
	}

	// Run again: nothing is asked, the report is the same.
	before := all.all()
	again, err := eval.RunEvaluationAudit(ctx, all, st, a)
	if err != nil {
		t.Fatal(err)
	}
	if n := all.all() - before; n != 0 || again.Asked != 0 {
		t.Errorf("a second audit asked %d calls (reported %d)", n, again.Asked)
	}
	x, _ := json.Marshal(rep)
	y, _ := json.Marshal(again)
	if string(x) != string(y) || rep.Markdown() != again.Markdown() {
		t.Errorf("the second audit's report differs:\n%s\n%s", x, y)
	}
}

// TestEvaluationCategory: the adherence bands' edges, the booleans, and an
// unusable evaluation.
func TestEvaluationCategory(t *testing.T) {
	for _, tc := range []struct {
		ev    *duelogic.ResponseEvaluation
		field string
		want  string
	}{
		{&duelogic.ResponseEvaluation{AdherenceScore: 0}, eval.FieldAdherence, "0-24"},
		{&duelogic.ResponseEvaluation{AdherenceScore: 24}, eval.FieldAdherence, "0-24"},
		{&duelogic.ResponseEvaluation{AdherenceScore: 25}, eval.FieldAdherence, "25-49"},
		{&duelogic.ResponseEvaluation{AdherenceScore: 74}, eval.FieldAdherence, "50-74"},
		{&duelogic.ResponseEvaluation{AdherenceScore: 75}, eval.FieldAdherence, "75-100"},
		{&duelogic.ResponseEvaluation{AdherenceScore: 100}, eval.FieldAdherence, "75-100"},
		{&duelogic.ResponseEvaluation{SteelManning: duelogic.MandateCheck{Attempted: true}}, eval.FieldSteelManning, "attempted"},
		{&duelogic.ResponseEvaluation{}, eval.FieldSelfCritique, "not attempted"},
		{nil, eval.FieldAdherence, eval.Unscored},
	} {
		if got := eval.EvaluationCategory(tc.ev, tc.field); got != tc.want {
			t.Errorf("%s of %+v: %q, want %q", tc.field, tc.ev, got, tc.want)
		}
	}
}

// TestAuditPodcastLabels: people's labels of the stored podcast's
// evaluations, named by utterance seq or by key, some fields left out,
// are compared with the arbiter and each juror per field; the κs are
// those worked out by hand below. A label naming no evaluation, or the
// wrong chair, stops the audit before any juror is asked.
func TestAuditPodcastLabels(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	storePodcast(t, st, "pod")
	evals, err := duelogic.StoredEvaluations(ctx, st, "pod", nil)
	if err != nil {
		t.Fatal(err)
	}
	asked := map[string]int{}
	for i, e := range evals {
		asked[e.Request.Messages[len(e.Request.Messages)-1].Content] = i
	}
	router := llm.NewRouter(newRecorder(llm.NewStub(9)))
	jurors := newRecorder(router)
	for m, s := range jurorScripts {
		router.Handle(m, scriptedJuror{script: s, asked: asked})
	}
	// Steel-manning labelled on all six (A A N A N N); adherence on the
	// first four (78, "50-74", 55.5, 30: bands 75 50 50 25); self-critique
	// on none. The fourth line names its evaluation by key, the others by
	// the response's seq.
	lines := []string{
		fmt.Sprintf(`{"debate": "pod", "utterance": %d, "speaker": "chair_1", "adherence": 78, "steelManning": true}`, evals[0].UtteranceSeq),
		fmt.Sprintf(`{"debate": "pod", "utterance": %d, "adherence": "50-74", "steelManning": true}`, evals[1].UtteranceSeq),
		fmt.Sprintf(`{"debate": "pod", "utterance": %d, "adherence": 55.5, "steelManning": false}`, evals[2].UtteranceSeq),
		fmt.Sprintf(`{"debate": "pod", "key": %q, "adherence": 30, "steelManning": true, "selfCritique": null}`, evals[3].Key),
		fmt.Sprintf(`{"debate": "pod", "utterance": %d, "steelManning": false}`, evals[4].UtteranceSeq),
		fmt.Sprintf(`{"debate": "pod", "utterance": %d, "steelManning": false}`, evals[5].UtteranceSeq),
		`{"debate": "another", "utterance": 3, "steelManning": true}`, // not audited: ignored
	}
	labels, err := eval.ReadEvaluationLabels(strings.NewReader(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := eval.RunEvaluationAudit(ctx, jurors, st, eval.EvaluationAudit{Debates: []string{"pod"}, Jurors: []string{"judge/x", "judge/y"}, Labels: labels})
	if err != nil {
		t.Fatal(err)
	}
	// Cohen 1960: p_o the share of agreement, p_e = Σ_c p_a(c)·p_b(c) from
	// the two raters' margins, κ = (p_o − p_e)/(1 − p_e).
	//   steel-manning, labels A A N A N N (A 1/2, N 1/2):
	//     x A A A A N N: p_o 5/6, p_e 4/6·1/2 + 2/6·1/2 = 1/2, κ = 2/3;
	//     y A A A N N A: p_o 3/6, p_e 1/2, κ = 0;
	//     the arbiter, A throughout: p_o 3/6, p_e 1·1/2 = 1/2, κ = 0.
	//   adherence over the first four, labels 75 50 50 25 (1/4, 2/4, 1/4):
	//     x 75 75 50 25: p_o 3/4, p_e 2/4·1/4 + 1/4·2/4 + 1/4·1/4 = 5/16,
	//       κ = (12/16 − 5/16)/(11/16) = 7/11;
	//     y 75 50 0 25: p_o 3/4, p_e 1/16 + 2/16 + 0 + 1/16 = 4/16, κ = 2/3;
	//     the arbiter 75 75 50 50: p_o 2/4, p_e 2/16 + 4/16 = 6/16,
	//       κ = (8/16 − 6/16)/(10/16) = 1/5.
	//   self-critique: nothing labelled, every κ undefined.
	type want struct {
		n       int
		arbiter *float64
		x, y    *float64
	}
	f := func(v float64) *float64 { return &v }
	wants := map[string]want{
		eval.FieldSteelManning: {6, f(0), f(2.0 / 3), f(0)},
		eval.FieldAdherence:    {4, f(0.2), f(7.0 / 11), f(2.0 / 3)},
		eval.FieldSelfCritique: {0, nil, nil, nil},
	}
	same := func(a, b *float64) bool {
		return a == nil && b == nil || a != nil && b != nil && math.Abs(*a-*b) < 1e-12
	}
	show := func(k *float64) string {
		if k == nil {
			return "null"
		}
		return fmt.Sprint(*k)
	}
	for _, fa := range rep.Agreement {
		w := wants[fa.Field]
		_, hasX := fa.CohenKappa["judge/x"]
		if fa.Labelled != w.n || !same(fa.ArbiterCohenKappa, w.arbiter) || !hasX || !same(fa.CohenKappa["judge/x"], w.x) || !same(fa.CohenKappa["judge/y"], w.y) {
			t.Errorf("%s: %d labelled, arbiter κ %s, judge/x %s, judge/y %s; want %d, %s, %s, %s", fa.Field, fa.Labelled,
				show(fa.ArbiterCohenKappa), show(fa.CohenKappa["judge/x"]), show(fa.CohenKappa["judge/y"]), w.n, show(w.arbiter), show(w.x), show(w.y))
		}
	}
	if e := rep.Debates[0].Evaluations[3]; e.UtteranceSeq != evals[3].UtteranceSeq || e.Labels[eval.FieldAdherence] != "25-49" {
		t.Errorf("the fourth evaluation as reported: %+v", e)
	}
	md := rep.Markdown()
	for _, s := range []string{"| steelManning | 6 | 0.000 | 0.667 | 0.000 |", "| adherence | 4 | 0.200 | 0.636 | 0.667 |", "| selfCritique | 0 | n/a | n/a | n/a |"} {
		if !strings.Contains(md, s) {
			t.Errorf("the report lacks %q:\n%s", s, md)
		}
	}

	// Labels that name no evaluation, or the wrong chair.
	st2 := store.NewMemory()
	storePodcast(t, st2, "pod")
	for _, bad := range []string{
		`{"debate": "pod", "utterance": 1, "adherence": 50}`,
		`{"debate": "pod", "key": "eval:x9:chair_1", "adherence": 50}`,
		fmt.Sprintf(`{"debate": "pod", "utterance": %d, "speaker": "chair_2", "adherence": 50}`, evals[0].UtteranceSeq),
		fmt.Sprintf(`{"debate": "pod", "utterance": %d, "adherence": 50}`+"\n"+`{"debate": "pod", "key": %q, "adherence": 50}`, evals[0].UtteranceSeq, evals[0].Key),
	} {
		labels, err := eval.ReadEvaluationLabels(strings.NewReader(bad))
		if err != nil {
			t.Fatalf("%s: %v", bad, err)
		}
		c := newRecorder(router)
		_, err = eval.RunEvaluationAudit(ctx, c, st2, eval.EvaluationAudit{Debates: []string{"pod"}, Jurors: []string{"judge/x"}, Labels: labels})
		if !errors.Is(err, eval.ErrBadLabels) || c.all() != 0 {
			t.Errorf("%s: %v after %d calls, want an ErrBadLabels before any", bad, err, c.all())
		}
	}
}

func TestReadEvaluationLabels(t *testing.T) {
	got, err := eval.ReadEvaluationLabels(strings.NewReader(`{"debate": "d", "utterance": 12, "adherence": 100, "selfCritique": false}` + "\n\n" +
		`{"debate": "d", "key": "eval:x1:chair_2", "adherence": "0-24", "steelManning": true}` + "\n" + `{"debate": "d", "utterance": 13}`))
	wantLabels := []eval.EvaluationLabel{
		{Debate: "d", Utterance: 12, Categories: map[string]string{eval.FieldAdherence: "75-100", eval.FieldSelfCritique: "not attempted"}},
		{Debate: "d", Key: "eval:x1:chair_2", Categories: map[string]string{eval.FieldAdherence: "0-24", eval.FieldSteelManning: "attempted"}},
		{Debate: "d", Utterance: 13, Categories: map[string]string{}},
	}
	if err != nil || !reflect.DeepEqual(got, wantLabels) {
		t.Errorf("ReadEvaluationLabels: %+v, %v", got, err)
	}
	for _, bad := range []string{
		`{"utterance": 3}`,
		`{"debate": "d"}`,
		`{"debate": "d", "utterance": 3, "key": "k"}`,
		`{"debate": "d", "utterance": -3}`,
		`{"debate": "d", "utterance": 3, "adherence": 101}`,
		`{"debate": "d", "utterance": 3, "adherence": -0.5}`,
		`{"debate": "d", "utterance": 3, "adherence": "high"}`,
		`{"debate": "d", "utterance": 3, "adherence": true}`,
		`{"debate": "d", "utterance": 3, "steelManning": "yes"}`,
		`{"debate": "d", "utterance": 3, "who": 1}`,
		`{"debate": "d", "utterance": 3} {"debate": "d", "utterance": 4}`,
		`{"debate": "d", "utterance": 3}` + "\n" + `{"debate": "d", "utterance": 3}`,
		`[1]`,
	} {
		if _, err := eval.ReadEvaluationLabels(strings.NewReader(bad)); !errors.Is(err, eval.ErrBadLabels) {
			t.Errorf("ReadEvaluationLabels(%q): %v, want an ErrBadLabels", bad, err)
		}
	}
}

// FuzzReadEvaluationLabels: whatever the input, ReadEvaluationLabels
// returns labels that each name a debate and one evaluation, with known
// categories only, none twice, and that write and read back the same; or
// an ErrBadLabels.
func FuzzReadEvaluationLabels(f *testing.F) {
	f.Add(`{"debate": "d", "utterance": 12, "adherence": 70, "steelManning": true, "selfCritique": false}`)
	f.Add(`{"debate": "d", "key": "eval:x1:chair_2", "adherence": "25-49"}` + "\n\n" + `{"debate": "e", "utterance": 1, "speaker": "chair_1"}`)
	f.Add(`{"debate": " ", "utterance": 0, "adherence": null}`)
	f.Fuzz(func(t *testing.T, in string) {
		labels, err := eval.ReadEvaluationLabels(strings.NewReader(in))
		if err != nil {
			if !errors.Is(err, eval.ErrBadLabels) {
				t.Fatalf("error %v is not an ErrBadLabels", err)
			}
			return
		}
		seen := map[string]bool{}
		var buf strings.Builder
		for _, l := range labels {
			if l.Debate == "" || (l.Utterance > 0) == (l.Key != "") || l.Utterance < 0 {
				t.Fatalf("label %+v", l)
			}
			id := fmt.Sprint(l.Debate, "\x00", l.Utterance, "\x00", l.Key)
			if seen[id] {
				t.Fatalf("label %+v twice", l)
			}
			seen[id] = true
			for field, c := range l.Categories {
				switch field {
				case eval.FieldAdherence:
					if !slices.Contains(eval.AdherenceBands(), c) {
						t.Fatalf("adherence %q", c)
					}
				case eval.FieldSteelManning, eval.FieldSelfCritique:
					if c != "attempted" && c != "not attempted" {
						t.Fatalf("%s %q", field, c)
					}
				default:
					t.Fatalf("field %q", field)
				}
			}
			b, err := json.Marshal(l)
			if err != nil {
				t.Fatal(err)
			}
			buf.Write(append(b, '\n'))
		}
		again, err := eval.ReadEvaluationLabels(strings.NewReader(buf.String()))
		if err != nil {
			t.Fatalf("labels written do not read back: %v\n%s", err, buf.String())
		}
		if len(labels) > 0 && !reflect.DeepEqual(labels, again) {
			t.Fatalf("round trip:\n%+v\n%+v", labels, again)
		}
	})
}
