package openai_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/openai"
)

// A stand-in for an OpenAI-compatible server that streams four tokens.
func streamingServer() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, ": OPENROUTER PROCESSING\n\n")
		for _, tok := range []string{"Act ", "only ", "on ", "maxims."} {
			fmt.Fprintf(w, "data: {\"model\":\"demo-1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%q}}]}\n\n", tok)
		}
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n")
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":4}}\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
}

func Example() {
	srv := streamingServer()
	defer srv.Close()

	client := openai.New(openai.Config{
		BaseURL: srv.URL + "/api/v1", // e.g. "https://openrouter.ai/api/v1"
		APIKey:  "sk-example",
		Headers: http.Header{"X-Title": {"Duelogic"}},
	})
	temperature := 0.0
	req := llm.Request{
		Model:       "demo-1",
		Messages:    []llm.Message{{Role: llm.User, Content: "State the categorical imperative in four words."}},
		Temperature: &temperature,
	}
	// llm.Stream uses the client's streaming, since it is an llm.Streamer.
	resp, err := llm.Stream(context.Background(), client, req, func(delta string) error {
		fmt.Printf("[%s]", delta)
		return nil
	})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println()
	fmt.Printf("%q from %s, finish %s, %d tokens\n", resp.Content, resp.Model, resp.FinishReason, resp.Usage.Total())
	// Output:
	// [Act ][only ][on ][maxims.]
	// "Act only on maxims." from demo-1, finish stop, 16 tokens
}

func ExampleAPIError() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("X-Request-Id", "req_42")
		w.WriteHeader(http.StatusPaymentRequired)
		fmt.Fprint(w, `{"error":{"code":402,"message":"Insufficient credits"}}`)
	}))
	defer srv.Close()

	client := openai.New(openai.Config{BaseURL: srv.URL + "/api/v1", APIKey: "sk-example"})
	_, err := client.Complete(context.Background(), llm.Request{Model: "demo-1", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}})

	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Message, apiErr.RequestID)
		fmt.Println("retryable:", llm.IsRetryable(err))
	}
	fmt.Println(err)
	// Output:
	// 402 Insufficient credits req_42
	// retryable: false
	// openai: HTTP 402 Payment Required: Insufficient credits (request req_42)
}

func ExampleStreamError() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"The greatest good\"}}]}\n\n")
		// The connection ends here: no finish_reason, no [DONE].
	}))
	defer srv.Close()

	client := openai.New(openai.Config{BaseURL: srv.URL})
	resp, err := client.Stream(context.Background(), llm.Request{Model: "demo-1", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}, nil)

	var se *openai.StreamError
	fmt.Println(errors.Is(err, openai.ErrTruncated), errors.As(err, &se))
	fmt.Printf("%q %q\n", resp.Content, se.Partial.Content)
	// Output:
	// true true
	// "The greatest good" "The greatest good"
}
