package formal

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/duelogic/duelogic/engine"
)

// The time budget is written in seconds, like every format's durations,
// and read from seconds, a duration string, or the nanoseconds of a debate
// stored before.
func TestConfigTimeBudgetJSON(t *testing.T) {
	b, err := json.Marshal(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"timeBudget":2700`) || strings.Contains(string(b), `2700000000000`) {
		t.Errorf("DefaultConfig as JSON: %s; want timeBudget 2700 (seconds)", b)
	}
	for _, tt := range []struct {
		doc  string
		want time.Duration
		bad  bool
	}{
		{doc: `{"timeBudget": 600}`, want: 10 * time.Minute},
		{doc: `{"timeBudget": "45m"}`, want: 45 * time.Minute},
		{doc: `{"timeBudget": 0}`, want: 0},
		{doc: `{"timeBudget": null}`, want: DefaultConfig().TimeBudget},
		{doc: `{"maxRounds": 4}`, want: DefaultConfig().TimeBudget},
		{doc: `{"timeBudget": 2700000000000}`, want: 45 * time.Minute}, // stored before: nanoseconds
		{doc: `{"timeBudget": "soon"}`, bad: true},
		{doc: `{"timeBudget": true}`, bad: true},
	} {
		t.Run(tt.doc, func(t *testing.T) {
			c := DefaultConfig()
			err := json.Unmarshal([]byte(tt.doc), &c)
			var v *engine.ValidationError
			switch {
			case tt.bad && (!errors.As(err, &v) || !strings.Contains(err.Error(), "timeBudget")):
				t.Errorf("err %v; want a validation error naming timeBudget", err)
			case !tt.bad && (err != nil || c.TimeBudget != tt.want):
				t.Errorf("TimeBudget %v, err %v; want %v", c.TimeBudget, err, tt.want)
			}
		})
	}
	// A format's spec (the Format as JSON) round-trips.
	f := newFormat(t, DefaultConfig())
	f.TimeBudget = 90 * time.Second
	spec, _ := json.Marshal(f)
	var back Format
	if err := json.Unmarshal(spec, &back); err != nil || back.Config != f.Config {
		t.Errorf("spec %s read back as %+v, %v", spec, back.Config, err)
	}
}

// A value of the wrong type is named by its JSON field, as a host reading
// a configuration (examples/web) reports it.
func TestConfigWrongTypeNamesTheField(t *testing.T) {
	c := DefaultConfig()
	err := json.Unmarshal([]byte(`{"minRounds": "two"}`), &c)
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Field != "minRounds" {
		t.Errorf("err %v; want a type error of minRounds", err)
	}
}
