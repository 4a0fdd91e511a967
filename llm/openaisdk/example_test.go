package openaisdk_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/openaisdk"
)

// A host that already has an openai-go client hands it to duelogic,
// wrapped in llm.Retry, the library's one retry layer. Here the SDK talks
// to a local server that answers as the stub model (withPurpose, a test
// helper, tells it each call's purpose); a host would pass its own options
// (option.WithAPIKey, ...) to openai.NewClient instead.
func Example() {
	stub := llm.NewStub(1)
	srv := httptest.NewServer(&mockServer{answer: stubAnswer(stub)})
	defer srv.Close()

	sdk := openai.NewClient(option.WithBaseURL(srv.URL+"/v1/"), option.WithAPIKey("sk-..."))
	client := llm.Retry(openaisdk.New(sdk, openaisdk.WithModel("gpt-4.1-mini"), withPurpose), llm.RetryPolicy{})

	f, err := engine.Open("scored", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := engine.Run(context.Background(), client, f, engine.Debate{Proposition: "A scheduling assistant for small clinics"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(res.Transcript) > 0, res.Usage.Total() > 0)
	// Output: true true
}
