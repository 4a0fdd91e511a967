package moderated

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/catalog"
	"github.com/duelogic/duelogic/engine"
)

func TestConfigUnmarshalJSON(t *testing.T) {
	tests := []struct {
		name   string
		json   string
		modify func(*Config) // of DefaultConfig: the config wanted
	}{
		{"empty", `{}`, func(*Config) {}},
		{"other fields only", `{"maxRounds":7}`, func(c *Config) { c.MaxRounds = 7 }},
		{"seconds", `{"roundTimeout":120,"checkpointTimeout":60,"totalTimeout":3600}`, func(c *Config) {
			c.RoundTimeout, c.CheckpointTimeout, c.TotalTimeout = 2*time.Minute, time.Minute, time.Hour
		}},
		{"fractional seconds", `{"roundTimeout":1.5}`, func(c *Config) { c.RoundTimeout = 1500 * time.Millisecond }},
		{"exponent", `{"roundTimeout":1.2e2}`, func(c *Config) { c.RoundTimeout = 2 * time.Minute }},
		{"duration strings", `{"roundTimeout":"2m","checkpointTimeout":"90s","totalTimeout":"1h30m"}`, func(c *Config) {
			c.RoundTimeout, c.CheckpointTimeout, c.TotalTimeout = 2*time.Minute, 90*time.Second, 90*time.Minute
		}},
		{"null keeps the value", `{"roundTimeout":null,"tokenBudget":null}`, func(*Config) {}},
		{"token budget", `{"tokenBudget":500}`, func(c *Config) { c.TokenBudget = 500 }},
		{"unlimited token budget", `{"tokenBudget":"unlimited"}`, func(c *Config) { c.TokenBudget = 0 }},
		{"Unlimited token budget", `{"tokenBudget":"Unlimited"}`, func(c *Config) { c.TokenBudget = 0 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, want := DefaultConfig(), DefaultConfig()
			tt.modify(&want)
			if err := json.Unmarshal([]byte(tt.json), &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestConfigUnmarshalJSONErrors(t *testing.T) {
	tests := []struct {
		json    string
		invalid bool   // the error wraps ErrInvalidConfig
		want    string // in the error
	}{
		{`{"roundTimeout":true}`, true, "roundTimeout: want a number of seconds"},
		{`{"checkpointTimeout":"soon"}`, true, `checkpointTimeout: want a number of seconds or a duration such as "2m": time: invalid duration "soon"`},
		{`{"totalTimeout":"120"}`, true, `totalTimeout: want a number of seconds or a duration such as "2m": time: missing unit in duration "120"`},
		{`{"totalTimeout":1e10}`, true, "totalTimeout: 1e10 seconds is out of range"},
		{`{"tokenBudget":"lots"}`, true, `tokenBudget: "lots": want a number of tokens or "unlimited"`},
		{`{"tokenBudget":1.5}`, true, "tokenBudget: 1.5: want a number of tokens"},
		{`{"maxRounds":"x"}`, false, "maxRounds"},
		{`[]`, false, "moderated: decode config"},
	}
	for _, tt := range tests {
		t.Run(tt.json, func(t *testing.T) {
			var c Config
			err := json.Unmarshal([]byte(tt.json), &c)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v; want one containing %q", err, tt.want)
			}
			if errors.Is(err, engine.ErrInvalidConfig) != tt.invalid {
				t.Errorf("errors.Is(%v, ErrInvalidConfig) = %v; want %v", err, !tt.invalid, tt.invalid)
			}
		})
	}
}

func TestConfigMarshalJSON(t *testing.T) {
	tests := []struct {
		name    string
		round   time.Duration
		seconds string // roundTimeout in the JSON
	}{
		{"default", 2 * time.Minute, "120"},
		{"zero", 0, "0"},
		{"fraction", 1500 * time.Millisecond, "1.5"},
		{"nanosecond", time.Nanosecond, "0.000000001"},
		{"long and exact", 25*time.Hour + time.Nanosecond, "90000.000000001"},
		{"negative fraction", -500 * time.Millisecond, "-0.5"},
		{"negative", -1500 * time.Millisecond, "-1.5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultConfig()
			c.RoundTimeout = tt.round
			b, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{`"roundTimeout":` + tt.seconds + `,`, `"checkpointTimeout":1800,`, `"totalTimeout":1800`, `"tokenBudget":2000`} {
				if !strings.Contains(string(b), want) {
					t.Errorf("%s lacks %s", b, want)
				}
			}
			var got Config
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c, got); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStoredConfigInSeconds checks the config as the format stores it at the
// start of a debate, and as Resume reads it back: whole, over whatever
// Config the Format held, keeping its hooks.
func TestStoredConfigInSeconds(t *testing.T) {
	in, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	in.Config.TokenBudget = 0
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := `"roundTimeout":120,`; !strings.Contains(string(b), want) {
		t.Errorf("%s lacks %s", b, want)
	}
	tests := []struct {
		name string
		cfg  func(*Config) // of the Format decoded into
	}{
		{"defaults", func(*Config) {}},
		{"other perspectives and debaters", func(c *Config) {
			c.Perspectives = []catalog.Framework{perf, simp}
			c.Debaters = 2
			c.MaxRounds = 9
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cp := CheckpointFunc(func(context.Context, State) (Decision, error) { return Decision{}, nil })
			out, err := New(DefaultConfig(), WithCheckpointer(cp))
			if err != nil {
				t.Fatal(err)
			}
			tt.cfg(&out.Config)
			// engine.Resume zeroes a Format's exported fields before it
			// decodes the stored configuration into it.
			out.Config = Config{}
			if err := json.Unmarshal(b, out); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(in.Config, out.Config); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
			if out.checkpointer == nil {
				t.Errorf("decoding dropped the checkpointer")
			}
		})
	}
}
