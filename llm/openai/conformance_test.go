package openai

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/duelogic/duelogic/llm/llmtest"
)

// chatServer answers chat completions the way an OpenAI-compatible server
// does: a JSON completion, or an event stream of one delta per word when the
// request says "stream".
func chatServer(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	words := []string{"Hello", " there,", " friend."}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":"Hello there, friend."},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":4}}`, req.Model)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for _, word := range words {
		fmt.Fprintf(w, "data: {\"model\":%q,\"choices\":[{\"index\":0,\"delta\":{\"content\":%q}}]}\n\n", req.Model, word)
		w.(http.Flusher).Flush()
	}
	fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n")
	fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":4}}\n\n")
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// The client keeps the llm.Client contract against a server over HTTP.
func TestClientKeepsTheContract(t *testing.T) {
	srv := serve(t, chatServer)
	c, _ := testClient(Config{BaseURL: srv.URL + "/v1"})
	llmtest.TestClient(t, c)
}
