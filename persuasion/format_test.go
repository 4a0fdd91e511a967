package persuasion

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/engine/enginetest"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// TestFormatKeepsTheContract runs the engine's conformance suite on the
// default debate, plain and with argument mapping.
func TestFormatKeepsTheContract(t *testing.T) {
	for _, c := range []struct {
		name string
		opts []engine.Option
	}{
		{"plain", nil},
		{"mapped", []engine.Option{engine.WithArgumentMap(argumentation.Additive)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			enginetest.Run(t, func() engine.Format[*Outcome] {
				f, err := New(DefaultConfig())
				if err != nil {
					t.Fatal(err)
				}
				return f
			}, enginetest.Config{Options: c.opts})
		})
	}
}

// TestArgumentMap: with engine.WithArgumentMap the engine maps every turn
// of PRO and OPP, never the moderator's verdict, with the moderator's model,
// and names the sides by their personas.
func TestArgumentMap(t *testing.T) {
	client := &countingClient{Client: llm.NewStub(2)}
	fake := legalScript.fake()
	fake.OnPurpose(engine.PurposeArgumentExtraction).Reply(`{"moves": [{"act": "since", "proposition": "The point made", "reasons": ["A reason"]}]}`)
	for _, c := range []struct {
		name   string
		client llm.Client
		turns  int
	}{
		{"stub", client, 12},
		{"script", fake, 6},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := Config{}
			if c.name == "script" {
				cfg = shortConfig()
			}
			res, err := run(t.Context(), c.client, cfg, testDebate, engine.WithArgumentMap(argumentation.Additive))
			if err != nil {
				t.Fatal(err)
			}
			am := res.Arguments
			if am == nil || len(am.Moves) == 0 {
				t.Fatalf("no argument map: %+v", am)
			}
			moves := am.Moves
			for _, ill := range am.Illegal {
				moves = append(moves, ill.Move)
			}
			for _, m := range moves {
				if m.Speaker != SpeakerPro && m.Speaker != SpeakerOpp {
					t.Errorf("move %s of %q is mapped", m.ID, m.Speaker)
				}
			}
			want := mustNew(t, cfg)
			var parts []argumentation.Participant
			for _, speaker := range []string{SpeakerPro, SpeakerOpp} {
				parts = append(parts, argumentation.Participant{Side: speaker, Persona: want.Label(speaker)})
			}
			if diff := cmp.Diff(parts, am.Report.Participants); diff != "" {
				t.Errorf("participants (-want +got):\n%s", diff)
			}
			if !strings.HasPrefix(parts[0].Persona, "PRO, the proponent: ") {
				t.Errorf("PRO's label %q", parts[0].Persona)
			}
			if c.name == "stub" {
				if n := client.count(engine.PurposeArgumentExtraction); n != c.turns {
					t.Errorf("%d extraction calls for %d turns", n, c.turns)
				}
				return
			}
			extractions := requests(fake, engine.PurposeArgumentExtraction, "")
			if len(extractions) != c.turns {
				t.Errorf("%d extraction calls for %d turns", len(extractions), c.turns)
			}
			for _, r := range extractions {
				if r.Model != modModel {
					t.Errorf("an extraction went to %q, not the moderator's model", r.Model)
				}
			}
		})
	}
}

// mustNew is New that must succeed.
func mustNew(t *testing.T, cfg Config, opts ...Option) *Format {
	t.Helper()
	f, err := New(cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestResumeUsesTheStoredConfig: Resume plays with the configuration stored
// with the debate, whole, whatever the Format it is given holds.
func TestResumeUsesTheStoredConfig(t *testing.T) {
	st := store.NewMemory()
	cfg := shortConfig() // no perspective
	first, err := run(t.Context(), legalScript.fake(), cfg, testDebate, engine.WithStore(st))
	if err != nil {
		t.Fatal(err)
	}
	other := DefaultConfig()
	other.Perspective = "security"
	other.Facts = []string{"a", "b", "c"}
	f := mustNew(t, other)
	again, err := engine.Resume(t.Context(), legalScript.fake(), f, testDebate.ID, engine.WithStore(st))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first.Detail.Config, again.Detail.Config); diff != "" {
		t.Errorf("resumed config (-stored +got):\n%s", diff)
	}
	if diff := cmp.Diff(cfg.withDefaults(), f.Config); diff != "" {
		t.Errorf("the Format's config after Resume (-stored +got):\n%s", diff)
	}
}
