package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// askerName is a format this server has never heard of, registered by the
// tests: linking it is all it takes for the server to offer it, play it,
// pause it for its person, resume it and read its outcome.
const askerName = "asker"

func init() {
	engine.Register(askerName, func(config json.RawMessage) (engine.Format[engine.Outcome], error) {
		f := &askerFormat{Choices: []string{"ethics", "economics"}}
		if err := engine.DecodeConfig(askerName, config, f); err != nil {
			return nil, err
		}
		return engine.Erase[*askerOutcome](f), nil
	})
}

// askerFormat asks its person which side of the question to take first —
// a question of a kind the seed's API has no endpoint for — and the host
// says the answer. It calls no model.
type askerFormat struct {
	// Choices are the question's choices; none: a free-text question.
	Choices []string `json:"choices"`
}

func (*askerFormat) Name() string { return askerName }

func (f *askerFormat) Play(ctx context.Context, s *engine.Session) (*askerOutcome, error) {
	a, err := s.Ask(ctx, "topic", engine.Question{Kind: engine.QuestionTopic, Text: "Which side of the question first?", Choices: f.Choices})
	if err != nil {
		return nil, err
	}
	said := "We start with " + a.Choice + ". " + a.Text
	if _, err := s.Record(ctx, "said", engine.Utterance{Speaker: engine.SpeakerArbiter, Kind: engine.KindOpening, Content: said}); err != nil {
		return nil, err
	}
	return &askerOutcome{Choice: a.Choice, Text: a.Text}, nil
}

// askerOutcome is what an asker debate came to: its person's answer.
type askerOutcome struct {
	Choice string `json:"choice"`
	Text   string `json:"text"`
}

func (o *askerOutcome) Verdict() engine.Verdict {
	return engine.Verdict{Summary: "the person chose " + o.Choice}
}

func (o *askerOutcome) Documents() []engine.Document {
	return []engine.Document{{Name: "asker.md", Title: "Asker", Markdown: "# Asker\n\n" + o.Choice + ": " + o.Text + "\n"}}
}

// TestAFormatTheServerDoesNotKnow: a format registered with the engine is
// offered, started, paused at its question (shown with its text and
// choices), answered with POST /api/debates/{id}/answer (the seed's
// endpoints refuse a question they are not for), resumed after a restart,
// and read back with its outcome's verdict and documents.
func TestAFormatTheServerDoesNotKnow(t *testing.T) {
	s, hs := testServer(t, llm.NewStub(1))
	var formats []formatInfo
	call(t, "GET", hs.URL+"/api/formats", "", &formats)
	if !slices.ContainsFunc(formats, func(f formatInfo) bool { return f.Name == askerName }) {
		t.Fatalf("GET /api/formats %+v lacks %s", formats, askerName)
	}
	if code, got := post(t, hs.URL+"/api/debates/"+askerName, `{"proposition": "Why?", "config": {"choices": "one"}}`); code != http.StatusBadRequest ||
		len(got.Violations) != 1 || got.Violations[0].Field != "choices" {
		t.Errorf("a bad config: %d %+v; want 400 naming choices", code, got)
	}
	id := create(t, hs.URL, askerName, `{"proposition": "Should cities ban cars?", "config": {"choices": ["pro", "con"]}}`)
	s.wg.Wait()
	v := getView(t, hs.URL, id)
	pausedAt(t, v, engine.QuestionTopic)
	if q := v.Question; q.Text != "Which side of the question first?" || !slices.Equal(q.Choices, []string{"pro", "con"}) {
		t.Errorf("question %+v", q)
	}
	conflicts(t, hs.URL, id, "/api/debates/"+id+"/answer", map[string]string{
		"checkpoint": `{"action": "end"}`, "clarification": `{"answer": "x"}`, "approval": `{"approve": true}`, "resume": ``,
	})
	badRequests(t, hs.URL+"/api/debates/"+id+"/answer", []struct{ body, field string }{
		{`{"choice": "maybe"}`, "choice"},
		{`{"text": "no choice"}`, "choice"},
		{`{"choice": "pro", "text": "` + strings.Repeat("x", maxAnswerRunes+1) + `"}`, "text"},
		{`{"choice": "pro", "why": "x"}`, ""},
	})
	if code, _ := post(t, hs.URL+"/api/debates/nope/answer", `{"choice": "pro"}`); code != http.StatusNotFound {
		t.Errorf("an unknown debate: %d; want 404", code)
	}

	s, hs = restart(t, s, hs)
	if code, got := post(t, hs.URL+"/api/debates/"+id+"/answer", `{"choice": "con", "text": " Cost first. "}`); code != http.StatusAccepted {
		t.Fatalf("answer: %d %+v", code, got)
	}
	s.wg.Wait()
	v = getView(t, hs.URL, id)
	if v.Status != statusFinished || v.Question != nil || v.Verdict == nil || v.Verdict.Summary != "the person chose con" {
		t.Fatalf("status %s, question %+v, verdict %+v; want finished, the person's choice", v.Status, v.Question, v.Verdict)
	}
	if !slices.Equal(v.Documents, []string{"asker.md", "transcript.md"}) {
		t.Errorf("documents %q", v.Documents)
	}
	if doc := document(t, hs.URL, id, "asker.md"); doc != "# Asker\n\ncon: Cost first.\n" {
		t.Errorf("asker.md %q", doc)
	}
	if code, _ := post(t, hs.URL+"/api/debates/"+id+"/answer", `{"choice": "pro"}`); code != http.StatusConflict {
		t.Errorf("answer a finished debate: %d; want 409", code)
	}
}

// TestAnsweringHuman: the person who answered a question gives the answer
// to that question only, once, and pauses the debate at any other.
func TestAnsweringHuman(t *testing.T) {
	q := engine.Question{Kind: engine.QuestionCheckpoint, Text: "Round 1 is over.", Choices: []string{"continue", "end"}}
	h := &answering{q: q, a: engine.Answer{Choice: "end"}}
	for _, other := range []engine.Question{
		{Kind: engine.QuestionApproval, Text: q.Text, Choices: q.Choices},
		{Kind: q.Kind, Text: "Round 2 is over.", Choices: q.Choices},
		{Kind: q.Kind, Text: q.Text, Choices: []string{"continue"}},
	} {
		if _, err := h.Ask(t.Context(), other); !errors.Is(err, engine.ErrPaused) {
			t.Errorf("asked %+v: %v; want a pause", other, err)
		}
	}
	if a, err := h.Ask(t.Context(), q); err != nil || a.Choice != "end" {
		t.Errorf("asked the question answered: %+v, %v", a, err)
	}
	if _, err := h.Ask(t.Context(), q); !errors.Is(err, engine.ErrPaused) {
		t.Errorf("asked it again: %v; want a pause", err)
	}
}

// TestBrowserAsksAnyQuestion: the page shows the question of a format it
// has no view for in its question panel — the question's text, and a
// button for each of its choices — and the answer, with its text, ends
// the debate.
func TestBrowserAsksAnyQuestion(t *testing.T) {
	ctx := deadline(t, browser(t))
	s := newServer(llm.NewStub(1), store.NewMemory(), nil)
	hs := serve(t, s)
	id := create(t, hs.URL, askerName, `{"proposition": "Should cities ban cars?", "config": {"choices": ["pro", "con"]}}`)
	s.wg.Wait()
	if err := chromedp.Do(ctx, chromedp.Navigate(hs.URL+"/#"+id)); err != nil {
		t.Fatal(err)
	}
	const paused = `document.getElementById('status').textContent === 'paused'`
	waitFor(t, ctx, "the question", paused+` && !document.getElementById('question').hidden`)
	type shown struct {
		Kind    string   `json:"kind"`
		Text    string   `json:"text"`
		Choices []string `json:"choices"`
		Others  bool     `json:"others"`
	}
	got := eval[shown](t, ctx, `({
	  kind: document.getElementById('question-kind').textContent,
	  text: document.getElementById('question-text').textContent,
	  choices: [...document.querySelectorAll('#question-choices button')].map((b) => b.textContent),
	  others: ['clarification', 'checkpoint', 'approval'].some((id) => !document.getElementById(id).hidden),
	})`)
	if want := (shown{Kind: "Topic", Text: "Which side of the question first?", Choices: []string{"Pro", "Con"}}); !cmp.Equal(got, want) {
		t.Errorf("the page shows %+v; want %+v", got, want)
	}
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("question-answer"), "Cost first."),
		chromedp.Click(chromedp.CSS(`#question-choices button:nth-child(2)`)),
	); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the end", finished+` && !document.getElementById('documents').hidden && document.getElementById('question').hidden`)
	said := eval[[]string](t, ctx, `[...document.querySelectorAll('.card .text')].map((n) => n.textContent)`)
	if !slices.Contains(said, "We start with con. Cost first.") {
		t.Errorf("cards %q; want the answer said", said)
	}
	if p := readThePage(t, ctx); !slices.Contains(p.Documents, "asker.md") {
		t.Errorf("documents %q", p.Documents)
	}
}
