package persuasion

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/duelogic/duelogic/engine"
)

// Configurations stored before the fields had the names every format uses
// hold Config.MaxRounds as "rounds" and a Persona's ModelID as "model".
// Decoding reads both names, the current one first; encoding writes the
// current one only. The wire types below decode a Config or a Persona with
// both names as fields of their own, and configNames lists every name, so
// that the checks for unknown fields (engine.DecodeConfig,
// engine.UnknownFields), which read a type's fields, know the old names
// too.

// plainConfig and plainPersona are Config and Persona without their JSON
// methods.
type (
	plainConfig  Config
	plainPersona Persona
)

// configJSON is a Config as JSON under the names of any version: decoding
// into it decodes the other fields into the Config it points to, and finish
// sets the renamed ones. The renamed fields come before the embedded
// Config, so that a check for unknown fields finds them first.
type configJSON struct {
	Pro personaJSON `json:"pro"`
	Opp personaJSON `json:"opp"`
	Mod personaJSON `json:"mod"`
	// MaxRounds hides the Config's, to tell it given from left out.
	MaxRounds *int `json:"maxRounds"`
	// Rounds is MaxRounds as stored before it had that name.
	Rounds *int `json:"rounds"`
	*plainConfig
}

// personaJSON is a Persona as JSON under the names of any version.
type personaJSON struct {
	// ModelID hides the Persona's, to tell it given from left out.
	ModelID *string `json:"modelId"`
	// Model is ModelID as stored before it had that name.
	Model *string `json:"model"`
	*plainPersona
}

// configNames has a field for every JSON name of a Config, at any depth,
// the old names included, and nothing else: the type against which the
// opener checks a configuration for unknown fields. (configJSON, which
// embeds the Config, would name a persona given as "PRO" by the Config's
// field, without the old name; TestConfigNames keeps the two in step.)
type configNames struct {
	Pro         personaNames `json:"pro"`
	Opp         personaNames `json:"opp"`
	Mod         personaNames `json:"mod"`
	MaxRounds   int          `json:"maxRounds"`
	Rounds      int          `json:"rounds"`
	Exchanges   int          `json:"exchanges"`
	Perspective string       `json:"perspective"`
	Facts       []string     `json:"facts"`
	Semantics   string       `json:"semantics"`
	DrawMargin  float64      `json:"drawMargin"`
	MaxMoves    int          `json:"maxMoves"`
	Protocol    int          `json:"protocol"`
}

// personaNames has a field for every JSON name of a Persona, the old name
// included.
type personaNames struct {
	Description string `json:"description"`
	Bias        string `json:"bias"`
	ModelID     string `json:"modelId"`
	Model       string `json:"model"`
}

// wire returns the configJSON that decodes into c.
func (c *Config) wire() configJSON {
	return configJSON{Pro: c.Pro.wire(), Opp: c.Opp.wire(), Mod: c.Mod.wire(), plainConfig: (*plainConfig)(c)}
}

// finish sets the renamed fields decoded into w in c: the current name's
// value when given, else the old name's.
func (w configJSON) finish(c *Config) {
	switch {
	case w.MaxRounds != nil:
		c.MaxRounds = *w.MaxRounds
	case w.Rounds != nil:
		c.MaxRounds = *w.Rounds
	}
	w.Pro.finish(&c.Pro)
	w.Opp.finish(&c.Opp)
	w.Mod.finish(&c.Mod)
}

// wire returns the personaJSON that decodes into p.
func (p *Persona) wire() personaJSON { return personaJSON{plainPersona: (*plainPersona)(p)} }

// finish sets the model decoded into w in p.
func (w personaJSON) finish(p *Persona) {
	switch {
	case w.ModelID != nil:
		p.ModelID = *w.ModelID
	case w.Model != nil:
		p.ModelID = *w.Model
	}
}

// UnmarshalJSON decodes data over p: fields the document does not name keep
// their values, and fields it does not know are ignored. The model is
// "modelId", or "model", the name stored before ModelID had its name, when
// "modelId" is absent.
func (p *Persona) UnmarshalJSON(data []byte) error {
	w := p.wire()
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("persuasion: decode a persona: %w", fieldPath(err))
	}
	w.finish(p)
	return nil
}

// UnmarshalJSON decodes data over c: fields the document does not name keep
// their values (also inside a persona), and fields it does not know are
// ignored, so that configurations stored by other versions still decode.
// The names stored before MaxRounds and a persona's ModelID had theirs,
// "rounds" and "model", are read when the current name is absent. (The
// format's opener, behind engine.Open and engine.ResumeStored, refuses
// unknown fields.)
func (c *Config) UnmarshalJSON(data []byte) error {
	w := c.wire()
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("persuasion: decode the configuration: %w", fieldPath(err))
	}
	w.finish(c)
	return nil
}

// decodeConfig decodes config over c as [engine.DecodeConfig] does: an
// unknown field, at any depth, or a value of the wrong type is an
// [*engine.ValidationError] naming it by its path ("pro.colour"); the names
// earlier versions stored are known fields.
func decodeConfig(config json.RawMessage, c *Config) error {
	// The decoder's own check reaches the nested personas; this one names
	// every unknown field by its path.
	if err := engine.UnknownFields(FormatName, config, &configNames{}); err != nil {
		return err
	}
	w := c.wire()
	if err := engine.DecodeConfig(FormatName, config, &w); err != nil {
		var ve *engine.ValidationError
		if errors.As(err, &ve) {
			for i := range ve.Violations {
				ve.Violations[i].Field = trimEmbedded(ve.Violations[i].Field)
			}
		}
		return err
	}
	w.finish(c)
	return nil
}

// fieldPath names the field of a value of the wrong type as the document
// does, not through the embedded structs that decode it.
func fieldPath(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		te.Field = trimEmbedded(te.Field)
	}
	return err
}

// trimEmbedded removes the names of the wire types' embedded structs from a
// field path: "pro.plainPersona.bias" is "pro.bias".
func trimEmbedded(path string) string {
	for _, name := range []string{"plainConfig.", "plainPersona."} {
		path = strings.ReplaceAll(path, name, "")
	}
	return path
}
