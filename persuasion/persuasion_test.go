package persuasion

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/storetest"
)

// wantSchedule is who moves in which phase and round with the defaults.
func wantSchedule() []string {
	out := []string{"0 opening PRO", "0 opening OPP"}
	for r := 1; r <= 2; r++ {
		for range 2 {
			out = append(out, fmt.Sprintf("%d argumentation PRO", r), fmt.Sprintf("%d argumentation OPP", r))
		}
	}
	return append(out, "3 closing PRO", "3 closing OPP")
}

// TestStubDebates runs the default debate on the stub with several seeds:
// the seed's schedule is kept, every stored move replays legally, the
// verdict is the computed one, and across the seeds the stub's illegal
// moves and incomplete judgments are asked for again.
func TestStubDebates(t *testing.T) {
	var rejected, reasked int
	winners := map[string]bool{}
	for seed := int64(1); seed <= 8; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			client := &countingClient{Client: llm.NewStub(seed)}
			res, err := Run(t.Context(), client, Config{}, testDebate)
			if err != nil {
				t.Fatal(err)
			}
			var sched []string
			var all []argumentation.Move
			for _, tu := range res.Turns {
				sched = append(sched, fmt.Sprintf("%d %s %s", tu.Round, tu.Phase, tu.Side))
				if len(tu.Moves) == 0 || strings.TrimSpace(tu.Text) == "" {
					t.Errorf("turn %d %s: %d moves, text %q", tu.Round, tu.Side, len(tu.Moves), tu.Text)
				}
				for _, m := range tu.Moves {
					if m.Speaker != tu.Side || m.Round != tu.Round || !strings.HasPrefix(m.ID, idPrefix(tu.Side)) {
						t.Errorf("move %s in %s's turn of round %d", m, tu.Side, tu.Round)
					}
				}
				all = append(all, tu.Moves...)
				rejected += len(tu.Rejected)
			}
			if diff := cmp.Diff(wantSchedule(), sched); diff != "" {
				t.Fatalf("schedule (-want +got):\n%s", diff)
			}
			// The opening follows the seed: PRO claims φ, OPP claims ¬φ or asks why.
			p1, o1 := res.Turns[0].Moves[0], res.Turns[1].Moves[0]
			if p1.Act != argumentation.Claim || p1.Target != "" ||
				o1.Target != p1.ID || !(o1.Act == argumentation.Why || o1.Proposition == argumentation.Negate(p1.Proposition)) {
				t.Errorf("opening %s, %s", p1, o1)
			}
			// The stored moves are a legal dialogue, and the verdict is its.
			d, err := replay(all)
			if err != nil {
				t.Fatalf("the turns' moves do not replay: %v", err)
			}
			report, err := d.Judge(argumentation.Additive, argumentation.VerdictOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(report.Verdict, res.Verdict); diff != "" {
				t.Errorf("verdict (-recomputed +got):\n%s", diff)
			}
			winners[res.Verdict.Winner] = true
			if m := res.Moderation; m.Rationale == "" || m.Consensus == "" || len(m.Conditions) == 0 {
				t.Errorf("moderation %+v", m)
			}
			if res.Verdict.Winner != "" && !strings.Contains(res.Moderation.Rationale, res.Verdict.Winner+" prevails") {
				t.Errorf("the stub's rationale does not explain the computed winner %s: %q", res.Verdict.Winner, res.Moderation.Rationale)
			}
			reasked += client.count(PurposeVerdict) - 1
			if len(res.Transcript) != len(res.Turns)+1 {
				t.Errorf("%d utterances for %d turns", len(res.Transcript), len(res.Turns))
			}
			for _, want := range []string{"### Round 0: Opening", "### Round 1: Argumentation", "### Round 2: Argumentation",
				"### Round 3: Closing", "## Commitment Stores (Final State)", "### Consensus Solution"} {
				if !strings.Contains(res.Markdown, want) {
					t.Errorf("markdown lacks %q", want)
				}
			}
		})
	}
	if rejected == 0 || reasked == 0 {
		t.Errorf("no turn (%d) or judgment (%d) was asked for again over 8 seeds", rejected, reasked)
	}
	if !winners[SidePro] || !winners[SideOpp] {
		t.Errorf("winners over 8 seeds: %v", winners)
	}
}

func TestStubDebateGolden(t *testing.T) {
	cfg := Config{Facts: []string{"The billing service handles 2M invoices a month", "Two of five engineers have written Go in production"},
		Perspective: "on-call load"}
	res, err := Run(t.Context(), llm.NewStub(1), cfg, testDebate)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "stub.md.golden", res.Markdown)
}

func TestRunIsDeterministic(t *testing.T) {
	var first *Result
	for range 3 {
		res, err := Run(t.Context(), llm.NewStub(3), Config{}, testDebate)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = res
			continue
		}
		if diff := cmp.Diff(first.Turns, res.Turns); diff != "" {
			t.Fatalf("turns differ between runs (-first +again):\n%s", diff)
		}
		if first.Markdown != res.Markdown {
			t.Fatal("markdown differs between runs")
		}
	}
}

func TestResumeAtEveryRecord(t *testing.T) {
	ctx := t.Context()
	const seed = 7 // its debate asks for turns again
	ref := store.NewMemory()
	want, err := Run(ctx, llm.NewStub(seed), Config{}, testDebate, duelogic.WithStore(ref))
	if err != nil {
		t.Fatal(err)
	}
	rejected := 0
	for _, tu := range want.Turns {
		rejected += len(tu.Rejected)
	}
	if rejected == 0 {
		t.Fatal("the reference debate asks for no turn again")
	}
	recs, err := ref.Records(ctx, testDebate.ID)
	if err != nil {
		t.Fatal(err)
	}
	ignoreSeq := cmp.Options{cmpopts.IgnoreFields(duelogic.Utterance{}, "Seq"), cmpopts.IgnoreFields(Turn{}, "Seq")}
	for n := 1; n < len(recs); n++ {
		mem := store.NewMemory()
		if _, err := Run(ctx, llm.NewStub(seed), Config{}, testDebate, duelogic.WithStore(storetest.FailAfter(mem, n, errDisk))); !errors.Is(err, errDisk) {
			t.Fatalf("n=%d: %v", n, err)
		}
		got, err := Resume(ctx, llm.NewStub(seed), testDebate.ID, duelogic.WithStore(mem))
		if err != nil {
			t.Fatalf("n=%d: resume: %v", n, err)
		}
		if diff := cmp.Diff(want.Transcript, got.Transcript, ignoreSeq); diff != "" {
			t.Fatalf("n=%d: transcript (-want +got):\n%s", n, diff)
		}
		if diff := cmp.Diff(want.Turns, got.Turns, ignoreSeq); diff != "" {
			t.Fatalf("n=%d: turns (-want +got):\n%s", n, diff)
		}
		if diff := cmp.Diff(want.Verdict, got.Verdict); diff != "" {
			t.Fatalf("n=%d: verdict (-want +got):\n%s", n, diff)
		}
		if diff := cmp.Diff(want.Moderation, got.Moderation); diff != "" {
			t.Fatalf("n=%d: moderation (-want +got):\n%s", n, diff)
		}
		if diff := cmp.Diff(want.Config, got.Config); diff != "" {
			t.Fatalf("n=%d: config (-want +got):\n%s", n, diff)
		}
		if want.Markdown != got.Markdown {
			t.Fatalf("n=%d: markdown differs", n)
		}
		stored, _ := mem.Records(ctx, testDebate.ID)
		if len(stored) != len(recs) {
			t.Fatalf("n=%d: %d records after resume, want %d", n, len(stored), len(recs))
		}
	}
}

func TestResumeOtherFormat(t *testing.T) {
	st := store.NewMemory()
	if _, err := Run(t.Context(), legalScript.fake(), shortConfig(), testDebate, duelogic.WithStore(st)); err != nil {
		t.Fatal(err)
	}
	if _, err := Resume(t.Context(), llmtest.New(), "nope", duelogic.WithStore(st)); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown debate: %v", err)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*Config)
		want   string // in the error; "" for none
	}{
		{"defaults", func(*Config) {}, ""},
		{"host personas", func(c *Config) { c.Pro = Persona{Description: "SRE", Model: "m"} }, ""},
		{"no re-asks", func(c *Config) { c.MaxReasks = -1 }, ""},
		{"every semantics", func(c *Config) { c.Semantics = "h-categorizer" }, ""},
		{"empty model", func(c *Config) { c.Opp.Model = " " }, "opp.model is empty"},
		{"empty persona", func(c *Config) { c.Mod.Description = "" }, "mod.description is empty"},
		{"long bias", func(c *Config) { c.Pro.Bias = strings.Repeat("b", 501) }, "pro: description and bias may have at most 500"},
		{"too many rounds", func(c *Config) { c.Rounds = 11 }, "rounds 11: want 1..10"},
		{"negative rounds", func(c *Config) { c.Rounds = -1 }, "rounds -1"},
		{"exchanges", func(c *Config) { c.Exchanges = 6 }, "exchanges 6: want 1..5"},
		{"re-asks", func(c *Config) { c.MaxReasks = -2 }, "maxReasks -2"},
		{"moves", func(c *Config) { c.MaxMoves = 21 }, "maxMoves 21"},
		{"unknown semantics", func(c *Config) { c.Semantics = "majority" }, `semantics "majority"`},
		{"perspective lines", func(c *Config) { c.Perspective = "a\nb" }, "perspective must be one line"},
		{"perspective length", func(c *Config) { c.Perspective = strings.Repeat("x", 201) }, "perspective has 201 characters"},
		{"blank fact", func(c *Config) { c.Facts = []string{"ok", " "} }, "facts[1] is empty"},
		{"long facts", func(c *Config) { c.Facts = []string{strings.Repeat("x", duelogic.MaxContextRunes+1)} }, "facts have 20001 characters"},
		{"invalid UTF-8", func(c *Config) { c.Facts = []string{"\xff"} }, "facts[0] is not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tt.modify(&cfg)
			err := cfg.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
			f := llmtest.New()
			if _, err := Run(t.Context(), f, cfg, testDebate); !errors.Is(err, ErrInvalidConfig) || len(f.Requests()) != 0 {
				t.Errorf("Run: %v after %d requests", err, len(f.Requests()))
			}
		})
	}
	// Every problem is named at once.
	err := Config{MaxMoves: -1}.Validate()
	for _, want := range []string{"pro.description is empty", "rounds 0", "exchanges 0", "maxMoves -1", `semantics ""`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want it to contain %q", err, want)
		}
	}
	if _, err := Run(t.Context(), llmtest.New(), Config{}, duelogic.Debate{}); !errors.Is(err, duelogic.ErrInvalidDebate) {
		t.Errorf("empty topic: %v", err)
	}
}

func TestDefaults(t *testing.T) {
	got := Config{Pro: Persona{Model: "m"}, Opp: Persona{Description: "Security engineer"}}.withDefaults()
	want := DefaultConfig()
	want.Pro.Model = "m"
	want.Opp = Persona{Description: "Security engineer", Model: DefaultOpp().Model}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	if s := DefaultPro().String(); s != "Pragmatic engineer focused on delivery and simplicity. Bias: Prefers solutions that ship fast and are easy to maintain" {
		t.Errorf("persona %q", s)
	}
}
