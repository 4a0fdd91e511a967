// Package jsonsec reads and writes durations in JSON the one way every
// format's configuration does: a number of seconds, or a Go duration string
// on input.
package jsonsec

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ErrKind is the problem with a duration of the wrong kind.
var ErrKind = errors.New(`want a number of seconds or a duration such as "2m"`)

// Parse reads a JSON number of seconds (120, 1.5) or a JSON string that
// [time.ParseDuration] reads ("2m", "90s"). A value of another kind is an
// error wrapping [ErrKind].
func Parse(raw json.RawMessage) (time.Duration, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil {
			return 0, fmt.Errorf("%w: %w", ErrKind, err)
		}
		return d, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, fmt.Errorf("%w, not %s", ErrKind, raw)
	}
	// ParseDuration is exact to the nanosecond; it does not read exponents.
	if d, err := time.ParseDuration(n.String() + "s"); err == nil {
		return d, nil
	}
	f, err := strconv.ParseFloat(n.String(), 64)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrKind, err)
	}
	ns := math.Round(f * float64(time.Second))
	if math.Abs(ns) >= math.MaxInt64 { // float64(MaxInt64) is 2⁶³
		return 0, fmt.Errorf("%s seconds is out of range", n)
	}
	return time.Duration(ns), nil
}

// Format writes d as a JSON number of seconds, exactly (fractional when d
// is not a whole number of seconds): [Parse] reads it back.
func Format(d time.Duration) json.RawMessage {
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

// Seconds is a duration that JSON holds as [Format] writes it and [Parse]
// reads it: for a struct field, or a shadow field of a type's own JSON
// methods.
type Seconds time.Duration

// MarshalJSON writes s as a number of seconds.
func (s Seconds) MarshalJSON() ([]byte, error) { return Format(time.Duration(s)), nil }

// UnmarshalJSON reads a number of seconds or a duration string; null
// changes nothing.
func (s *Seconds) UnmarshalJSON(raw []byte) error {
	if strings.TrimSpace(string(raw)) == "null" {
		return nil
	}
	d, err := Parse(raw)
	if err != nil {
		return err
	}
	*s = Seconds(d)
	return nil
}
