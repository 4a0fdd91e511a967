package moderated

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/duelogic/duelogic/catalog"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/internal/jsonsec"
)

// The settings a settings file may give, by the seed's names (its
// settings.amelia.yaml "debate" section), and the Config field each sets.
var settingFields = []struct{ name, field string }{
	{"max_rounds", "maxRounds"},
	{"default_perspectives", "debaters"},
	{"token_budget_per_round", "tokenBudget"},
	{"round_timeout_seconds", "roundTimeout"},
	{"checkpoint_timeout_seconds", "checkpointTimeout"},
	{"total_timeout_seconds", "totalTimeout"},
	{"custom_perspectives", "customPerspectives"},
}

// The keys of a custom perspective in a settings file.
var perspectiveKeys = []string{"name", "priorities", "trade_offs", "id", "description", "opposes"}

// ParseSettings reads a settings file over cfg and returns the result: the
// seed's "debate" settings, written as JSON with the seed's names.
//
//	{"debate": {
//	  "max_rounds": 5,
//	  "default_perspectives": 2,
//	  "token_budget_per_round": 2000,
//	  "round_timeout_seconds": 120,
//	  "checkpoint_timeout_seconds": 1800,
//	  "total_timeout_seconds": 1800,
//	  "custom_perspectives": [
//	    {"name": "Compliance First",
//	     "priorities": ["audit trails", "data residency", "SOC2 requirements"],
//	     "trade_offs": "Will accept development slowdown for compliance"}]}}
//
// The "debate" object may also be the whole document; beside it, a document
// may hold other sections, which are ignored. Every setting is optional.
// default_perspectives is 2..4, or "auto" (or 0) for the moderator's choice;
// token_budget_per_round is a number of tokens, or "unlimited" (or 0); a
// timeout is a number of seconds, or a duration such as "2m". A custom
// perspective needs a name and priorities; its ID is made from its name
// unless "id" gives one (a built-in perspective's ID replaces it, as the seed
// says users "override or extend" the catalog), its description is its
// trade_offs unless "description" gives one, and "opposes" names (or IDs)
// perspectives whose trade-offs pull against it, for the balance of the
// seats. Custom perspectives are added to cfg's.
//
// Problems are one [*engine.ValidationError] naming each by its path in
// the file ("debate.max_rounds", "debate.custom_perspectives[1].name"):
// unknown settings, values of the wrong kind, and values [Config.Validate]
// rejects.
func ParseSettings(data []byte, cfg Config) (Config, error) {
	bad := &engine.ValidationError{Format: FormatName}
	var doc map[string]json.RawMessage
	if err := decodeStrict(data, &doc); err != nil {
		bad.Add("settings", "not a JSON object: %v", err)
		return cfg, bad
	}
	section, prefix := doc, ""
	if raw, ok := doc["debate"]; ok {
		section, prefix = nil, "debate."
		if err := decodeStrict(raw, &section); err != nil || section == nil {
			bad.Add("debate", "want an object of settings, not %s", clip(raw))
			return cfg, bad
		}
	}
	cfg.CustomPerspectives = slices.Clone(cfg.CustomPerspectives)
	cfg.Opposites = slices.Clone(cfg.Opposites)
	// paths maps the Config fields the file set ("maxRounds",
	// "customPerspectives[2]", "opposites[0]") to its paths.
	paths := map[string]string{}
	keys := make([]string, 0, len(section))
	for k := range section {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, key := range keys {
		raw, path := section[key], prefix+key
		if key == "" {
			path = prefix + `""`
		}
		i := slices.IndexFunc(settingFields, func(f struct{ name, field string }) bool { return f.name == key })
		if i < 0 {
			bad.Add(path, "unknown setting; known: %s", knownSettings())
			continue
		}
		paths[settingFields[i].field] = path
		switch key {
		case "max_rounds":
			if n, err := wholeNumber(raw); err != nil {
				bad.Add(path, "%v", err)
			} else {
				cfg.MaxRounds = n
			}
		case "default_perspectives":
			if n, err := perspectivesCount(raw); err != nil {
				bad.Add(path, "%v", err)
			} else {
				cfg.Debaters = n
			}
		case "token_budget_per_round":
			if n, err := parseTokenBudget(raw); err != nil {
				bad.Add(path, "%v", err)
			} else {
				cfg.TokenBudget = n
			}
		case "round_timeout_seconds", "checkpoint_timeout_seconds", "total_timeout_seconds":
			d, err := jsonsec.Parse(raw)
			if err != nil {
				bad.Add(path, "%v", err)
				continue
			}
			switch key {
			case "round_timeout_seconds":
				cfg.RoundTimeout = d
			case "checkpoint_timeout_seconds":
				cfg.CheckpointTimeout = d
			default:
				cfg.TotalTimeout = d
			}
		case "custom_perspectives":
			addCustom(&cfg, raw, path, bad, paths)
		}
	}
	if err := bad.Err(); err != nil {
		return cfg, err
	}
	// The rules are Validate's; its problems are named as the file names
	// them.
	var ve *engine.ValidationError
	if err := cfg.Validate(); errors.As(err, &ve) {
		for _, v := range ve.Violations {
			field := v.Field
			if p, ok := paths[field]; ok {
				field = p
			}
			bad.Add(field, "%s", v.Problem)
		}
	}
	return cfg, bad.Err()
}

// decodeStrict decodes one JSON value, and nothing after it, into v.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("data after the JSON value")
	}
	return nil
}

func knownSettings() string {
	names := make([]string, len(settingFields))
	for i, f := range settingFields {
		names[i] = f.name
	}
	return strings.Join(names, ", ")
}

// wholeNumber reads a JSON integer.
func wholeNumber(raw json.RawMessage) (int, error) {
	var n int
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, fmt.Errorf("want a whole number, not %s", clip(raw))
	}
	return n, nil
}

// perspectivesCount reads default_perspectives: a number, or "auto" (0).
func perspectivesCount(raw json.RawMessage) (int, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if strings.EqualFold(strings.TrimSpace(s), "auto") {
			return 0, nil
		}
		return 0, fmt.Errorf(`%q: want 2..4, or "auto" for the moderator's choice`, s)
	}
	n, err := wholeNumber(raw)
	if err != nil {
		return 0, fmt.Errorf(`want 2..4, or "auto" for the moderator's choice, not %s`, clip(raw))
	}
	return n, nil
}

// customPerspective is a custom perspective as a settings file gives it.
type customPerspective struct {
	Name        string   `json:"name"`
	Priorities  []string `json:"priorities"`
	TradeOffs   string   `json:"trade_offs"`
	ID          string   `json:"id"`
	Description string   `json:"description"`
	Opposes     []string `json:"opposes"`
}

// addCustom adds the custom perspectives of raw (a list) to cfg, and the
// pairs they oppose to cfg.Opposites, adding the problems to bad.
func addCustom(cfg *Config, raw json.RawMessage, path string, bad *engine.ValidationError, paths map[string]string) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		bad.Add(path, "want a list of perspectives, not %s", clip(raw))
		return
	}
	type opposes struct {
		id    catalog.Framework
		names []string
		path  string
	}
	var pending []opposes
	for i, item := range items {
		at := fmt.Sprintf("%s[%d]", path, i)
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(item, &fields); err != nil {
			bad.Add(at, "want an object with name, priorities and trade_offs, not %s", clip(item))
			continue
		}
		ok := true
		for k := range fields {
			if !slices.Contains(perspectiveKeys, k) {
				bad.Add(at+"."+k, "unknown key; known: %s", strings.Join(perspectiveKeys, ", "))
				ok = false
			}
		}
		var c customPerspective
		wrong := map[string]bool{}
		for _, k := range perspectiveKeys {
			v, given := fields[k]
			if !given {
				continue
			}
			var err error
			switch k {
			case "name":
				err = json.Unmarshal(v, &c.Name)
			case "priorities":
				err = json.Unmarshal(v, &c.Priorities)
			case "trade_offs":
				err = json.Unmarshal(v, &c.TradeOffs)
			case "id":
				err = json.Unmarshal(v, &c.ID)
			case "description":
				err = json.Unmarshal(v, &c.Description)
			case "opposes":
				err = json.Unmarshal(v, &c.Opposes)
			}
			if err != nil {
				kind := "a string"
				if k == "priorities" || k == "opposes" {
					kind = "a list of strings"
				}
				bad.Add(at+"."+k, "want %s, not %s", kind, clip(v))
				ok, wrong[k] = false, true
			}
		}
		c.Name = oneLine(c.Name)
		if c.Name == "" && !wrong["name"] {
			bad.Add(at+".name", "is empty")
			ok = false
		}
		c.Priorities = slices.DeleteFunc(c.Priorities, func(p string) bool { return strings.TrimSpace(p) == "" })
		if len(c.Priorities) == 0 && !wrong["priorities"] {
			bad.Add(at+".priorities", "is empty: a perspective is its priorities")
			ok = false
		}
		if !ok {
			continue
		}
		id := catalog.Framework(c.ID)
		if id == "" {
			id = slugID(c.Name)
		}
		desc := strings.TrimSpace(c.Description)
		if desc == "" {
			desc = strings.TrimSpace(c.TradeOffs)
		}
		if desc == "" {
			desc = "Prioritizes " + strings.Join(c.Priorities, ", ") + "."
		}
		paths[fmt.Sprintf("customPerspectives[%d]", len(cfg.CustomPerspectives))] = at
		cfg.CustomPerspectives = append(cfg.CustomPerspectives, catalog.FrameworkInfo{
			ID: id, Kind: catalog.KindPerspective, Name: c.Name, Description: desc,
			Priorities: c.Priorities, TradeOffs: strings.TrimSpace(c.TradeOffs),
		})
		if len(c.Opposes) > 0 {
			pending = append(pending, opposes{id, c.Opposes, at + ".opposes"})
		}
	}
	// Names are resolved once every custom perspective is in the catalog.
	ps := buildPerspectives(*cfg, &engine.ValidationError{})
	for _, o := range pending {
		for j, name := range o.names {
			other, ok := ps.resolve(name)
			if !ok {
				if _, isID := ps.byID[catalog.Framework(name)]; isID {
					other, ok = catalog.Framework(name), true
				}
			}
			at := fmt.Sprintf("%s[%d]", o.path, j)
			if !ok || other == o.id {
				bad.Add(at, "%q is not another perspective of the catalog", name)
				continue
			}
			paths[fmt.Sprintf("opposites[%d]", len(cfg.Opposites))] = at
			cfg.Opposites = append(cfg.Opposites, [2]catalog.Framework{o.id, other})
		}
	}
}

// slugID makes a catalog ID of a name: "Compliance First" is
// "compliance_first".
func slugID(name string) catalog.Framework {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			if under && b.Len() > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
			under = false
		default:
			under = true
		}
		if b.Len() >= 60 {
			break
		}
	}
	if b.Len() == 0 {
		return "custom"
	}
	return catalog.Framework(b.String())
}

// clip is a JSON value as an error quotes it: one line, at most 60 runes.
func clip(raw json.RawMessage) string { return cut(oneLine(string(raw)), 60) }
