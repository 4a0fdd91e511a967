package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/formal"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/moderated"
	"github.com/duelogic/duelogic/scored"
	"github.com/duelogic/duelogic/store"
)

// eventTypes reads a debate's event stream to its end and returns the
// types of its events, in order.
func eventTypes(t *testing.T, url string) []string {
	types, _ := readStream(t, url)
	return types
}

// readStream reads a debate's event stream to its end and returns the
// types of its events and their IDs (0 for none), in order.
func readStream(t *testing.T, url string) (types []string, ids []int64) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var id int64
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "id: "); ok {
			id, _ = strconv.ParseInt(v, 10, 64)
		}
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			types = append(types, v)
		}
		if line == "" && len(ids) < len(types) {
			ids = append(ids, id)
			id = 0
		}
	}
	return types, ids
}

// create posts a debate of format with body and returns its ID.
func create(t *testing.T, base, format, body string) string {
	t.Helper()
	var created struct {
		ID     string `json:"id"`
		Status string `json:"status"`
		Events string `json:"events"`
	}
	var raw json.RawMessage
	if code := call(t, "POST", base+"/api/debates/"+format, body, &raw); code != http.StatusCreated {
		t.Fatalf("POST %s: %d %s", format, code, raw)
	}
	if err := json.Unmarshal(raw, &created); err != nil {
		t.Fatal(err)
	}
	if created.Status != "running" || created.Events != "/api/debates/"+created.ID+"/events" {
		t.Errorf("created %+v", created)
	}
	return created.ID
}

func getView(t *testing.T, base, id string) debateView {
	t.Helper()
	var v debateView
	if code := call(t, "GET", base+"/api/debates/"+id, "", &v); code != 200 {
		t.Fatalf("GET %s: %d", id, code)
	}
	return v
}

func TestFormatsEndpoint(t *testing.T) {
	_, hs := testServer(t, llm.NewStub(1))
	var got []struct {
		Name     string          `json:"name"`
		Defaults json.RawMessage `json:"defaults"`
	}
	if code := call(t, "GET", hs.URL+"/api/formats", "", &got); code != 200 {
		t.Fatalf("GET /api/formats: %d", code)
	}
	var names []string
	defaults := map[string]json.RawMessage{}
	for _, f := range got {
		names = append(names, f.Name)
		defaults[f.Name] = f.Defaults
		// The defaults the form starts from open as they are: the form
		// sends what it was given.
		if _, err := engine.Open(f.Name, f.Defaults); err != nil {
			t.Errorf("format %s: defaults %s do not open: %v", f.Name, f.Defaults, err)
		}
	}
	// Every format linked in, in the engine's order: the server lists none
	// by hand.
	if want := engine.Formats(); len(want) < 5 || !slices.Equal(names, want) {
		t.Errorf("formats %q; want engine.Formats() %q", names, want)
	}
	var sc scored.Config
	if err := json.Unmarshal(defaults[scored.FormatName], &sc); err != nil || !cmp.Equal(sc, scored.DefaultConfig()) {
		t.Errorf("scored defaults do not round-trip: %v\n%s", err, cmp.Diff(scored.DefaultConfig(), sc))
	}
}

// TestEveryFormatRunsFromTheAPI starts a debate of each format with
// POST /api/debates/{format}, follows its events to the end and reads it
// back: finished, its outcome, its argument map and its documents.
func TestEveryFormatRunsFromTheAPI(t *testing.T) {
	tests := []struct {
		format string
		body   string
		events []string // event types the stream must carry
		docs   []string
	}{
		{"formal", `{"proposition": "Cities should ban cars from their centres.", "config": {"maxRounds": 3}}`,
			[]string{"formal_entry", "formal_verification", "argument_map"},
			[]string{"assessor-report.md", "blog-post.md", "summary.md", "transcript.md"}},
		{"scored", `{"proposition": "A meal-planning app.", "context": {"market": "families"}, "config": {"maxAdjustment": 2}}`,
			[]string{"scored_verdict", "scored_scores", "argument_map"}, []string{"debate.md", "transcript.md"}},
		{"moderated", `{"proposition": "Should we use Redis or PostgreSQL for caching?", "checkpoints": false, "config": {"maxRounds": 2}}`,
			[]string{"moderated_analysis", "moderated_assignment", "moderated_judgment", "moderated_synthesis", "argument_map"},
			[]string{"decision.md", "synthesis.md", "transcript.md"}},
		{"persuasion", `{"proposition": "Should we rewrite billing in Go?", "config": {"maxRounds": 1, "perspective": "site reliability"}}`,
			[]string{"persuasion_turn", "persuasion_verdict", "argument_map"}, []string{"dialogue.md", "transcript.md"}},
		{"duelogic", `{"proposition": "Should we?", "config": {"flow": {"maxExchanges": 3}}}`,
			[]string{"evaluation", "argument_map"}, []string{"transcript.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			s, hs := testServer(t, llm.NewStub(1))
			id := create(t, hs.URL, tt.format, tt.body)
			types := eventTypes(t, hs.URL+"/api/debates/"+id+"/events")
			if len(types) == 0 || types[len(types)-1] != "debate_ended" {
				t.Fatalf("stream ends with %q; want debate_ended", types[max(0, len(types)-1):])
			}
			for _, want := range tt.events {
				if !slices.Contains(types, want) {
					t.Errorf("no %s event in the stream", want)
				}
			}
			s.wg.Wait()
			v := getView(t, hs.URL, id)
			if v.Status != statusFinished || v.Format != tt.format || len(v.Transcript) == 0 || len(v.Detail) == 0 || v.Usage == nil {
				t.Errorf("status %s, format %s, %d utterances, detail %d bytes, usage %v", v.Status, v.Format, len(v.Transcript), len(v.Detail), v.Usage)
			}
			if !v.Mapped || v.Arguments == nil || len(v.Arguments.Arguments) == 0 || len(v.Arguments.Relations) == 0 {
				t.Errorf("no argument map: mapped %t, %+v", v.Mapped, v.Arguments)
			}
			if len(v.Labels) == 0 || v.Labels[engine.SpeakerArbiter] == "" {
				t.Errorf("labels %v", v.Labels)
			}
			want := tt.docs
			var verdict struct{ Verdict formal.Verdict }
			if tt.format == formal.FormatName && json.Unmarshal(v.Detail, &verdict) == nil && verdict.Verdict == formal.VerdictVoid {
				// Seed 001: "blog-post.md (absent on void)".
				want = slices.DeleteFunc(slices.Clone(want), func(d string) bool { return d == "blog-post.md" })
			}
			if !slices.Equal(v.Documents, want) {
				t.Errorf("documents %q; want %q", v.Documents, want)
			}
			for _, name := range v.Documents {
				resp, err := http.Get(hs.URL + "/api/debates/" + id + "/documents/" + name)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || len(b) < 100 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/markdown") ||
					!strings.Contains(resp.Header.Get("Content-Disposition"), id+"-"+name) {
					t.Errorf("document %s: %d, %d bytes, %q, %q", name, resp.StatusCode, len(b), resp.Header.Get("Content-Type"), resp.Header.Get("Content-Disposition"))
				}
			}
			if code := call(t, "GET", hs.URL+"/api/debates/"+id+"/documents/nope.md", "", nil); code != 404 {
				t.Errorf("unknown document: %d", code)
			}
			// Nothing of the finished run stays in the server's memory.
			s.mu.Lock()
			runs := len(s.runs)
			s.mu.Unlock()
			if runs != 0 {
				t.Errorf("%d runs kept after the debate finished", runs)
			}
			// A server that did not run it reads it all back from the store.
			fresh := newServer(llm.NewStub(1), s.store, nil)
			fs := httptest.NewServer(fresh.routes())
			defer fs.Close()
			again := getView(t, fs.URL, id)
			if diff := cmp.Diff(asJSON(t, v), asJSON(t, again)); diff != "" {
				t.Errorf("a fresh server reads it differently (-first +fresh):\n%s", diff)
			}
		})
	}
}

func TestCreateFormatDebateRejects(t *testing.T) {
	_, hs := testServer(t, llm.NewStub(1))
	tests := []struct {
		name, format, body string
		code               int
		want               apiError
		// fieldsOnly: the format words its own problems; check the
		// fields named.
		fieldsOnly bool
	}{
		{"unknown format", "chess", `{"proposition": "Why?"}`, 404,
			apiError{Error: `no format "chess"; have ` + strings.Join(engine.Formats(), ", ")}, false},
		{"formal: the request's violations and an unknown field", "formal", `{"proposition": "", "context": 7,
			"config": {"outputDir": "/tmp", "nope": 1}}`, 400,
			apiError{Error: "invalid debate", Violations: []engine.Violation{
				{Field: "context", Problem: "want a string or an object"},
				{Field: "proposition", Problem: "is empty"},
				{Field: "outputDir", Problem: "cannot be set from the page"},
				{Field: "nope", Problem: "no such field"},
			}}, false},
		{"formal: a value of the wrong kind", "formal", `{"proposition": "Why?", "config": {"timeBudget": "soon"}}`, 400,
			apiError{Error: "invalid debate", Violations: []engine.Violation{{Field: "timeBudget"}}}, true},
		{"formal: every violation of the configuration", "formal", `{"proposition": "Why?",
			"config": {"minRounds": 5, "maxRounds": 50, "chairModel": " "}}`, 400,
			apiError{Error: "invalid debate", Violations: []engine.Violation{{Field: "chairModel"}, {Field: "maxRounds"}}}, true},
		{"scored: nested unknown field", "scored", `{"proposition": "An app.",
			"config": {"categories": [{"id": "market", "name": "Market", "advocatePosition": "a", "challengerPosition": "b", "colour": "red"}]}}`, 400,
			apiError{Error: "invalid debate", Violations: []engine.Violation{
				{Field: "categories[0].colour", Problem: "no such field"},
			}}, false},
		{"host-only field, whatever its case", "persuasion", `{"proposition": "Why?", "config": {"OUTPUTDIR": "/tmp"}}`, 400,
			apiError{Error: "invalid debate", Violations: []engine.Violation{
				{Field: "OUTPUTDIR", Problem: "cannot be set from the page"},
			}}, true},
		{"not JSON", "persuasion", `{"proposition": `, 400, apiError{Error: "malformed JSON body: unexpected EOF"}, false},
		{"config not an object", "persuasion", `{"proposition": "Why?", "config": [1]}`, 400,
			apiError{Error: "invalid debate", Violations: []engine.Violation{{Field: "config", Problem: "not a JSON object"}}}, false},
		{"context twice", "scored", `{"proposition": "An app.", "context": "a", "propositionContext": "b"}`, 400,
			apiError{Error: "invalid debate", Violations: []engine.Violation{
				{Field: "context", Problem: "give context or propositionContext, not both"},
			}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got apiError
			if code := call(t, "POST", hs.URL+"/api/debates/"+tt.format, tt.body, &got); code != tt.code {
				t.Errorf("status %d; want %d", code, tt.code)
			}
			if tt.fieldsOnly {
				var fields []string
				for _, v := range got.Violations {
					fields = append(fields, v.Field)
				}
				for _, w := range tt.want.Violations {
					if !slices.Contains(fields, w.Field) {
						t.Errorf("no violation of %s in %+v", w.Field, got.Violations)
					}
				}
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestModeratedCheckpoints: a moderated debate from the API pauses at each
// checkpoint (stored, not waiting in memory); the page's decision resumes
// it; a paused debate survives a server restart and ends from a new server.
func TestModeratedCheckpoints(t *testing.T) {
	st := store.NewMemory()
	s := newServer(llm.NewStub(1), st, nil)
	hs := httptest.NewServer(s.routes())
	defer hs.Close()
	id := create(t, hs.URL, "moderated", `{"proposition": "Should we use Redis or PostgreSQL for caching?", "config": {"maxRounds": 4}}`)
	s.wg.Wait()
	v := getView(t, hs.URL, id)
	if round := pausedAt(t, v, engine.QuestionCheckpoint); round != 1 || v.Error != "" {
		t.Fatalf("paused after round %d, error %q; want paused at round 1", round, v.Error)
	}
	if want := []string{string(moderated.Continue), string(moderated.Guide), string(moderated.End)}; !slices.Equal(v.Question.Choices, want) {
		t.Errorf("choices %q; want %q", v.Question.Choices, want)
	}
	cpURL := hs.URL + "/api/debates/" + id + "/checkpoint"
	bad := []struct{ body, field string }{
		{`{"action": "skip"}`, "action"},
		{`{"action": "guide"}`, "guidance"},
		{`{"action": "guide", "guidance": "` + strings.Repeat("x", moderated.MaxGuidanceRunes+1) + `"}`, "guidance"},
		{`{"action": "continue", "guidance": "and this"}`, "guidance"},
	}
	for _, b := range bad {
		var got apiError
		if code := call(t, "POST", cpURL, b.body, &got); code != 400 || len(got.Violations) != 1 || got.Violations[0].Field != b.field {
			t.Errorf("POST %.40s: %d %+v; want 400 naming %s", b.body, code, got, b.field)
		}
	}
	if code := call(t, "POST", hs.URL+"/api/debates/"+id+"/resume", ``, nil); code != http.StatusConflict {
		t.Errorf("resume a debate at a checkpoint: %d; want 409", code)
	}
	const guidance = "Consider the cost of running both for a year."
	if code := call(t, "POST", cpURL, `{"action": "guide", "guidance": "`+guidance+`"}`, nil); code != http.StatusAccepted {
		t.Fatalf("guide: %d", code)
	}
	s.wg.Wait()
	v = getView(t, hs.URL, id)
	var guided bool
	for _, u := range v.Transcript {
		guided = guided || (u.Speaker == engine.SpeakerHuman && u.Content == guidance)
	}
	if !guided {
		t.Error("the guidance is not in the transcript")
	}
	if round := pausedAt(t, v, engine.QuestionCheckpoint); round != 2 {
		t.Fatalf("paused after round %d; want paused at round 2", round)
	}
	if code := call(t, "POST", hs.URL+"/api/debates/nope/checkpoint", `{"action": "end"}`, nil); code != 404 {
		t.Errorf("checkpoint of an unknown debate: %d", code)
	}

	// The server restarts: a new one on the same store ends the debate.
	s.shutdown(0)
	s2 := newServer(llm.NewStub(1), st, nil)
	hs2 := httptest.NewServer(s2.routes())
	defer hs2.Close()
	defer s2.shutdown(0)
	if round := pausedAt(t, getView(t, hs2.URL, id), engine.QuestionCheckpoint); round != 2 {
		t.Fatalf("after a restart: paused after round %d; want 2", round)
	}
	if code := call(t, "POST", hs2.URL+"/api/debates/"+id+"/checkpoint", `{"action": "end"}`, nil); code != http.StatusAccepted {
		t.Fatalf("end: %d", code)
	}
	s2.wg.Wait()
	// Then the synthesis waits for its approval.
	pausedAt(t, getView(t, hs2.URL, id), engine.QuestionApproval)
	if code := call(t, "POST", hs2.URL+"/api/debates/"+id+"/approval", `{"approve": true}`, nil); code != http.StatusAccepted {
		t.Fatalf("approve: %d", code)
	}
	s2.wg.Wait()
	v = getView(t, hs2.URL, id)
	var out moderated.Outcome
	if err := json.Unmarshal(v.Detail, &out); err != nil {
		t.Fatal(err)
	}
	if v.Status != statusFinished || out.EndReason != moderated.EndHuman || len(out.Rounds) != 2 || out.Synthesis.Recommendation == "" {
		t.Errorf("status %s, end %s, %d rounds, recommendation %q", v.Status, out.EndReason, len(out.Rounds), out.Synthesis.Recommendation)
	}
	if code := call(t, "POST", hs2.URL+"/api/debates/"+id+"/checkpoint", `{"action": "end"}`, nil); code != http.StatusConflict {
		t.Errorf("checkpoint of a finished debate: %d; want 409", code)
	}
}

// TestHistory lists debates of several formats with their statuses, newest
// first, and resumes a stopped one.
func TestHistory(t *testing.T) {
	g := newGate("")
	st := store.NewMemory()
	s := newServer(g, st, nil)
	hs := httptest.NewServer(s.routes())
	defer hs.Close()

	// A podcast stopped mid-debate (by a shutdown), a finished scored
	// debate, and a moderated debate paused at its checkpoint.
	stopped := create(t, hs.URL, "duelogic", `{"proposition": "Stopped?", "config": {"flow": {"maxExchanges": 3}}}`)
	<-g.reached
	s.shutdown(0)
	s = newServer(llm.NewStub(1), st, nil)
	hs = httptest.NewServer(s.routes())
	defer hs.Close()
	defer s.shutdown(0)
	finished := create(t, hs.URL, "scored", `{"proposition": "Finished?"}`)
	s.wg.Wait()
	paused := create(t, hs.URL, "moderated", `{"proposition": "Should we use Redis or PostgreSQL for caching?"}`)
	s.wg.Wait()

	var list []debateItem
	if code := call(t, "GET", hs.URL+"/api/debates", "", &list); code != 200 {
		t.Fatalf("GET /api/debates: %d", code)
	}
	var got []string
	for _, d := range list {
		got = append(got, fmt.Sprintf("%s %s %s %s", d.ID, d.Format, d.Status, d.Proposition))
		if d.Started.IsZero() || d.Updated.Before(d.Started) {
			t.Errorf("%s: started %v, updated %v", d.ID, d.Started, d.Updated)
		}
	}
	want := []string{
		paused + " moderated paused Should we use Redis or PostgreSQL for caching?",
		finished + " scored finished Finished?",
		stopped + " duelogic stopped Stopped?",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	if code := call(t, "GET", hs.URL+"/api/debates?limit=1", "", &list); code != 200 || len(list) != 1 || list[0].ID != paused {
		t.Errorf("limit=1: %d %+v", code, list)
	}
	if code := call(t, "GET", hs.URL+"/api/debates?limit=0", "", nil); code != 400 {
		t.Errorf("limit=0: %d; want 400", code)
	}

	// The stopped one resumes from the page, the finished one does not.
	if code := call(t, "POST", hs.URL+"/api/debates/"+finished+"/resume", "", nil); code != http.StatusConflict {
		t.Errorf("resume a finished debate: %d; want 409", code)
	}
	if code := call(t, "POST", hs.URL+"/api/debates/"+stopped+"/resume", "", nil); code != http.StatusAccepted {
		t.Fatalf("resume: %d", code)
	}
	if types := eventTypes(t, hs.URL+"/api/debates/"+stopped+"/events"); types[len(types)-1] != "debate_ended" {
		t.Errorf("resumed stream ends with %q", types[len(types)-1])
	}
	s.wg.Wait()
	if v := getView(t, hs.URL, stopped); v.Status != statusFinished || podcast(t, v).Metrics.Evaluated == 0 {
		t.Errorf("resumed: %s, detail %.200s", v.Status, v.Detail)
	}
}

// TestRecentErrorsAreBounded: the errors of stopped runs are kept for the
// page, but not forever.
func TestRecentErrorsAreBounded(t *testing.T) {
	s := newServer(llm.NewStub(1), store.NewMemory(), nil)
	for i := range maxRecentErrors + 50 {
		s.remember(fmt.Sprint("d", i), fmt.Errorf("failure %d", i))
	}
	s.remember("d300", nil) // a later run of d300 ended well
	s.remember("d299", errWaitForPage)
	if len(s.errs) != maxRecentErrors-2 || len(s.errIDs) != len(s.errs) {
		t.Errorf("%d errors, %d IDs; want %d", len(s.errs), len(s.errIDs), maxRecentErrors-2)
	}
	if _, ok := s.errs["d0"]; ok {
		t.Error("the oldest error is kept")
	}
	if s.errs["d298"] != "failure 298" {
		t.Errorf("d298: %q", s.errs["d298"])
	}
}

// TestEventsAfter: ?after=N replays only the records after N, for a page
// that follows a debate again after a checkpoint or a resume.
func TestEventsAfter(t *testing.T) {
	s, hs := testServer(t, llm.NewStub(1))
	id := create(t, hs.URL, "scored", `{"proposition": "An app."}`)
	s.wg.Wait()
	all, ids := readStream(t, hs.URL+"/api/debates/"+id+"/events")
	tail := eventTypes(t, hs.URL+"/api/debates/"+id+"/events?after=10")
	i := slices.IndexFunc(ids, func(id int64) bool { return id > 10 })
	if i <= 0 || !slices.Equal(tail, all[i:]) {
		t.Errorf("after=10: %d events %q; want the last %d of %d", len(tail), tail, len(all)-i, len(all))
	}
}

// asJSON is v as the client sees it: its JSON, decoded.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
