package anthropicsdk_test

import (
	"testing"

	"github.com/duelogic/duelogic/llm/anthropicsdk"
	"github.com/duelogic/duelogic/llm/llmtest"
)

// The client keeps the llm.Client contract against a server that speaks
// Anthropic's wire format.
func TestClientKeepsTheContract(t *testing.T) {
	c := anthropicsdk.New(serve(t, &mockServer{answer: hello}))
	llmtest.TestClient(t, c)
}
