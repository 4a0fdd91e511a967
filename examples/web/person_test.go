package main

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/moderated"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/storetest"
)

// restart shuts s down and serves a new server on the same store.
func restart(t *testing.T, s *server, hs *httptest.Server) (*server, *httptest.Server) {
	t.Helper()
	hs.Close()
	s.shutdown(0)
	s2 := newServer(llm.NewStub(1), s.store, nil)
	return s2, serve(t, s2)
}

// post posts body to url and returns the status and the error answer.
func post(t *testing.T, url, body string) (int, apiError) {
	t.Helper()
	var got apiError
	code := call(t, "POST", url, body, &got)
	return code, got
}

// outcome decodes a finished moderated debate's outcome.
func outcome(t *testing.T, v debateView) moderated.Outcome {
	t.Helper()
	var out moderated.Outcome
	if err := json.Unmarshal(v.Detail, &out); err != nil {
		t.Fatalf("debate %s (%s): outcome: %v", v.ID, v.Status, err)
	}
	return out
}

// document reads debate id's document name.
func document(t *testing.T, base, id, name string) string {
	t.Helper()
	resp, err := http.Get(base + "/api/debates/" + id + "/documents/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("document %s: %d %v", name, resp.StatusCode, err)
	}
	return string(b)
}

// badRequests posts each body to url and wants a 400: naming field when it
// is set, saying the JSON is malformed otherwise.
func badRequests(t *testing.T, url string, bodies []struct{ body, field string }) {
	t.Helper()
	for _, b := range bodies {
		code, got := post(t, url, b.body)
		switch {
		case code != http.StatusBadRequest:
			t.Errorf("POST %.50s: %d %+v; want 400", b.body, code, got)
		case b.field == "" && !strings.HasPrefix(got.Error, "malformed JSON body"):
			t.Errorf("POST %.50s: %q; want a malformed body", b.body, got.Error)
		case b.field != "" && (len(got.Violations) != 1 || got.Violations[0].Field != b.field):
			t.Errorf("POST %.50s: %+v; want a violation of %s", b.body, got, b.field)
		}
	}
}

// pausedAt checks that v is paused at a question of kind, which the view
// shows (engine.Pending's), and returns the last round played: the highest
// Exchange of its transcript.
func pausedAt(t *testing.T, v debateView, kind string) (round int) {
	t.Helper()
	if v.Status != statusPaused || v.Waiting != kind || v.Question == nil || v.Question.Kind != kind || v.Question.Text == "" {
		t.Fatalf("status %s (error %q), waiting %q, question %+v; want paused at a %s question", v.Status, v.Error, v.Waiting, v.Question, kind)
	}
	for _, u := range v.Transcript {
		round = max(round, u.Exchange)
	}
	return round
}

// conflicts posts to each of paths of debate id and wants a 409 whose
// message contains want.
func conflicts(t *testing.T, base, id, want string, paths map[string]string) {
	t.Helper()
	for path, body := range paths {
		code, got := post(t, base+"/api/debates/"+id+"/"+path, body)
		if code != http.StatusConflict || !strings.Contains(got.Error, want) {
			t.Errorf("POST %s: %d %q; want 409 saying %q", path, code, got.Error, want)
		}
	}
}

// TestModeratedClarification: seed 004, "Prompt too vague | Moderator asks
// clarifying question before assigning perspectives". From the page the
// question pauses the debate into the store; the view shows the question
// and the moderator's assumption; POST /api/debates/{id}/clarification
// answers it (or, empty, keeps the assumption) and resumes the debate, also
// from a server started after the one that paused it.
func TestModeratedClarification(t *testing.T) {
	tests := []struct {
		name, answer string
		// said is what the moderator then says in the transcript.
		said string
	}{
		{"answered", "We already run PostgreSQL 16; the cache holds session data.",
			"The answer: We already run PostgreSQL 16; the cache holds session data."},
		{"keeps the assumption", "", "No answer was given, so I assume: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(llm.NewStub(1), store.NewMemory(), nil)
			hs := serve(t, s)
			// The offline stub finds fewer than five words vague.
			id := create(t, hs.URL, "moderated", `{"proposition": "Redis or PostgreSQL?", "config": {"maxRounds": 2}}`)
			s.wg.Wait()
			v := getView(t, hs.URL, id)
			pausedAt(t, v, engine.QuestionClarification)
			if q := v.Question; len(q.Choices) != 0 || v.Error != "" {
				t.Errorf("question %+v, error %q; want a free-text question", q, v.Error)
			}
			// Before the perspectives are assigned.
			if slices.ContainsFunc(v.Transcript, func(u engine.Utterance) bool { return u.Speaker != moderated.SpeakerModerator }) {
				t.Errorf("someone but the moderator spoke before the clarification: %+v", v.Transcript)
			}
			var list []debateItem
			if call(t, "GET", hs.URL+"/api/debates", "", &list); len(list) != 1 || list[0].Status != statusPaused {
				t.Errorf("history %+v; want it paused", list)
			}
			conflicts(t, hs.URL, id, "/api/debates/"+id+"/clarification", map[string]string{
				"checkpoint": `{"action": "continue"}`, "approval": `{"approve": true}`, "resume": ``,
			})
			url := hs.URL + "/api/debates/" + id + "/clarification"
			badRequests(t, url, []struct{ body, field string }{
				{`{"answer": 3}`, ""},
				{`{"answer": "x", "guidance": "y"}`, ""},
				{`answer: x`, ""},
				{``, ""},
				{`{"answer": "` + strings.Repeat("é", moderated.MaxGuidanceRunes+1) + `"}`, "answer"},
			})
			if code, _ := post(t, hs.URL+"/api/debates/nope/clarification", `{}`); code != http.StatusNotFound {
				t.Errorf("an unknown debate: %d; want 404", code)
			}

			// The server restarts; a new one answers from the store.
			s, hs = restart(t, s, hs)
			pausedAt(t, getView(t, hs.URL, id), engine.QuestionClarification)
			body, _ := json.Marshal(map[string]string{"answer": tt.answer})
			if code, got := post(t, hs.URL+"/api/debates/"+id+"/clarification", string(body)); code != http.StatusAccepted {
				t.Fatalf("answer: %d %+v", code, got)
			}
			s.wg.Wait()
			v = getView(t, hs.URL, id)
			if round := pausedAt(t, v, engine.QuestionCheckpoint); round != 1 {
				t.Fatalf("after the answer: paused after round %d; want paused at the checkpoint after round 1", round)
			}
			i := slices.IndexFunc(v.Transcript, func(u engine.Utterance) bool { return u.Kind == moderated.KindClarification })
			if i < 0 {
				t.Error("the moderator does not report the clarification")
			} else if said := v.Transcript[i].Content; !strings.Contains(said, tt.said) {
				t.Errorf("the moderator's clarification %q lacks %q", said, tt.said)
			}
			conflicts(t, hs.URL, id, "/api/debates/"+id+"/checkpoint", map[string]string{"clarification": `{"answer": "again"}`})

			// It is asked once: the rest of the debate goes on the answer.
			if code, _ := post(t, hs.URL+"/api/debates/"+id+"/checkpoint", `{"action": "end"}`); code != http.StatusAccepted {
				t.Fatalf("end: %d", code)
			}
			s.wg.Wait()
			if code, _ := post(t, hs.URL+"/api/debates/"+id+"/approval", `{"approve": true}`); code != http.StatusAccepted {
				t.Fatalf("approve: %d", code)
			}
			s.wg.Wait()
			out := outcome(t, getView(t, hs.URL, id))
			if c := out.Clarification; c == nil || c.Answer != tt.answer || c.Assumed != (tt.answer == "") {
				t.Errorf("outcome's clarification %+v; want answer %q", c, tt.answer)
			}
			if n := strings.Count(document(t, hs.URL, id, "transcript.md"), "Before assigning perspectives I asked"); n != 1 {
				t.Errorf("the clarifying question is in the transcript %d times; want once", n)
			}
		})
	}
}

// TestModeratedApproval: seed 004, "Human | Initiates debate, optional
// guidance at checkpoints, approves final synthesis". After the synthesis
// the debate pauses for its review; the view shows the synthesis;
// POST /api/debates/{id}/approval approves or rejects it, with feedback,
// and the debate ends, also from a server started after the pause.
func TestModeratedApproval(t *testing.T) {
	tests := []struct {
		name, body string
		want       moderated.Approval
		// doc is what the synthesis document then says.
		doc []string
	}{
		{"approved", `{"approve": true, "feedback": "  Agreed; start with the session cache.  "}`,
			moderated.Approval{Status: moderated.Approved, Note: "Agreed; start with the session cache."},
			[]string{"**Status:** Approved — Agreed; start with the session cache."}},
		{"rejected without feedback", `{"approve": false}`,
			moderated.Approval{Status: moderated.Rejected},
			[]string{"> **Rejected.**", "**Status:** Rejected\n"}},
		{"rejected", `{"approve": false, "feedback": "The cost of a second datastore is not weighed."}`,
			moderated.Approval{Status: moderated.Rejected, Note: "The cost of a second datastore is not weighed."},
			[]string{"> **Rejected.**", "**Status:** Rejected — The cost of a second datastore is not weighed."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(llm.NewStub(1), store.NewMemory(), nil)
			hs := serve(t, s)
			// One round: it ends the debate, so no checkpoint comes first.
			id := create(t, hs.URL, "moderated", `{"proposition": "Should we use Redis or PostgreSQL for caching?", "config": {"maxRounds": 1}}`)
			s.wg.Wait()
			v := getView(t, hs.URL, id)
			pausedAt(t, v, engine.QuestionApproval)
			if len(v.Detail) != 0 {
				t.Errorf("detail %s while the synthesis waits for its review", v.Detail)
			}
			// The question shows the synthesis to review, and the choices.
			if q := v.Question; !strings.Contains(q.Text, "Recommendation") || !strings.Contains(q.Text, id) ||
				!slices.Equal(q.Choices, []string{moderated.ChoiceSkip, moderated.ChoiceApprove, moderated.ChoiceReject}) {
				t.Errorf("question %+v; want the synthesis of %s and its choices", q, id)
			}
			if i := slices.IndexFunc(v.Transcript, func(u engine.Utterance) bool { return u.Kind == moderated.KindSynthesis }); i < 0 {
				t.Error("the synthesis document is not in the transcript")
			}
			conflicts(t, hs.URL, id, "/api/debates/"+id+"/approval", map[string]string{
				"checkpoint": `{"action": "end"}`, "clarification": `{"answer": "x"}`, "resume": ``,
			})
			url := hs.URL + "/api/debates/" + id + "/approval"
			badRequests(t, url, []struct{ body, field string }{
				{`{}`, "approve"},
				{`{"feedback": "good"}`, "approve"},
				{`{"approve": "yes"}`, ""},
				{`{"approve": true, "note": "x"}`, ""},
				{`{"approve": true}{"approve": false}`, ""},
				{`{"approve": false, "feedback": "` + strings.Repeat("x", moderated.MaxGuidanceRunes+1) + `"}`, "feedback"},
			})

			s, hs = restart(t, s, hs)
			if code, got := post(t, hs.URL+"/api/debates/"+id+"/approval", tt.body); code != http.StatusAccepted {
				t.Fatalf("review: %d %+v", code, got)
			}
			s.wg.Wait()
			v = getView(t, hs.URL, id)
			if tt.want.Status == moderated.Rejected {
				// The moderator revises a rejected synthesis once, and
				// the revision waits for its review: rejected too, it is
				// recorded as rejected.
				pausedAt(t, v, engine.QuestionApproval)
				if !strings.Contains(v.Question.Text, "The moderator revised the synthesis you rejected") {
					t.Errorf("question %+v; want the revision", v.Question)
				}
				if code, got := post(t, hs.URL+"/api/debates/"+id+"/approval", tt.body); code != http.StatusAccepted {
					t.Fatalf("review of the revision: %d %+v", code, got)
				}
				s.wg.Wait()
				v = getView(t, hs.URL, id)
			}
			out := outcome(t, v)
			if v.Status != statusFinished || v.Waiting != "" || v.Question != nil {
				t.Errorf("after the review: %s, waiting %q", v.Status, v.Waiting)
			}
			if v.Verdict == nil || v.Verdict.Summary != out.Verdict().Summary {
				t.Errorf("verdict %+v; want %q", v.Verdict, out.Verdict().Summary)
			}
			if a := out.Synthesis.Approval; a == nil || *a != tt.want {
				t.Errorf("approval %+v; want %+v", a, tt.want)
			}
			// The page asks no follow-up: nothing stands behind it to hand
			// a workflow to.
			if out.FollowedUp {
				t.Error("followed up")
			}
			doc := document(t, hs.URL, id, "synthesis.md")
			for _, want := range tt.doc {
				if !strings.Contains(doc, want) {
					t.Errorf("synthesis.md lacks %q:\n%.600s", want, doc)
				}
			}
			if code, got := post(t, hs.URL+"/api/debates/"+id+"/approval", `{"approve": true}`); code != http.StatusConflict || !strings.Contains(got.Error, "finished") {
				t.Errorf("review a finished debate: %d %q; want 409", code, got.Error)
			}
		})
	}
}

// legacyUnattended is a moderated format stored as earlier versions of
// the server stored one started with checkpoints off: the configuration
// in a wrapper beside the choice.
type legacyUnattendedFormat struct{ *moderated.Format }

func (f legacyUnattendedFormat) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Config     moderated.Config `json:"config"`
		Unattended bool             `json:"unattended"`
	}{f.Config, true})
}

// TestModeratedUnattended: seed 004's "--no-checkpoints # Run to
// completion without pausing". Started with checkpoints off, a moderated
// debate asks nobody anything — the moderator's assumption stands, every
// round continues, the synthesis stays unreviewed — even when it is
// resumed after a stop before its first checkpoint: the choice is stored
// with it (engine.Debate.Unattended), and a debate an earlier version
// stored with the choice in its own wrapper resumes unattended too.
func TestModeratedUnattended(t *testing.T) {
	const body = `{"proposition": "Redis or PostgreSQL?", "checkpoints": false, "config": {"maxRounds": 2}}`
	check := func(t *testing.T, base, id string) {
		t.Helper()
		v := getView(t, base, id)
		out := outcome(t, v)
		if v.Status != statusFinished || !v.Unattended {
			t.Fatalf("status %s, waiting %q, unattended %t; want finished unattended", v.Status, v.Waiting, v.Unattended)
		}
		if c := out.Clarification; c == nil || !c.Assumed || c.Answer != "" {
			t.Errorf("clarification %+v; want the assumption", c)
		}
		if a := out.Synthesis.Approval; a == nil || a.Status != moderated.Unreviewed {
			t.Errorf("approval %+v; want unreviewed", a)
		}
		for _, rd := range out.Rounds {
			if cp := rd.Checkpoint; cp != nil && !cp.Auto {
				t.Errorf("round %d: checkpoint %+v; want decided without anyone", rd.Number, cp)
			}
		}
	}
	t.Run("runs through", func(t *testing.T) {
		s, hs := testServer(t, llm.NewStub(1))
		id := create(t, hs.URL, "moderated", body)
		if types := eventTypes(t, hs.URL+"/api/debates/"+id+"/events"); types[len(types)-1] != "debate_ended" {
			t.Errorf("the stream ends with %q", types[len(types)-1])
		}
		s.wg.Wait()
		check(t, hs.URL, id)
		sum, err := engine.Inspect(t.Context(), s.store, id)
		if err != nil || !sum.Debate.Unattended || legacyUnattended(sum.Spec) {
			t.Errorf("stored debate %+v, spec %s, %v; want it unattended, the spec the format's own", sum.Debate, sum.Spec, err)
		}
	})
	t.Run("stored by an earlier version", func(t *testing.T) {
		st := store.NewMemory()
		m, err := moderated.New(moderated.Config{MaxRounds: 2})
		if err != nil {
			t.Fatal(err)
		}
		stop := errors.New("stopped by the test")
		d := engine.Debate{ID: "legacy-unattended", Proposition: "Redis or PostgreSQL?"}
		if _, err := engine.Run(t.Context(), llm.NewStub(1), legacyUnattendedFormat{m}, d,
			engine.WithStore(storetest.FailAfter(st, 1, stop))); !errors.Is(err, stop) {
			t.Fatalf("store the debate: %v", err)
		}
		s := newServer(llm.NewStub(1), st, nil)
		hs := serve(t, s)
		if v := getView(t, hs.URL, d.ID); v.Status != statusStopped || !v.Unattended {
			t.Fatalf("status %s, unattended %t; want stopped, unattended", v.Status, v.Unattended)
		}
		if code, _ := post(t, hs.URL+"/api/debates/"+d.ID+"/resume", ``); code != http.StatusAccepted {
			t.Fatalf("resume: %d", code)
		}
		s.wg.Wait()
		check(t, hs.URL, d.ID)
	})
	t.Run("resumed after a stop", func(t *testing.T) {
		g := newGate(moderated.PurposeJudgment)
		s := newServer(g, store.NewMemory(), nil)
		hs := serve(t, s)
		id := create(t, hs.URL, "moderated", body)
		<-g.reached // round 1 is argued; its judgment, and its checkpoint, wait
		s, hs = restart(t, s, hs)
		if v := getView(t, hs.URL, id); v.Status != statusStopped {
			t.Fatalf("after the stop: %s; want stopped", v.Status)
		}
		if code, _ := post(t, hs.URL+"/api/debates/"+id+"/resume", ``); code != http.StatusAccepted {
			t.Fatalf("resume: %d", code)
		}
		s.wg.Wait()
		check(t, hs.URL, id)
	})
}

// TestPausedByAnEarlierVersion: a moderated debate that an earlier version
// of the server paused at its checkpoint — in the format's own record,
// which engine.Pending does not read — is stopped to the page; resumed, it
// asks its question again, now through the engine, and the page's answers
// finish it. (testdata/legacy holds its log, paused after round 1.)
func TestPausedByAnEarlierVersion(t *testing.T) {
	const id = "dl-0123456789abcdef"
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join("testdata", "legacy", id+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := store.OpenJSONL(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := newServer(llm.NewStub(1), st, nil)
	hs := serve(t, s)
	if v := getView(t, hs.URL, id); v.Status != statusStopped || v.Unattended {
		t.Fatalf("status %s, waiting %q, unattended %t; want stopped, attended", v.Status, v.Waiting, v.Unattended)
	}
	conflicts(t, hs.URL, id, "/api/debates/"+id+"/resume", map[string]string{"checkpoint": `{"action": "end"}`})
	if code, _ := post(t, hs.URL+"/api/debates/"+id+"/resume", ``); code != http.StatusAccepted {
		t.Fatalf("resume: %d", code)
	}
	s.wg.Wait()
	if round := pausedAt(t, getView(t, hs.URL, id), engine.QuestionCheckpoint); round != 1 {
		t.Fatalf("paused after round %d; want the checkpoint after round 1 again", round)
	}
	for _, step := range []struct{ path, body string }{{"checkpoint", `{"action": "end"}`}, {"approval", `{"approve": true}`}} {
		if code, got := post(t, hs.URL+"/api/debates/"+id+"/"+step.path, step.body); code != http.StatusAccepted {
			t.Fatalf("POST %s: %d %+v", step.path, code, got)
		}
		s.wg.Wait()
	}
	v := getView(t, hs.URL, id)
	out := outcome(t, v)
	if v.Status != statusFinished || out.EndReason != moderated.EndHuman || len(out.Rounds) != 1 ||
		out.Synthesis.Approval == nil || out.Synthesis.Approval.Status != moderated.Approved {
		t.Errorf("status %s, end %s, %d rounds, approval %+v", v.Status, out.EndReason, len(out.Rounds), out.Synthesis.Approval)
	}
}
