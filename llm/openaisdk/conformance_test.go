package openaisdk_test

import (
	"testing"

	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/llm/openaisdk"
)

// The client keeps the llm.Client contract against a server that speaks
// OpenAI's wire format.
func TestClientKeepsTheContract(t *testing.T) {
	c := openaisdk.New(serve(t, &mockServer{answer: hello}))
	llmtest.TestClient(t, c)
}
