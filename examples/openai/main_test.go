package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fakeProvider is an OpenAI-compatible server: it streams plain answers and
// answers JSON-mode requests with an evaluation or an interrupt decision, the
// way a real model would, and records the models it was asked for.
type fakeProvider struct {
	mu     sync.Mutex
	models map[string]int
	auth   map[string]bool
}

func (p *fakeProvider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model          string            `json:"model"`
		Stream         bool              `json:"stream"`
		Messages       []json.RawMessage `json:"messages"`
		ResponseFormat *json.RawMessage  `json:"response_format"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	p.models[req.Model]++
	p.auth[r.Header.Get("Authorization")] = true
	p.mu.Unlock()
	body, _ := json.Marshal(req.Messages)
	content := fmt.Sprintf("A considered answer from %s. The other side makes a compelling case. My framework has a blind spot here.", req.Model)
	if req.ResponseFormat != nil {
		content = `{"adherenceScore": 80, "steelManning": {"attempted": true, "quality": "adequate"}, "selfCritique": {"attempted": true, "quality": "adequate"}, "frameworkConsistency": {"consistent": true}, "intellectualHonesty": {"score": "high"}, "requiresInterjection": false}`
		if bytes.Contains(body, []byte("should interrupt")) {
			content = `{"shouldInterrupt": false, "urgency": 0.1}`
		}
	}
	usage := `{"prompt_tokens": 100, "completion_tokens": 20}`
	if !req.Stream {
		fmt.Fprintf(w, `{"model": %q, "choices": [{"message": {"role": "assistant", "content": %q}, "finish_reason": "stop"}], "usage": %s}`, req.Model, content, usage)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprint(w, ": keep-alive\n\n")
	for _, word := range strings.SplitAfter(content, " ") {
		chunk, _ := json.Marshal(map[string]any{"model": req.Model, "choices": []any{map[string]any{"delta": map[string]string{"content": word}}}})
		fmt.Fprintf(w, "data: %s\n\n", chunk)
	}
	fmt.Fprintf(w, "data: {\"choices\": [{\"delta\": {}, \"finish_reason\": \"stop\"}], \"usage\": %s}\n\ndata: [DONE]\n\n", usage)
}

func TestDebateAgainstOpenAICompatibleServers(t *testing.T) {
	hosted := &fakeProvider{models: map[string]int{}, auth: map[string]bool{}}
	local := &fakeProvider{models: map[string]int{}, auth: map[string]bool{}}
	hs, ls := httptest.NewServer(hosted), httptest.NewServer(local)
	defer hs.Close()
	defer ls.Close()
	env := map[string]string{"DUELOGIC_BASE_URL": hs.URL, "DUELOGIC_API_KEY": "sk-test-secret"}
	dir := t.TempDir()
	var out bytes.Buffer
	err := run(context.Background(), []string{
		"-jsonl", dir, "-exchanges", "3",
		"-chair-models", "anthropic/claude-sonnet-4,ollama/llama3.1",
		"-arbiter-model", "openai/gpt-4o",
		"-route", "ollama/=" + ls.URL + "/v1",
	}, func(k string) string { return env[k] }, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if hosted.models["anthropic/claude-sonnet-4"] == 0 || hosted.models["openai/gpt-4o"] == 0 || local.models["llama3.1"] == 0 {
		t.Errorf("routing: hosted %v, local %v", hosted.models, local.models)
	}
	if _, ok := hosted.models["ollama/llama3.1"]; ok {
		t.Error("the routed model reached the default endpoint")
	}
	if !hosted.auth["Bearer sk-test-secret"] || local.auth["Bearer sk-test-secret"] {
		t.Errorf("keys: hosted %v, local %v", hosted.auth, local.auth)
	}
	s := out.String()
	for _, want := range []string{"INTRODUCTION", "SYNTHESIS", "llama3.1", "✓ evaluation", "METRICS", "recorded in"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(s, "sk-test-secret") {
		t.Error("the API key was printed")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("%d logs", len(files))
	}
	id := strings.TrimSuffix(filepath.Base(files[0]), ".jsonl")
	out.Reset()
	if err := run(context.Background(), []string{"-jsonl", dir, "-resume", id}, func(k string) string { return env[k] }, &out); err != nil {
		t.Fatalf("resume: %v", err)
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-chair-models", "a,b,c"},
		{"-route", "nourl"},
		{"-preset", "nope"},
		{"-no-such-flag"},
	} {
		var out bytes.Buffer
		if err := run(context.Background(), append(args, "-jsonl", t.TempDir()), func(string) string { return "" }, &out); err == nil {
			t.Errorf("run(%v) succeeded", args)
		}
	}
}
