package moderated

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/duelogic/duelogic/catalog"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/engine/enginetest"
	"github.com/duelogic/duelogic/llm"
)

func stubAnswer(t *testing.T, seed int64, req llm.Request) string {
	t.Helper()
	resp, err := llm.NewStub(seed).Complete(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	return resp.Content
}

// TestStubReadsTheDebaterPrompt runs the stub on a debater's prompt, so that
// a change to the prompt that the stub no longer reads fails here.
func TestStubReadsTheDebaterPrompt(t *testing.T) {
	me := Perspective{ID: catalog.PerformanceAdvocate, Name: "Performance Advocate", Priorities: []string{"latency"}, TradeOffs: "complexity for speed"}
	other := Perspective{ID: catalog.SimplicityAdvocate, Name: "Simplicity Advocate", Priorities: []string{"readability"}, TradeOffs: "speed for clarity"}
	d := engine.Debate{Proposition: "Should we cache sessions in Redis?"}
	for _, round := range []int{1, 2} {
		user := roundLine(round, 4) + "\n" + question(d, nil) + "\n\nGive your argument for this round."
		req := request("m", PurposeArgument, "", MaxTokensDebater, debaterSystem(me, []Perspective{other}), user)
		for seed := range int64(30) {
			text := stubAnswer(t, seed, req)
			if strings.Contains(text, "broader point about") { // now and then off topic, to be redirected
				continue
			}
			if !strings.Contains(text, "Simplicity Advocate") || !strings.Contains(text, `"Should we cache sessions in Redis?"`) {
				t.Errorf("round %d, seed %d: the argument does not answer the other perspective on the question:\n%s", round, seed, text)
			}
			built := strings.Contains(strings.ToLower(text), "the last round")
			if built != (round > 1) {
				t.Errorf("round %d, seed %d: builds on a last round: %v:\n%s", round, seed, built, text)
			}
		}
	}
}

func TestStubReadsTheAnalysisPrompt(t *testing.T) {
	ps, err := newPerspectives(testConfig())
	if err != nil {
		t.Fatal(err)
	}
	req := analysisRequest(testConfig(), engine.Debate{Proposition: "Should we keep sessions in Redis or in PostgreSQL?"}, nil, ps)
	// Without the schema, as a client that cannot send one: the stub
	// answers in prose now and then, as an unconstrained model does.
	req.Schema = nil
	prose := 0
	for seed := range int64(40) {
		text := stubAnswer(t, seed, req)
		var a struct {
			Domain       string   `json:"domain"`
			Debaters     int      `json:"debaters"`
			Perspectives []string `json:"perspectives"`
		}
		if err := json.Unmarshal([]byte(text), &a); err != nil {
			prose++ // now and then, to be asked again
			if err := json.Unmarshal([]byte(stubAnswer(t, seed, reasked(req, text, "not JSON"))), &a); err != nil {
				t.Fatalf("seed %d: asked again, still not JSON: %v", seed, err)
			}
		}
		if a.Domain != "data" || (a.Debaters != 2 && a.Debaters != 7) || len(a.Perspectives) == 0 {
			t.Errorf("seed %d: analysis %+v of a binary data question", seed, a)
		}
	}
	if prose == 0 || prose > 10 {
		t.Errorf("%d of 40 analyses in prose, want a few", prose)
	}
}

// reasked is req asked again after reply, as engine.Judge asks.
func reasked(req llm.Request, reply, problem string) llm.Request {
	req.Messages = append(req.Messages[:len(req.Messages):len(req.Messages)],
		llm.Message{Role: llm.Assistant, Content: reply},
		llm.Message{Role: llm.User, Content: retryMarker + problem + ". Reply again with only the JSON object asked for, complete and valid."})
	return req
}

func TestSchemasAreStrict(t *testing.T) {
	for name, schema := range map[string]string{PurposeClarity: claritySchema, PurposeAnalysis: analysisSchema, PurposeJudgment: judgmentSchema, PurposeSynthesis: synthesisSchema} {
		enginetest.StrictSchema(t, name, json.RawMessage(schema))
	}
}

// TestStubKeepsToThePrompts (issue 24): the stub's texts do what the
// prompts they answer ask — a debater's argument and rebuttal "120-220
// words of plain prose", a judgment's summary "two to four sentences" —
// over many debates on the stub, one perspective off topic or repeating
// itself included. The default run plays seeds 1 to 8 (24 debates, both
// kinds among them); DUELOGIC_EXHAUSTIVE=1, as CI runs it, 1 to 25.
func TestStubKeepsToThePrompts(t *testing.T) {
	seeds := int64(8)
	if os.Getenv("DUELOGIC_EXHAUSTIVE") == "1" {
		seeds = 25
	}
	questions := []string{
		"How should we structure the plugin system for security, speed and UX?",
		"Should we use Redis or PostgreSQL for caching? We need to ship fast.",
		"GraphQL or REST for the public API?",
	}
	sentences := func(s string) int {
		n := 0
		for _, f := range strings.Fields(s) {
			if strings.HasSuffix(f, ".") || strings.HasSuffix(f, "?") || strings.HasSuffix(f, "!") {
				n++
			}
		}
		return n
	}
	offTopic, repeated := 0, 0
	for seed := int64(1); seed <= seeds; seed++ {
		for i, q := range questions {
			cfg := DefaultConfig()
			cfg.Debaters, cfg.TokenBudget = 0, 0 // the moderator's count; no cuts to a budget
			res := mustRun(t, llm.NewStub(seed), cfg, engine.Debate{ID: fmt.Sprintf("words-%d-%d", seed, i), Proposition: q}, nil)
			for _, u := range res.Transcript {
				if u.Kind != KindArgument && u.Kind != KindRebuttal {
					continue
				}
				if strings.Contains(u.Content, "broader point about") {
					offTopic++
				}
				if strings.HasSuffix(u.Content, "I stand by every word of that.") {
					repeated++
				}
				if n := len(strings.Fields(u.Content)); n < 120 || n > 220 {
					t.Errorf("seed %d, %q, round %d: %s's %s has %d words; the prompt asks for 120-220:\n%s", seed, q, u.Exchange, u.Speaker, u.Kind, n, u.Content)
				}
			}
			for _, r := range res.Rounds {
				if n := sentences(r.Judgment.Summary); !r.Judgment.Fallback && (n < 2 || n > 4) {
					t.Errorf("seed %d, %q, round %d: the judgment's summary has %d sentences; the prompt asks for two to four:\n%s", seed, q, r.Number, n, r.Judgment.Summary)
				}
			}
		}
	}
	if offTopic == 0 || repeated == 0 {
		t.Errorf("seeds 1 to %d: %d arguments off topic, %d repeated; the sample needs both", seeds, offTopic, repeated)
	}
}
