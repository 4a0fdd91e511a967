package moderated

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/internal/jsonsec"
)

// MarshalJSON encodes c with its durations as JSON numbers of seconds
// (fractional when a duration is not a whole number of seconds), which
// [Config.UnmarshalJSON] reads back exactly.
func (c Config) MarshalJSON() ([]byte, error) {
	type plain Config
	return json.Marshal(struct {
		plain
		RoundTimeout      json.RawMessage `json:"roundTimeout"`
		CheckpointTimeout json.RawMessage `json:"checkpointTimeout"`
		TotalTimeout      json.RawMessage `json:"totalTimeout"`
	}{
		plain:             plain(c),
		RoundTimeout:      jsonsec.Format(c.RoundTimeout),
		CheckpointTimeout: jsonsec.Format(c.CheckpointTimeout),
		TotalTimeout:      jsonsec.Format(c.TotalTimeout),
	})
}

// UnmarshalJSON decodes data over c: fields the document does not name keep
// their values. A duration is a number of seconds (120, 1.5) or a string
// that [time.ParseDuration] reads ("2m", "90s"); tokenBudget is a number of
// tokens or "unlimited", which is 0. Values of the wrong kind are an
// [*engine.ValidationError] naming each such field.
func (c *Config) UnmarshalJSON(data []byte) error {
	type plain Config
	v := struct {
		*plain
		TokenBudget       json.RawMessage `json:"tokenBudget"`
		RoundTimeout      json.RawMessage `json:"roundTimeout"`
		CheckpointTimeout json.RawMessage `json:"checkpointTimeout"`
		TotalTimeout      json.RawMessage `json:"totalTimeout"`
	}{plain: (*plain)(c)}
	if err := json.Unmarshal(data, &v); err != nil {
		// A field of the wrong type is named as in the document, not
		// through the embedded struct that decodes it.
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			te.Field = strings.TrimPrefix(te.Field, "plain.")
		}
		return fmt.Errorf("moderated: decode config: %w", err)
	}
	bad := &engine.ValidationError{Format: FormatName}
	if given(v.TokenBudget) {
		if n, err := parseTokenBudget(v.TokenBudget); err != nil {
			bad.Add("tokenBudget", "%v", err)
		} else {
			c.TokenBudget = n
		}
	}
	for _, t := range []struct {
		name string
		raw  json.RawMessage
		d    *time.Duration
	}{
		{"roundTimeout", v.RoundTimeout, &c.RoundTimeout},
		{"checkpointTimeout", v.CheckpointTimeout, &c.CheckpointTimeout},
		{"totalTimeout", v.TotalTimeout, &c.TotalTimeout},
	} {
		if !given(t.raw) {
			continue
		}
		d, err := jsonsec.Parse(t.raw)
		if err != nil {
			bad.Add(t.name, "%v", err)
			continue
		}
		*t.d = d
	}
	return bad.Err()
}

// given reports whether a field holds a value: it is present and not null.
func given(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

// parseTokenBudget reads a number of tokens, or "unlimited" as 0.
func parseTokenBudget(raw json.RawMessage) (int, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if strings.EqualFold(strings.TrimSpace(s), "unlimited") {
			return 0, nil
		}
		return 0, fmt.Errorf("%q: want a number of tokens or \"unlimited\"", s)
	}
	var n int
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, fmt.Errorf("%s: want a number of tokens or \"unlimited\": %w", raw, err)
	}
	return n, nil
}

// MarshalJSON encodes the Format as its configuration, the Config's JSON
// ([Config.MarshalJSON]): what [engine.Run] stores with a debate, and what
// [engine.Open] takes, so a stored configuration can be opened again and
// patched.
func (f Format) MarshalJSON() ([]byte, error) { return json.Marshal(f.Config) }

// UnmarshalJSON decodes a configuration over f.Config ([Config.UnmarshalJSON]):
// the Config's JSON, or the shape earlier versions stored,
// {"config": {...}} (other fields beside "config" are ignored), so debates
// they stored still resume.
func (f *Format) UnmarshalJSON(data []byte) error {
	var old struct {
		Config json.RawMessage `json:"config"`
	}
	if err := json.Unmarshal(data, &old); err != nil {
		return fmt.Errorf("moderated: decode format: %w", err)
	}
	if given(old.Config) {
		data = old.Config
	}
	return json.Unmarshal(data, &f.Config)
}
