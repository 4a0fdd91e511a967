package acceptance

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// recording sends every request to a stub and keeps it.
type recording struct {
	llm.Client
	mu   sync.Mutex
	reqs []llm.Request
}

func (r *recording) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	return r.Client.Complete(ctx, req)
}

// A podcast re-judged from the record after its openings by another
// arbiter model: the openings stay as they were, every evaluation after the
// fork goes to the new model.
func TestForkRejudgesAPodcastWithAnotherArbiter(t *testing.T) {
	ctx := context.Background()
	mem := store.NewMemory()
	f, err := engine.Open(duelogic.FormatName, json.RawMessage(`{"flow": {"maxExchanges": 3}}`))
	if err != nil {
		t.Fatal(err)
	}
	src, err := engine.Run(ctx, llm.NewStub(5), f, engine.Debate{ID: "podcast", Proposition: "Should cities ban private cars from their centres?"}, engine.WithStore(mem))
	if err != nil {
		t.Fatal(err)
	}
	recs, _ := mem.Records(ctx, "podcast")
	var at int64
	for _, r := range recs {
		if r.Type == engine.RecordSegmentEnded && strings.Contains(string(r.Data), `"opening"`) {
			at = r.Seq
		}
	}
	if at == 0 {
		t.Fatal("no end of the openings in the log")
	}
	id, err := engine.Fork(ctx, mem, "podcast", at, json.RawMessage(`{"arbiter": {"modelId": "judge-2"}}`))
	if err != nil {
		t.Fatal(err)
	}
	c := &recording{Client: llm.NewStub(5)}
	res, err := engine.ResumeStored(ctx, c, id, engine.WithStore(mem))
	if err != nil {
		t.Fatal(err)
	}
	evaluations := 0
	for _, r := range c.reqs {
		if r.Purpose == duelogic.PurposeEvaluation {
			evaluations++
			if r.Model != "judge-2" {
				t.Errorf("an evaluation after the fork went to %q", r.Model)
			}
		}
	}
	if evaluations == 0 {
		t.Error("no evaluation after the fork")
	}
	openings := func(tr []engine.Utterance) []string {
		var s []string
		for _, u := range tr {
			if u.Segment == "opening" || u.Segment == "introduction" {
				s = append(s, u.Speaker+": "+u.Content)
			}
		}
		return s
	}
	if diff := cmp.Diff(openings(src.Transcript), openings(res.Transcript)); diff != "" {
		t.Errorf("the openings changed in the fork (-source +fork):\n%s", diff)
	}
	if got := res.Detail.(*duelogic.Outcome).Config.Arbiter.ModelID; got != "judge-2" {
		t.Errorf("the fork's arbiter is %q", got)
	}
}

// A formal debate's last round played again with another seed of the
// stub: everything before it stays, the round is said anew.
func TestForkReplaysTheLastRoundOfAFormalDebate(t *testing.T) {
	ctx := context.Background()
	mem := store.NewMemory()
	f, err := engine.Open("formal", json.RawMessage(`{"minRounds": 2, "maxRounds": 2}`))
	if err != nil {
		t.Fatal(err)
	}
	src, err := engine.Run(ctx, llm.NewStub(3), f, engine.Debate{ID: "formal", Proposition: "Remote work makes teams more productive."}, engine.WithStore(mem))
	if err != nil {
		t.Fatal(err)
	}
	last := 0
	for _, u := range src.Transcript {
		last = max(last, u.Exchange)
	}
	var at int64
	for _, u := range src.Transcript {
		if u.Exchange == last {
			at = u.Seq - 1
			break
		}
	}
	if last == 0 || at < 1 {
		t.Fatalf("no last round found (round %d, at %d)", last, at)
	}
	id, err := engine.Fork(ctx, mem, "formal", at, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.ResumeStored(ctx, llm.NewStub(99), id, engine.WithStore(mem))
	if err != nil {
		t.Fatal(err)
	}
	before := func(tr []engine.Utterance) []string {
		var s []string
		for _, u := range tr {
			if u.Seq < at {
				s = append(s, u.Speaker+": "+u.Content)
			}
		}
		return s
	}
	if diff := cmp.Diff(before(src.Transcript), before(res.Transcript)); diff != "" {
		t.Errorf("what came before the last round changed (-source +fork):\n%s", diff)
	}
	same := true
	for i := range min(len(src.Transcript), len(res.Transcript)) {
		if src.Transcript[i].Seq >= at && src.Transcript[i].Content != res.Transcript[i].Content {
			same = false
		}
	}
	if same && len(src.Transcript) == len(res.Transcript) {
		t.Error("the last round played with another seed says the same as the source")
	}
	if res.Detail.Verdict().Summary == "" {
		t.Error("the fork has no verdict")
	}
}
