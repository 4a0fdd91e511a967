package formal

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/internal/jsonsec"
)

// MarshalJSON encodes c with TimeBudget as a JSON number of seconds, as
// every format writes its durations.
func (c Config) MarshalJSON() ([]byte, error) {
	type plain Config
	return json.Marshal(struct {
		plain
		TimeBudget json.RawMessage `json:"timeBudget"`
	}{plain(c), jsonsec.Format(c.TimeBudget)})
}

// UnmarshalJSON decodes data over c: fields the document does not name keep
// their values. timeBudget is a number of seconds (2700, 1.5) or a string
// that [time.ParseDuration] reads ("45m"); a value of another kind is an
// [*engine.ValidationError] naming the field. A debate stored before
// durations were seconds holds nanoseconds: an integer too large to be a
// number of seconds (more than 292 years) is read as nanoseconds.
func (c *Config) UnmarshalJSON(data []byte) error {
	type plain Config
	v := struct {
		*plain
		TimeBudget json.RawMessage `json:"timeBudget"`
	}{plain: (*plain)(c)}
	if err := json.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("formal: decode config: %w", err)
	}
	if len(v.TimeBudget) == 0 || string(v.TimeBudget) == "null" {
		return nil
	}
	d, err := jsonsec.Parse(v.TimeBudget)
	if err != nil {
		ns, nerr := strconv.ParseInt(string(v.TimeBudget), 10, 64)
		if nerr != nil || ns <= math.MaxInt64/int64(time.Second) {
			bad := &engine.ValidationError{Format: FormatName}
			bad.Add("timeBudget", "%v", err)
			return bad.Err()
		}
		d = time.Duration(ns)
	}
	c.TimeBudget = d
	return nil
}
