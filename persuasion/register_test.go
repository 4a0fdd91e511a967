package persuasion

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
)

// storedSpec starts f's debate on a model that fails at once and returns
// the configuration engine.Run stored in the debate's first record.
func storedSpec[R any](t *testing.T, f engine.Format[R]) json.RawMessage {
	t.Helper()
	fake := llmtest.New()
	fake.Default().Fail(errors.New("no model"))
	st := store.NewMemory()
	if _, err := engine.Run(t.Context(), fake, f, testDebate, engine.WithStore(st)); err == nil {
		t.Fatal("the debate ran without a model")
	}
	recs, err := st.Records(t.Context(), testDebate.ID)
	if err != nil {
		t.Fatal(err)
	}
	var first struct {
		Value struct {
			Format string          `json:"format"`
			Spec   json.RawMessage `json:"spec"`
		} `json:"value"`
	}
	if err := json.Unmarshal(recs[0].Data, &first); err != nil || first.Value.Format != FormatName {
		t.Fatalf("first record %s: %v", recs[0].Data, err)
	}
	return first.Value.Spec
}

// configOf decodes a stored spec strictly as a flat Config.
func configOf(t *testing.T, spec json.RawMessage) Config {
	t.Helper()
	var c Config
	dec := json.NewDecoder(bytes.NewReader(spec))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("the stored spec %s is not a Config: %v", spec, err)
	}
	return c
}

func TestRegistered(t *testing.T) {
	if !slices.Contains(engine.Formats(), FormatName) {
		t.Errorf("formats %v", engine.Formats())
	}
}

// TestOpen opens the format by name: no configuration or part of one is
// the defaults with the fields given; a bad one is a ValidationError
// naming the field, and no format.
func TestOpen(t *testing.T) {
	tests := []struct {
		name   string
		config string
		want   func(*Config) // on DefaultConfig, for a valid config
		field  string        // the violation's field, for an invalid one
	}{
		{name: "nil", want: func(*Config) {}},
		{name: "null", config: "null", want: func(*Config) {}},
		{name: "empty", config: " {} ", want: func(*Config) {}},
		{name: "partial", config: `{"maxRounds": 1, "pro": {"modelId": "m"}, "facts": ["Builds take 40 minutes"]}`,
			want: func(c *Config) { c.MaxRounds, c.Pro.ModelID, c.Facts = 1, "m", []string{"Builds take 40 minutes"} }},
		{name: "the names stored before the renames", config: `{"rounds": 1, "pro": {"model": "m"}, "mod": {"Model": "j"}}`,
			want: func(c *Config) { c.MaxRounds, c.Pro.ModelID, c.Mod.ModelID = 1, "m", "j" }},
		{name: "the current name first", config: `{"rounds": 3, "maxRounds": 1, "opp": {"model": "old", "modelId": "new"}}`,
			want: func(c *Config) { c.MaxRounds, c.Opp.ModelID = 1, "new" }},
		{name: "persona without bias", config: `{"opp": {"description": "SRE", "bias": ""}}`,
			want: func(c *Config) { c.Opp.Description, c.Opp.Bias = "SRE", "" }},
		{name: "zero is the default", config: `{"maxRounds": 0, "semantics": "", "mod": {"description": "", "bias": "", "modelId": ""}}`,
			want: func(*Config) {}},
		{name: "zero is the default, by the old names", config: `{"rounds": 0, "mod": {"description": "", "bias": "", "model": ""}}`,
			want: func(*Config) {}},
		{name: "unknown field", config: `{"roundz": 1}`, field: "roundz"},
		{name: "unknown persona field", config: `{"pro": {"modelID": "m", "colour": "red"}}`, field: "pro.colour"},
		{name: "wrong type", config: `{"maxRounds": "two"}`, field: "maxRounds"},
		{name: "wrong type, old name", config: `{"rounds": "two"}`, field: "rounds"},
		{name: "wrong type in a persona", config: `{"opp": {"bias": 5}}`, field: "opp.bias"},
		{name: "wrong type in a persona, old name", config: `{"opp": {"model": 5}}`, field: "opp.model"},
		{name: "invalid value", config: `{"maxRounds": 11}`, field: "maxRounds"},
		{name: "invalid value, old name", config: `{"rounds": 11}`, field: "maxRounds"},
		{name: "invalid persona", config: `{"pro": {"modelId": " "}}`, field: "pro.modelId"},
		{name: "unknown semantics", config: `{"semantics": "majority"}`, field: "semantics"},
		{name: "not an object", config: `[1]`, field: "config"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var raw json.RawMessage
			if tt.config != "" {
				raw = json.RawMessage(tt.config)
			}
			f, err := engine.Open(FormatName, raw)
			if tt.want == nil {
				var ve *engine.ValidationError
				if f != nil || !errors.As(err, &ve) || ve.Format != FormatName {
					t.Fatalf("Open = %v, %v; want no format and a ValidationError", f, err)
				}
				i := slices.IndexFunc(ve.Violations, func(v engine.Violation) bool { return v.Field == tt.field })
				if i < 0 {
					t.Fatalf("violations %+v name no %q", ve.Violations, tt.field)
				}
				if len(ve.Violations) != 1 {
					t.Errorf("violations %+v; want the one of %q", ve.Violations, tt.field)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := DefaultConfig()
			tt.want(&want)
			if diff := cmp.Diff(want, configOf(t, storedSpec(t, f))); diff != "" {
				t.Errorf("stored config (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStoredConfig: what engine.Run stores is exactly the Config's JSON,
// the object engine.Open takes, and it opens and decodes as the same
// Config.
func TestStoredConfig(t *testing.T) {
	host := DefaultConfig()
	host.Pro = Persona{Description: "Site reliability engineer", ModelID: "m"} // no bias
	host.Perspective, host.Facts, host.DrawMargin, host.Semantics = "on-call load", []string{"a", "b"}, -1, "DF-QuAD"
	for name, cfg := range map[string]Config{"zero": {}, "defaults": DefaultConfig(), "host": host} {
		t.Run(name, func(t *testing.T) {
			f := mustNew(t, cfg)
			spec := storedSpec(t, f)
			want, err := json.Marshal(f.Config)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(spec, want) {
				t.Errorf("stored %s\nwant the Config's JSON %s", spec, want)
			}
			if diff := cmp.Diff(f.Config, configOf(t, spec)); diff != "" {
				t.Errorf("stored config (-New +stored):\n%s", diff)
			}
			opened, err := engine.Open(FormatName, spec)
			if err != nil {
				t.Fatal(err)
			}
			if again := storedSpec(t, opened); !bytes.Equal(again, spec) {
				t.Errorf("reopened, it stores %s\nnot %s", again, spec)
			}
			var g Format
			if err := json.Unmarshal(spec, &g); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(f.Config, g.Config); diff != "" {
				t.Errorf("decoded config (-New +decoded):\n%s", diff)
			}
		})
	}
}

// oldSpec is a configuration as versions before the flat shape stored it:
// under "config", a persona without bias leaving "bias" out.
const oldSpec = `{"config":{"pro":{"description":"Site reliability engineer","model":"m-pro"},` +
	`"opp":{"description":"Cautious architect focused on quality and long-term health",` +
	`"bias":"Prefers solutions that minimize risk and technical debt","model":"m-opp"},` +
	`"mod":{"description":"Senior staff engineer balancing trade-offs",` +
	`"bias":"None — evaluates argument strength, not rhetoric","model":"m-mod"},` +
	`"rounds":1,"exchanges":1,"facts":["Nightly builds take 40 minutes"],"semantics":"additive","maxMoves":5}}`

// oldConfig is oldSpec's Config.
func oldConfig() Config {
	c := DefaultConfig()
	c.Pro = Persona{Description: "Site reliability engineer", ModelID: "m-pro"}
	c.Opp.ModelID, c.Mod.ModelID = "m-opp", "m-mod"
	c.MaxRounds, c.Exchanges, c.Facts = 1, 1, []string{"Nightly builds take 40 minutes"}
	c.Protocol = 1 // stored before the protocol had versions
	return c
}

func TestUnmarshalFormat(t *testing.T) {
	flat, err := json.Marshal(oldConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, spec string }{
		{"old shape", oldSpec},
		{"flat", string(flat)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var f Format
			if err := json.Unmarshal([]byte(tt.spec), &f); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(oldConfig(), f.Config); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
			if err := json.Unmarshal([]byte("null"), &f); err != nil || f.Config.MaxRounds != 1 {
				t.Errorf("null: %v, config %+v", err, f.Config)
			}
		})
	}
	// A Format value, not a pointer, encodes in the old shape, and decodes.
	value, err := json.Marshal(Format{Config: oldConfig()})
	if err != nil {
		t.Fatal(err)
	}
	var f Format
	if err := json.Unmarshal(value, &f); err != nil || !strings.HasPrefix(string(value), `{"config":{`) {
		t.Fatalf("%s: %v", value, err)
	}
	if diff := cmp.Diff(oldConfig(), f.Config); diff != "" {
		t.Errorf("a Format value's config (-want +got):\n%s", diff)
	}
	for _, bad := range []string{`[1]`, `{"config": 3}`, `{"rounds": "two"}`} {
		if err := json.Unmarshal([]byte(bad), &Format{}); err == nil {
			t.Errorf("%s decoded", bad)
		}
	}
}

// withSpec copies the records of debate id from src into a new store, the
// configuration in its first record replaced by spec.
func withSpec(t *testing.T, src store.Store, id, spec string) store.Store {
	t.Helper()
	recs, err := src.Records(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	var first map[string]json.RawMessage
	var head map[string]json.RawMessage
	if err := json.Unmarshal(recs[0].Data, &first); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(first["value"], &head); err != nil || head["spec"] == nil {
		t.Fatalf("the first record's value %s: %v", first["value"], err)
	}
	head["spec"] = json.RawMessage(spec)
	var errs [2]error
	first["value"], errs[0] = json.Marshal(head)
	recs[0].Data, errs[1] = json.Marshal(first)
	if err := errors.Join(errs[:]...); err != nil {
		t.Fatal(err)
	}
	dst := store.NewMemory()
	for _, r := range recs {
		if err := dst.Append(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}
