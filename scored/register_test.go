package scored

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
)

// storedSpec starts a debate of f with a model that fails at once, so that
// only its first record is stored, and returns the configuration stored.
func storedSpec(t *testing.T, f engine.Format[engine.Outcome]) json.RawMessage {
	t.Helper()
	down := llmtest.New()
	down.Default().Fail(errors.New("down"))
	st := store.NewMemory()
	if _, err := engine.Run(t.Context(), down, f, testIdea, engine.WithStore(st)); err == nil {
		t.Fatal("the debate played with a model that is down")
	}
	sum, err := engine.Inspect(t.Context(), st, testIdea.ID)
	if err != nil {
		t.Fatal(err)
	}
	return sum.Spec
}

func TestRegistered(t *testing.T) {
	if !slices.Contains(engine.Formats(), FormatName) {
		t.Fatalf("engine.Formats() = %v, without %q", engine.Formats(), FormatName)
	}
}

// TestOpen opens the format by name: a configuration left out, or a field
// left out, takes the defaults; the stored configuration is the Config's
// JSON, which opens the same format again.
func TestOpen(t *testing.T) {
	custom := []Category{{ID: "team", Name: "Team", AdvocatePosition: "Strong", ChallengerPosition: "Weak"}}
	tests := []struct {
		name   string
		config string
		want   func(*Config)
	}{
		{"nil", "", func(*Config) {}},
		{"null", "null", func(*Config) {}},
		{"empty", "{}", func(*Config) {}},
		{"fields left out take the defaults", `{"maxAdjustment": 2, "scale": {"max": 20}, "arbiterModel": "judge"}`,
			func(c *Config) {
				c.MaxAdjustment, c.Scale.Max, c.ArbiterModel = 2, 20, "judge"
				c.Evaluations = NeutralEvaluations(c.Categories, c.Scale)
			}},
		{"zero fields take the defaults", `{"maxAttempts": 0, "categories": [], "evaluations": {}}`, func(*Config) {}},
		{"evaluations given replace the default ones", `{"evaluations": {"problem": {"score": 7}, "solution": {"score": 3}, "market": {"score": 2}}}`,
			func(c *Config) {
				c.Evaluations = map[string]Evaluation{"problem": {Score: 7}, "solution": {Score: 3}, "market": {Score: 2}}
			}},
		{"host categories without evaluations start neutral",
			`{"categories": [{"id": "team", "name": "Team", "advocatePosition": "Strong", "challengerPosition": "Weak"}]}`,
			func(c *Config) { c.Categories, c.Evaluations = custom, NeutralEvaluations(custom, c.Scale) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var config json.RawMessage
			if tt.config != "" {
				config = json.RawMessage(tt.config)
			}
			f, err := engine.Open(FormatName, config)
			if err != nil {
				t.Fatal(err)
			}
			want := DefaultConfig()
			tt.want(&want)
			wantJSON, err := json.Marshal(want)
			if err != nil {
				t.Fatal(err)
			}
			spec := storedSpec(t, f)
			if diff := cmp.Diff(string(wantJSON), string(spec)); diff != "" {
				t.Errorf("stored configuration (-want +got):\n%s", diff)
			}
			again, err := engine.Open(FormatName, spec)
			if err != nil {
				t.Fatalf("the stored configuration does not open: %v", err)
			}
			if diff := cmp.Diff(string(spec), string(storedSpec(t, again))); diff != "" {
				t.Errorf("reopened, stores (-first +again):\n%s", diff)
			}
		})
	}
}

// TestOpenRunsOnTheStub: the default debate, opened by name, plays offline
// and its outcome is an engine.Outcome.
func TestOpenRunsOnTheStub(t *testing.T) {
	f, err := engine.Open(FormatName, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(t.Context(), llm.NewStub(1), f, testIdea)
	if err != nil {
		t.Fatal(err)
	}
	out, ok := res.Detail.(*Outcome)
	if !ok || len(out.Rounds) != 3 || res.Format != FormatName {
		t.Fatalf("detail %T of %d rounds, format %q", res.Detail, len(out.Rounds), res.Format)
	}
	if v := res.Detail.Verdict(); v.Winner != SpeakerAdvocate {
		t.Errorf("verdict %+v, want the advocate's (stub seed 1)", v)
	}
	if diff := cmp.Diff(DefaultConfig(), out.Config); diff != "" {
		t.Errorf("config (-default +got):\n%s", diff)
	}
}

// TestOpenRefuses: a configuration Open cannot use is a
// *engine.ValidationError naming the field, and makes no format.
func TestOpenRefuses(t *testing.T) {
	tests := []struct {
		name, config, field string
	}{
		{"not an object", `[1, 2]`, "config"},
		{"not JSON", `{"maxAdjustment": `, "config"},
		{"an unknown field", `{"maxAdjustment": 2, "rounds": 3}`, "rounds"},
		{"a wrong type", `{"maxAttempts": "three"}`, "maxAttempts"},
		{"a wrong type inside", `{"scale": {"min": "low"}}`, "scale.min"},
		{"an invalid value", `{"maxAdjustment": 50}`, "maxAdjustment"},
		{"an evaluation missing", `{"evaluations": {"problem": {"score": 7}}}`, `evaluations["solution"]`},
		{"a score off the scale", `{"scale": {"max": 5}, "categories": [{"id": "team", "name": "Team", "advocatePosition": "Strong", ` +
			`"challengerPosition": "Weak"}], "evaluations": {"team": {"score": 7}}}`, `evaluations["team"].score`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := engine.Open(FormatName, json.RawMessage(tt.config))
			var ve *engine.ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, engine.ErrInvalidConfig) || ve.Format != FormatName || f != nil {
				t.Fatalf("Open(%s) = %v, %v; want no format and a *engine.ValidationError of %s", tt.config, f, err, FormatName)
			}
			var fields []string
			for _, v := range ve.Violations {
				fields = append(fields, v.Field)
			}
			if !slices.Contains(fields, tt.field) {
				t.Errorf("violations %v do not name %s", ve.Violations, tt.field)
			}
		})
	}
}

// TestUnknownFieldIsNamed: the error names the unknown field.
func TestUnknownFieldIsNamed(t *testing.T) {
	_, err := engine.Open(FormatName, json.RawMessage(`{"rounds": 3}`))
	var ve *engine.ValidationError
	if !errors.As(err, &ve) || len(ve.Violations) != 1 || ve.Violations[0].Field != "rounds" {
		t.Fatalf("err = %v, want one violation naming \"rounds\"", err)
	}
}

// TestNewZeroConfig: New(Config{}) is the default debate, and plays on the
// stub.
func TestNewZeroConfig(t *testing.T) {
	f := newFormat(t, Config{})
	if diff := cmp.Diff(DefaultConfig(), f.Config); diff != "" {
		t.Errorf("New(Config{}) (-default +got):\n%s", diff)
	}
	res, err := engine.Run(t.Context(), llm.NewStub(1), f, testIdea)
	if err != nil || len(res.Detail.Rounds) != 3 {
		t.Fatalf("New(Config{}) plays: %v", err)
	}
}

// TestFormatJSON: a Format's JSON is its Config's, and reads back, in the
// shape of today and in the {"config": ...} of earlier versions, with the
// defaults filled in.
func TestFormatJSON(t *testing.T) {
	cfg := testConfig().withDefaults()
	cfgJSON, _ := json.Marshal(cfg)
	for _, v := range []any{&Format{Config: cfg}, Format{Config: cfg}} {
		got, err := json.Marshal(v)
		if err != nil || string(got) != string(cfgJSON) {
			t.Errorf("json.Marshal(%T) = %s, %v; want the Config's JSON %s", v, got, err, cfgJSON)
		}
	}
	tests := []struct {
		name, json string
		want       Config
	}{
		{"the Config's JSON", string(cfgJSON), cfg},
		{"the old shape", `{"config": ` + string(cfgJSON) + `}`, cfg},
		{"an empty object", `{}`, DefaultConfig()},
		{"the old shape, empty", `{"config": {}}`, DefaultConfig()},
		{"unknown fields are ignored", `{"maxAttempts": 5, "later": true}`, func() Config { c := DefaultConfig(); c.MaxAttempts = 5; return c }()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &Format{Config: Config{Parallel: 9}}
			if err := json.Unmarshal([]byte(tt.json), f); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, f.Config); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
	if err := json.Unmarshal([]byte(`{"maxAttempts": "three"}`), &Format{}); err == nil {
		t.Error("a wrong type decodes")
	}
}

// oldSpec is the configuration as versions before the one surface stored
// it: {"config": {...}}. One category, maxAdjustment 2.
const oldSpec = `{"config":{"categories":[{"id":"problem","name":"Problem Validity","advocatePosition":"The problem is real and significant","challengerPosition":"The problem is overstated or niche"}],"evaluations":{"problem":{"score":6.5,"evidence":["12 of 15 clinic managers spend over 5 hours a week on scheduling"]}},"challenges":[{"category":"problem","text":"Clinics already use spreadsheets","severity":"medium"}],"advocateModel":"anthropic/claude-sonnet-4","challengerModel":"x-ai/grok-3","arbiterModel":"openai/gpt-4o","scale":{"min":1,"max":10},"maxAdjustment":2,"maxAttempts":3,"minArgumentWords":40}}`

// TestOldSpecResumes resumes a debate whose first record, as an earlier
// version wrote it, holds the old shape: with engine.Resume and
// &Format{}, and with engine.ResumeStored. It plays as the same
// configuration run today does.
func TestOldSpecResumes(t *testing.T) {
	at := func() time.Time { return time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC) }
	var old Format
	if err := json.Unmarshal([]byte(oldSpec), &old); err != nil {
		t.Fatal(err)
	}
	fresh, err := engine.Run(t.Context(), llm.NewStub(4), newFormat(t, old.Config), testIdea, engine.WithClock(at))
	if err != nil {
		t.Fatal(err)
	}
	head := store.Record{DebateID: testIdea.ID, Seq: 1, Time: at(), Type: engine.RecordDebate,
		Data: json.RawMessage(`{"key":"debate","value":{"version":2,"format":"scored","debate":{"id":"idea-1",` +
			`"proposition":"A scheduling assistant for small clinics","context":"Two founders, one a former clinic manager."},` +
			`"spec":` + oldSpec + `}}`)}
	resume := map[string]func(st store.Store) (*Outcome, error){
		"Resume": func(st store.Store) (*Outcome, error) {
			res, err := engine.Resume(t.Context(), llm.NewStub(4), &Format{}, testIdea.ID, engine.WithStore(st), engine.WithClock(at))
			if err != nil {
				return nil, err
			}
			return res.Detail, nil
		},
		"ResumeStored": func(st store.Store) (*Outcome, error) {
			res, err := engine.ResumeStored(t.Context(), llm.NewStub(4), testIdea.ID, engine.WithStore(st), engine.WithClock(at))
			if err != nil {
				return nil, err
			}
			return res.Detail.(*Outcome), nil
		},
	}
	for name, resume := range resume {
		t.Run(name, func(t *testing.T) {
			st := store.NewMemory()
			if err := st.Append(t.Context(), head); err != nil {
				t.Fatal(err)
			}
			got, err := resume(st)
			if err != nil {
				t.Fatal(err)
			}
			if got.Config.MaxAdjustment != 2 || len(got.Rounds) != 1 {
				t.Errorf("resumed with config %+v, %d rounds; want the stored one's", got.Config, len(got.Rounds))
			}
			if diff := cmp.Diff(fresh.Detail, got, ignoreSeq); diff != "" {
				t.Errorf("outcome (-run today +resumed):\n%s", diff)
			}
		})
	}
}
