package formal

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/store"
)

// "Step B — Set topic: If `topic` is non-empty in config: use that as the
// debate topic. If `topic` is empty: use `topic_prompt` from config as
// the topic, OR ask the user: "What should the debate topic be?"": a
// debate given no proposition takes the topic prompt, else asks its
// person (engine.Human, kind QuestionTopic); with nobody to ask it fails
// with ErrNoTopic before anything is stored.
func TestProposeAsksForTheTopic(t *testing.T) {
	errGone := errors.New("the terminal went away")
	for _, tc := range []struct {
		name       string
		topic      string // the debate's proposition
		prompt     string // Config.TopicPrompt
		answer     string
		humanErr   error
		noHuman    bool
		unattended bool
		want       string
		asked      bool
		err        error
	}{
		{name: "given", topic: "Should cities ban cars?", prompt: "Other?", want: "Should cities ban cars?"},
		{name: "the topic prompt", prompt: "Should cities ban cars?", want: "Should cities ban cars?"},
		{name: "asked", answer: "  Should cities ban cars?  ", want: "Should cities ban cars?", asked: true},
		{name: "a blank answer", answer: " ", asked: true, err: ErrNoTopic},
		{name: "nobody to ask", noHuman: true, err: ErrNoTopic},
		{name: "unattended", unattended: true, err: ErrNoTopic},
		{name: "the person pauses", humanErr: engine.ErrPaused, asked: true, err: engine.ErrPaused},
		{name: "the person fails", humanErr: errGone, asked: true, err: errGone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var questions []engine.Question
			human := engine.HumanFunc(func(_ context.Context, q engine.Question) (engine.Answer, error) {
				questions = append(questions, q)
				return engine.Answer{Text: tc.answer}, tc.humanErr
			})
			cfg := testConfig()
			cfg.TopicPrompt = tc.prompt
			st := store.NewMemory()
			opts := []engine.Option{engine.WithStore(st), engine.WithClock(fixedClock())}
			if !tc.noHuman {
				opts = append(opts, engine.WithHuman(human))
			}
			d := engine.Debate{ID: "fd-topic", Proposition: tc.topic, Unattended: tc.unattended}
			res, err := engine.Run(t.Context(), newFake(2, nil), newFormat(t, cfg, (&fakeVerifier{}).option()), d, opts...)
			if tc.asked != (len(questions) == 1) || len(questions) > 1 {
				t.Errorf("asked %+v", questions)
			}
			if len(questions) == 1 && !reflect.DeepEqual(questions[0], engine.Question{Kind: engine.QuestionTopic, Text: "What should the debate topic be?"}) {
				t.Errorf("asked %+v", questions[0])
			}
			if tc.err != nil {
				if !errors.Is(err, tc.err) || res != nil {
					t.Errorf("Run: %v, result %v; want %v", err, res, tc.err)
				}
				if _, err := st.Records(t.Context(), d.ID); !errors.Is(err, store.ErrNotFound) {
					t.Errorf("the debate was stored: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Debate.Proposition != tc.want || !strings.HasSuffix(res.Detail.Entries[1].Content, "Topic: "+tc.want) {
				t.Errorf("debated %q (%q), want %q", res.Debate.Proposition, res.Detail.Entries[1].Content, tc.want)
			}
		})
	}
}

// The seed's config/debate-config.json is read, and written back with the
// topic and the output directory, its other fields kept in their order.
func TestSeedConfig(t *testing.T) {
	const file = `{
  "topic": "",
  "topic_prompt": "Should cities ban cars?",
  "min_rounds": 2,
  "max_rounds": 4,
  "models": {"chair": "anthropic/claude-sonnet-4", "promoter": "openai/gpt-4o"},
  "output_dir": null
}`
	sc, err := ParseSeedConfig([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Topic != "" || sc.TopicPrompt != "Should cities ban cars?" || sc.MinRounds != 2 || sc.MaxRounds != 4 || sc.OutputDir != "" {
		t.Errorf("read %+v", sc)
	}
	cfg := sc.Apply(DefaultConfig())
	if cfg.TopicPrompt != "Should cities ban cars?" || cfg.MinRounds != 2 || cfg.MaxRounds != 4 {
		t.Errorf("applied: %+v", cfg)
	}
	path := filepath.Join(t.TempDir(), "debate-config.json")
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	sc, err = LoadSeedConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	sc.Topic, sc.OutputDir = "Should cities ban cars?", "output/20260221T140000Z-should-cities-ban-cars-"
	if err := SaveSeedConfig(path, sc); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := `{
  "topic": "Should cities ban cars?",
  "topic_prompt": "Should cities ban cars?",
  "min_rounds": 2,
  "max_rounds": 4,
  "models": {
    "chair": "anthropic/claude-sonnet-4",
    "promoter": "openai/gpt-4o"
  },
  "output_dir": "output/20260221T140000Z-should-cities-ban-cars-"
}
`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("written back (-want +got):\n%s", diff)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v; the file's was 0600", fi.Mode().Perm())
	}
	// A file without them gains topic and output_dir.
	sc, _ = ParseSeedConfig([]byte(`{"max_rounds": 3}`))
	sc.Topic, sc.OutputDir = "T", "output/x"
	b, _ := sc.MarshalJSON()
	if string(b) != "{\n  \"max_rounds\": 3,\n  \"topic\": \"T\",\n  \"output_dir\": \"output/x\"\n}" {
		t.Errorf("written %s", b)
	}
}

func TestParseSeedConfigRejects(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`[]`, "not a JSON object"},
		{``, "not a JSON object"},
		{`{"topic": 7}`, `"topic": want a string`},
		{`{"min_rounds": "3"}`, `"min_rounds": want a non-negative integer`},
		{`{"max_rounds": -1}`, `"max_rounds": want a non-negative integer`},
		{`{"max_rounds": 2.5}`, `"max_rounds": want a non-negative integer`},
		{`{"topic": "a"} {}`, "more than one JSON value"},
		{`{"topic": "a"`, "invalid debate config"},
	} {
		_, err := ParseSeedConfig([]byte(tc.in))
		if !errors.Is(err, ErrInvalidSeedConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseSeedConfig(%s) = %v; want %q", tc.in, err, tc.want)
		}
	}
}

// A configuration that parses is written back as a JSON object that
// parses to the same values, every field it had kept.
func FuzzParseSeedConfig(f *testing.F) {
	for _, s := range []string{
		`{"topic": "", "topic_prompt": "Why?", "min_rounds": 2, "max_rounds": 4, "output_dir": ""}`,
		`{"models": {"chair": "x"}, "topic": null, "extra": [1, 2, {"a": "<b>"}]}`,
		`{"topic": "a", "topic": "b"}`,
		`{}`, `{"max_rounds": 1e2}`, `{"topic": "\u00e9\ud83d\ude00"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := ParseSeedConfig(data)
		if err != nil {
			if !errors.Is(err, ErrInvalidSeedConfig) {
				t.Fatalf("error %v does not wrap ErrInvalidSeedConfig", err)
			}
			return
		}
		out, err := sc.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseSeedConfig(out)
		if err != nil {
			t.Fatalf("written back %s does not parse: %v", out, err)
		}
		if again.Topic != sc.Topic || again.TopicPrompt != sc.TopicPrompt || again.MinRounds != sc.MinRounds ||
			again.MaxRounds != sc.MaxRounds || again.OutputDir != sc.OutputDir {
			t.Errorf("read %+v, written back and read %+v", sc, again)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatal(err)
		}
		for _, f := range sc.fields {
			if _, ok := m[f.name]; !ok {
				t.Errorf("field %q lost", f.name)
			}
		}
	})
}
