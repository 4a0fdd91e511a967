package moderated

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/duelogic/duelogic/engine"
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
		RoundTimeout:      formatSeconds(c.RoundTimeout),
		CheckpointTimeout: formatSeconds(c.CheckpointTimeout),
		TotalTimeout:      formatSeconds(c.TotalTimeout),
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
		d, err := parseSeconds(t.raw)
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

// errSeconds is the problem with a duration of the wrong kind.
var errSeconds = errors.New(`want a number of seconds or a duration such as "2m"`)

// parseSeconds reads a number of seconds, or a string of [time.ParseDuration].
func parseSeconds(raw json.RawMessage) (time.Duration, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil {
			return 0, fmt.Errorf("%w: %w", errSeconds, err)
		}
		return d, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, fmt.Errorf("%w, not %s", errSeconds, raw)
	}
	// ParseDuration is exact to the nanosecond; it does not read exponents.
	if d, err := time.ParseDuration(n.String() + "s"); err == nil {
		return d, nil
	}
	f, err := strconv.ParseFloat(n.String(), 64)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", errSeconds, err)
	}
	ns := math.Round(f * float64(time.Second))
	if math.Abs(ns) >= math.MaxInt64 { // float64(MaxInt64) is 2⁶³
		return 0, fmt.Errorf("%s seconds is out of range", n)
	}
	return time.Duration(ns), nil
}

// formatSeconds writes d as a JSON number of seconds, exactly.
func formatSeconds(d time.Duration) json.RawMessage {
	s := strconv.FormatInt(int64(d/time.Second), 10)
	if frac := d % time.Second; frac != 0 {
		if frac < 0 {
			frac = -frac
			if d > -time.Second {
				s = "-0"
			}
		}
		s += "." + strings.TrimRight(fmt.Sprintf("%09d", int64(frac)), "0")
	}
	return json.RawMessage(s)
}
