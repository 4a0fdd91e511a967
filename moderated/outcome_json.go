package moderated

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/duelogic/duelogic/internal/jsonsec"
)

// MarshalJSON encodes o with Elapsed as "elapsed", a number of seconds, as
// every duration in the library's JSON.
func (o Outcome) MarshalJSON() ([]byte, error) {
	type plain Outcome
	return withElapsed(plain(o), o.Elapsed)
}

// UnmarshalJSON decodes data over o; "elapsed" is a number of seconds (or
// a duration string), and the "elapsedNs" of an outcome stored by an
// earlier version is read as nanoseconds.
func (o *Outcome) UnmarshalJSON(data []byte) error {
	type plain Outcome
	return readElapsed(data, (*plain)(o), &o.Elapsed)
}

// MarshalJSON encodes s with Elapsed as "elapsed", a number of seconds.
func (s Summary) MarshalJSON() ([]byte, error) {
	type plain Summary
	return withElapsed(plain(s), s.Elapsed)
}

// UnmarshalJSON decodes data over s, as [Outcome.UnmarshalJSON] does.
func (s *Summary) UnmarshalJSON(data []byte) error {
	type plain Summary
	return readElapsed(data, (*plain)(s), &s.Elapsed)
}

// withElapsed encodes v, a struct whose own fields leave the time out, with
// d as its last field "elapsed", in seconds.
func withElapsed(v any, d time.Duration) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	raw = bytes.TrimSuffix(raw, []byte("}"))
	if len(raw) > 1 {
		raw = append(raw, ',')
	}
	raw = append(raw, `"elapsed":`...)
	return append(append(raw, jsonsec.Format(d)...), '}'), nil
}

// readElapsed decodes data into v, a struct whose own fields leave the time
// out, and the time into d: "elapsed" in seconds, or the "elapsedNs" an
// earlier version wrote; d keeps its value when data has neither.
func readElapsed(data []byte, v any, d *time.Duration) error {
	if err := json.Unmarshal(data, v); err != nil {
		return err
	}
	w := struct {
		Elapsed   jsonsec.Seconds `json:"elapsed"`
		ElapsedNs *int64          `json:"elapsedNs"`
	}{Elapsed: jsonsec.Seconds(*d)}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*d = elapsedOf(w.Elapsed, w.ElapsedNs)
	return nil
}

// elapsedOf is the duration of an "elapsed" in seconds, or of the
// "elapsedNs" an earlier version wrote.
func elapsedOf(s jsonsec.Seconds, ns *int64) time.Duration {
	if ns != nil {
		return time.Duration(*ns)
	}
	return time.Duration(s)
}
