package moderated

import (
	"encoding/json"
	"time"

	"github.com/duelogic/duelogic/internal/jsonsec"
)

// MarshalJSON encodes o with Elapsed as "elapsed", a number of seconds, as
// every duration in the library's JSON.
func (o Outcome) MarshalJSON() ([]byte, error) {
	type plain Outcome
	return json.Marshal(struct {
		plain
		Elapsed jsonsec.Seconds `json:"elapsed"`
	}{plain(o), jsonsec.Seconds(o.Elapsed)})
}

// UnmarshalJSON decodes data over o; "elapsed" is a number of seconds (or
// a duration string), and the "elapsedNs" of an outcome stored by an
// earlier version is read as nanoseconds.
func (o *Outcome) UnmarshalJSON(data []byte) error {
	type plain Outcome
	w := struct {
		*plain
		Elapsed   jsonsec.Seconds `json:"elapsed"`
		ElapsedNs *int64          `json:"elapsedNs"`
	}{plain: (*plain)(o), Elapsed: jsonsec.Seconds(o.Elapsed)}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	o.Elapsed = elapsedOf(w.Elapsed, w.ElapsedNs)
	return nil
}

// MarshalJSON encodes s with Elapsed as "elapsed", a number of seconds.
func (s Summary) MarshalJSON() ([]byte, error) {
	type plain Summary
	return json.Marshal(struct {
		plain
		Elapsed jsonsec.Seconds `json:"elapsed"`
	}{plain(s), jsonsec.Seconds(s.Elapsed)})
}

// UnmarshalJSON decodes data over s, as [Outcome.UnmarshalJSON] does.
func (s *Summary) UnmarshalJSON(data []byte) error {
	type plain Summary
	w := struct {
		*plain
		Elapsed   jsonsec.Seconds `json:"elapsed"`
		ElapsedNs *int64          `json:"elapsedNs"`
	}{plain: (*plain)(s), Elapsed: jsonsec.Seconds(s.Elapsed)}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	s.Elapsed = elapsedOf(w.Elapsed, w.ElapsedNs)
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
