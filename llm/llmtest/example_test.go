package llmtest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
)

// grade is host code under test: it asks a model to grade an answer.
func grade(ctx context.Context, c llm.Client, answer string) (int, error) {
	resp, err := c.Complete(ctx, llm.Request{
		Model:    "judge-model",
		Purpose:  "evaluation",
		Messages: []llm.Message{{Role: llm.User, Content: "Grade this answer from 0 to 100: " + answer}},
		JSON:     true,
	})
	if err != nil {
		return 0, err
	}
	var v struct {
		Score int `json:"score"`
	}
	if err := json.Unmarshal([]byte(resp.Content), &v); err != nil {
		return 0, fmt.Errorf("grade: reply %q: %w", resp.Content, err)
	}
	return v.Score, nil
}

// A host application's test scripts the model's replies, calls its own code,
// and checks what the code sent.
func Example() {
	f := llmtest.New()
	f.OnPurpose("evaluation").Reply(`{"score": 80}`, `I would rather not say.`)

	ctx := context.Background()
	score, err := grade(ctx, f, "42")
	fmt.Println(score, err)
	_, err = grade(ctx, f, "43")
	fmt.Println(err != nil)

	fmt.Println(f.Calls("evaluation"))
	last := f.Requests()[1]
	fmt.Println(last.Model, last.JSON, last.Messages[0].Content)
	// Output:
	// 80 <nil>
	// true
	// 2
	// judge-model true Grade this answer from 0 to 100: 43
}

// A rule can fail before it answers, to test a caller's retries.
func ExampleRule_Fail() {
	f := llmtest.New()
	f.OnPurpose("opening").
		Fail(llm.Temporary(errors.New("429 rate limited"), 0)).
		Reply("Good evening.")

	for attempt := 1; ; attempt++ {
		resp, err := f.Complete(context.Background(), llm.Request{Purpose: "opening"})
		if llm.IsRetryable(err) {
			fmt.Println("attempt", attempt, "failed:", err)
			continue
		}
		fmt.Println("attempt", attempt, "answered:", resp.Content)
		break
	}
	// Output:
	// attempt 1 failed: 429 rate limited
	// attempt 2 answered: Good evening.
}

// Streaming delivers a reply word by word.
func ExampleFake_Stream() {
	f := llmtest.New()
	f.OnModel("x-ai/grok-3").Reply("Freedom is a practice.")

	req := llm.Request{
		Model:    "x-ai/grok-3",
		Messages: []llm.Message{{Role: llm.User, Content: "What is freedom?"}},
	}
	resp, err := llm.Stream(context.Background(), f, req, func(delta string) error {
		fmt.Printf("%q\n", delta)
		return nil
	})
	fmt.Println(resp.Content, err)
	fmt.Printf("%+v\n", resp.Usage)
	// Output:
	// "Freedom "
	// "is "
	// "a "
	// "practice."
	// Freedom is a practice. <nil>
	// {PromptTokens:4 CompletionTokens:6 CachedPromptTokens:0 ReasoningTokens:0}
}

// A stream can break off after some deltas, as a dropped connection would.
func ExampleRule_FailMidStream() {
	f := llmtest.New()
	f.Default().FailMidStream("We must first ask", 2, errors.New("connection reset"))

	_, err := f.Stream(context.Background(), llm.Request{}, func(delta string) error {
		fmt.Printf("%q\n", delta)
		return nil
	})
	fmt.Println(err)
	// Output:
	// "We "
	// "must "
	// connection reset
}

// Without rules, a Fake answers every request with a reply naming its purpose.
func ExampleFake_Default() {
	f := llmtest.New()
	resp, _ := f.Complete(context.Background(), llm.Request{Purpose: "closing"})
	fmt.Println(resp.Content)

	f.Default().Reply("Thank you for listening.")
	resp, _ = f.Complete(context.Background(), llm.Request{Purpose: "closing"})
	fmt.Println(resp.Content)
	// Output:
	// fake reply for closing
	// Thank you for listening.
}

func ExampleFake_CheckSchemas() {
	schema := json.RawMessage(`{"type":"object","properties":{"score":{"type":"integer"}},"required":["score"],"additionalProperties":false}`)
	req := llm.Request{Purpose: "evaluation", Schema: schema}

	// In a test, pass t: a reply that drifts from its schema then fails
	// the test, even if the code under test copes with the error.
	f := llmtest.New().CheckSchemas(nil)
	f.OnPurpose("evaluation").Reply(`{"score": "high"}`).Times(1)
	_, err := f.Complete(context.Background(), req)
	fmt.Println(errors.Is(err, llm.ErrSchemaMismatch), err)

	// Unscripted, a schema request gets the simplest reply that fits.
	resp, _ := f.Complete(context.Background(), req)
	fmt.Println(resp.Content)

	// Every request is recorded with its schema.
	fmt.Println(len(f.Requests()[0].Schema) > 0)
	// Output:
	// true llmtest: reply to "evaluation": llm: reply does not satisfy the request's schema: jsonschema: $.score: want integer, got string
	// {"score":0}
	// true
}
