package formal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// SeedConfigPath is where the seed keeps its runtime configuration
// ("Step A — Read config: cat config/debate-config.json"), relative to the
// directory it runs in.
const SeedConfigPath = "config/debate-config.json"

// SeedOutputParent is the directory in which the seed creates its output
// directories ("OUTPUT_DIR="output/${TIMESTAMP}-${SLUG}"").
const SeedOutputParent = "output"

// MaxSeedConfigBytes bounds the seed configuration files that
// [ParseSeedConfig] reads.
const MaxSeedConfigBytes = 1 << 20

// ErrInvalidSeedConfig is matched (errors.Is) by the errors of
// [ParseSeedConfig] and [LoadSeedConfig] for a file that is not the seed's
// configuration.
var ErrInvalidSeedConfig = errors.New("formal: invalid debate config")

// SeedConfig is the seed's config/debate-config.json: a JSON object with
// snake_case fields, of which the debate reads topic, topic_prompt,
// min_rounds and max_rounds, and into which the seed writes back the topic
// debated (Step B) and the output directory it created, output_dir (Step
// C). The file's other fields (the models, say) are kept as they are, in
// their order, when it is written back ([SeedConfig.MarshalJSON]).
type SeedConfig struct {
	// Topic is the topic to debate; "": none (Step B then takes
	// TopicPrompt, else asks).
	Topic string
	// TopicPrompt is the topic debated when Topic is empty.
	TopicPrompt string
	// MinRounds and MaxRounds bound the rounds; 0: not set.
	MinRounds, MaxRounds int
	// OutputDir is the output directory of the last debate run with this
	// file (written back by Step C), not read by the debate.
	OutputDir string

	// fields are the file's fields as read, in order.
	fields []seedField
}

// seedField is one field of the file, as read.
type seedField struct {
	name  string
	value json.RawMessage
}

// The fields of SeedConfig, by their names in the file.
const (
	seedTopic       = "topic"
	seedTopicPrompt = "topic_prompt"
	seedMinRounds   = "min_rounds"
	seedMaxRounds   = "max_rounds"
	seedOutputDir   = "output_dir"
)

// ParseSeedConfig reads the seed's configuration file: one JSON object,
// whose fields topic, topic_prompt and output_dir are strings (or null)
// and min_rounds and max_rounds non-negative integers (or null); other
// fields may hold anything and are kept. A field given twice takes its
// last value, as encoding/json does. The error wraps
// [ErrInvalidSeedConfig] and names the field.
func ParseSeedConfig(data []byte) (*SeedConfig, error) {
	if len(data) > MaxSeedConfigBytes {
		return nil, fmt.Errorf("%w: %d bytes; at most %d", ErrInvalidSeedConfig, len(data), MaxSeedConfigBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("%w: not a JSON object", ErrInvalidSeedConfig)
	}
	c := &SeedConfig{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidSeedConfig, err)
		}
		name, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, fmt.Errorf("%w: %q: %v", ErrInvalidSeedConfig, name, err)
		}
		if i := c.field(name); i >= 0 {
			c.fields[i].value = value
		} else {
			c.fields = append(c.fields, seedField{name, value})
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidSeedConfig, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: more than one JSON value", ErrInvalidSeedConfig)
	}
	for _, f := range c.fields {
		if err := c.read(f); err != nil {
			return nil, fmt.Errorf("%w: %q: %v", ErrInvalidSeedConfig, f.name, err)
		}
	}
	return c, nil
}

// field returns the index of the field name in c.fields, or -1.
func (c *SeedConfig) field(name string) int {
	for i, f := range c.fields {
		if f.name == name {
			return i
		}
	}
	return -1
}

// read sets the SeedConfig field that f is, if it is one.
func (c *SeedConfig) read(f seedField) error {
	var str *string
	var num *int
	switch f.name {
	case seedTopic:
		str = &c.Topic
	case seedTopicPrompt:
		str = &c.TopicPrompt
	case seedOutputDir:
		str = &c.OutputDir
	case seedMinRounds:
		num = &c.MinRounds
	case seedMaxRounds:
		num = &c.MaxRounds
	default:
		return nil
	}
	if string(f.value) == "null" {
		return nil
	}
	if str != nil {
		if err := json.Unmarshal(f.value, str); err != nil {
			return errors.New("want a string")
		}
		return nil
	}
	var n int
	if err := json.Unmarshal(f.value, &n); err != nil || n < 0 {
		return errors.New("want a non-negative integer")
	}
	*num = n
	return nil
}

// MarshalJSON writes c as the file it was read from, indented by two
// spaces: its fields in their order, those of SeedConfig with their
// values now; topic and output_dir, which the seed writes back, are added
// when the file had none, and so are min_rounds, max_rounds and
// topic_prompt when they are set.
func (c *SeedConfig) MarshalJSON() ([]byte, error) {
	values := map[string]any{seedTopic: c.Topic, seedTopicPrompt: c.TopicPrompt, seedMinRounds: c.MinRounds,
		seedMaxRounds: c.MaxRounds, seedOutputDir: c.OutputDir}
	set := map[string]bool{seedTopic: true, seedOutputDir: true, seedTopicPrompt: c.TopicPrompt != "",
		seedMinRounds: c.MinRounds != 0, seedMaxRounds: c.MaxRounds != 0}
	fields := append([]seedField(nil), c.fields...)
	for _, name := range []string{seedTopic, seedTopicPrompt, seedMinRounds, seedMaxRounds, seedOutputDir} {
		if c.field(name) < 0 && set[name] {
			fields = append(fields, seedField{name: name})
		}
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		name, err := marshalNoEscape(f.name)
		if err != nil {
			return nil, err
		}
		value := f.value
		if v, ok := values[f.name]; ok && (set[f.name] || string(f.value) != "null") {
			if value, err = marshalNoEscape(v); err != nil {
				return nil, err
			}
		}
		b.Write(name)
		b.WriteByte(':')
		b.Write(value)
	}
	b.WriteByte('}')
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return nil, fmt.Errorf("formal: write debate config: %w", err)
	}
	return out.Bytes(), nil
}

// marshalNoEscape is v as JSON, "<", ">" and "&" as they are.
func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("formal: write debate config: %w", err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Apply returns cfg with what the file sets: its topic prompt and its
// rounds (a bound it leaves at 0 keeps cfg's, unless that would be out of
// order with the one it sets).
func (c *SeedConfig) Apply(cfg Config) Config {
	if c.TopicPrompt != "" {
		cfg.TopicPrompt = c.TopicPrompt
	}
	if c.MinRounds > 0 {
		cfg.MinRounds = c.MinRounds
		if c.MaxRounds == 0 && cfg.MaxRounds < c.MinRounds {
			cfg.MaxRounds = c.MinRounds
		}
	}
	if c.MaxRounds > 0 {
		cfg.MaxRounds = c.MaxRounds
		if c.MinRounds == 0 && cfg.MinRounds > c.MaxRounds {
			cfg.MinRounds = c.MaxRounds
		}
	}
	return cfg
}

// LoadSeedConfig reads the seed's configuration file at path (see
// [ParseSeedConfig]).
func LoadSeedConfig(path string) (*SeedConfig, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("formal: read debate config: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxSeedConfigBytes+1))
	if err != nil {
		return nil, fmt.Errorf("formal: read debate config %s: %w", path, err)
	}
	c, err := ParseSeedConfig(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// SaveSeedConfig writes c to path, as the seed writes back its topic
// (Step B) and output directory (Step C): through a temporary file in the
// same directory renamed over path, so a reader sees the old file or the
// new one, never a part; a new file is 0644, an existing one keeps its
// mode.
func SaveSeedConfig(path string, c *SeedConfig) error {
	data, err := c.MarshalJSON()
	if err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".debate-config-*")
	if err != nil {
		return fmt.Errorf("formal: write debate config: %w", err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	_, err = tmp.Write(append(data, '\n'))
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("formal: write debate config %s: %w", path, err)
	}
	return nil
}
