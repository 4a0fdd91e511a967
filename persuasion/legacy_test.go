package persuasion

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
)

// The legacy fixtures are a debate played by the version before the speaker
// IDs were lowercase and Config.MaxRounds and Persona.ModelID had their
// names (commit 6a1672a): the stub (llm.NewStub(legacySeed)) on
// legacyDebate with Config{Rounds: 1, Exchanges: 1, Facts: legacyFacts}, at
// legacyClock, into a JSONL store. testdata/legacy_finished.jsonl is its
// whole log, 24 records; testdata/legacy_cut.jsonl its first 11, up to
// OPP's argumentation turn, stored without the utterance that follows it.
// testdata/legacy_mapped_cut.jsonl is the same debate played with
// engine.WithArgumentMap(argumentation.Additive), its first 15 records, up
// to OPP's argumentation utterance. Their debaters speak as "PRO" and
// "OPP", and their configuration names "rounds" and each persona's "model".
const (
	legacyID   = "legacy-persuasion"
	legacySeed = 7
	legacyCut  = 11 // records in legacy_cut.jsonl
)

var legacyClock = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// legacyStore returns a JSONL store holding the fixture file name (a copy,
// so that resuming does not change the file) as debate legacyID.
func legacyStore(t *testing.T, name string) *store.JSONL {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, legacyID+".jsonl"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := store.OpenJSONL(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// legacyRecords returns the records of the whole legacy debate.
func legacyRecords(t *testing.T) []store.Record {
	t.Helper()
	recs, err := legacyStore(t, "legacy_finished.jsonl").Records(t.Context(), legacyID)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// legacyEnd is what the earlier version made of the legacy debate: its
// transcript (speakers as it stored them) and its outcome, decoded from
// its debate_ended event by this version.
func legacyEnd(t *testing.T) ([]engine.Utterance, Outcome) {
	t.Helper()
	evs, err := engine.Replay(legacyRecords(t))
	if err != nil {
		t.Fatal(err)
	}
	var said []engine.Utterance
	var out Outcome
	for _, e := range evs {
		switch e.Type {
		case engine.EventUtterance:
			said = append(said, *e.Utterance)
		case engine.EventDebateEnded:
			ended, err := engine.DataAs[engine.Ended](e)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(ended.Detail, &out); err != nil {
				t.Fatal(err)
			}
		}
	}
	return said, out
}

// TestLegacyOutcomeDecodes: the outcome an earlier version stored decodes,
// its configuration under the old names ("rounds", "model") included.
func TestLegacyOutcomeDecodes(t *testing.T) {
	said, out := legacyEnd(t)
	want := DefaultConfig()
	want.MaxRounds, want.Exchanges, want.Facts = 1, 1, []string{"All five engineers have shipped Go services"}
	want.Protocol = 0 // stored before the protocol had versions
	if diff := cmp.Diff(want, out.Config); diff != "" {
		t.Errorf("stored outcome's config (-want +got):\n%s", diff)
	}
	if len(said) != 7 || said[0].Speaker != SidePro || out.Computed.Winner != SidePro || out.Markdown == "" {
		t.Fatalf("the fixture is not the debate described: %d utterances, first by %q, winner %q",
			len(said), said[0].Speaker, out.Computed.Winner)
	}
	if v := out.Verdict(); v.Winner != SpeakerPro {
		t.Errorf("verdict %+v: the winner is not a speaker ID", v)
	}
}

// TestResumeLegacyDebate resumes the debates of the legacy fixtures, stored
// with the speakers "PRO" and "OPP" and the configuration's old names: the
// cut one finishes as the earlier version finished it, the finished one
// gives its outcome back without a model call, and the results name the
// debaters by their speaker IDs.
func TestResumeLegacyDebate(t *testing.T) {
	said, old := legacyEnd(t)
	tests := []struct {
		name  string
		file  string
		open  func(*testing.T, *store.JSONL) (*engine.Result[engine.Outcome], error)
		calls bool // whether the rest of the debate asks the model
	}{
		{"cut, by ID", "legacy_cut.jsonl", func(t *testing.T, st *store.JSONL) (*engine.Result[engine.Outcome], error) {
			return engine.ResumeStored(t.Context(), llm.NewStub(legacySeed), legacyID, engine.WithStore(st), engine.WithClock(func() time.Time { return legacyClock }))
		}, true},
		{"cut, mapped", "legacy_mapped_cut.jsonl", func(t *testing.T, st *store.JSONL) (*engine.Result[engine.Outcome], error) {
			res, err := engine.ResumeStored(t.Context(), llm.NewStub(legacySeed), legacyID, engine.WithStore(st),
				engine.WithArgumentMap(argumentation.Additive), engine.WithClock(func() time.Time { return legacyClock }))
			if err != nil {
				return res, err
			}
			// The stored turns, by "PRO" and "OPP", are not mapped (see
			// the package documentation); the turns played after the
			// resume are, by their speaker IDs.
			if res.Arguments == nil || len(res.Arguments.Moves) == 0 {
				t.Fatalf("no argument map: %+v", res.Arguments)
			}
			for _, m := range res.Arguments.Moves {
				if m.Speaker != SpeakerPro && m.Speaker != SpeakerOpp {
					t.Errorf("mapped move %s of %q", m.ID, m.Speaker)
				}
			}
			return res, nil
		}, true},
		{"cut, with a Format", "legacy_cut.jsonl", func(t *testing.T, st *store.JSONL) (*engine.Result[engine.Outcome], error) {
			res, err := engine.Resume(t.Context(), llm.NewStub(legacySeed), &Format{}, legacyID, engine.WithStore(st), engine.WithClock(func() time.Time { return legacyClock }))
			if res == nil {
				return nil, err
			}
			return &engine.Result[engine.Outcome]{DebateID: res.DebateID, Transcript: res.Transcript,
				UsageBySpeaker: res.UsageBySpeaker, Detail: res.Detail}, err
		}, true},
		{"finished, by ID", "legacy_finished.jsonl", func(t *testing.T, st *store.JSONL) (*engine.Result[engine.Outcome], error) {
			return engine.ResumeStored(t.Context(), llm.NewStub(legacySeed), legacyID, engine.WithStore(st))
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := legacyStore(t, tt.file)
			before, err := st.Records(t.Context(), legacyID)
			if err != nil {
				t.Fatal(err)
			}
			res, err := tt.open(t, st)
			if err != nil {
				t.Fatal(err)
			}
			out, ok := res.Detail.(*Outcome)
			if !ok {
				t.Fatalf("Detail is a %T", res.Detail)
			}
			// The configuration stored under the old names.
			if c := out.Config; c.MaxRounds != 1 || c.Exchanges != 1 || c.Pro.ModelID != DefaultPro().ModelID || c.Mod.ModelID != DefaultMod().ModelID {
				t.Errorf("config %+v", c)
			}
			// The debate finishes with a verdict whose winner is a speaker
			// ID (what is said after the cut is the model's answer to
			// today's prompts, not the earlier version's).
			if v := out.Verdict(); v.Winner != SpeakerPro && v.Winner != SpeakerOpp && !v.Draw || v.Summary == "" {
				t.Errorf("verdict %+v; want a win of %q or %q, or a draw", v, SpeakerPro, SpeakerOpp)
			}
			if !tt.calls && out.Markdown != old.Markdown {
				t.Error("the finished debate's report differs from the one the earlier version wrote")
			}
			sameStoredPrefix(t, res.Transcript, said, int64(len(before)))
			for _, tu := range out.Turns {
				if tu.Side != SidePro && tu.Side != SideOpp {
					t.Errorf("turn %d has side %q", tu.Seq, tu.Side)
				}
			}

			recs, err := st.Records(t.Context(), legacyID)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.calls {
				if len(recs) != len(before) {
					t.Errorf("a finished debate's log grew from %d to %d records", len(before), len(recs))
				}
				return
			}
			// The records added speak as "pro" and "opp", under the keys
			// of the records before them; every speaker, old or new, is
			// labelled.
			f, err := New(out.Config)
			if err != nil {
				t.Fatal(err)
			}
			evs, err := engine.Replay(recs)
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, r := range recs[len(before):] {
				var k struct {
					Key string `json:"key"`
				}
				if err := json.Unmarshal(r.Data, &k); err != nil {
					t.Fatal(err)
				}
				keys = append(keys, k.Key)
			}
			if !slices.Contains(keys, "turn:2:1:PRO") || !slices.Contains(keys, "say:2:1:OPP") {
				t.Errorf("the keys added are %q", keys)
			}
			if tt.file == "legacy_cut.jsonl" && keys[0] != "say:1:1:OPP" {
				t.Errorf("the first key added is %q, not the cut turn's utterance", keys[0])
			}
			for _, e := range evs {
				if e.Speaker == "" || e.Type == engine.EventToken {
					continue
				}
				if e.Seq > int64(len(before)) && e.Speaker != SpeakerPro && e.Speaker != SpeakerOpp && e.Speaker != engine.SpeakerArbiter {
					t.Errorf("event %d (%s) added by %q", e.Seq, e.Type, e.Speaker)
				}
				if l := f.Label(e.Speaker); !strings.HasPrefix(l, SideOf(SpeakerID(e.Speaker))+", the ") {
					t.Errorf("event %d by %q is labelled %q", e.Seq, e.Speaker, l)
				}
			}
			// Resumed again, the log of both versions' records gives the
			// same result without a model call.
			fake := llmtest.New()
			var opts []engine.Option
			if res.Arguments != nil {
				opts = append(opts, engine.WithArgumentMap(argumentation.Additive))
			}
			again, err := engine.ResumeStored(t.Context(), fake, legacyID, append(opts, engine.WithStore(st))...)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(fake.Requests()); n != 0 {
				t.Errorf("resumed again, the finished debate asked %d times", n)
			}
			if again.Detail.(*Outcome).Markdown != out.Markdown || !cmp.Equal(again.Transcript, res.Transcript) {
				t.Error("resumed again, the finished debate differs")
			}
		})
	}
}

// TestResumeLegacyAtEveryRecord resumes the legacy debate cut after each of
// its records: every cut finishes as the earlier version finished it, the
// transcript naming the debaters by speaker ID and the winner a speaker ID.
func TestResumeLegacyAtEveryRecord(t *testing.T) {
	recs := legacyRecords(t)
	said, old := legacyEnd(t)
	for n := 1; n < len(recs); n++ {
		mem := store.NewMemory()
		for _, r := range recs[:n] {
			if err := mem.Append(t.Context(), r); err != nil {
				t.Fatal(err)
			}
		}
		res, err := engine.ResumeStored(t.Context(), llm.NewStub(legacySeed), legacyID, engine.WithStore(mem),
			engine.WithClock(func() time.Time { return legacyClock }))
		if err != nil {
			t.Fatalf("cut after %d records: %v", n, err)
		}
		if v := res.Detail.Verdict(); v.Winner != SpeakerPro && v.Winner != SpeakerOpp && !v.Draw {
			t.Errorf("cut after %d records: verdict %+v", n, v)
		}
		if len(res.Transcript) != len(said) {
			t.Fatalf("cut after %d records: %d utterances, want %d", n, len(res.Transcript), len(said))
		}
		sameStoredPrefix(t, res.Transcript, said, int64(n))
	}
	_ = old
}

// sameStoredPrefix checks a resumed legacy debate's transcript: the
// utterances stored before the cut (Seq ≤ cut) are the earlier version's,
// and every utterance names its debater by speaker ID.
func sameStoredPrefix(t *testing.T, got, said []engine.Utterance, cut int64) {
	t.Helper()
	for i, u := range got {
		if u.Speaker != SpeakerPro && u.Speaker != SpeakerOpp && u.Speaker != engine.SpeakerArbiter {
			t.Errorf("utterance %d by %q, not a speaker ID", u.Seq, u.Speaker)
		}
		if i < len(said) && u.Seq <= cut && (u.Speaker != SpeakerID(said[i].Speaker) || u.Content != said[i].Content) {
			t.Errorf("stored utterance %d: %s %q, want the earlier version's %s %q", u.Seq, u.Speaker, u.Content, SpeakerID(said[i].Speaker), said[i].Content)
		}
	}
}

// TestConfigJSONNames: a Config encodes under the current names only and
// decodes under the names of any version, the current one first, over the
// values it holds; a persona alone too.
func TestConfigJSONNames(t *testing.T) {
	b, err := json.Marshal(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{`"maxRounds":2`, `"modelId":"openai/gpt-4o"`} {
		if !bytes.Contains(b, []byte(name)) {
			t.Errorf("%s lacks %s", b, name)
		}
	}
	for _, old := range []string{`"rounds"`, `"model"`} {
		if bytes.Contains(b, []byte(old)) {
			t.Errorf("%s writes the old name %s", b, old)
		}
	}
	tests := []struct {
		name, json string
		want       func(*Config)
	}{
		{"current names", `{"maxRounds": 3, "pro": {"modelId": "a"}}`, func(c *Config) { c.MaxRounds, c.Pro.ModelID = 3, "a" }},
		{"old names", `{"rounds": 3, "pro": {"model": "a"}}`, func(c *Config) { c.MaxRounds, c.Pro.ModelID = 3, "a" }},
		{"both, the current first", `{"maxRounds": 4, "rounds": 3, "pro": {"model": "a", "modelId": "b"}}`,
			func(c *Config) { c.MaxRounds, c.Pro.ModelID = 4, "b" }},
		{"names in another case", `{"Rounds": 3, "PRO": {"MODEL": "a"}}`, func(c *Config) { c.MaxRounds, c.Pro.ModelID = 3, "a" }},
		{"null leaves the value", `{"maxRounds": null, "pro": {"modelId": null}}`, func(*Config) {}},
		{"unknown fields are ignored", `{"colour": 1, "opp": {"colour": 2, "model": "c"}}`, func(c *Config) { c.Opp.ModelID = "c" }},
		{"left out, kept", `{"opp": {"bias": ""}}`, func(c *Config) { c.Opp.Bias = "" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, want := DefaultConfig(), DefaultConfig()
			tt.want(&want)
			if err := json.Unmarshal([]byte(tt.json), &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
		})
	}
	var p Persona
	if err := json.Unmarshal([]byte(`{"description": "SRE", "model": "m"}`), &p); err != nil || p != (Persona{Description: "SRE", ModelID: "m"}) {
		t.Errorf("persona %+v: %v", p, err)
	}
	var c Config
	err = json.Unmarshal([]byte(`{"pro": {"bias": 5}}`), &c)
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Field != "pro.bias" {
		t.Errorf("a value of the wrong type: %v, named %q", err, fieldOf(te))
	}
}

func fieldOf(te *json.UnmarshalTypeError) string {
	if te == nil {
		return ""
	}
	return te.Field
}

// TestSpeakersAndSides: the speaker IDs and the side labels, one turned
// into the other, and Label naming either.
func TestSpeakersAndSides(t *testing.T) {
	f := mustNew(t, DefaultConfig())
	tests := []struct{ speaker, side, label string }{
		{SpeakerPro, SidePro, "PRO, the proponent: "},
		{SpeakerOpp, SideOpp, "OPP, the opponent: "},
		{engine.SpeakerArbiter, SideMod, "MOD, the moderator: "},
	}
	for _, tt := range tests {
		if got := SideOf(tt.speaker); got != tt.side {
			t.Errorf("SideOf(%q) = %q, want %q", tt.speaker, got, tt.side)
		}
		if got := SpeakerID(tt.side); got != tt.speaker {
			t.Errorf("SpeakerID(%q) = %q, want %q", tt.side, got, tt.speaker)
		}
		if SpeakerID(tt.speaker) != tt.speaker || SideOf(tt.side) != tt.side {
			t.Errorf("%q or %q is not kept as it is", tt.speaker, tt.side)
		}
		for _, s := range []string{tt.speaker, tt.side} {
			if l := f.Label(s); !strings.HasPrefix(l, tt.label) {
				t.Errorf("Label(%q) = %q, want %q…", s, l, tt.label)
			}
		}
	}
	if f.Label(engine.SpeakerHuman) != engine.SpeakerHuman || SpeakerID("x") != "x" || SideOf("x") != "x" {
		t.Error("another speaker is not named as it is")
	}
	if !slices.Equal(f.Participants(), []string{SpeakerPro, SpeakerOpp}) {
		t.Errorf("participants %q", f.Participants())
	}
}

// TestConfigNames: configNames, against which the opener checks a
// configuration for unknown fields, names every field of a Config and of
// its personas as encoded, and the old names besides.
func TestConfigNames(t *testing.T) {
	names := func(typ reflect.Type) []string {
		var out []string
		for i := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			out = append(out, name)
		}
		slices.Sort(out)
		return out
	}
	keys := func(v any) []string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return slices.Sorted(maps.Keys(m))
	}
	full := DefaultConfig()
	full.Perspective, full.Facts, full.DrawMargin = "p", []string{"f"}, 0.1 // no field left out
	want := slices.Sorted(slices.Values(append(keys(full), "rounds")))
	if diff := cmp.Diff(want, names(reflect.TypeFor[configNames]())); diff != "" {
		t.Errorf("configNames (-Config's JSON and the old name +fields):\n%s", diff)
	}
	want = slices.Sorted(slices.Values(append(keys(full.Pro), "model")))
	if diff := cmp.Diff(want, names(reflect.TypeFor[personaNames]())); diff != "" {
		t.Errorf("personaNames (-Persona's JSON and the old name +fields):\n%s", diff)
	}
	// A persona named in another case, under the old name, opens as it
	// decodes.
	f, err := engine.Open(FormatName, json.RawMessage(`{"PRO": {"MODEL": "x"}, "Rounds": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	if c := configOf(t, storedSpec(t, f)); c.Pro.ModelID != "x" || c.MaxRounds != 1 {
		t.Errorf("config %+v", c)
	}
}
