package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/events"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
)

// testServer serves a server with client over httptest.
func testServer(t *testing.T, client llm.Client) (*server, *httptest.Server) {
	t.Helper()
	s := newServer(client, store.NewMemory(), nil)
	hs := httptest.NewServer(s.routes())
	t.Cleanup(func() {
		hs.Close()
		s.shutdown(0)
	})
	return s, hs
}

// podcast decodes a finished podcast's outcome.
func podcast(t *testing.T, v debateView) *duelogic.Outcome {
	t.Helper()
	var out duelogic.Outcome
	if err := json.Unmarshal(v.Detail, &out); err != nil {
		t.Fatalf("debate %s (%s): outcome: %v", v.ID, v.Status, err)
	}
	return &out
}

// call sends a request and decodes the JSON answer into out (when not nil).
func call(t *testing.T, method, url, body string, out any) int {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatalf("%s %s: decode answer: %v", method, url, err)
		}
	}
	return resp.StatusCode
}

func TestCatalogEndpoints(t *testing.T) {
	_, hs := testServer(t, llm.NewStub(1))
	tests := []struct {
		path string
		n    int
	}{
		{"/api/duelogic/chairs", len(duelogic.DefaultCatalog().All())},
		{"/api/duelogic/presets", len(duelogic.Presets())},
		{"/api/duelogic/models", len(duelogic.Models())},
	}
	for _, tt := range tests {
		var got []map[string]any
		if code := call(t, "GET", hs.URL+tt.path, "", &got); code != 200 || len(got) != tt.n {
			t.Errorf("GET %s: %d, %d items; want 200, %d", tt.path, code, len(got), tt.n)
		}
	}
	var cfg duelogic.Config
	if code := call(t, "GET", hs.URL+"/api/duelogic/defaults", "", &cfg); code != 200 {
		t.Errorf("GET defaults: %d", code)
	}
	if diff := cmp.Diff(duelogic.DefaultConfig(), cfg); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}

func TestCreateDebateRunsItToTheEnd(t *testing.T) {
	s, hs := testServer(t, llm.NewStub(1))
	var created struct {
		ID     string          `json:"id"`
		Status string          `json:"status"`
		Events string          `json:"events"`
		Config duelogic.Config `json:"config"`
	}
	body := `{"proposition": "Should cities ban cars?", "propositionContext": {"city": "Lyon", "year": 2030},
		"config": {"flow": {"maxExchanges": 3}, "arbiter": {"accountabilityLevel": "strict"}}}`
	if code := call(t, "POST", hs.URL+"/api/debates/duelogic", body, &created); code != http.StatusCreated {
		t.Fatalf("POST: %d", code)
	}
	if created.Status != "running" || created.Events != "/api/debates/"+created.ID+"/events" {
		t.Errorf("created %+v", created)
	}
	want := duelogic.DefaultConfig()
	want.Flow.MaxExchanges, want.Arbiter.AccountabilityLevel = 3, duelogic.Strict
	if diff := cmp.Diff(want, created.Config); diff != "" {
		t.Errorf("config decoded over the defaults (-want +got):\n%s", diff)
	}

	// The event stream runs to the end.
	resp, err := http.Get(hs.URL + created.Events)
	if err != nil {
		t.Fatal(err)
	}
	var last string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			last = v
		}
	}
	resp.Body.Close()
	if last != "debate_ended" {
		t.Errorf("last event %q; want debate_ended", last)
	}
	s.wg.Wait()

	var v debateView
	if code := call(t, "GET", hs.URL+"/api/debates/"+created.ID, "", &v); code != 200 {
		t.Fatalf("GET debate: %d", code)
	}
	if v.Status != statusFinished || v.Usage == nil || v.Format != "duelogic" {
		t.Errorf("status %s, usage %v, format %q", v.Status, v.Usage, v.Format)
	}
	out := podcast(t, v)
	if v.Verdict == nil || v.Verdict.Summary != out.Verdict().Summary {
		t.Errorf("verdict %+v; want the outcome's, %q", v.Verdict, out.Verdict().Summary)
	}
	if v.Context != "city: Lyon\nyear: 2030" || v.Proposition != "Should cities ban cars?" {
		t.Errorf("proposition %q, context %q", v.Proposition, v.Context)
	}
	evaluated := 0
	for _, u := range v.Transcript {
		if u.Evaluation != nil {
			evaluated++
		}
	}
	if len(v.Transcript) < 10 || evaluated != out.Metrics.Evaluated {
		t.Errorf("%d utterances, %d evaluated; metrics say %d", len(v.Transcript), evaluated, out.Metrics.Evaluated)
	}
	if v.Arguments == nil || len(v.Arguments.Arguments) == 0 || len(v.Arguments.Moves) == 0 || len(v.Arguments.Verdict.Sides) != 2 {
		t.Fatalf("argument map %+v", v.Arguments)
	}

	// A server that did not run the debate rebuilds the map from the store.
	fresh := newServer(llm.NewStub(1), s.store, nil)
	fs := httptest.NewServer(fresh.routes())
	defer fs.Close()
	var again debateView
	if code := call(t, "GET", fs.URL+"/api/debates/"+created.ID, "", &again); code != 200 {
		t.Fatalf("GET debate from a fresh server: %d", code)
	}
	if again.Arguments == nil || len(again.Arguments.Moves) != len(v.Arguments.Moves) || again.Arguments.Verdict.Winner != v.Arguments.Verdict.Winner {
		t.Errorf("rebuilt map differs: %d moves, winner %q; want %d, %q", len(again.Arguments.Moves), again.Arguments.Verdict.Winner,
			len(v.Arguments.Moves), v.Arguments.Verdict.Winner)
	}
}

func TestCreateDebateRejects(t *testing.T) {
	_, hs := testServer(t, llm.NewStub(1))
	tests := []struct {
		name string
		body string
		code int
		want apiError
	}{
		{"every violation", `{"proposition": " ", "config": {"chairs": [{"position": "arbiter", "framework": "stoic", "modelId": "m"}],
			"flow": {"maxExchanges": 50}, "interruptions": {"aggressiveness": 9}}}`, 400, apiError{Error: "invalid debate", Violations: []engine.Violation{
			{Field: "proposition", Problem: "is empty"},
			{Field: "chairs", Problem: "1 chairs; need 2..6"},
			{Field: "chairs[0].position", Problem: `"arbiter" is reserved for the arbiter`},
			{Field: "chairs[0].framework", Problem: `unknown framework "stoic"`},
			{Field: "flow.maxExchanges", Problem: "50 is outside 3..30"},
			{Field: "interruptions.aggressiveness", Problem: "9 is outside 1..5"},
		}}},
		{"long context", `{"proposition": "Why?", "propositionContext": "` + strings.Repeat("x", duelogic.MaxContextRunes+1) + `"}`, 400,
			apiError{Error: "invalid debate", Violations: []engine.Violation{
				{Field: "propositionContext", Problem: "has 20001 characters; at most 20000"}}}},
		{"body too large", `{"proposition": "Why?", "propositionContext": "` + strings.Repeat("x", maxBody) + `"}`, 413,
			apiError{Error: "request body over 65536 bytes"}},
		{"context of a wrong type", `{"proposition": "Why?", "propositionContext": 3}`, 400, apiError{Error: "invalid debate", Violations: []engine.Violation{
			{Field: "propositionContext", Problem: "want a string or an object"}}}},
		{"not JSON", `{"proposition": `, 400, apiError{Error: "malformed JSON body: unexpected EOF"}},
		{"unknown field", `{"question": "Why?"}`, 400, apiError{Error: `malformed JSON body: json: unknown field "question"`}},
		{"unknown config field", `{"proposition": "Why?", "config": {"flow": {"maxExchange": 3}}}`, 400, apiError{Error: "invalid debate",
			Violations: []engine.Violation{{Field: "flow.maxExchange", Problem: "no such field"}}}},
		{"two values", `{"proposition": "Why?"} {}`, 400, apiError{Error: "malformed JSON body: more than one JSON value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got apiError
			if code := call(t, "POST", hs.URL+"/api/debates/duelogic", tt.body, &got); code != tt.code {
				t.Errorf("status %d; want %d", code, tt.code)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// gate is the stub model holding its calls of purpose (default: the
// podcast's openings) until open is closed.
type gate struct {
	*llm.Stub
	reached chan struct{}
	open    chan struct{}
	once    sync.Once
	purpose string
}

// newGate is a gate on the stub of seed 1 whose first call of purpose (the
// podcast's opening when "") waits.
func newGate(purpose string) *gate {
	return &gate{Stub: llm.NewStub(1), reached: make(chan struct{}), open: make(chan struct{}), purpose: purpose}
}

func (g *gate) wait(ctx context.Context, req llm.Request) error {
	want := g.purpose
	if want == "" {
		want = duelogic.PurposeOpening
	}
	if req.Purpose != want {
		return nil
	}
	g.once.Do(func() { close(g.reached) })
	select {
	case <-g.open:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *gate) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := g.wait(ctx, req); err != nil {
		return llm.Response{}, err
	}
	return g.Stub.Complete(ctx, req)
}

func (g *gate) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	if err := g.wait(ctx, req); err != nil {
		return llm.Response{}, err
	}
	return g.Stub.Stream(ctx, req, onDelta)
}

func TestInterject(t *testing.T) {
	g := newGate("")
	s, hs := testServer(t, g)
	var created struct{ ID string }
	if code := call(t, "POST", hs.URL+"/api/debates/duelogic", `{"proposition": "Should we?", "config": {"flow": {"maxExchanges": 3}}}`, &created); code != 201 {
		t.Fatalf("POST: %d", code)
	}
	<-g.reached // the first opening is being generated
	url := hs.URL + "/api/debates/" + created.ID + "/arbiter/interject"
	tests := []struct {
		name, body string
		code       int
	}{
		{"no reason", `{"reason": " "}`, 400},
		{"unknown chair", `{"reason": "why", "targetChair": "chair_9"}`, 400},
		{"not JSON", `{`, 400},
		{"queued", `{"reason": "Nobody has counted the cost to shops.", "targetChair": "chair_2"}`, 202},
	}
	for _, tt := range tests {
		var got map[string]any
		if code := call(t, "POST", url, tt.body, &got); code != tt.code {
			t.Errorf("%s: status %d (%v); want %d", tt.name, code, got, tt.code)
		}
	}
	close(g.open)
	s.wg.Wait()

	var v debateView
	call(t, "GET", hs.URL+"/api/debates/"+created.ID, "", &v)
	var found bool
	for _, u := range v.Transcript {
		if u.Kind == duelogic.KindInterjection && u.Violation == duelogic.ViolationManual {
			found = u.Target == "chair_2" && u.Reason == "Nobody has counted the cost to shops."
		}
	}
	if !found {
		t.Errorf("no manual interjection aimed at chair_2 in the transcript")
	}
	if code := call(t, "POST", url, `{"reason": "late"}`, nil); code != 404 {
		t.Errorf("interjection after the end: %d; want 404", code)
	}
	if code := call(t, "POST", hs.URL+"/api/debates/nope/arbiter/interject", `{"reason": "x"}`, nil); code != 404 {
		t.Errorf("interjection in an unknown debate: %d; want 404", code)
	}
}

func TestGetDebateErrorsAndStaticFiles(t *testing.T) {
	_, hs := testServer(t, llm.NewStub(1))
	if code := call(t, "GET", hs.URL+"/api/debates/nope", "", nil); code != 404 {
		t.Errorf("GET unknown debate: %d", code)
	}
	for _, bad := range []string{"/api/debates/.hidden", "/api/debates/.hidden/events", "/api/debates/a%20b"} {
		if code := call(t, "GET", hs.URL+bad, "", nil); code != 404 {
			t.Errorf("GET %s: %d, want 404 for an invalid debate ID", bad, code)
		}
	}
	if code := call(t, "GET", hs.URL+"/api/debates/nope/events", "", nil); code != 404 {
		t.Errorf("GET events of an unknown debate: %d", code)
	}
	for path, want := range map[string]string{"/": "<title>Duelogic</title>", "/app.js": "textContent", "/style.css": ".card"} {
		resp, err := http.Get(hs.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), want) {
			t.Errorf("GET %s: %d, lacks %q", path, resp.StatusCode, want)
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
			t.Errorf("GET %s: CSP %q", path, csp)
		}
	}
}

// TestAppUsesNoHTMLParsing guards the rule that model text is set as text:
// the page's scripts never hand a string to the HTML parser.
func TestAppUsesNoHTMLParsing(t *testing.T) {
	for _, name := range []string{"static/app.js", "static/views.js"} {
		b, err := staticFS.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"} {
			if strings.Contains(string(b), bad) {
				t.Errorf("%s uses %s", name, bad)
			}
		}
	}
}

func TestShutdownWaitsForDebatesThenStopsThem(t *testing.T) {
	tests := []struct {
		name   string
		grace  time.Duration
		status events.Status
	}{
		{"debate finishes within the grace period", time.Hour, events.StatusFinished},
		{"grace period over", 5 * time.Second, events.StatusStopped},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := llmtest.New()
				f.Default().Delay(time.Second) // each model call takes a (fake) second
				st := store.NewMemory()
				s := newServer(f, st, nil)
				pod, err := engine.Open(duelogic.FormatName, json.RawMessage(`{"flow": {"maxExchanges": 3}}`))
				if err != nil {
					t.Fatal(err)
				}
				start := func(id string) error {
					return s.start(engine.Debate{ID: id, Proposition: "Should we?"}, pod, false)
				}
				if err := start("d1"); err != nil {
					t.Fatal(err)
				}
				if err := start("d1"); !errors.Is(err, errRunning) {
					t.Errorf("start a running debate again: %v; want errRunning", err)
				}
				began := time.Now()
				s.shutdown(tt.grace)
				if err := start("d2"); !errors.Is(err, errClosing) {
					t.Errorf("start after shutdown: %v; want errClosing", err)
				}
				if s.running("d1") != nil {
					t.Fatal("shutdown returned before the debate")
				}
				s.mu.Lock()
				msg, runs := s.errs["d1"], len(s.runs)
				s.mu.Unlock()
				if runs != 0 {
					t.Errorf("%d runs kept after they returned", runs)
				}
				if tt.status == events.StatusStopped {
					if !strings.Contains(msg, context.Canceled.Error()) {
						t.Errorf("debate error %q; want context.Canceled", msg)
					}
					if waited := time.Since(began); waited != tt.grace {
						t.Errorf("shutdown took %v; want the grace period %v", waited, tt.grace)
					}
				} else if msg != "" {
					t.Errorf("debate error %q", msg)
				}
				recs, err := st.Records(context.Background(), "d1")
				if err != nil {
					t.Fatal(err)
				}
				if sum, _ := events.Summarize(recs); sum.Status != tt.status {
					t.Errorf("stored status %s; want %s", sum.Status, tt.status)
				}
			})
		})
	}
}

func TestRunServesAndShutsDown(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, func() {}, []string{"-addr", "127.0.0.1:0", "-stub-delay", "0"}, pw, io.Discard, func(string) string { return "" })
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "duelogic web: listening on ")
	if !ok {
		t.Fatalf("first line %q", line)
	}
	go io.Copy(io.Discard, pr)
	var models []duelogic.ModelInfo
	if code := call(t, "GET", addr+"/api/duelogic/models", "", &models); code != 200 || len(models) == 0 {
		t.Errorf("GET models: %d, %v", code, models)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}

	var ue usageError
	if err := run(t.Context(), func() {}, []string{"-nope"}, io.Discard, io.Discard, func(string) string { return "" }); !errors.As(err, &ue) {
		t.Errorf("run with a bad flag: %v; want a usage error", err)
	}
}
