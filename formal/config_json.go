package formal

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/internal/jsonsec"
)

// MarshalJSON encodes c with TimeBudget as a JSON number of seconds, as
// every format writes its durations.
func (c Config) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		plainConfig
		TimeBudget json.RawMessage `json:"timeBudget"`
	}{plainConfig(c), jsonsec.Format(c.TimeBudget)})
}

// UnmarshalJSON decodes data over c: fields the document does not name keep
// their values. timeBudget is a number of seconds (2700, 1.5) or a string
// that [time.ParseDuration] reads ("45m"); a value of another kind is an
// [*engine.ValidationError] naming the field. A debate stored before
// durations were seconds holds nanoseconds: an integer too large to be a
// number of seconds (more than 292 years) is read as nanoseconds.
func (c *Config) UnmarshalJSON(data []byte) error {
	w := c.wire()
	if err := json.Unmarshal(data, &w); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			te.Field = strings.TrimPrefix(te.Field, embedded)
		}
		return fmt.Errorf("formal: decode config: %w", err)
	}
	return w.finish(c)
}

// decodeConfig decodes config over c as [engine.DecodeConfig] does: an
// unknown field, or a value of the wrong type, is an
// [*engine.ValidationError] naming it (Config.UnmarshalJSON, which reads
// stored configurations, lets unknown fields pass).
func decodeConfig(config json.RawMessage, c *Config) error {
	w := c.wire()
	if err := engine.DecodeConfig(FormatName, config, &w); err != nil {
		var ve *engine.ValidationError
		if errors.As(err, &ve) {
			for i := range ve.Violations {
				ve.Violations[i].Field = strings.TrimPrefix(ve.Violations[i].Field, embedded)
			}
		}
		return err
	}
	return w.finish(c)
}

// embedded prefixes the JSON path of a field in a decoding error: the
// name of configJSON's embedded struct.
const embedded = "plainConfig."

// plainConfig is Config without its JSON methods.
type plainConfig Config

// configJSON is a Config as JSON, its time budget as written: decoding
// into it decodes the other fields into the Config.
type configJSON struct {
	*plainConfig
	TimeBudget json.RawMessage `json:"timeBudget"`
}

// wire returns the configJSON that decodes into c.
func (c *Config) wire() configJSON { return configJSON{plainConfig: (*plainConfig)(c)} }

// finish reads the time budget decoded into w into c.
func (w configJSON) finish(c *Config) error {
	if len(w.TimeBudget) == 0 || string(w.TimeBudget) == "null" {
		return nil
	}
	d, err := jsonsec.Parse(w.TimeBudget)
	if err != nil {
		ns, nerr := strconv.ParseInt(string(w.TimeBudget), 10, 64)
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
