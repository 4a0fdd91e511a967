package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/eval"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/scored"
	"github.com/duelogic/duelogic/store"
)

func noEnv(string) string { return "" }

// storeDigest is a JSONL store's files and their contents.
func storeDigest(t *testing.T, dir string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no debate files in %s (%v)", dir, err)
	}
	var b strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(f + "\n")
		b.Write(data)
	}
	return b.String()
}

// TestOfflineRunWritesTheReportAndResumes: the command on the stub
// writes report.md, report.json and chart.svg; run again it asks nothing
// and stores nothing.
func TestOfflineRunWritesTheReportAndResumes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	args := []string{"-gen", "arith", "-n", "6", "-arms", "single,selfconsistency,debate,vote", "-budget", "equal", "-out", dir}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), args, &out, &errOut, noEnv); code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
	for _, name := range []string{"config.json", "items.jsonl", "report.md", "report.json", "chart.svg", "results.jsonl"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("the run wrote no %s: %v", name, err)
		}
	}
	var rep struct {
		Arms []struct {
			Name string `json:"name"`
			N    int    `json:"n"`
		} `json:"arms"`
		Pairs []json.RawMessage `json:"pairs"`
		Flips struct {
			RightToWrong *int `json:"rightToWrong"`
		} `json:"flips"`
		Stub bool `json:"stub"`
	}
	data, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Arms) != 4 || rep.Arms[0].N != 6 || len(rep.Pairs) != 6 || rep.Flips.RightToWrong == nil || !rep.Stub {
		t.Errorf("report.json: %s", data)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if !strings.Contains(string(md), "Not a finding") || !strings.Contains(string(md), "(chart.svg)") {
		t.Errorf("report.md does not warn about the stub or show the chart:\n%s", md)
	}
	if !strings.Contains(out.String(), "not findings") || !strings.Contains(errOut.String(), "items") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	}

	before := storeDigest(t, filepath.Join(dir, "store"))
	out.Reset()
	if code := run(context.Background(), args, &out, io.Discard, noEnv); code != exitOK {
		t.Fatalf("the re-run exited %d:\n%s", code, out.String())
	}
	if !strings.Contains(out.String(), "0 model calls this run") {
		t.Errorf("the re-run asked the model:\n%s", out.String())
	}
	if storeDigest(t, filepath.Join(dir, "store")) != before {
		t.Error("the re-run changed the store")
	}
	again, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	if !bytes.Equal(again, data) {
		t.Error("the re-run's report.json differs")
	}
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	if code := run(context.Background(), []string{"-n", "3", "-arms", "single", "-out", dir}, io.Discard, io.Discard, noEnv); code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"no -out", []string{"-n", "3"}, "-out DIR is required"},
		{"other settings", []string{"-n", "4", "-arms", "single", "-out", dir}, "holds a run with other settings: n 3 (this command: 4)"},
		{"unknown arm", []string{"-arms", "chorus", "-out", t.TempDir()}, `arm "chorus"`},
		{"unknown generator", []string{"-gen", "sudoku", "-out", t.TempDir()}, `-gen "sudoku"`},
		{"bad price", []string{"-price", "m=cheap", "-out", t.TempDir()}, "price"},
		{"bad temperature", []string{"-temperature", "hot", "-out", t.TempDir()}, "-temperature"},
		{"bad URL", []string{"-base-url", "localhost:8080", "-out", t.TempDir()}, "-base-url"},
		{"equal budget without the debate", []string{"-arms", "selfconsistency", "-budget", "equal", "-out", t.TempDir()}, "budget equal"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var errOut bytes.Buffer
			if code := run(context.Background(), tt.args, io.Discard, &errOut, noEnv); code != exitUsage || !strings.Contains(errOut.String(), tt.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 2 saying %q", code, errOut.String(), tt.want)
			}
		})
	}
}

// TestItemsFile: a run from a JSONL file keeps its copy in the run.
func TestItemsFile(t *testing.T) {
	src := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(src, []byte(`{"id": "a", "question": "Is 2+2*3 = 8? Answer yes or no.", "answer": "yes", "choices": ["yes", "no"]}
{"id": "b", "question": "What is the result of 1+2*3+4-5*6?", "answer": "-19"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if code := run(context.Background(), []string{"-items", src, "-arms", "single,debate,vote", "-out", dir}, io.Discard, io.Discard, noEnv); code != exitOK {
		t.Fatalf("exit %d", code)
	}
	copied, _ := os.ReadFile(filepath.Join(dir, "items.jsonl"))
	if !strings.Contains(string(copied), `"id":"b"`) {
		t.Errorf("items.jsonl: %s", copied)
	}
}

// TestOpenAICompatibleEndpoint: with -base-url the run asks the server, its
// model named by GET /models, every request with the answer's schema.
func TestOpenAICompatibleEndpoint(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/models"):
			io.WriteString(w, `{"object": "list", "data": [{"id": "local-model", "object": "model"}]}`)
		case strings.HasSuffix(r.URL.Path, "/chat/completions"):
			calls.Add(1)
			var req struct {
				Model          string          `json:"model"`
				ResponseFormat json.RawMessage `json:"response_format"`
			}
			json.NewDecoder(r.Body).Decode(&req)
			if req.Model != "local-model" || !strings.Contains(string(req.ResponseFormat), "json_schema") {
				http.Error(w, `{"error": {"message": "want local-model and a schema"}}`, http.StatusBadRequest)
				return
			}
			io.WriteString(w, `{"id": "x", "object": "chat.completion", "model": "local-model",
				"choices": [{"index": 0, "message": {"role": "assistant", "content": "{\"reasoning\": \"r\", \"answer\": \"7\"}"}, "finish_reason": "stop"}],
				"usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"-n", "3", "-arms", "single,debate,vote", "-agents", "2", "-rounds", "1",
		"-base-url", srv.URL + "/v1", "-price", "local-model=1/2", "-out", dir}, &out, &errOut, noEnv)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
	if got := calls.Load(); got != 3*(1+2*2) {
		t.Errorf("%d calls to the server, want 15", got)
	}
	if strings.Contains(out.String(), "not findings") || !strings.Contains(out.String(), "$0.0018") {
		// 15 calls of 100 input and 10 output tokens at $1 and $2 a million.
		t.Errorf("stdout:\n%s", out.String())
	}
}

// TestAuditCommand: -audit re-judges the scored debates of a store with a
// jury (one juror's model routed by -route to its own endpoint), with the
// sides swapped, compares the jurors with -labels, and leaves the store as
// it was; the same command again asks nothing.
func TestAuditCommand(t *testing.T) {
	src := t.TempDir()
	st, err := store.OpenJSONL(src)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		f, err := engine.Open(scored.FormatName, json.RawMessage(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := engine.Run(context.Background(), llm.NewStub(1), f, engine.Debate{ID: fmt.Sprintf("s%d", i), Proposition: fmt.Sprintf("Idea %d.", i)}, engine.WithStore(st)); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	var routed atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string `json:"model"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if req.Model != "remote/c" {
			http.Error(w, `{"error": {"message": "want remote/c"}}`, http.StatusBadRequest)
			return
		}
		routed.Add(1)
		io.WriteString(w, `{"id": "x", "object": "chat.completion", "model": "remote/c",
			"choices": [{"index": 0, "message": {"role": "assistant", "content": "{\"winner\": \"challenger\", \"reasoning\": \"The challenger's case rested on the evidence.\", \"keyPoints\": [\"evidence\"], \"confidence\": 0.7}"}, "finish_reason": "stop"}],
			"usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}}`)
	}))
	defer srv.Close()
	before := storeDigest(t, src)
	labels := filepath.Join(t.TempDir(), "labels.jsonl")
	os.WriteFile(labels, []byte(`{"id": "s0", "label": "advocate"}`+"\n"+`{"id": "s1", "label": "challenger"}`+"\n"), 0o644)
	out := t.TempDir()
	args := []string{"-audit", src, "-jurors", "judge/a,judge/b,remote/c", "-swap", "-route", "remote/c=" + srv.URL + "/v1", "-labels", labels, "-out", out}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), args, &stdout, &stderr, noEnv); code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	var rep struct {
		Jurors          []string            `json:"jurors"`
		Debates         []json.RawMessage   `json:"debates"`
		CohenKappa      map[string]*float64 `json:"cohenKappa"`
		SwapConsistency map[string]float64  `json:"swapConsistency"`
	}
	data, _ := os.ReadFile(filepath.Join(out, "audit.json"))
	if err := json.Unmarshal(data, &rep); err != nil || len(rep.Jurors) != 3 || len(rep.Debates) != 2 || len(rep.CohenKappa) != 3 || len(rep.SwapConsistency) != 3 {
		t.Errorf("audit.json: %s (%v)", data, err)
	}
	// remote/c always names the challenger, whatever the order.
	if rep.SwapConsistency["remote/c"] != 1 {
		t.Errorf("remote/c's swap consistency %v, want 1", rep.SwapConsistency["remote/c"])
	}
	rounds := int64(len(scored.DefaultCategories()))
	if got := routed.Load(); got != 2*2*rounds {
		t.Errorf("%d verdicts went to remote/c's endpoint, want %d", got, 2*2*rounds)
	}
	if !strings.Contains(stdout.String(), "# Judge audit") || !strings.Contains(stderr.String(), "auditing scored debates") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
	if storeDigest(t, src) != before {
		t.Error("the audit changed the original store")
	}

	audited := storeDigest(t, filepath.Join(out, "audit-store"))
	stdout.Reset()
	if code := run(context.Background(), args, &stdout, &stderr, noEnv); code != exitOK {
		t.Fatalf("again: exit %d\n%s", code, stderr.String())
	}
	if routed.Load() != 2*2*rounds || storeDigest(t, filepath.Join(out, "audit-store")) != audited {
		t.Error("the same audit again asked the jury again")
	}
	again, _ := os.ReadFile(filepath.Join(out, "audit.json"))
	if string(again) != string(data) {
		t.Errorf("the same audit again wrote another audit.json:\n%s\n%s", data, again)
	}
}

// TestAuditPodcastCommand: -audit on a store of podcast debates asks each
// stored evaluation again of every juror (one routed by -route to its own
// endpoint, which sees exactly one call per evaluation: no speech), flags
// the juror that is a chair's model, leaves the store as it was, refuses
// -swap, and the same command again asks nothing. The labels template it
// writes, filled in, is read by -labels, which adds each juror's Cohen's
// kappa without asking anything again; a label naming no evaluation is a
// usage error.
func TestAuditPodcastCommand(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	st, err := store.OpenJSONL(src)
	if err != nil {
		t.Fatal(err)
	}
	evaluations := 0
	for i := range 2 {
		f, err := engine.Open(duelogic.FormatName, json.RawMessage(`{"flow": {"maxExchanges": 3}}`))
		if err != nil {
			t.Fatal(err)
		}
		id := fmt.Sprintf("pod%d", i)
		if _, err := engine.Run(ctx, llm.NewStub(int64(i)), f, engine.Debate{ID: id, Proposition: fmt.Sprintf("Cities should ban private cars, take %d.", i)}, engine.WithStore(st)); err != nil {
			t.Fatal(err)
		}
		evals, err := duelogic.StoredEvaluations(ctx, st, id, nil)
		if err != nil {
			t.Fatal(err)
		}
		evaluations += len(evals)
	}
	st.Close()
	var routed atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if req.Model != "remote/c" || len(req.Messages) == 0 || !strings.Contains(req.Messages[0].Content, "evaluating one chair's response") {
			http.Error(w, `{"error": {"message": "want remote/c's evaluations"}}`, http.StatusBadRequest)
			return
		}
		routed.Add(1)
		io.WriteString(w, `{"id": "x", "object": "chat.completion", "model": "remote/c",
			"choices": [{"index": 0, "message": {"role": "assistant", "content": "{\"critiquesOpponent\": true, \"substantive\": true, \"adherenceScore\": 70, \"steelManning\": {\"attempted\": true, \"quality\": \"adequate\", \"notes\": \"\"}, \"selfCritique\": {\"attempted\": false, \"quality\": \"absent\", \"notes\": \"\"}, \"frameworkConsistency\": {\"consistent\": true, \"violations\": []}, \"intellectualHonesty\": {\"score\": \"high\", \"issues\": []}, \"requiresInterjection\": false, \"interjectionReason\": \"\"}"}, "finish_reason": "stop"}],
			"usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}}`)
	}))
	defer srv.Close()
	before := storeDigest(t, src)
	out := t.TempDir()
	args := []string{"-audit", src, "-jurors", "anthropic/claude-sonnet-4,remote/c", "-route", "remote/c=" + srv.URL + "/v1", "-out", out}
	for _, extra := range [][]string{{"-swap"}, {"-labels", filepath.Join(out, "no-such-labels.jsonl")}} {
		var stdout, stderr bytes.Buffer
		if code := run(ctx, append(slices.Clone(args), extra...), &stdout, &stderr, noEnv); code != exitUsage {
			t.Errorf("%v: exit %d, want %d\n%s", extra, code, exitUsage, stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run(ctx, args, &stdout, &stderr, noEnv); code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	if got := routed.Load(); got != int64(evaluations) {
		t.Errorf("%d calls to remote/c's endpoint, want one per evaluation, %d", got, evaluations)
	}
	var rep struct {
		Jurors    []string `json:"jurors"`
		Debates   []json.RawMessage
		Agreement []struct {
			Field        string             `json:"field"`
			FleissKappa  *float64           `json:"fleissKappa"`
			WithOriginal map[string]float64 `json:"withOriginal"`
		} `json:"agreement"`
		SelfJudged []struct {
			Juror, Speaker string
		} `json:"selfJudged"`
	}
	data, _ := os.ReadFile(filepath.Join(out, "audit.json"))
	if err := json.Unmarshal(data, &rep); err != nil || len(rep.Jurors) != 2 || len(rep.Debates) != 2 || len(rep.Agreement) != 3 {
		t.Fatalf("audit.json: %s (%v)", data, err)
	}
	if len(rep.SelfJudged) != evaluations/2 {
		t.Errorf("%d self-judged evaluations, want chair_1's %d", len(rep.SelfJudged), evaluations/2)
	}
	for _, s := range rep.SelfJudged {
		if s.Juror != "anthropic/claude-sonnet-4" || s.Speaker != "chair_1" {
			t.Errorf("self-judged %+v", s)
		}
	}
	if !strings.Contains(stdout.String(), "# Judge audit of the podcast's evaluations") || !strings.Contains(stderr.String(), "auditing duelogic debates") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
	if storeDigest(t, src) != before {
		t.Error("the audit changed the original store")
	}

	audited := storeDigest(t, filepath.Join(out, "audit-store"))
	stdout.Reset()
	stderr.Reset()
	if code := run(ctx, args, &stdout, &stderr, noEnv); code != exitOK {
		t.Fatalf("again: exit %d\n%s", code, stderr.String())
	}
	if routed.Load() != int64(evaluations) || storeDigest(t, filepath.Join(out, "audit-store")) != audited || !strings.Contains(stderr.String(), "eval: 0 judgments asked") {
		t.Errorf("the same audit again asked the jury again:\n%s", stderr.String())
	}
	again, _ := os.ReadFile(filepath.Join(out, "audit.json"))
	if string(again) != string(data) {
		t.Errorf("the same audit again wrote another audit.json:\n%s\n%s", data, again)
	}

	// The template, filled in: every response steel-manned.
	tmpl, err := os.ReadFile(filepath.Join(out, "labels-template.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(tmpl)), "\n")
	if len(lines) != evaluations || !strings.Contains(lines[0], `"debate":"pod0","utterance":`) || !strings.Contains(lines[0], `"speaker":"chair_1"`) {
		t.Fatalf("labels template:\n%s", tmpl)
	}
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "}") + `, "steelManning": true}`
	}
	labels := filepath.Join(t.TempDir(), "labels.jsonl")
	os.WriteFile(labels, []byte(strings.Join(lines, "\n")), 0o644)
	stdout.Reset()
	stderr.Reset()
	if code := run(ctx, append(slices.Clone(args), "-labels", labels), &stdout, &stderr, noEnv); code != exitOK {
		t.Fatalf("-labels: exit %d\n%s", code, stderr.String())
	}
	if routed.Load() != int64(evaluations) || !strings.Contains(stderr.String(), "eval: 0 judgments asked") {
		t.Errorf("-labels asked the jury again:\n%s", stderr.String())
	}
	var labelled struct {
		Agreement []struct {
			Field      string              `json:"field"`
			Labelled   int                 `json:"labelled"`
			CohenKappa map[string]*float64 `json:"cohenKappa"`
		} `json:"agreement"`
	}
	data, _ = os.ReadFile(filepath.Join(out, "audit.json"))
	if err := json.Unmarshal(data, &labelled); err != nil {
		t.Fatal(err)
	}
	for _, fa := range labelled.Agreement {
		n := 0
		if fa.Field == eval.FieldSteelManning {
			n = evaluations
		}
		if _, ok := fa.CohenKappa["remote/c"]; fa.Labelled != n || !ok || len(fa.CohenKappa) != 2 {
			t.Errorf("%s: %d labelled, κ %v; want %d labelled and a κ per juror", fa.Field, fa.Labelled, fa.CohenKappa, n)
		}
	}
	if !strings.Contains(stdout.String(), "Against people's labels") {
		t.Errorf("stdout lacks the labels' table:\n%s", stdout.String())
	}
	os.WriteFile(labels, []byte(`{"debate": "pod0", "utterance": 1, "adherence": 50}`), 0o644)
	if code := run(ctx, append(slices.Clone(args), "-labels", labels), &stdout, &stderr, noEnv); code != exitUsage {
		t.Errorf("a label naming no evaluation: exit %d, want %d", code, exitUsage)
	}
}
