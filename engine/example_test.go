package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
)

// oneQuestion is a tiny debate format: each side answers the proposition
// once, then a judge picks the better answer. Its exported fields are its
// configuration, stored with the debate.
type oneQuestion struct {
	Sides []string `json:"sides"`
	Judge string   `json:"judge"`
}

func (f *oneQuestion) Name() string { return "one_question" }

// Play uses only stored steps, so a resumed debate replays what was said;
// it returns the winning side.
func (f *oneQuestion) Play(ctx context.Context, s *engine.Session) (string, error) {
	var winner string
	err := s.Segment(ctx, "answers", func(ctx context.Context) error {
		for _, side := range f.Sides {
			req := llm.Request{Model: side, Purpose: "answer",
				Messages: []llm.Message{{Role: llm.User, Content: "Answer briefly: " + s.Debate().Proposition}}}
			if _, err := s.Say(ctx, "answer:"+side, engine.Utterance{Speaker: side, Segment: "answers", Kind: "answer"}, req); err != nil {
				return err
			}
		}
		_, err := s.Step(ctx, "verdict", "verdict", "judge", &winner, func(ctx context.Context) (any, llm.Usage, error) {
			resp, err := s.Call(ctx, llm.Request{Model: f.Judge, Purpose: "verdict",
				Messages: []llm.Message{{Role: llm.User, Content: "Which side answered better?"}}}, "answers", "judge")
			return resp.Content, resp.Usage, err
		}, nil)
		return err
	})
	return winner, err
}

// A host's own format on the engine: stored, announced and resumable like
// any debate.
func ExampleRun() {
	f := llmtest.New()
	f.OnPurpose("verdict").Reply("blue")
	mem := store.NewMemory()
	format := &oneQuestion{Sides: []string{"red", "blue"}, Judge: "judge-model"}
	res, err := engine.Run(context.Background(), f, engine.Format[string](format),
		engine.Debate{ID: "q1", Proposition: "Is tea better than coffee?"}, engine.WithStore(mem))
	if err != nil {
		log.Fatal(err)
	}
	for _, u := range res.Transcript {
		fmt.Printf("%s: %s\n", u.Speaker, u.Content)
	}
	fmt.Println("winner:", res.Detail)

	// Resuming the finished debate replays it without a model call.
	again := &oneQuestion{}
	replayed, err := engine.Resume(context.Background(), f, engine.Format[string](again), "q1", engine.WithStore(mem))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("replayed winner:", replayed.Detail, "judge:", again.Judge, "calls:", len(f.Requests()))
	// Output:
	// red: fake reply for answer
	// blue: fake reply for answer
	// winner: blue
	// replayed winner: blue judge: judge-model calls: 3
}

// Open a registered format by name, play it, fork it after its first
// speech with another model, and play the fork on. (The format here is the
// package test's own; duelogic's five register themselves the same way.)
func ExampleFork() {
	ctx := context.Background()
	st := store.NewMemory()
	f, err := engine.Open("surface-asker", json.RawMessage(`{"rounds": 1}`))
	if err != nil {
		panic(err)
	}
	res, err := engine.Run(ctx, llm.NewStub(1), f, engine.Debate{ID: "ex", Proposition: "Are toys formats?"}, engine.WithStore(st))
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Detail.Verdict().Summary, len(res.Transcript), "speeches")

	id, err := engine.Fork(ctx, st, "ex", res.Transcript[0].Seq, json.RawMessage(`{"judge": "judge-2"}`))
	if err != nil {
		panic(err)
	}
	forked, err := engine.ResumeStored(ctx, llm.NewStub(1), id, engine.WithStore(st))
	if err != nil {
		panic(err)
	}
	fmt.Println(forked.Debate.ForkOf, forked.Transcript[0].Model, forked.Transcript[1].Model)
	// Output:
	// draw 2 speeches
	// ex judge-1 judge-2
}
