package persuasion

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
)

// TestOutcome checks Verdict and Documents on debates played on the stub
// and on outcomes made by hand: a win of either side, a draw, none.
func TestOutcome(t *testing.T) {
	played := func(seed int64, cfg Config) func(t *testing.T) *Outcome {
		return func(t *testing.T) *Outcome {
			res, err := run(t.Context(), llm.NewStub(seed), cfg, testDebate)
			if err != nil {
				t.Fatal(err)
			}
			return res.Detail
		}
	}
	made := func(o Outcome) func(*testing.T) *Outcome {
		return func(*testing.T) *Outcome { return &o }
	}
	sides := func(first string, a float64, second string, b float64) []argumentation.SideScore {
		return []argumentation.SideScore{{Side: first, Score: a}, {Side: second, Score: b}}
	}
	short := Config{MaxRounds: 1, Exchanges: 1}
	tests := []struct {
		name    string
		outcome func(*testing.T) *Outcome
		want    engine.Verdict
	}{
		{"OPP wins on the stub", played(4, Config{}),
			engine.Verdict{Winner: SpeakerOpp, Summary: "OPP wins (OPP 3.90 vs PRO 2.92; additive semantics)"}},
		{"PRO wins on the stub", played(3, Config{Semantics: "DF-QuAD"}),
			engine.Verdict{Winner: SpeakerPro, Summary: "PRO wins (PRO 3.62 vs OPP 1.75; dfquad semantics)"}},
		{"a draw on the stub", played(35, short),
			engine.Verdict{Draw: true, Summary: "a draw (PRO 1.00 vs OPP 1.00; additive semantics)"}},
		{"a win by hand", made(Outcome{Config: DefaultConfig(), Computed: argumentation.Verdict{Winner: SidePro, Sides: sides(SidePro, 1.5, SideOpp, 0.25)}}),
			engine.Verdict{Winner: SpeakerPro, Summary: "PRO wins (PRO 1.50 vs OPP 0.25; additive semantics)"}},
		{"a draw by hand, no semantics", made(Outcome{Computed: argumentation.Verdict{Draw: true, Sides: sides(SideOpp, 1, SidePro, 1)}}),
			engine.Verdict{Draw: true, Summary: "a draw (OPP 1.00 vs PRO 1.00)"}},
		{"no verdict", made(Outcome{}), engine.Verdict{Summary: "no verdict"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.outcome(t)
			v := o.Verdict()
			if diff := cmp.Diff(tt.want, v); diff != "" {
				t.Errorf("Verdict (-want +got):\n%s", diff)
			}
			if v.Void || strings.Contains(v.Summary, "\n") {
				t.Errorf("verdict %+v: void, or not one line", v)
			}
			docs := o.Documents()
			if len(docs) != 1 || docs[0].Name != DocumentDialogue || docs[0].Title != "Persuasion dialogue" {
				t.Fatalf("documents %+v", docs)
			}
			md := docs[0].Markdown
			switch {
			case o.Markdown != "":
				if md != o.Markdown {
					t.Errorf("the document is not Outcome.Markdown")
				}
				if !strings.Contains(md, "### Winner: ") {
					t.Errorf("the document names no winner:\n%s", md)
				}
			case md != "# Persuasion dialogue\n\n"+v.Summary+"\n":
				t.Errorf("the document of an outcome without Markdown: %q", md)
			}
		})
	}
}

// TestOutcomeThroughOpen: a debate of the format opened by name gives its
// Outcome, the default debate's, as an engine.Outcome.
func TestOutcomeThroughOpen(t *testing.T) {
	f, err := engine.Open(FormatName, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(t.Context(), llm.NewStub(1), f, testDebate)
	if err != nil {
		t.Fatal(err)
	}
	o, ok := res.Detail.(*Outcome)
	if !ok {
		t.Fatalf("Detail is a %T", res.Detail)
	}
	// The default debate on the stub's seed 1.
	want := engine.Verdict{Winner: SpeakerOpp, Summary: "OPP wins (OPP 2.82 vs PRO 1.70; additive semantics)"}
	if diff := cmp.Diff(want, o.Verdict()); diff != "" {
		t.Errorf("verdict (-want +got):\n%s", diff)
	}
	if docs := o.Documents(); len(docs) != 1 || docs[0].Markdown != o.Markdown || o.Config.MaxRounds != DefaultConfig().MaxRounds {
		t.Errorf("documents %d, rounds %d", len(docs), o.Config.MaxRounds)
	}
}
