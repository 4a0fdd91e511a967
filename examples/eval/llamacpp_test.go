package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// llamaURL is the llama-server .ci/llama.sh started (a tiny synthetic
// model), or the test skips; CI sets DUELOGIC_REQUIRE_LLAMACPP=1 so that it
// cannot skip there.
func llamaURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv("DUELOGIC_LLAMACPP_URL")
	if u == "" {
		if os.Getenv("DUELOGIC_REQUIRE_LLAMACPP") == "1" {
			t.Fatal("DUELOGIC_REQUIRE_LLAMACPP=1 but DUELOGIC_LLAMACPP_URL is unset: start the server with .ci/llama.sh")
		}
		t.Skip("no llama.cpp server: DUELOGIC_LLAMACPP_URL is unset (source .ci/llama.sh to start one)")
	}
	return u
}

// TestLlamaServerSmokeRun is the smoke run: the command, against
// the llama.cpp server, on 5 items, writes its report with 5 items in
// every arm and the tokens the server counted; run again, it asks nothing.
// (The model is a tiny synthetic one: its accuracy means nothing.)
func TestLlamaServerSmokeRun(t *testing.T) {
	base := strings.TrimSuffix(llamaURL(t), "/")
	if !strings.HasSuffix(base, "/v1") {
		base += "/v1"
	}
	dir := t.TempDir()
	args := []string{"-gen", "arith", "-n", "5", "-arms", "single,selfconsistency,debate,vote", "-agents", "2", "-rounds", "1", "-k", "2",
		"-parallel", "1", "-base-url", base, "-out", dir}
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), args, &stdout, &stderr, noEnv); code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	t.Logf("stdout:\n%s", stdout.String())
	for _, f := range []string{"report.md", "report.json", "chart.svg", "results.jsonl", "config.json", "items.jsonl"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	var rep struct {
		Stub bool `json:"stub"`
		Arms []struct {
			Name          string  `json:"name"`
			N             int     `json:"n"`
			TokensPerItem float64 `json:"tokensPerItem"`
			PromptPerItem float64 `json:"promptTokensPerItem"`
			CallsPerItem  float64 `json:"callsPerItem"`
		} `json:"arms"`
		Pairs []json.RawMessage `json:"pairs"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil || json.Unmarshal(data, &rep) != nil {
		t.Fatalf("report.json: %v\n%s", err, data)
	}
	if rep.Stub || len(rep.Arms) != 4 || len(rep.Pairs) != 6 {
		t.Errorf("report: stub %v, %d arms, %d pairs", rep.Stub, len(rep.Arms), len(rep.Pairs))
	}
	for _, a := range rep.Arms {
		if a.N != 5 || a.TokensPerItem <= 0 || a.PromptPerItem <= 0 || a.CallsPerItem <= 0 {
			t.Errorf("arm %+v: want 5 items with the server's tokens", a)
		}
	}
	stdout.Reset()
	if code := run(t.Context(), args, &stdout, &stderr, noEnv); code != exitOK || !strings.Contains(stdout.String(), "0 model calls this run") {
		t.Errorf("again: exit %d\n%s", code, stdout.String())
	}
}
