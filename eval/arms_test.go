package eval_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/engine/enginetest"
	"github.com/duelogic/duelogic/eval"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
)

const question = "What is the result of 3+4*5+6-7*2? Make sure to state your answer as a single number."

func task() eval.Task { return eval.Task{Model: "m", Question: question} }

// TestArmsKeepTheEngineContract runs every arm through enginetest on the
// stub.
func TestArmsKeepTheEngineContract(t *testing.T) {
	d := engine.Debate{Proposition: question}
	t.Run("single", func(t *testing.T) {
		enginetest.Run(t, func() engine.Format[*eval.Answers] { return &eval.Single{Task: task()} }, enginetest.Config{Debate: d})
	})
	t.Run("selfconsistency", func(t *testing.T) {
		enginetest.Run(t, func() engine.Format[*eval.Answers] { return &eval.SelfConsistency{Task: task(), Samples: 3} },
			enginetest.Config{Debate: d})
	})
	t.Run("debate", func(t *testing.T) {
		enginetest.Run(t, func() engine.Format[*eval.Answers] { return &eval.Debate{Task: task(), Agents: 3, Rounds: 2} },
			enginetest.Config{Debate: d})
	})
}

func TestAnswerSchemaIsStrict(t *testing.T) {
	enginetest.StrictSchema(t, "answer", eval.AnswerSchema(nil))
	enginetest.StrictSchema(t, "answer with choices", eval.AnswerSchema([]string{"yes", "no"}))
	if _, err := engine.SchemaTokens(eval.AnswerSchema(nil)); err != nil {
		t.Errorf("the answer's schema bounds no reply: %v", err)
	}
}

// TestDebateShowsTheOthersAnswers: round r's prompt of each agent holds its
// own answer of round r-1 and the others', and the request carries the
// schema; the final answer is the last round's majority.
func TestDebateShowsTheOthersAnswers(t *testing.T) {
	f := llmtest.New().CheckSchemas(t)
	reply := func(a string) string { return `{"reasoning": "r` + a + `", "answer": "` + a + `"}` }
	for agent, answers := range map[string][]string{
		"agent 1 of 3": {"10", "11", "11"},
		"agent 2 of 3": {"20", "21", "11"},
		"agent 3 of 3": {"30", "31", "31"},
	} {
		f.On(func(r llm.Request) bool { return strings.Contains(r.Messages[0].Content, agent) }).Reply(reply(answers[0]), reply(answers[1]), reply(answers[2]))
	}
	res, err := engine.Run(context.Background(), f, &eval.Debate{Task: task(), Agents: 3, Rounds: 2}, engine.Debate{Proposition: question})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Detail.Final; got != "11" || res.Detail.Votes != 2 {
		t.Errorf("final %q with %d votes, want 11 with 2", got, res.Detail.Votes)
	}
	if got := strings.Join(res.Detail.Texts(1), ","); got != "11,21,31" {
		t.Errorf("round 1: %s", got)
	}
	reqs := f.Requests()
	if len(reqs) != 9 {
		t.Fatalf("%d calls, want 9", len(reqs))
	}
	for _, r := range reqs {
		if len(r.Schema) == 0 {
			t.Errorf("a %s call without a schema", r.Purpose)
		}
		if r.Purpose != eval.PurposeRevise || !strings.Contains(r.Messages[0].Content, "agent 2 of 3") || !strings.Contains(r.Messages[1].Content, "Answer: 21") {
			continue
		}
		// Agent 2's round-2 prompt: its own 21, the others' 11 and 31.
		user := r.Messages[1].Content
		own := user[strings.Index(user, "<your_answer>"):strings.Index(user, "</your_answer>")]
		others := user[strings.Index(user, "<other_answers>"):strings.Index(user, "</other_answers>")]
		if !strings.Contains(own, "Answer: 21") || !strings.Contains(others, "Agent 1:") || !strings.Contains(others, "Answer: 11") ||
			!strings.Contains(others, "Answer: 31") || strings.Contains(others, "Answer: 21") {
			t.Errorf("agent 2's round-2 prompt shows:\n%s", user)
		}
		if !strings.Contains(others, "Reasoning: r11") {
			t.Errorf("the others' reasoning is not shown:\n%s", others)
		}
	}
	if len(res.Transcript) != 9 || res.Transcript[8].Exchange != 3 {
		t.Errorf("transcript of %d utterances", len(res.Transcript))
	}
}

// TestUnreadableAnswerCountsAsNone: a reply that is not the JSON asked for
// twice (the engine's one re-ask) gives no answer, which never votes.
func TestUnreadableAnswerCountsAsNone(t *testing.T) {
	f := llmtest.New()
	f.On(func(r llm.Request) bool { return strings.Contains(r.Messages[0].Content, "attempt 1") }).Reply("forty-two, I think")
	f.Default().Reply(`{"reasoning": "x", "answer": "9"}`)
	res, err := engine.Run(context.Background(), f, &eval.SelfConsistency{Task: task(), Samples: 3}, engine.Debate{Proposition: question})
	if err != nil {
		t.Fatal(err)
	}
	first := res.Detail.Rounds[0][0]
	if !first.Defaulted || first.Answer != "" || first.Calls != 2 {
		t.Errorf("the unreadable sample: %+v", first)
	}
	if res.Detail.Final != "9" || res.Detail.Votes != 2 {
		t.Errorf("final %q with %d votes, want 9 with 2", res.Detail.Final, res.Detail.Votes)
	}
}

func TestChoicesAreEnforced(t *testing.T) {
	f := llmtest.New()
	f.Default().Reply(`{"reasoning": "x", "answer": "YES"}`)
	tk := eval.Task{Question: "Is 2+2 = 4?", Choices: []string{"yes", "no"}}
	res, err := engine.Run(context.Background(), f, &eval.Single{Task: tk}, engine.Debate{Proposition: tk.Question})
	if err != nil {
		t.Fatal(err)
	}
	if res.Detail.Final != "yes" {
		t.Errorf("final %q, want the choice as written, yes", res.Detail.Final)
	}
	var schema struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(f.Requests()[0].Schema, &schema); err != nil || strings.Join(schema.Properties["answer"].Enum, ",") != "yes,no" {
		t.Errorf("the schema does not list the choices: %s (%v)", f.Requests()[0].Schema, err)
	}
	f = llmtest.New()
	f.Default().Reply(`{"reasoning": "x", "answer": "maybe"}`)
	res, err = engine.Run(context.Background(), f, &eval.Single{Task: tk}, engine.Debate{Proposition: tk.Question})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Detail.Rounds[0][0].Defaulted {
		t.Errorf("an answer outside the choices was accepted: %+v", res.Detail.Rounds[0][0])
	}
}

func TestMajority(t *testing.T) {
	for _, tt := range []struct {
		in    []string
		want  string
		votes int
	}{
		{[]string{"1", "2", "2"}, "2", 2},
		{[]string{"2", "1", "1.0", "2"}, "2", 2}, // a tie goes to the first given
		{[]string{"", "", "7"}, "7", 1},
		{[]string{"", ""}, "", 0},
		{nil, "", 0},
		{[]string{"Yes", "yes.", "no"}, "Yes", 2},
	} {
		if got, v := eval.Majority(tt.in); got != tt.want || v != tt.votes {
			t.Errorf("Majority(%q) = %q, %d; want %q, %d", tt.in, got, v, tt.want, tt.votes)
		}
	}
}

func TestArmsByName(t *testing.T) {
	names := engine.Formats()
	for _, n := range []string{eval.FormatSingle, eval.FormatSelfConsistency, eval.FormatDebate} {
		if !strings.Contains(strings.Join(names, " "), n) {
			t.Errorf("%s is not registered: %v", n, names)
		}
	}
	f, err := engine.Open(eval.FormatDebate, json.RawMessage(`{"question": "`+question+`", "agents": 2, "rounds": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	st := store.NewMemory()
	res, err := engine.Run(context.Background(), llm.NewStub(1), f, engine.Debate{ID: "d1", Proposition: question}, engine.WithStore(st))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Transcript); n != 4 {
		t.Errorf("a debate of 2 agents over 1 round said %d things, want 4", n)
	}
	again, err := engine.ResumeStored(context.Background(), llm.NewStub(1), "d1", engine.WithStore(st))
	if err != nil || again.Detail.Verdict() != res.Detail.Verdict() {
		t.Errorf("ResumeStored: %v, %v", again, err)
	}
	for _, bad := range []string{`{"question": "q", "agents": 1}`, `{"question": "", "rounds": 9}`, `{"question": "q", "colour": 1}`} {
		if _, err := engine.Open(eval.FormatDebate, json.RawMessage(bad)); !errors.Is(err, engine.ErrInvalidConfig) {
			t.Errorf("Open(%s): %v, want ErrInvalidConfig", bad, err)
		}
	}
}

// TestStubFollowsItsRule: on many items, the stub's first answers are right
// about StubAccuracy of the time; its revisions join the group's majority
// unless they re-solve.
func TestStubFollowsItsRule(t *testing.T) {
	items := eval.Arithmetic(300, 11)
	right := 0
	for _, it := range items {
		res, err := engine.Run(context.Background(), llm.NewStub(1), &eval.Single{Task: eval.Task{Question: it.Question}}, engine.Debate{Proposition: it.Question})
		if err != nil {
			t.Fatal(err)
		}
		if it.Correct(res.Detail.Final) {
			right++
		}
	}
	if lo, hi := eval.Wilson(right, len(items)); lo > eval.StubAccuracy || hi < eval.StubAccuracy {
		t.Errorf("the stub was right %d of %d times (interval %.3f-%.3f); its rule says %v", right, len(items), lo, hi, eval.StubAccuracy)
	}
	claims := eval.Claims(1, 5)[0]
	res, err := engine.Run(context.Background(), llm.NewStub(3), &eval.Debate{Task: eval.Task{Question: claims.Question, Choices: claims.Choices}, Agents: 3, Rounds: 1},
		engine.Debate{Proposition: claims.Question})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Detail.Rounds[1] {
		if a.Answer != "yes" && a.Answer != "no" {
			t.Errorf("the stub answered a claim with %q", a.Answer)
		}
	}
}
