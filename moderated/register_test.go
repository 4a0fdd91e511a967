package moderated

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/storetest"
)

// storedSpec is the configuration stored with debate id.
func storedSpec(t *testing.T, st store.Store, id string) json.RawMessage {
	t.Helper()
	sum, err := engine.Inspect(t.Context(), st, id)
	if err != nil {
		t.Fatal(err)
	}
	return sum.Spec
}

// configOf is the configuration an opened format runs with: the one it
// stores.
func configOf(t *testing.T, f engine.Format[engine.Outcome]) Config {
	t.Helper()
	// The store fails after the debate's first record: nothing is played.
	st := store.NewMemory()
	if _, err := engine.Run(t.Context(), llm.NewStub(1), f, engine.Debate{ID: "spec", Proposition: "Which cache?"},
		engine.WithStore(storetest.FailAfter(st, 1, errDisk))); !errors.Is(err, errDisk) {
		t.Fatalf("run: %v", err)
	}
	var stored Format
	if err := json.Unmarshal(storedSpec(t, st, "spec"), &stored); err != nil {
		t.Fatal(err)
	}
	return stored.Config
}

// TestOpen: engine.Open("moderated", config) is the format with
// DefaultConfig and the fields config gives; a bad configuration is an
// *engine.ValidationError naming its fields, and nothing is played.
func TestOpen(t *testing.T) {
	if !slices.Contains(engine.Formats(), FormatName) {
		t.Fatalf("formats %v lack %q", engine.Formats(), FormatName)
	}
	tests := []struct {
		name   string
		config string
		modify func(*Config) // of DefaultConfig; nil: an error
		fields []string      // the error's fields
	}{
		{"nil", "", func(*Config) {}, nil},
		{"null", "null", func(*Config) {}, nil},
		{"empty", "{}", func(*Config) {}, nil},
		{"partial", `{"maxRounds": 3, "roundTimeout": 90, "tokenBudget": "unlimited", "debaters": 0}`, func(c *Config) {
			c.MaxRounds, c.RoundTimeout, c.TokenBudget, c.Debaters = 3, 90*time.Second, 0, 0
		}, nil},
		{"the case of a name", `{"MaxRounds": 4}`, func(c *Config) { c.MaxRounds = 4 }, nil},
		{"unknown fields", `{"maxRounds": 3, "colour": "red", "customPerspectives": [{"name": "X", "priorities": ["y"], "weight": 2}]}`, nil,
			[]string{"colour", "customPerspectives[0].weight"}},
		{"the stored shape of earlier versions", `{"config": {"maxRounds": 3}}`, nil, []string{"config"}},
		{"wrong type", `{"maxRounds": "three"}`, nil, []string{"maxRounds"}},
		{"not an object", `[1]`, nil, []string{"config"}},
		{"invalid value", `{"maxRounds": 30, "debaterModels": [""]}`, nil, []string{"debaterModels[0]", "maxRounds"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := engine.Open(FormatName, json.RawMessage(tt.config))
			if tt.modify == nil {
				var ve *engine.ValidationError
				if !errors.As(err, &ve) || !errors.Is(err, engine.ErrInvalidConfig) || f != nil {
					t.Fatalf("Open: %v, %v; want a validation error", f, err)
				}
				var fields []string
				for _, v := range ve.Violations {
					fields = append(fields, v.Field)
				}
				if diff := cmp.Diff(tt.fields, fields); diff != "" {
					t.Errorf("fields (-want +got):\n%s\n%v", diff, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := DefaultConfig()
			tt.modify(&want)
			if diff := cmp.Diff(want, configOf(t, f)); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOpenRunsAndReopens: the default format from engine.Open plays on the
// stub; its stored configuration is the Config's JSON, which Open takes
// back to the same configuration, and which engine.ResumeStored resumes.
func TestOpenRunsAndReopens(t *testing.T) {
	ctx := t.Context()
	st := store.NewMemory()
	f, err := engine.Open(FormatName, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(ctx, llm.NewStub(1), f, cachingQuestion, engine.WithStore(st))
	if err != nil {
		t.Fatal(err)
	}
	o, ok := res.Detail.(*Outcome)
	if !ok || o.Synthesis.Recommendation == "" || res.Format != FormatName {
		t.Fatalf("detail %T %+v", res.Detail, res.Detail)
	}
	spec := storedSpec(t, st, cachingQuestion.ID)
	want, _ := json.Marshal(DefaultConfig())
	if string(spec) != string(want) {
		t.Errorf("stored spec\n%s\nwant the Config's JSON\n%s", spec, want)
	}
	g, err := engine.Open(FormatName, spec)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(DefaultConfig(), configOf(t, g)); diff != "" {
		t.Errorf("reopened (-want +got):\n%s", diff)
	}
	again, err := engine.ResumeStored(ctx, llm.NewStub(1), cachingQuestion.ID, engine.WithStore(st))
	if err != nil || again.Detail.Verdict() != o.Verdict() {
		t.Errorf("ResumeStored of the finished debate: %v, %+v", err, again)
	}
}

// TestFormatJSON: a Format is stored as its Config's JSON; it reads that,
// and the shape earlier versions stored ({"config": ...}, with fields of a
// front end beside it), so their debates resume.
func TestFormatJSON(t *testing.T) {
	cfg := testConfig()
	cfg.RoundTimeout = 90 * time.Second
	f, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(f.Config)
	if string(got) != string(want) || !strings.Contains(string(got), `"roundTimeout":90,`) || !strings.Contains(string(got), `"debaters":0,`) {
		t.Errorf("a Format's JSON %s; want its Config's %s", got, want)
	}
	for _, data := range []string{
		string(want),
		`{"config":` + string(want) + `}`,
		`{"config":` + string(want) + `,"unattended":true}`,
	} {
		var back Format
		if err := json.Unmarshal([]byte(data), &back); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(f.Config, back.Config); diff != "" {
			t.Errorf("%.40s… read back (-want +got):\n%s", data, diff)
		}
	}
	var bad Format
	if err := json.Unmarshal([]byte(`{"config": {"roundTimeout": "soon"}}`), &bad); !errors.Is(err, engine.ErrInvalidConfig) {
		t.Errorf("a bad duration in the old shape: %v", err)
	}
}

// oldShape is the moderated format stored as earlier versions stored it:
// {"config": {...}}, durations in seconds.
type oldShape struct{ *Format }

const oldSpec = `{"config":{"moderatorModel":"openai/gpt-4o","debaterModels":["anthropic/claude-sonnet-4","x-ai/grok-3"],` +
	`"debaters":2,"maxRounds":2,"tokenBudget":2000,"roundTimeout":120,"checkpointTimeout":1800,"totalTimeout":1800}}`

func (oldShape) MarshalJSON() ([]byte, error) { return []byte(oldSpec), nil }

// TestResumeTheOldShape: a debate stored by an earlier version, its
// configuration in the old shape, resumes with engine.ResumeStored.
func TestResumeTheOldShape(t *testing.T) {
	ctx := t.Context()
	st := store.NewMemory()
	f, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := engine.Run(ctx, llm.NewStub(1), oldShape{f}, cachingQuestion, engine.WithStore(storetest.FailAfter(st, 6, errDisk))); !errors.Is(err, errDisk) {
		t.Fatalf("run: %v", err)
	}
	if spec := storedSpec(t, st, cachingQuestion.ID); string(spec) != oldSpec {
		t.Fatalf("stored %s", spec)
	}
	res, err := engine.ResumeStored(ctx, llm.NewStub(1), cachingQuestion.ID, engine.WithStore(st))
	if err != nil {
		t.Fatal(err)
	}
	o := res.Detail.(*Outcome)
	if o.Config.MaxRounds != 2 || len(o.Config.DebaterModels) != 2 || o.Config.RoundTimeout != 2*time.Minute || len(o.Rounds) == 0 {
		t.Errorf("resumed with %+v, %d rounds", o.Config, len(o.Rounds))
	}
}
