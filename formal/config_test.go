package formal

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
)

func TestDefaultConfig(t *testing.T) {
	cfg := DefaultConfig()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, s := range []Speaker{SpeakerChair, SpeakerPromoter, SpeakerDetractor, SpeakerVerifier, SpeakerAudience, SpeakerReporter, SpeakerAssessor} {
		if cfg.Model(s) == "" {
			t.Errorf("no model for %s", s)
		}
	}
	if cfg.ChairModel == cfg.PromoterModel || cfg.ChairModel == cfg.DetractorModel || cfg.PromoterModel == cfg.DetractorModel {
		t.Error("the chair and the debaters share a model")
	}
	if cfg.Model("judge") != "" {
		t.Error("a model for an unknown participant")
	}
	// A partial document changes only what it names.
	if err := json.Unmarshal([]byte(`{"maxRounds": 8, "timeBudget": 600000000000, "outputDir": "out"}`), &cfg); err != nil {
		t.Fatal(err)
	}
	want := DefaultConfig()
	want.MaxRounds, want.TimeBudget, want.OutputDir = 8, 10*time.Minute, "out"
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*Config)
		want   []engine.Violation
	}{
		{"min 0", func(c *Config) { c.MinRounds = 0 }, []engine.Violation{{Field: "minRounds", Problem: "0; must be at least 1"}}},
		{"max below min", func(c *Config) { c.MinRounds, c.MaxRounds = 4, 3 }, []engine.Violation{{Field: "maxRounds", Problem: "3; must be at least minRounds (4)"}}},
		{"max too high", func(c *Config) { c.MaxRounds = MaxRoundsLimit + 1 }, []engine.Violation{{Field: "maxRounds", Problem: "21; must be at most 20"}}},
		{"everything", func(c *Config) {
			*c = Config{MinRounds: -1, MaxRounds: -2, TimeBudget: -time.Second, ChairModel: "c"}
		}, []engine.Violation{
			{Field: "promoterModel", Problem: "empty"}, {Field: "detractorModel", Problem: "empty"},
			{Field: "verifierModel", Problem: "empty"}, {Field: "audienceModel", Problem: "empty"},
			{Field: "reporterModel", Problem: "empty"}, {Field: "assessorModel", Problem: "empty"},
			{Field: "minRounds", Problem: "-1; must be at least 1"}, {Field: "maxRounds", Problem: "-2; must be at least minRounds (-1)"},
			{Field: "timeBudget", Problem: "-1s; must not be negative"},
		}},
		{"blank model", func(c *Config) { c.VerifierModel = " " }, []engine.Violation{{Field: "verifierModel", Problem: "empty"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tc.change(&cfg)
			err := cfg.Validate()
			var ve *engine.ValidationError
			if !errors.Is(err, engine.ErrInvalidConfig) || !errors.As(err, &ve) || ve.Format != FormatName {
				t.Fatalf("err = %v", err)
			}
			// New gives the zero fields their defaults first.
			_, nerr := New(cfg)
			if werr := cfg.withDefaults().Validate(); fmt.Sprint(nerr) != fmt.Sprint(werr) {
				t.Errorf("New: %v, want %v", nerr, werr)
			}
			if diff := cmp.Diff(tc.want, ve.Violations); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
	cfg := DefaultConfig()
	cfg.MinRounds, cfg.MaxRounds, cfg.TimeBudget = 20, 20, 0
	if err := cfg.Validate(); err != nil {
		t.Errorf("limits: %v", err)
	}
}

// TestFormatStoresItsConfig: a Format's JSON is its Config's, so the
// engine stores the configuration with the debate, and decoding it into
// another Format (as engine.Resume does) gives back every field, an empty
// output directory included.
func TestFormatStoresItsConfig(t *testing.T) {
	cfg := testConfig()
	cfg.TimeBudget = time.Minute
	f := newFormat(t, cfg, WithVerifier(JudgeOnly))
	got, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(cfg)
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("format JSON (-config +format):\n%s", diff)
	}
	other := DefaultConfig()
	other.OutputDir = "elsewhere"
	g := newFormat(t, other)
	if err := json.Unmarshal(got, g); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cfg, g.Config); diff != "" {
		t.Errorf("decoded config (-stored +decoded):\n%s", diff)
	}
	var _ engine.Format[*Outcome] = f
	var _ engine.Cast = f
	if diff := cmp.Diff([]string{"promoter", "detractor"}, f.Participants()); diff != "" {
		t.Errorf("participants (-want +got):\n%s", diff)
	}
	for speaker, want := range map[string]string{
		"promoter": "Promoter (affirmative)", "detractor": "Detractor (negative)", engine.SpeakerArbiter: "Chair", "audience": "Audience",
	} {
		if got := f.Label(speaker); got != want {
			t.Errorf("Label(%q) = %q, want %q", speaker, got, want)
		}
	}
	if f.JudgeModel() != cfg.ChairModel {
		t.Errorf("judge model %q", f.JudgeModel())
	}
}

// TestNewTakesDefaults: New gives a zero field DefaultConfig's value; the
// time budget, whose zero is "no budget", only with the rounds.
func TestNewTakesDefaults(t *testing.T) {
	def := DefaultConfig()
	for _, tc := range []struct {
		name string
		cfg  Config
		want func(*Config)
	}{
		{"zero", Config{}, func(*Config) {}},
		{"a model", Config{PromoterModel: "p"}, func(c *Config) { c.PromoterModel = "p" }},
		{"rounds, no budget", Config{MinRounds: 1, MaxRounds: 2}, func(c *Config) { c.MinRounds, c.MaxRounds, c.TimeBudget = 1, 2, 0 }},
		{"max rounds only", Config{MaxRounds: 4}, func(c *Config) { c.MaxRounds, c.TimeBudget = 4, 0 }},
		{"budget only", Config{TimeBudget: time.Minute}, func(c *Config) { c.TimeBudget = time.Minute }},
		{"default with no budget", func() Config { c := DefaultConfig(); c.TimeBudget = 0; return c }(), func(c *Config) { c.TimeBudget = 0 }},
		{"topic and output kept", Config{TopicPrompt: "t", OutputDir: "o"}, func(c *Config) { c.TopicPrompt, c.OutputDir = "t", "o" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := New(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			want := def
			tc.want(&want)
			if diff := cmp.Diff(want, f.Config); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
