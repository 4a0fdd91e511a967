package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/engine/enginetest"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// judged is a format of judgments only: one stored step per case, each
// judging with [engine.Judge] and storing the verdict or its default.
type judged struct {
	Cases []string `json:"cases"`
}

func (*judged) Name() string { return "judged" }

type verdict struct {
	OK bool `json:"ok"`
}

const verdictSchema = `{"type": "object", "additionalProperties": false, "required": ["ok"], "properties": {"ok": {"type": "boolean"}}}`

func parseVerdict(reply string) (verdict, error) {
	var v struct {
		OK *bool `json:"ok"`
	}
	if err := json.Unmarshal([]byte(reply), &v); err != nil {
		return verdict{}, fmt.Errorf("not a JSON object: %v", err)
	}
	if v.OK == nil {
		return verdict{}, errors.New(`"ok" is missing`)
	}
	return verdict{OK: *v.OK}, nil
}

// Play returns the defaulted cases.
func (f *judged) Play(ctx context.Context, s *engine.Session) ([]string, error) {
	var defaulted []string
	err := s.Segment(ctx, "judging", func(ctx context.Context) error {
		for _, c := range f.Cases {
			var out struct {
				Verdict   verdict `json:"verdict"`
				Defaulted bool    `json:"defaulted"`
			}
			if _, err := s.Step(ctx, "judge:"+c, "judgment", engine.SpeakerArbiter, &out, func(ctx context.Context) (any, llm.Usage, error) {
				req := llm.Request{Purpose: "verdict", Schema: json.RawMessage(verdictSchema), MaxTokens: 50,
					Messages: []llm.Message{{Role: llm.User, Content: "case:" + c}}}
				v, res, usage, err := engine.Judge(ctx, s, req, "judging", engine.SpeakerArbiter, parseVerdict)
				out.Verdict, out.Defaulted = v, res.Defaulted
				return out, usage, err
			}, nil); err != nil {
				return err
			}
			if out.Defaulted {
				defaulted = append(defaulted, c)
			}
			if _, err := s.Record(ctx, "say:"+c, engine.Utterance{Speaker: engine.SpeakerArbiter, Segment: "judging",
				Kind: engine.KindInterjection, Content: fmt.Sprintf("%s: %v", c, out.Verdict.OK), Defaulted: out.Defaulted}); err != nil {
				return err
			}
		}
		return nil
	})
	return defaulted, err
}

// scripted answers "case:<name>" requests: first replies at once, reask
// after one bad reply, cut after one reply cut at its cap, never never.
type scripted struct {
	mu   sync.Mutex
	reqs []llm.Request
}

func (c *scripted) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	c.mu.Lock()
	c.reqs = append(c.reqs, req)
	c.mu.Unlock()
	again := len(req.Messages) > 1
	good := llm.Response{Content: `{"ok": true}`, FinishReason: "stop", Usage: llm.Usage{PromptTokens: 10, CompletionTokens: 3}}
	switch req.Messages[0].Content {
	case "case:first":
		return good, nil
	case "case:reask":
		if again {
			return good, nil
		}
		return llm.Response{Content: `{"fine": true}`, FinishReason: "stop"}, nil
	case "case:cut":
		if again {
			return good, nil
		}
		return llm.Response{Content: `{"ok": tr`, FinishReason: llm.FinishLength}, nil
	}
	return llm.Response{Content: strings.Repeat("I think so. ", 500), FinishReason: "stop"}, nil
}

func TestJudge(t *testing.T) {
	c := &scripted{}
	mem := store.NewMemory()
	var ended []engine.Ended
	sink := engine.SinkFunc(func(_ context.Context, e engine.Event) {
		if e.Type == engine.EventDebateEnded {
			v, err := engine.DataAs[engine.Ended](e)
			if err != nil {
				t.Error(err)
			}
			ended = append(ended, v)
		}
	})
	f := &judged{Cases: []string{"first", "reask", "cut", "never"}}
	res, err := engine.Run(context.Background(), c, f, engine.Debate{ID: "j", Proposition: "p"}, engine.WithStore(mem), engine.WithSink(sink))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"never"}, res.Detail); diff != "" {
		t.Errorf("defaulted cases (-want +got):\n%s", diff)
	}
	want := map[string]engine.JudgmentCounts{"verdict": {First: 1, Reasked: 2, Defaulted: 1, Truncated: 1}}
	if diff := cmp.Diff(want, res.Judgments); diff != "" {
		t.Errorf("Result.Judgments (-want +got):\n%s", diff)
	}
	if len(ended) != 1 {
		t.Fatalf("%d debate_ended events", len(ended))
	}
	if diff := cmp.Diff(want, ended[0].Judgments); diff != "" {
		t.Errorf("Ended.Judgments (-want +got):\n%s", diff)
	}
	// Seven calls: one, two, two, two; each re-ask quotes the bad reply
	// clipped and says what was wrong.
	if len(c.reqs) != 7 {
		t.Fatalf("%d calls, want 7", len(c.reqs))
	}
	for _, req := range c.reqs {
		if len(req.Messages) == 1 {
			continue
		}
		if len(req.Messages) != 3 {
			t.Fatalf("a re-ask has %d messages, want 3", len(req.Messages))
		}
		quoted, ask := req.Messages[1], req.Messages[2]
		if quoted.Role != llm.Assistant || utf8.RuneCountInString(quoted.Content) > engine.MaxQuotedReply+1 {
			t.Errorf("re-ask quotes %d runes as %s, want at most %d", utf8.RuneCountInString(quoted.Content), quoted.Role, engine.MaxQuotedReply+1)
		}
		switch req.Messages[0].Content {
		case "case:cut":
			if !strings.Contains(ask.Content, "cut off") {
				t.Errorf("the re-ask of a cut reply does not say it was cut: %q", ask.Content)
			}
		case "case:reask":
			if !strings.Contains(ask.Content, `"ok" is missing`) {
				t.Errorf("the re-ask does not state the problem: %q", ask.Content)
			}
			if !strings.Contains(ask.Content, `against the schema: $: missing required property "ok"`) {
				t.Errorf("the re-ask does not name the schema's violations: %q", ask.Content)
			}
		}
		if req.Schema == nil || req.MaxTokens != 50 {
			t.Errorf("a re-ask lost the schema or the cap: %+v", req)
		}
	}

	// A finished debate resumed counts the judgments of its stored steps.
	again, err := engine.Resume(context.Background(), c, &judged{}, "j", engine.WithStore(mem))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, again.Judgments); diff != "" {
		t.Errorf("resumed Result.Judgments (-want +got):\n%s", diff)
	}
}

func TestJudgedKeepsTheContract(t *testing.T) {
	enginetest.Run(t, func() engine.Format[[]string] {
		return &judged{Cases: []string{"first", "reask", "cut", "never", "first2"}}
	},
		enginetest.Config{Client: func() llm.Client { return &scripted{} }})
}

func TestWithMaxTokens(t *testing.T) {
	c := &scripted{}
	_, err := engine.Run(context.Background(), c, &judged{Cases: []string{"first"}}, engine.Debate{Proposition: "p"},
		engine.WithMaxTokens(map[string]int{"verdict": 7}))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.reqs[0].MaxTokens; got != 7 {
		t.Errorf("MaxTokens %d, want the host's 7", got)
	}
	_, err = engine.Run(context.Background(), c, &judged{Cases: []string{"first"}}, engine.Debate{Proposition: "p"},
		engine.WithMaxTokens(map[string]int{"verdict": -1}))
	if err == nil {
		t.Error("a negative cap was accepted")
	}
}

func TestArgumentExtractionSchemaIsStrict(t *testing.T) {
	enginetest.StrictSchema(t, engine.PurposeArgumentExtraction, json.RawMessage(engine.ArgumentExtractionSchema))
}

func TestStrictSchemaProblems(t *testing.T) {
	for _, c := range []struct {
		name, schema string
		problems     int
	}{
		{"strict", verdictSchema, 0},
		{"not an object at the root", `{"type": "array", "items": {"type": "string"}}`, 1},
		{"open object", `{"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}}`, 1},
		{"optional property", `{"type": "object", "additionalProperties": false, "required": [], "properties": {"a": {"type": "string"}}}`, 1},
		{"nested open object", `{"type": "object", "additionalProperties": false, "required": ["a"], "properties": {"a": {"type": "array", "items": {"type": "object", "properties": {}}}}}`, 1},
		{"unsupported keyword", `{"type": "object", "additionalProperties": false, "required": ["a"], "properties": {"a": {"type": "string", "not": {"const": ""}}}}`, 1},
		{"not JSON", `{`, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := enginetest.StrictSchemaProblems(json.RawMessage(c.schema)); len(got) != c.problems {
				t.Errorf("%d problems, want %d: %q", len(got), c.problems, got)
			}
		})
	}
}

// contextEnd answers every call with JSON cut short after 12 completion
// tokens, under a cap of 50: the server's context ended, not the cap.
type contextEnd struct{}

func (contextEnd) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	return llm.Response{Content: `{"ok": tr`, FinishReason: llm.FinishLength,
		Usage: llm.Usage{PromptTokens: 4084, CompletionTokens: 12}}, nil
}

// TestCutByTheContextSaysSo: a reply stopped by the end of the model's
// context (fewer completion tokens than its cap) is reported and logged as
// that, not as cut at its cap.
func TestCutByTheContextSaysSo(t *testing.T) {
	var logs strings.Builder
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	var problems []string
	f := &judged{Cases: []string{"full"}}
	_, err := engine.Run(t.Context(), contextEnd{}, f, engine.Debate{ID: "c", Proposition: "p"}, engine.WithLogger(logger),
		engine.WithSink(engine.SinkFunc(func(context.Context, engine.Event) {})))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "judgment unusable") {
			problems = append(problems, line)
		}
	}
	if len(problems) != 1 || !strings.Contains(problems[0], "cut off by the end of the model's context after 12 tokens, before its limit of 50") {
		t.Errorf("the defaulted judgment's problem %q does not say the context ended", problems)
	}
	if !strings.Contains(logs.String(), "the model's context is full") || strings.Contains(logs.String(), "cut at its token cap") {
		t.Errorf("the log does not warn of a full context:\n%s", logs.String())
	}
}

// capture answers every call with {"t": "x"} and keeps the requests.
type capture struct{ reqs []llm.Request }

func (c *capture) Complete(_ context.Context, req llm.Request) (llm.Response, error) {
	c.reqs = append(c.reqs, req)
	return llm.Response{Content: `{"t": "x"}`, FinishReason: "stop"}, nil
}

// TestJudgeCapFitsTheSchema: a judgment's cap is raised to fit the longest
// reply its schema allows, never lowered; a schema that bounds no reply
// leaves it as it is.
func TestJudgeCapFitsTheSchema(t *testing.T) {
	bounded := `{"type": "object", "additionalProperties": false, "required": ["t"], "properties": {"t": {"type": "string", "maxLength": 600}}}`
	unbounded := `{"type": "object", "additionalProperties": false, "required": ["t"], "properties": {"t": {"type": "string"}}}`
	fit, err := engine.SchemaTokens(json.RawMessage(bounded))
	if err != nil || fit != (len(`{"t":""}`)+600+2)/3+16 {
		t.Fatalf("SchemaTokens = %d, %v", fit, err)
	}
	if _, err := engine.SchemaTokens(json.RawMessage(unbounded)); err == nil || !strings.Contains(err.Error(), "#/properties/t: a string without maxLength") {
		t.Errorf("SchemaTokens of an unbounded schema: %v", err)
	}
	for _, tt := range []struct {
		name, schema string
		cap, want    int
	}{
		{"raised", bounded, 50, fit},
		{"kept when higher", bounded, 5000, 5000},
		{"kept when unbounded", unbounded, 50, 50},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := &capture{}
			parse := func(string) (struct{}, error) { return struct{}{}, nil }
			req := llm.Request{Purpose: "p", Schema: json.RawMessage(tt.schema), MaxTokens: tt.cap, Messages: []llm.Message{{Role: llm.User, Content: "?"}}}
			if _, _, _, err := engine.JudgeWith(t.Context(), c, req, parse); err != nil {
				t.Fatal(err)
			}
			if got := c.reqs[0].MaxTokens; got != tt.want {
				t.Errorf("MaxTokens = %d, want %d", got, tt.want)
			}
		})
	}
}
