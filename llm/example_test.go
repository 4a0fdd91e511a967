package llm_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/duelogic/duelogic/llm"
)

// provider stands for a host's client of one provider.
func provider(name string) llm.Client {
	return llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		return llm.Response{Content: name + " answered", Model: req.Model}, nil
	})
}

func ExampleRouter() {
	ctx := context.Background()
	r := llm.NewRouter(provider("openrouter"))             // everything else
	r.Handle("anthropic/", provider("anthropic"))          // a prefix
	r.Handle("openai/gpt-4*", provider("openai"))          // a prefix too
	r.Handle("openai/gpt-4o-mini", provider("local-mini")) // an exact model ID wins
	for _, model := range []string{"anthropic/claude-sonnet-4", "openai/gpt-4o", "openai/gpt-4o-mini", "x-ai/grok-3"} {
		resp, _ := r.Complete(ctx, llm.Request{Model: model})
		fmt.Printf("%s: %s\n", model, resp.Content)
	}

	// Without a default client, an unknown model is an error.
	_, err := llm.NewRouter(nil).Handle("anthropic/", provider("anthropic")).
		Complete(ctx, llm.Request{Model: "x-ai/grok-3"})
	fmt.Println(errors.Is(err, llm.ErrNoRoute), err)
	// Output:
	// anthropic/claude-sonnet-4: anthropic answered
	// openai/gpt-4o: openai answered
	// openai/gpt-4o-mini: local-mini answered
	// x-ai/grok-3: openrouter answered
	// true llm: no route for model "x-ai/grok-3"
}

func ExampleRetry() {
	ctx := context.Background()
	calls := 0
	overloaded := llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		calls++
		if calls < 3 {
			// A host's client marks transient failures; openai.APIError does
			// it for 429 and 5xx, with the server's Retry-After.
			return llm.Response{}, llm.Temporary(errors.New("503 service unavailable"), 0)
		}
		return llm.Response{Content: "hello"}, nil
	})
	c := llm.Retry(overloaded, llm.RetryPolicy{MaxRetries: 3, Base: time.Millisecond})
	resp, err := c.Complete(ctx, llm.Request{})
	fmt.Println(resp.Content, err, "after", calls, "calls")

	// When the retries are spent, the error wraps the last failure.
	down := llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		return llm.Response{}, llm.Temporary(errors.New("503 service unavailable"), 0)
	})
	_, err = llm.Retry(down, llm.RetryPolicy{MaxRetries: 1, Base: time.Millisecond}).Complete(ctx, llm.Request{})
	fmt.Println(err)
	// Output:
	// hello <nil> after 3 calls
	// llm: failed after 2 attempts: 503 service unavailable
}

func ExampleStub() {
	ctx := context.Background()
	stub := llm.NewStub(1)
	// No package registered "note": the stub answers with a generic
	// paragraph about the proposition, the same one every time.
	req := llm.Request{
		Model:    "anthropic/claude-sonnet-4",
		Purpose:  "note",
		Messages: []llm.Message{{Role: llm.User, Content: "<proposition>\nShould AI development be paused?\n</proposition>"}},
	}
	resp, _ := stub.Complete(ctx, req)
	again, _ := stub.Complete(ctx, req)
	fmt.Println(resp.Model, resp.FinishReason, again.Content == resp.Content)
	fmt.Println(strings.Contains(resp.Content, `"Should AI development be paused?"`))

	// An unknown JSON purpose gets an empty object.
	req.JSON = true
	resp, _ = stub.Complete(ctx, req)
	fmt.Println(resp.Content)
	// Output:
	// anthropic/claude-sonnet-4 stop true
	// true
	// {}
}

func ExampleStub_Stream() {
	stub := llm.NewStub(1)
	req := llm.Request{
		Purpose:  "note",
		Messages: []llm.Message{{Role: llm.User, Content: "<proposition>\nShould AI development be paused?\n</proposition>"}},
	}
	var b strings.Builder
	deltas := 0
	resp, _ := stub.Stream(context.Background(), req, func(delta string) error {
		deltas++
		b.WriteString(delta)
		return nil
	})
	fmt.Println(b.String() == resp.Content, deltas == len(strings.Fields(resp.Content)))
	// Output:
	// true true
}
