package moderated

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/storetest"
)

const vague = `{"vague":true,"question":"Which options are on the table, and for what data?","assumption":"Redis against PostgreSQL for session caching"}`

// vagueQuestion is a prompt too short to debate.
var vagueQuestion = engine.Debate{ID: "deb-vague", Proposition: "Which cache?"}

// vagueFake is newFake whose moderator finds the prompt vague.
func vagueFake() *llmtest.Fake {
	f := llmtest.New()
	f.OnPurpose(PurposeClarity).Reply(vague)
	return addRules(f, []string{analysisTwo}, texts("argument", 50), judgeAgree)
}

// asked is a Clarifier that answers and keeps what it was asked.
type asked struct {
	mu     sync.Mutex
	answer string
	got    []Clarification
}

func (a *asked) Clarify(_ context.Context, c Clarification) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.got = append(a.got, c)
	return a.answer, nil
}

// TestVaguePromptIsClarifiedFirst: seed 004, "Prompt too vague | Moderator
// asks clarifying question before assigning perspectives". The moderator
// decides (a JSON judgment with a strict schema), the Clarifier is asked
// before the analysis, and every later prompt carries the answer.
func TestVaguePromptIsClarifiedFirst(t *testing.T) {
	f := vagueFake()
	cl := &asked{answer: "Redis or PostgreSQL, for user sessions; we run PostgreSQL today."}
	var events []engine.Event
	sink := engine.SinkFunc(func(_ context.Context, e engine.Event) { events = append(events, e) })
	res := mustRun(t, f, testConfig(), vagueQuestion, []Option{WithClarifier(cl)}, engine.WithSink(sink))

	want := Clarification{Question: "Which options are on the table, and for what data?", Assumption: "Redis against PostgreSQL for session caching"}
	if diff := cmp.Diff([]Clarification{want}, cl.got); diff != "" {
		t.Fatalf("the clarifier was asked (-want +got):\n%s", diff)
	}
	want.Answer = cl.answer
	if diff := cmp.Diff(&want, res.Clarification); diff != "" {
		t.Errorf("outcome clarification (-want +got):\n%s", diff)
	}
	reqs := f.Requests()
	if reqs[0].Purpose != PurposeClarity || reqs[1].Purpose != PurposeAnalysis {
		t.Errorf("first requests %s, %s; want the clarity check, then the analysis", reqs[0].Purpose, reqs[1].Purpose)
	}
	if len(reqs[0].Schema) == 0 || reqs[0].Model != res.Config.ModeratorModel || reqs[0].MaxTokens != MaxTokensClarity {
		t.Errorf("clarity request: schema %s, model %s, cap %d", reqs[0].Schema, reqs[0].Model, reqs[0].MaxTokens)
	}
	fenced := fence("clarification", "The moderator asked: "+want.Question+"\nThe answer: "+cl.answer)
	for _, r := range reqs[1:] {
		if !strings.Contains(lastUser(r), fenced) {
			t.Errorf("%s request lacks the clarification", r.Purpose)
		}
	}
	// The moderator reports it in the transcript, before the assignment.
	if u := res.Transcript[0]; u.Kind != KindClarification || u.Speaker != SpeakerModerator || !strings.Contains(u.Content, cl.answer) || res.Transcript[1].Kind != KindAssignment {
		t.Errorf("transcript starts %+v, then %s", u, res.Transcript[1].Kind)
	}
	md := res.Synthesis.Markdown()
	if !strings.Contains(md, "**Clarifying question:** "+want.Question+"\n**Answer:** "+cl.answer+"\n") {
		t.Errorf("the synthesis does not record the clarification:\n%s", md)
	}
	var announced []Clarification
	for _, e := range events {
		if e.Type == EventClarification {
			c, err := engine.DataAs[Clarification](e)
			if err != nil {
				t.Fatal(err)
			}
			announced = append(announced, c)
		}
	}
	if diff := cmp.Diff([]Clarification{want}, announced); diff != "" {
		t.Errorf("clarification events (-want +got):\n%s", diff)
	}
}

// TestVaguePromptWithoutAnswer: without a Clarifier (a run without
// checkpoints), or with an empty answer, the debate goes on the
// moderator's assumption, which the prompts and the synthesis state.
func TestVaguePromptWithoutAnswer(t *testing.T) {
	for name, opts := range map[string][]Option{
		"no clarifier": nil,
		"empty answer": {WithClarifier(&asked{answer: "  "})},
	} {
		t.Run(name, func(t *testing.T) {
			f := vagueFake()
			res := mustRun(t, f, testConfig(), vagueQuestion, opts)
			c := res.Clarification
			if c == nil || !c.Assumed || c.Answer != "" || c.Assumption != "Redis against PostgreSQL for session caching" {
				t.Fatalf("clarification %+v", c)
			}
			if !strings.Contains(lastUser(requests(f, PurposeAnalysis)[0]), "Nobody answered; the debate assumes: "+c.Assumption) {
				t.Errorf("the analysis does not state the assumption")
			}
			if !strings.Contains(res.Synthesis.Markdown(), "**Assumed (no answer):** "+c.Assumption) {
				t.Errorf("the synthesis does not state the assumption")
			}
		})
	}
}

// TestClearPromptAsksNothing: a clear prompt costs one check, asks nobody,
// and changes no prompt.
func TestClearPromptAsksNothing(t *testing.T) {
	f := newFake(judgeAgree)
	cl := &asked{answer: "unused"}
	res := mustRun(t, f, testConfig(), cachingQuestion, []Option{WithClarifier(cl)})
	if len(cl.got) != 0 || res.Clarification != nil || f.Calls(PurposeClarity) != 1 {
		t.Errorf("asked %d times, clarification %+v, %d checks", len(cl.got), res.Clarification, f.Calls(PurposeClarity))
	}
	for _, r := range f.Requests() {
		if strings.Contains(lastUser(r), "<clarification>") {
			t.Errorf("%s request carries a clarification", r.Purpose)
		}
	}
	// An unreadable check counts as clear, and as defaulted.
	g := llmtest.New()
	g.OnPurpose(PurposeClarity).Reply("It depends.")
	addRules(g, []string{analysisTwo}, texts("argument", 50), judgeAgree)
	res = mustRun(t, g, testConfig(), cachingQuestion, nil)
	if res.Clarification != nil || g.Calls(PurposeClarity) != 2 || res.Judgments[PurposeClarity] != (engine.JudgmentCounts{Defaulted: 1}) {
		t.Errorf("unreadable check: clarification %+v, %d calls, judgments %+v", res.Clarification, g.Calls(PurposeClarity), res.Judgments[PurposeClarity])
	}
}

// TestClarificationIsStored: the answer is stored, so a debate stopped
// after it resumes without asking again; nobody answering in time pauses
// the debate, and Resume asks again.
func TestClarificationIsStored(t *testing.T) {
	ctx := t.Context()
	// The stub finds the prompt vague; its arguments, unlike a scripted
	// fake's, do not depend on which of two at once is asked first.
	at := engine.WithClock(func() time.Time { return time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC) })
	ref := store.NewMemory()
	want := mustRun(t, llm.NewStub(2), testConfig(), vagueQuestion, []Option{WithClarifier(&asked{answer: "Redis or PostgreSQL."})}, engine.WithStore(ref), at)
	recs, _ := ref.Records(ctx, vagueQuestion.ID)
	n := 0
	for i, r := range recs {
		if r.Type == RecordClarification {
			n = i + 1
		}
	}
	if n == 0 || want.Clarification == nil {
		t.Fatalf("the stub did not find %q vague", vagueQuestion.Proposition)
	}
	st := store.NewMemory()
	if _, err := run(ctx, llm.NewStub(2), testConfig(), vagueQuestion, []Option{WithClarifier(&asked{answer: "Redis or PostgreSQL."})},
		engine.WithStore(storetest.FailAfter(st, n, errDisk)), at); !errors.Is(err, errDisk) {
		t.Fatalf("err = %v", err)
	}
	again := &asked{answer: "something else"}
	res, err := resume(ctx, llm.NewStub(2), vagueQuestion.ID, []Option{WithClarifier(again)}, engine.WithStore(st), at)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.got) != 0 || res.Clarification.Answer != "Redis or PostgreSQL." {
		t.Errorf("resume asked %d times; answer %q", len(again.got), res.Clarification.Answer)
	}
	ignore := cmpopts.IgnoreFields(engine.Utterance{}, "Seq")
	if diff := cmp.Diff(want.Transcript, res.Transcript, ignore); diff != "" {
		t.Errorf("transcript (-uninterrupted +resumed):\n%s", diff)
	}

	// Paused: nobody answers.
	st = store.NewMemory()
	away := ClarifyFunc(func(context.Context, Clarification) (string, error) { return "", ErrPaused })
	_, err = run(ctx, llm.NewStub(2), testConfig(), vagueQuestion, []Option{WithClarifier(away)}, engine.WithStore(st))
	if !errors.Is(err, ErrPaused) || !strings.Contains(err.Error(), "clarifying question") {
		t.Fatalf("err = %v, want a pause at the clarifying question", err)
	}
	list, _ := List(ctx, st)
	if len(list) != 1 || list[0].Status != StatusPaused || list[0].Round != 0 {
		t.Errorf("list %+v", list)
	}
	back := &asked{answer: "Redis or PostgreSQL."}
	res, err = resume(ctx, llm.NewStub(2), vagueQuestion.ID, []Option{WithClarifier(back)}, engine.WithStore(st), at)
	if err != nil || len(back.got) != 1 || res.Clarification.Answer != back.answer {
		t.Fatalf("resume after the pause: %v, asked %d times, %+v", err, len(back.got), res.Clarification)
	}
	if diff := cmp.Diff(want.Transcript, res.Transcript, ignore); diff != "" {
		t.Errorf("transcript (-never paused +paused):\n%s", diff)
	}
	// A failing clarifier stops the debate with its error.
	boom := errors.New("terminal gone")
	if _, err := run(ctx, llm.NewStub(2), testConfig(), engine.Debate{Proposition: "Which?"}, []Option{WithClarifier(ClarifyFunc(
		func(context.Context, Clarification) (string, error) { return "", boom }))}); !errors.Is(err, boom) {
		t.Errorf("err = %v, want %v", err, boom)
	}
}

// TestStubFindsShortPromptsVague: the offline stub's moderator is
// deterministic: very short prompts are vague, others clear, whatever the
// seed.
func TestStubFindsShortPromptsVague(t *testing.T) {
	for _, tt := range []struct {
		d     engine.Debate
		vague bool
	}{
		{engine.Debate{Proposition: "Which database?"}, true},
		{engine.Debate{Proposition: "Microservices?"}, true},
		{engine.Debate{Proposition: "Which database?", Context: "An analytics product with 2 TB of events a day."}, false},
		{engine.Debate{Proposition: "Should we use GraphQL or REST?"}, false},
		{cachingQuestion, false},
	} {
		for seed := range int64(10) {
			req := clarityRequest(testConfig(), tt.d)
			c, err := parseClarity(stubAnswer(t, seed, req))
			if err != nil || c.Vague != tt.vague || tt.vague && !strings.Contains(c.Question, tt.d.Proposition) {
				t.Errorf("seed %d, %q: %+v, %v; want vague %v", seed, tt.d.Proposition, c, err, tt.vague)
			}
		}
	}
}

func TestParseClarity(t *testing.T) {
	for _, tt := range []struct {
		reply string
		want  clarity
		err   string
	}{
		{`{"vague":false,"question":"","assumption":""}`, clarity{}, ""},
		{"```json\n" + vague + "\n```", clarity{Vague: true, Question: "Which options are on the table, and for what data?", Assumption: "Redis against PostgreSQL for session caching"}, ""},
		{`{"vague":true,"question":"Which?"}`, clarity{Vague: true, Question: "Which?", Assumption: "the most common reading of the question, judged on cost, risk and effort"}, ""},
		{`{"vague":true,"question":" "}`, clarity{}, "question is empty"},
		{`maybe`, clarity{}, "no JSON object"},
	} {
		got, err := parseClarity(tt.reply)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: err = %v, want %q", tt.reply, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%q: %+v, %v; want %+v", tt.reply, got, err, tt.want)
		}
	}
}

// TestClarityReplyFitsItsSchema: a schema-holding fake accepts the
// clarity replies this package's tests script.
func TestClarityReplyFitsItsSchema(t *testing.T) {
	f := llmtest.New().CheckSchemas(t)
	f.OnPurpose(PurposeClarity).Reply(vague)
	resp, err := f.Complete(t.Context(), clarityRequest(testConfig(), vagueQuestion))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(resp.Content), &m); err != nil {
		t.Fatal(err)
	}
}
