package eval_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/eval"
	"github.com/duelogic/duelogic/formal"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/scored"
	"github.com/duelogic/duelogic/store"
)

// recorder keeps the requests a client is sent, by purpose, and fails
// once after failAfter requests of purpose failOn when set.
type recorder struct {
	llm.Client
	mu        sync.Mutex
	reqs      map[string][]llm.Request
	failOn    string
	failAfter int
	failed    bool
	cancelled atomic.Int64 // requests sent with a context already done
}

func newRecorder(c llm.Client) *recorder {
	return &recorder{Client: c, reqs: map[string][]llm.Request{}}
}

func (r *recorder) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if ctx.Err() != nil {
		r.cancelled.Add(1)
	}
	r.mu.Lock()
	r.reqs[req.Purpose] = append(r.reqs[req.Purpose], req)
	fail := !r.failed && r.failOn == req.Purpose && len(r.reqs[req.Purpose]) > r.failAfter
	if fail {
		r.failed = true
	}
	r.mu.Unlock()
	if fail {
		return llm.Response{}, errors.New("the judge's server fell over")
	}
	return r.Client.Complete(ctx, req)
}

func (r *recorder) count(purpose string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.reqs[purpose])
}

// asked counts the requests of purpose that were not re-asks (a re-ask
// adds the unusable reply and the problem to the conversation).
func (r *recorder) asked(purpose string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, q := range r.reqs[purpose] {
		if q.Messages[len(q.Messages)-1].Role == llm.User && len(q.Messages) <= 2 {
			n++
		}
	}
	return n
}

func (r *recorder) all() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, q := range r.reqs {
		n += len(q)
	}
	return n
}

// user is a request's last message.
func user(req llm.Request) string { return req.Messages[len(req.Messages)-1].Content }

// TestAuditScoredRounds: scored debates of three rounds are re-judged by a
// jury behind an llm.Router, each juror's calls going to its own client,
// with the sides swapped; no argument or rebuttal is asked again, the
// swapped verdicts see the challenger first, a juror that argued is
// flagged, and an audit cut short by a failure, run again, finishes
// without asking any verdict twice; a third run asks nothing.
func TestAuditScoredRounds(t *testing.T) {
	ctx := context.Background()
	debaters := newRecorder(llm.NewStub(2))
	st := store.NewMemory()
	var ids []string
	for i := range 2 {
		f, err := engine.Open(scored.FormatName, json.RawMessage(`{"advocateModel": "judge/y"}`))
		if err != nil {
			t.Fatal(err)
		}
		res, err := engine.Run(ctx, debaters, f, engine.Debate{ID: fmt.Sprintf("idea-%d", i), Proposition: fmt.Sprintf("A tool idea, number %d.", i)}, engine.WithStore(st))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.DebateID)
	}
	rounds := len(scored.DefaultCategories())
	jurors := map[string]*recorder{"judge/x": newRecorder(llm.NewStub(5)), "judge/y": newRecorder(llm.NewStub(6))}
	fallback := newRecorder(llm.NewStub(7))
	router := llm.NewRouter(fallback)
	for m, c := range jurors {
		router.Handle(m, c)
	}
	j, ok := eval.JudgedFormat(scored.FormatName)
	if !ok {
		t.Fatal("scored is not a judged format")
	}
	a := j.Audit(ids, []string{"judge/x", "judge/y"}, true)
	jurors["judge/y"].failOn, jurors["judge/y"].failAfter = scored.PurposeVerdict, 4

	if _, err := eval.RunAudit(ctx, router, st, a); err == nil || !strings.Contains(err.Error(), "fell over") {
		t.Fatalf("the failure was not reported: %v", err)
	}
	rep, err := eval.RunAudit(ctx, router, st, a)
	if err != nil {
		t.Fatal(err)
	}
	if n := fallback.all(); n != 0 {
		t.Errorf("%d calls went to the router's default client", n)
	}
	// Each juror judges each round of each debate twice (as is, swapped).
	// Of judge/y's verdicts, only the one that failed is asked again: the
	// next round's verdict, which scored starts ahead after the failure
	// has cancelled the play, is never sent.
	want := len(ids) * rounds * 2
	if got := jurors["judge/x"].asked(scored.PurposeVerdict); got != want {
		t.Errorf("judge/x was asked %d verdicts, want %d", got, want)
	}
	if got := jurors["judge/y"].asked(scored.PurposeVerdict); got != want+1 {
		t.Errorf("judge/y was asked %d verdicts, want %d and the one that failed", got, want)
	}
	if n := jurors["judge/y"].cancelled.Load(); n != 0 {
		t.Errorf("judge/y was sent %d requests whose context was done", n)
	}
	for m, c := range jurors {
		if n := c.count(scored.PurposeArgument) + c.count(scored.PurposeRebuttal); n != 0 {
			t.Errorf("juror %s was asked for %d arguments or rebuttals", m, n)
		}
		swapped := 0
		for _, req := range c.reqs[scored.PurposeVerdict] {
			if req.Model != m {
				t.Errorf("juror %s's client got a request for %s", m, req.Model)
			}
			if len(req.Messages) > 2 {
				continue // a re-ask
			}
			u := user(req)
			if strings.Index(u, "The challenger's argument") < strings.Index(u, "The advocate's argument") {
				swapped++
			}
		}
		lo := want / 2
		if m == "judge/y" {
			lo++ // the swapped verdict that failed, asked again
		}
		if swapped != lo {
			t.Errorf("juror %s saw the challenger first in %d of its verdicts, want %d", m, swapped, lo)
		}
	}
	if len(rep.SwapConsistency) != 2 || len(rep.Debates) != len(ids) {
		t.Errorf("report %+v", rep)
	}
	self := 0
	for _, s := range rep.SelfJudged {
		if s.Juror != "judge/y" || s.Side != scored.SpeakerAdvocate {
			t.Errorf("self-judged %+v", s)
		}
		self++
	}
	if self != len(ids) {
		t.Errorf("%d self-judged verdicts, want judge/y on each of %d debates", self, len(ids))
	}

	calls := jurors["judge/x"].all() + jurors["judge/y"].all()
	again, err := eval.RunAudit(ctx, router, st, a)
	if err != nil {
		t.Fatal(err)
	}
	if n := jurors["judge/x"].all() + jurors["judge/y"].all() - calls; n != 0 {
		t.Errorf("a third audit asked %d calls", n)
	}
	x, _ := json.Marshal(rep)
	y, _ := json.Marshal(again)
	if string(x) != string(y) {
		t.Errorf("the third audit's report differs:\n%s\n%s", x, y)
	}
}

// TestAuditFormal: a formal debate's verdict is re-judged by two chairs,
// as is and with the Detractor's record first, without a debater's turn
// being asked again.
func TestAuditFormal(t *testing.T) {
	ctx := context.Background()
	c := newRecorder(llm.NewStub(1))
	st := store.NewMemory()
	f, err := engine.Open(formal.FormatName, json.RawMessage(`{"minRounds": 1, "maxRounds": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(ctx, c, f, engine.Debate{ID: "f1", Proposition: "Remote work should be the default.", Unattended: true}, engine.WithStore(st))
	if err != nil {
		t.Fatal(err)
	}
	turns, verdicts := c.count(formal.PurposeTurn), c.count(formal.PurposeVerdict)
	j, _ := eval.JudgedFormat(formal.FormatName)
	rep, err := eval.RunAudit(ctx, c, st, j.Audit([]string{res.DebateID}, []string{"chair/a", "chair/b"}, true))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.count(formal.PurposeTurn); got != turns {
		t.Errorf("the audit asked for %d debaters' turns again", got-turns)
	}
	if got := c.count(formal.PurposeVerdict) - verdicts; got != 4 {
		t.Errorf("%d verdicts asked, want 2 jurors × 2 orders", got)
	}
	swapped := 0
	for _, req := range c.reqs[formal.PurposeVerdict][verdicts:] {
		u := user(req)
		if strings.Index(u, "- Detractor (negative)") < strings.Index(u, "- Promoter (affirmative)") {
			swapped++
		}
	}
	if swapped != 2 {
		t.Errorf("%d verdicts listed the Detractor first, want 2", swapped)
	}
	if len(rep.Debates) != 1 || len(rep.Debates[0].Verdicts) != 2 || len(rep.Debates[0].Swapped) != 2 {
		t.Errorf("report %+v", rep)
	}
}
