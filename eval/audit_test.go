package eval_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/eval"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/scored"
	"github.com/duelogic/duelogic/store"
)

// judged is a small judged format for the audit's tests: pro speaks, opp
// speaks, and a judge names the winner, reading the sides in the order
// Swap says.
type judged struct {
	ProModel   string `json:"proModel"`
	OppModel   string `json:"oppModel"`
	JudgeModel string `json:"judgeModel"`
	Swap       bool   `json:"swap"`
}

const judgedName = "evaltest.judged"

func init() {
	engine.Register(judgedName, func(config json.RawMessage) (engine.Format[engine.Outcome], error) {
		f := &judged{}
		if err := engine.DecodeConfig(judgedName, config, f); err != nil {
			return nil, err
		}
		return engine.Erase[*winner](f), nil
	})
}

type winner struct{ Winner string }

func (w *winner) Verdict() engine.Verdict { return engine.Verdict{Winner: w.Winner, Summary: w.Winner} }
func (w *winner) Documents() []engine.Document {
	return []engine.Document{{Name: "v.md", Title: "V", Markdown: w.Winner}}
}

func (f *judged) Name() string { return judgedName }

const judgedVerdictRecord = "evaltest_verdict"

func (f *judged) Play(ctx context.Context, s *engine.Session) (*winner, error) {
	p := s.Debate().Proposition
	var said [2]string
	for i, side := range []string{"pro", "opp"} {
		model := f.ProModel
		if side == "opp" {
			model = f.OppModel
		}
		u, err := s.Say(ctx, side, engine.Utterance{Speaker: side, Kind: engine.KindResponse},
			llm.Request{Model: model, Purpose: "speech", Messages: []llm.Message{{Role: llm.User, Content: side + " on " + p}}})
		if err != nil {
			return nil, err
		}
		said[i] = u.Content
	}
	order := "Sides in order: pro, opp"
	if f.Swap {
		order = "Sides in order: opp, pro"
	}
	var w winner
	_, err := s.Step(ctx, "verdict", judgedVerdictRecord, engine.SpeakerArbiter, &w, func(ctx context.Context) (any, llm.Usage, error) {
		req := llm.Request{Model: f.JudgeModel, Purpose: "verdict", Messages: []llm.Message{{Role: llm.User, Content: p + "\n" + order}},
			Schema: json.RawMessage(`{"type": "object", "properties": {"winner": {"type": "string", "enum": ["pro", "opp"]}}, "required": ["winner"], "additionalProperties": false}`)}
		v, _, usage, err := engine.Judge(ctx, s, req, "", engine.SpeakerArbiter, func(reply string) (winner, error) {
			var r struct{ Winner string }
			err := json.Unmarshal([]byte(reply), &r)
			return winner{r.Winner}, err
		})
		return v, usage, err
	}, nil)
	return &w, err
}

// TestAuditJury: three jurors re-judge four debates without their speeches
// being asked again; Fleiss' kappa, the swap's consistency, Cohen's kappa
// with the labels and the self-judged verdicts come out as scripted.
func TestAuditJury(t *testing.T) {
	f := llmtest.New().CheckSchemas(t)
	verdict := func(w string) string { return `{"winner": "` + w + `"}` }
	has := func(r llm.Request, s string) bool { return strings.Contains(r.Messages[len(r.Messages)-1].Content, s) }
	// Juror a takes whichever side is read first; b always pro; c opp on
	// debates 1 and 2, pro on 3 and 4; the original judge always opp.
	f.On(func(r llm.Request) bool { return r.Model == "a" && has(r, "order: pro") }).Reply(verdict("pro"))
	f.On(func(r llm.Request) bool { return r.Model == "a" && has(r, "order: opp") }).Reply(verdict("opp"))
	f.On(func(r llm.Request) bool { return r.Model == "model-p" && r.Purpose == "verdict" }).Reply(verdict("pro"))
	f.On(func(r llm.Request) bool { return r.Model == "c" && (has(r, "debate 1") || has(r, "debate 2")) }).Reply(verdict("opp"))
	f.On(func(r llm.Request) bool { return r.Model == "c" }).Reply(verdict("pro"))
	f.On(func(r llm.Request) bool { return r.Model == "orig" }).Reply(verdict("opp"))
	f.OnPurpose("speech").Reply("A speech.")

	st := store.NewMemory()
	var ids []string
	for i := 1; i <= 4; i++ {
		res, err := engine.Run(context.Background(), f, &judged{ProModel: "model-p", OppModel: "model-o", JudgeModel: "orig"},
			engine.Debate{ID: fmt.Sprintf("d%d", i), Proposition: fmt.Sprintf("debate %d", i)}, engine.WithStore(st))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.DebateID)
	}
	speeches := f.Calls("speech")

	rep, err := eval.RunAudit(context.Background(), f, st, eval.Audit{
		Debates:    ids,
		ForkBefore: judgedVerdictRecord,
		Jurors: []eval.Juror{
			{Name: "a", Model: "a", Patch: json.RawMessage(`{"judgeModel": "a"}`)},
			{Name: "b", Model: "model-p", Patch: json.RawMessage(`{"judgeModel": "model-p"}`)},
			{Name: "c", Model: "c", Patch: json.RawMessage(`{"judgeModel": "c"}`)},
		},
		Swap:   &eval.Swap{Patch: json.RawMessage(`{"swap": true}`)},
		Labels: map[string]string{"d1": "opp", "d2": "opp", "d3": "pro", "d4": "pro"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Calls("speech"); got != speeches {
		t.Errorf("the audit asked for %d speeches again", got-speeches)
	}
	if got := f.Calls("verdict"); got != 4+4*3*2 {
		t.Errorf("%d verdicts asked, want 4 originals and 24 re-judgings", got)
	}
	for _, d := range rep.Debates {
		if d.Original != "opp" || len(d.Forks) != 3 || d.Forks[0] == d.ID {
			t.Errorf("debate %+v", d)
		}
	}
	// Per debate [pro, opp]: d1, d2 [2, 1], d3, d4 [3, 0]: P̄ = 2/3, P̄e =
	// (10/12)² + (2/12)² = 13/18, κ = (2/3 − 13/18)/(1 − 13/18) = −0.2.
	if rep.FleissKappa == nil || math.Abs(*rep.FleissKappa-(-0.2)) > 1e-12 {
		t.Errorf("Fleiss' kappa %v, want -0.2", rep.FleissKappa)
	}
	if rep.SwapConsistency["a"] != 0 || rep.SwapConsistency["b"] != 1 || rep.SwapConsistency["c"] != 1 {
		t.Errorf("swap consistency %v, want a 0, b 1, c 1", rep.SwapConsistency)
	}
	// c agrees with the labels throughout (κ 1); a always says pro, half
	// right: p_o = 0.5 = p_e, κ 0.
	if k := rep.CohenKappa["c"]; k == nil || *k != 1 {
		t.Errorf("juror c's Cohen's kappa %v, want 1", k)
	}
	if k := rep.CohenKappa["a"]; k == nil || *k != 0 {
		t.Errorf("juror a's Cohen's kappa %v, want 0", k)
	}
	if len(rep.SelfJudged) != 4 {
		t.Fatalf("self-judged %+v, want juror b on each of 4 debates", rep.SelfJudged)
	}
	for _, s := range rep.SelfJudged {
		if s.Juror != "b" || s.Side != "pro" || !s.ForSelf {
			t.Errorf("self-judged %+v", s)
		}
	}
	md := rep.Markdown()
	for _, want := range []string{"Fleiss' κ = -0.200", "a: the same verdict with the sides swapped in 0%", "Self-preference check: b judged debate d1"} {
		if !strings.Contains(md, want) {
			t.Errorf("the audit's Markdown lacks %q:\n%s", want, md)
		}
	}
}

// counted counts a client's calls by purpose.
type counted struct {
	llm.Client
	by map[string]*atomic.Int64
}

func (c counted) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if n, ok := c.by[req.Purpose]; ok {
		n.Add(1)
	}
	return c.Client.Complete(ctx, req)
}

// TestAuditScored: a scored debate of one category is re-judged by other
// arbiter models on the stub, its arguments and rebuttals not asked again.
func TestAuditScored(t *testing.T) {
	c := counted{Client: llm.NewStub(2), by: map[string]*atomic.Int64{scored.PurposeArgument: {}, scored.PurposeRebuttal: {}, scored.PurposeVerdict: {}}}
	cats, _ := json.Marshal(scored.DefaultCategories()[:1])
	st := store.NewMemory()
	var ids []string
	for i := range 3 {
		f, err := engine.Open(scored.FormatName, json.RawMessage(`{"categories": `+string(cats)+`}`))
		if err != nil {
			t.Fatal(err)
		}
		res, err := engine.Run(context.Background(), c, f, engine.Debate{Proposition: fmt.Sprintf("A tool idea, number %d.", i)}, engine.WithStore(st))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.DebateID)
	}
	args, rebuttals := c.by[scored.PurposeArgument].Load(), c.by[scored.PurposeRebuttal].Load()
	var jurors []eval.Juror
	for _, m := range []string{"judge/x", "judge/y", "judge/z"} {
		jurors = append(jurors, eval.Juror{Name: m, Model: m, Patch: json.RawMessage(`{"arbiterModel": "` + m + `"}`)})
	}
	rep, err := eval.RunAudit(context.Background(), c, st, eval.Audit{Debates: ids, ForkBefore: scored.RecordVerdict, Jurors: jurors})
	if err != nil {
		t.Fatal(err)
	}
	if c.by[scored.PurposeArgument].Load() != args || c.by[scored.PurposeRebuttal].Load() != rebuttals {
		t.Error("re-judging asked for the arguments again")
	}
	if got := c.by[scored.PurposeVerdict].Load(); got < 3+9 {
		t.Errorf("%d verdicts asked, want at least 12", got)
	}
	for _, d := range rep.Debates {
		for _, v := range d.Verdicts {
			if v != scored.SpeakerAdvocate && v != scored.SpeakerChallenger && v != "draw" {
				t.Errorf("debate %s: verdict %q", d.ID, v)
			}
		}
	}
}

func TestReadLabels(t *testing.T) {
	got, err := eval.ReadLabels(strings.NewReader("{\"id\": \"d1\", \"label\": \"pro\"}\n\n{\"id\": \"d2\", \"label\": \"draw\"}\n"))
	if err != nil || len(got) != 2 || got["d2"] != "draw" {
		t.Errorf("ReadLabels: %v, %v", got, err)
	}
	for _, bad := range []string{`{"id": "d1"}`, `{"id": "d1", "label": "x"}` + "\n" + `{"id": "d1", "label": "y"}`, `{"id": "d1", "label": "x", "who": 1}`, `[1]`} {
		if _, err := eval.ReadLabels(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadLabels(%q) accepted", bad)
		}
	}
}
