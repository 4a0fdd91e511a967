package duelogic

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFrameworksCatalog(t *testing.T) {
	fs := Frameworks()
	wantIDs := []Framework{Utilitarian, VirtueEthics, Deontological, Pragmatic, Libertarian,
		Communitarian, Cosmopolitan, Precautionary, AutonomyCentered, CareEthics}
	var ids []Framework
	for _, f := range fs {
		ids = append(ids, f.ID)
		if len(f.Strengths) != 3 || len(f.BlindSpots) != 3 {
			t.Errorf("%s: %d strengths, %d blind spots; want 3 and 3", f.ID, len(f.Strengths), len(f.BlindSpots))
		}
		if f.Name == "" || f.Description == "" || f.CoreQuestion == "" || f.Kind != KindPhilosophical {
			t.Errorf("%s: incomplete entry %+v", f.ID, f)
		}
	}
	if diff := cmp.Diff(wantIDs, ids); diff != "" {
		t.Errorf("Frameworks() order (-want +got):\n%s", diff)
	}
	// Spot-check exact seed texts.
	u, _ := LookupFramework(Utilitarian)
	want := FrameworkInfo{
		ID: Utilitarian, Kind: KindPhilosophical, Name: "Utilitarian Chair",
		Description:  "Argues from maximizing aggregate welfare and outcomes",
		CoreQuestion: "What produces the greatest good for the greatest number?",
		Strengths: []string{"Forces calculation of real-world consequences",
			"Egalitarian - each person counts equally", "Provides measurable decision framework"},
		BlindSpots: []string{"Can justify sacrificing minorities for majority benefit",
			"Difficult to measure and compare utilities", "May ignore rights and justice concerns"},
	}
	if diff := cmp.Diff(want, u); diff != "" {
		t.Errorf("utilitarian (-want +got):\n%s", diff)
	}
	a, _ := LookupFramework(AutonomyCentered)
	if a.CoreQuestion != "Does this respect people's right to make their own choices?" {
		t.Errorf("autonomy core question = %q", a.CoreQuestion)
	}
	p, _ := LookupFramework(Pragmatic)
	if p.BlindSpots[2] != `"What works" can be defined by those in power` {
		t.Errorf("pragmatic blind spot = %q", p.BlindSpots[2])
	}
	// Callers cannot change the catalog through what it returns.
	fs[0].BlindSpots[0] = "changed"
	if again, _ := LookupFramework(Utilitarian); again.BlindSpots[0] == "changed" {
		t.Error("Frameworks() aliases the catalog")
	}
}

func TestPerspectives(t *testing.T) {
	want := []string{"Performance Advocate", "Simplicity Advocate", "Security Advocate",
		"Future Flexibility", "User Experience", "Operational Simplicity"}
	var got []string
	for _, p := range Perspectives() {
		got = append(got, p.Name)
		if p.Kind != KindPerspective || len(p.Priorities) != 3 || p.TradeOffs == "" {
			t.Errorf("%s: incomplete perspective %+v", p.ID, p)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Perspectives() (-want +got):\n%s", diff)
	}
	sec, ok := LookupFramework(SecurityAdvocate)
	if !ok || sec.TradeOffs != "Will accept UX friction for security guarantees" ||
		!cmp.Equal(sec.Priorities, []string{"attack surface", "data protection", "compliance"}) {
		t.Errorf("security advocate = %+v", sec)
	}
}

func TestCatalogWith(t *testing.T) {
	custom := FrameworkInfo{ID: "compliance_first", Name: "Compliance First", Description: "Argues for audit trails",
		Priorities: []string{"audit trails", "data residency", "SOC2 requirements"},
		TradeOffs:  "Will accept development slowdown for compliance"}
	cat, err := DefaultCatalog().With(custom)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := cat.Lookup("compliance_first")
	if !ok || got.Kind != KindPerspective {
		t.Fatalf("Lookup(compliance_first) = %+v, %v", got, ok)
	}
	if _, ok := DefaultCatalog().Lookup("compliance_first"); ok {
		t.Error("With changed the default catalog")
	}
	if n := len(cat.All()); n != 17 {
		t.Errorf("extended catalog has %d entries, want 17", n)
	}
	// A chair may hold the custom entry when the orchestrator uses the catalog.
	cfg := DefaultConfig()
	cfg.Chairs[1].Framework = "compliance_first"
	if err := cfg.Validate(); err == nil {
		t.Error("Validate accepted a framework outside the default catalog")
	}
	if err := cfg.ValidateCatalog(cat); err != nil {
		t.Errorf("ValidateCatalog: %v", err)
	}
	for _, bad := range []FrameworkInfo{
		{ID: "", Name: "x", Description: "x"},
		{ID: "Bad ID", Name: "x", Description: "x"},
		{ID: "ok", Name: "", Description: "x"},
		{ID: "ok", Name: "x", Description: ""},
		{ID: "ok", Name: "x", Description: "x", Kind: "other"},
	} {
		if _, err := cat.With(bad); err == nil {
			t.Errorf("With(%+v) succeeded", bad)
		}
	}
}

func TestDefaultConfigIsSeedDefaults(t *testing.T) {
	got, err := json.Marshal(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"chairs":[{"position":"chair_1","framework":"utilitarian","modelId":"anthropic/claude-sonnet-4","modelDisplayName":"Claude Sonnet 4","providerName":"Anthropic"},{"position":"chair_2","framework":"virtue_ethics","modelId":"x-ai/grok-3","modelDisplayName":"Grok 3","providerName":"xAI"}],"arbiter":{"modelId":"openai/gpt-4o","modelDisplayName":"GPT-4o","accountabilityLevel":"moderate"},"flow":{"style":"conversational","maxExchanges":8,"targetDurationMinutes":45},"interruptions":{"enabled":true,"allowChairInterruptions":true,"allowArbiterInterruptions":true,"aggressiveness":3,"cooldownSeconds":60},"tone":"spirited","podcastMode":{"enabled":true,"showName":"Duelogic","includeCallToAction":true},"mandates":{"requireSteelManning":true,"requireSelfCritique":true,"arbiterCanInterject":true}}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("DefaultConfig JSON (-want +got):\n%s", diff)
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Errorf("DefaultConfig invalid: %v", err)
	}
}

func TestPartialJSONOverDefaults(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want func(*Config)
	}{
		{"empty", `{}`, func(*Config) {}},
		{"tone only", `{"tone":"heated"}`, func(c *Config) { c.Tone = ToneHeated }},
		{"nested field", `{"flow":{"maxExchanges":12}}`, func(c *Config) { c.Flow.MaxExchanges = 12 }},
		{"podcast", `{"podcastMode":{"episodeNumber":7}}`, func(c *Config) { c.Podcast.EpisodeNumber = 7 }},
		{"chairs replace the list", `{"chairs":[{"position":"a","framework":"libertarian","modelId":"m"}]}`,
			func(c *Config) { c.Chairs = []Chair{{Position: "a", Framework: Libertarian, ModelID: "m"}} }},
		{"mandate off", `{"mandates":{"requireSelfCritique":false}}`, func(c *Config) { c.Mandates.RequireSelfCritique = false }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DefaultConfig()
			if err := json.Unmarshal([]byte(tt.doc), &got); err != nil {
				t.Fatal(err)
			}
			want := DefaultConfig()
			tt.want(&want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	var c Config
	if err := json.Unmarshal([]byte(`{"tone":`), &c); err == nil {
		t.Error("malformed JSON decoded")
	}
}

func TestValidateNamesEveryViolation(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Chairs = append(cfg.Chairs, Chair{Position: "chair_1", Framework: "stoic", ModelID: " "},
		Chair{Position: "arbiter", Framework: Pragmatic, ModelID: "m", Persona: strings.Repeat("p", MaxPersonaRunes+1)},
		Chair{Position: "Bad Pos", Framework: "", ModelID: "m"})
	cfg.Arbiter.ModelID = ""
	cfg.Arbiter.AccountabilityLevel = "lenient"
	cfg.Flow.Style = "freeform"
	cfg.Flow.MaxExchanges = 31
	cfg.Flow.TargetDurationMinutes = -1
	cfg.Interruptions.Aggressiveness = 0
	cfg.Interruptions.CooldownSeconds = -5
	cfg.Interruptions.CheckMinChars, cfg.Interruptions.MaxChecksPerTurn = -1, -2
	cfg.Tone = "calm"
	cfg.Podcast.ShowName = ""
	cfg.Podcast.EpisodeNumber = -1
	err := cfg.Validate()
	if !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("Validate() = %v, want ErrInvalidConfig", err)
	}
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Validate() error %T is not *ValidationError", err)
	}
	var fields []string
	for _, v := range ve.Violations {
		fields = append(fields, v.Field)
	}
	want := []string{
		"chairs[2].position", "chairs[2].framework", "chairs[2].modelId",
		"chairs[3].position", "chairs[3].persona",
		"chairs[4].position", "chairs[4].framework",
		"arbiter.modelId", "arbiter.accountabilityLevel", "flow.style", "flow.maxExchanges",
		"flow.targetDurationMinutes", "interruptions.aggressiveness", "interruptions.cooldownSeconds",
		"interruptions.checkMinChars", "interruptions.maxChecksPerTurn",
		"tone", "podcastMode.showName", "podcastMode.episodeNumber",
	}
	if diff := cmp.Diff(want, fields); diff != "" {
		t.Errorf("violation fields (-want +got):\n%s\nerror: %v", diff, err)
	}
	if !strings.Contains(err.Error(), `chairs[2].framework: unknown framework "stoic"`) {
		t.Errorf("error text lacks the framework violation: %v", err)
	}
}

func TestValidateBounds(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*Config)
		field string // "" means valid
	}{
		{"2 chairs", func(c *Config) {}, ""},
		{"1 chair", func(c *Config) { c.Chairs = c.Chairs[:1] }, "chairs"},
		{"6 chairs", func(c *Config) { *c = ConfigWithChairs(c, 6) }, ""},
		{"7 chairs", func(c *Config) { *c = ConfigWithChairs(c, 7) }, "chairs"},
		{"3 exchanges", func(c *Config) { c.Flow.MaxExchanges = 3 }, ""},
		{"2 exchanges", func(c *Config) { c.Flow.MaxExchanges = 2 }, "flow.maxExchanges"},
		{"30 exchanges", func(c *Config) { c.Flow.MaxExchanges = 30 }, ""},
		{"aggressiveness 5", func(c *Config) { c.Interruptions.Aggressiveness = 5 }, ""},
		{"aggressiveness 6", func(c *Config) { c.Interruptions.Aggressiveness = 6 }, "interruptions.aggressiveness"},
		{"cooldown 0", func(c *Config) { c.Interruptions.CooldownSeconds = 0 }, ""},
		{"duplicate position", func(c *Config) { c.Chairs[1].Position = "chair_1" }, "chairs[1].position"},
		{"empty model", func(c *Config) { c.Chairs[0].ModelID = "" }, "chairs[0].modelId"},
		{"no show name without podcast", func(c *Config) { c.Podcast = PodcastConfig{} }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultConfig()
			tt.edit(&c)
			err := c.Validate()
			var ve *ValidationError
			switch {
			case tt.field == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.field != "" && !errors.As(err, &ve):
				t.Errorf("Validate() = %v, want a violation of %s", err, tt.field)
			case tt.field != "" && ve.Violations[0].Field != tt.field:
				t.Errorf("first violation %v, want field %s", ve.Violations[0], tt.field)
			}
		})
	}
}

// ConfigWithChairs returns c with n chairs cycling through the frameworks.
func ConfigWithChairs(c *Config, n int) Config {
	out := *c
	out.Chairs = nil
	fs := Frameworks()
	for i := range n {
		out.Chairs = append(out.Chairs, chairFor(i, fs[i%len(fs)].ID))
	}
	return out
}

func TestPresets(t *testing.T) {
	want := []struct {
		id string
		fs []Framework
	}{
		{"classic_clash", []Framework{Utilitarian, VirtueEthics}},
		{"liberty_vs_community", []Framework{Libertarian, Communitarian}},
		{"three_way_ethics", []Framework{Utilitarian, VirtueEthics, Deontological}},
		{"global_vs_local", []Framework{Cosmopolitan, Communitarian}},
		{"caution_vs_progress", []Framework{Precautionary, Pragmatic}},
		{"battle_royale", []Framework{Utilitarian, VirtueEthics, Libertarian, Pragmatic}},
	}
	ps := Presets()
	if len(ps) != len(want) {
		t.Fatalf("%d presets, want %d", len(ps), len(want))
	}
	for i, w := range want {
		if ps[i].ID != w.id || !cmp.Equal(ps[i].Frameworks, w.fs) || ps[i].Name == "" || ps[i].Description == "" {
			t.Errorf("preset %d = %+v, want %s %v", i, ps[i], w.id, w.fs)
		}
		cfg, err := ConfigForPreset(w.id)
		if err != nil {
			t.Fatal(err)
		}
		if err := cfg.Validate(); err != nil {
			t.Errorf("%s config invalid: %v", w.id, err)
		}
		for j, ch := range cfg.Chairs {
			if ch.Framework != w.fs[j] || ch.ModelID == "" {
				t.Errorf("%s chair %d = %+v", w.id, j, ch)
			}
		}
	}
	br, _ := ConfigForPreset("battle_royale")
	if br.Chairs[0].ModelID != "anthropic/claude-sonnet-4" || br.Chairs[2].ModelID != "openai/gpt-4o" {
		t.Errorf("battle royale models: %+v", br.Chairs)
	}
	if _, err := ConfigForPreset("nope"); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("unknown preset: %v", err)
	}
	if ps[0].Name != "Classic Clash" || ps[0].Description != "Utilitarian vs Virtue Ethics — the foundational philosophical battle" {
		t.Errorf("classic clash texts: %+v", ps[0])
	}
}
