package moderated

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/catalog"
	"github.com/duelogic/duelogic/engine"
)

// seedSettings is the seed's settings.amelia.yaml "debate" section, in
// JSON, with the custom perspective of its "Custom Perspectives".
const seedSettings = `{
  "debate": {
    "max_rounds": 4,
    "default_perspectives": 3,
    "token_budget_per_round": "unlimited",
    "round_timeout_seconds": 300,
    "checkpoint_timeout_seconds": "45m",
    "total_timeout_seconds": 3600,
    "custom_perspectives": [
      {"name": "Compliance First",
       "priorities": ["audit trails", "data residency", "SOC2 requirements"],
       "trade_offs": "Will accept development slowdown for compliance",
       "opposes": ["Ship Speed"]},
      {"name": "Ship Speed", "priorities": ["time to market"], "trade_offs": "Will accept rough edges for speed"}
    ]
  },
  "other_feature": {"anything": true}
}`

// TestSettingsFile: seed 004's configuration — "max_rounds",
// "default_perspectives", "token_budget_per_round: 2000 # Per-debater token
// limit, or "unlimited"", the timeouts and "custom_perspectives: # Extend
// the built-in catalog" — read from a settings file.
func TestSettingsFile(t *testing.T) {
	cfg, err := ParseSettings([]byte(seedSettings), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultConfig()
	want.MaxRounds, want.Debaters, want.TokenBudget = 4, 3, 0
	want.RoundTimeout, want.CheckpointTimeout, want.TotalTimeout = 5*time.Minute, 45*time.Minute, time.Hour
	want.CustomPerspectives = []catalog.FrameworkInfo{
		{ID: "compliance_first", Kind: catalog.KindPerspective, Name: "Compliance First", Description: "Will accept development slowdown for compliance",
			Priorities: []string{"audit trails", "data residency", "SOC2 requirements"}, TradeOffs: "Will accept development slowdown for compliance"},
		{ID: "ship_speed", Kind: catalog.KindPerspective, Name: "Ship Speed", Description: "Will accept rough edges for speed",
			Priorities: []string{"time to market"}, TradeOffs: "Will accept rough edges for speed"},
	}
	want.Opposites = [][2]catalog.Framework{{"compliance_first", "ship_speed"}}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Fatalf("config (-want +got):\n%s", diff)
	}
	// The custom perspectives join the catalog: a compliance question
	// seats Compliance First against its opposite.
	f := newFakeWith([]string{`{"debaters":2,"perspectives":["Compliance First"]}`}, texts("argument", 50), judgeAgree)
	cfg.Debaters = 2
	res := mustRun(t, f, cfg, engine.Debate{Proposition: "Should audit logs leave the EU region?"}, nil)
	if diff := cmp.Diff([]catalog.Framework{"compliance_first", "ship_speed"}, idsOf(res.Perspectives)); diff != "" {
		t.Errorf("seats (-want +got):\n%s", diff)
	}

	// The section may be the whole document; what it leaves out keeps
	// cfg's value; "auto" is the moderator's choice.
	cfg, err = ParseSettings([]byte(`{"default_perspectives": "auto", "token_budget_per_round": 1500}`), DefaultConfig())
	if err != nil || cfg.Debaters != 0 || cfg.TokenBudget != 1500 || cfg.MaxRounds != 5 {
		t.Errorf("bare section: %+v, %v", cfg, err)
	}
}

// TestSettingsErrorsNameTheField: every problem of a settings file is named
// by its path in the file.
func TestSettingsErrorsNameTheField(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []engine.Violation // Problem: a part of it
	}{
		{"not JSON", `debate: {max_rounds: 5}`, []engine.Violation{{Field: "settings", Problem: "not a JSON object"}}},
		{"debate not an object", `{"debate": [1]}`, []engine.Violation{{Field: "debate", Problem: "want an object of settings"}}},
		{"unknown setting", `{"debate": {"max_round": 5}}`, []engine.Violation{{Field: "debate.max_round", Problem: "unknown setting; known: max_rounds, default_perspectives"}}},
		{"wrong kinds", `{"debate": {"max_rounds": "five", "round_timeout_seconds": true, "token_budget_per_round": "lots", "default_perspectives": "many"}}`,
			[]engine.Violation{
				{Field: "debate.default_perspectives", Problem: `"many": want 2..4, or "auto"`},
				{Field: "debate.max_rounds", Problem: `want a whole number, not "five"`},
				{Field: "debate.round_timeout_seconds", Problem: "want a number of seconds"},
				{Field: "debate.token_budget_per_round", Problem: `"lots": want a number of tokens or "unlimited"`},
			}},
		{"out of range", `{"debate": {"max_rounds": 30, "default_perspectives": 7, "total_timeout_seconds": 0, "token_budget_per_round": -5}}`,
			[]engine.Violation{
				{Field: "debate.default_perspectives", Problem: "7: want 2..4"},
				{Field: "debate.max_rounds", Problem: "30: want 1..20"},
				{Field: "debate.token_budget_per_round", Problem: "-5 is negative"},
				{Field: "debate.total_timeout_seconds", Problem: "0s: want more than 0"},
			}},
		{"custom perspectives", `{"debate": {"custom_perspectives": [
			{"name": "Fine", "priorities": ["x"]},
			{"name": " ", "priorities": []},
			{"name": "Odd", "priorities": "x", "trade_off": "typo"},
			"just a name",
			{"name": "Bad ID", "id": "Bad ID", "priorities": ["y"]},
			{"name": "Lonely", "priorities": ["z"], "opposes": ["Nobody"]}]}}`,
			[]engine.Violation{
				{Field: "debate.custom_perspectives[1].name", Problem: "is empty"},
				{Field: "debate.custom_perspectives[1].priorities", Problem: "is empty"},
				{Field: "debate.custom_perspectives[2].trade_off", Problem: "unknown key"},
				{Field: "debate.custom_perspectives[2].priorities", Problem: "want a list of strings"},
				{Field: "debate.custom_perspectives[3]", Problem: "want an object"},
				{Field: "debate.custom_perspectives[5].opposes[0]", Problem: `"Nobody" is not another perspective`},
			}},
		{"invalid custom ID", `{"debate": {"custom_perspectives": [{"name": "Bad ID", "id": "Bad ID", "priorities": ["y"]}]}}`,
			[]engine.Violation{{Field: "debate.custom_perspectives[0]", Problem: "ID must be"}}},
		{"custom list", `{"debate": {"custom_perspectives": {"name": "x"}}}`,
			[]engine.Violation{{Field: "debate.custom_perspectives", Problem: "want a list of perspectives"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseSettings([]byte(tt.doc), DefaultConfig())
			var ve *engine.ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, engine.ErrInvalidConfig) {
				t.Fatalf("err = %v, want an *engine.ValidationError", err)
			}
			var got []engine.Violation
			for i, v := range ve.Violations {
				if i < len(tt.want) && strings.Contains(v.Problem, tt.want[i].Problem) {
					v.Problem = tt.want[i].Problem
				}
				got = append(got, v)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDefaultPerspectivesIsTwo: seed 004, "default_perspectives: 2 #
// Default number of debaters (2-4)": DefaultConfig seats two debaters even
// when the moderator asks for more; Debaters 0 leaves it to the moderator.
func TestDefaultPerspectivesIsTwo(t *testing.T) {
	three := `{"debaters":3,"perspectives":["Security Advocate","User Experience","Performance Advocate"]}`
	if DefaultConfig().Debaters != DefaultPerspectives || DefaultPerspectives != 2 {
		t.Fatalf("DefaultConfig().Debaters = %d", DefaultConfig().Debaters)
	}
	for _, tt := range []struct {
		debaters, want int
	}{{DefaultPerspectives, 2}, {0, 3}, {4, 4}} {
		cfg := DefaultConfig()
		cfg.MaxRounds = 1
		cfg.Debaters = tt.debaters
		res := mustRun(t, newFakeWith([]string{three}, texts("argument", 50), judgeAgree), cfg, cachingQuestion, nil)
		if len(res.Perspectives) != tt.want || len(res.Rounds[0].Arguments) != tt.want {
			t.Errorf("debaters %d: %d seated, want %d", tt.debaters, len(res.Perspectives), tt.want)
		}
	}
}

// FuzzParseSettings: any document gives a valid configuration or an
// *engine.ValidationError, never a panic.
func FuzzParseSettings(f *testing.F) {
	for _, s := range []string{seedSettings, `{}`, `{"debate": {}}`, `{"max_rounds": 1e3}`, `{"debate": {"custom_perspectives": [{"name": "A", "priorities": ["b"], "opposes": ["A", "performance_advocate"]}]}}`,
		`{"round_timeout_seconds": 1e300}`, `{"default_perspectives": "AUTO"}`, `[`, `null`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		cfg, err := ParseSettings([]byte(doc), DefaultConfig())
		if err != nil {
			var ve *engine.ValidationError
			if !errors.As(err, &ve) || len(ve.Violations) == 0 {
				t.Fatalf("err = %v, want an *engine.ValidationError", err)
			}
			for _, v := range ve.Violations {
				if v.Field == "" || v.Problem == "" {
					t.Fatalf("violation without a field or problem: %+v", v)
				}
			}
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("ParseSettings gave an invalid config: %v", err)
		}
	})
}
