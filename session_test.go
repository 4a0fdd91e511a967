package duelogic

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"golang.org/x/sync/errgroup"

	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/storetest"
)

// pingPong is a small format for testing Session: two speakers alternate for
// Rounds rounds; after each turn a judge scores it (a Step) and, beside the
// main flow, a summariser notes it (a SideStep).
type pingPong struct {
	Rounds int `json:"rounds"`

	scores []int
	notes  map[string]string
}

func (p *pingPong) Name() string { return "pingpong" }

func (p *pingPong) Play(ctx context.Context, s *Session) error {
	p.scores, p.notes = nil, map[string]string{}
	var side errgroup.Group
	var mu sync.Mutex
	err := s.Segment(ctx, "rally", func(ctx context.Context) error {
		for i := range p.Rounds {
			for _, who := range []string{"ping", "pong"} {
				key := fmt.Sprintf("%d:%s", i, who)
				u, err := s.Say(ctx, key, Utterance{Speaker: who, Segment: "rally", Kind: "shot", Exchange: i + 1},
					llm.Request{Model: "m-" + who, Purpose: "shot", Messages: []llm.Message{{Role: llm.User, Content: key}}})
				if err != nil {
					return err
				}
				var score int
				if _, err := s.Step(ctx, "score:"+key, "score", "judge", &score, func(ctx context.Context) (any, llm.Usage, error) {
					resp, err := s.Call(ctx, llm.Request{Model: "judge", Purpose: "score", Messages: []llm.Message{{Role: llm.User, Content: u.Content}}}, "rally", "judge")
					return len(resp.Content) % 7, resp.Usage, err
				}, func(seq int64) *Event { return &Event{Type: "scored", Data: score} }); err != nil {
					return err
				}
				p.scores = append(p.scores, score)
				side.Go(func() error {
					var note string
					_, err := s.SideStep(ctx, "note:"+key, "note", "notes", &note, func(ctx context.Context) (any, llm.Usage, error) {
						resp, err := s.Call(ctx, llm.Request{Model: "notes", Purpose: "note", Messages: []llm.Message{{Role: llm.User, Content: u.Content}}}, "rally", "notes")
						return "noted: " + resp.Content[:min(10, len(resp.Content))], resp.Usage, err
					}, nil)
					mu.Lock()
					p.notes[key] = note
					mu.Unlock()
					return err
				})
			}
		}
		return nil
	})
	if werr := side.Wait(); err == nil {
		err = werr
	}
	return err
}

func TestSessionFormatRunAndResumeAtEveryRecord(t *testing.T) {
	ctx := context.Background()
	d := Debate{ID: "pp", Proposition: "Is ping better than pong?"}
	ref := &pingPong{Rounds: 2}
	refStore := store.NewMemory()
	res, err := RunFormat(ctx, llm.NewStub(3), ref, d, WithStore(refStore))
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != "pingpong" || len(res.Transcript) != 4 || len(ref.scores) != 4 || len(ref.notes) != 4 {
		t.Fatalf("result %+v, scores %v, notes %v", res, ref.scores, ref.notes)
	}
	if res.UsageBySpeaker["judge"].PromptTokens == 0 || res.UsageBySpeaker["notes"].PromptTokens == 0 {
		t.Errorf("step usage not charged: %+v", res.UsageBySpeaker)
	}
	recs, _ := refStore.Records(ctx, "pp")
	for n := 1; n < len(recs); n++ {
		mem := store.NewMemory()
		_, err := RunFormat(ctx, llm.NewStub(3), &pingPong{Rounds: 2}, d, WithStore(storetest.FailAfter(mem, n, errDisk)))
		if !errors.Is(err, errDisk) {
			t.Fatalf("n=%d: %v", n, err)
		}
		again := &pingPong{Rounds: 99} // the stored configuration wins
		got, err := ResumeFormat(ctx, llm.NewStub(3), again, "pp", WithStore(mem))
		if err != nil {
			t.Fatalf("n=%d: resume: %v", n, err)
		}
		if again.Rounds != 2 {
			t.Fatalf("n=%d: resumed with %d rounds", n, again.Rounds)
		}
		// Side records land where timing puts them, so sequence numbers
		// may differ; everything else must not.
		if diff := cmp.Diff(res.Transcript, got.Transcript, cmpopts.IgnoreFields(Utterance{}, "Seq")); diff != "" {
			t.Fatalf("n=%d: transcript (-want +got):\n%s", n, diff)
		}
		if diff := cmp.Diff(ref.scores, again.scores); diff != "" {
			t.Errorf("n=%d: scores (-want +got):\n%s", n, diff)
		}
		if diff := cmp.Diff(ref.notes, again.notes); diff != "" {
			t.Errorf("n=%d: notes (-want +got):\n%s", n, diff)
		}
	}
	if _, err := ResumeFormat(ctx, llm.NewStub(3), &pingPong{}, "nope", WithStore(refStore)); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("resume unknown: %v", err)
	}
	// A Duelogic debate is not a pingpong debate, and vice versa.
	o := mustNew(t, shortConfig(), newTestClient(), WithStore(refStore))
	if _, err := o.Resume(ctx, "pp"); !errors.Is(err, ErrCorruptLog) {
		t.Errorf("Orchestrator.Resume of a pingpong debate: %v", err)
	}
}
