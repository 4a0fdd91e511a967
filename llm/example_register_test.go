package llm_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/duelogic/duelogic/llm"
)

// A package that makes requests of a purpose teaches the stub to answer
// them, from init, beside the prompts the answers read.
func init() {
	llm.RegisterStub("greeting", writeGreeting)
}

// writeGreeting reads a "Guest:" line of the prompt and draws its words
// from the call, so that the answer depends on the seed and the request only.
func writeGreeting(c *llm.StubCall) string {
	guest := c.Field("Guest")
	if guest == "" {
		guest = "stranger"
	}
	return c.Pick([]string{"Hello", "Welcome", "Good evening"}) + ", " + guest + "."
}

func ExampleRegisterStub() {
	stub := llm.NewStub(1)
	req := llm.Request{Purpose: "greeting", Messages: []llm.Message{{Role: llm.User, Content: "Guest: Ada"}}}
	a, _ := stub.Complete(context.Background(), req)
	b, _ := stub.Complete(context.Background(), req)
	fmt.Println(strings.HasSuffix(a.Content, ", Ada."), a.Content == b.Content)
	// Output:
	// true true
}
