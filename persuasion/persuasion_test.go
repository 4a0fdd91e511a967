package persuasion

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
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
	var rejected, reasked, challenges int
	winners := map[string]bool{}
	for seed := int64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			client := &countingClient{Client: llm.NewStub(seed)}
			res, err := run(t.Context(), client, Config{}, testDebate)
			if err != nil {
				t.Fatal(err)
			}
			var sched []string
			var all []argumentation.Move
			for _, tu := range res.Detail.Turns {
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
				for _, c := range tu.Challenges {
					if c.Act != argumentation.Why || c.Speaker == tu.Side || !slices.ContainsFunc(tu.Moves, func(m argumentation.Move) bool {
						return m.ID == c.Target && m.Act == argumentation.Claim
					}) {
						t.Errorf("the protocol's %s after %s's turn of round %d is not a why at one of its claims", c, tu.Side, tu.Round)
					}
				}
				challenges += len(tu.Challenges)
				all = append(all, tu.Challenges...)
				rejected += len(tu.Rejected)
			}
			if diff := cmp.Diff(wantSchedule(), sched); diff != "" {
				t.Fatalf("schedule (-want +got):\n%s", diff)
			}
			// The opening follows the seed: PRO claims φ, OPP claims ¬φ or asks why.
			p1, o1 := res.Detail.Turns[0].Moves[0], res.Detail.Turns[1].Moves[0]
			if p1.Act != argumentation.Claim || p1.Target != "" ||
				o1.Target != p1.ID || !(o1.Act == argumentation.Why || o1.Proposition == argumentation.Negate(p1.Proposition)) {
				t.Errorf("opening %s, %s", p1, o1)
			}
			// The stored moves are a legal dialogue, and the verdict is its.
			d, err := replay(ProtocolCurrent, all)
			if err != nil {
				t.Fatalf("the turns' moves do not replay: %v", err)
			}
			// No commitment store holds φ and ¬φ together (a concession
			// of ¬φ retracts φ).
			for _, p := range d.Participants() {
				held := d.Commitments(p)
				for _, c := range held {
					if slices.Contains(held, argumentation.Negate(c)) {
						t.Errorf("%s is committed to %q and its negation", p, c)
					}
				}
			}
			report, err := d.Judge(argumentation.Additive, argumentation.VerdictOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(report.Verdict, res.Detail.Computed); diff != "" {
				t.Errorf("verdict (-recomputed +got):\n%s", diff)
			}
			winners[res.Detail.Computed.Winner] = true
			if m := res.Detail.Moderation; m.Rationale == "" || m.Consensus == "" || len(m.Conditions) == 0 {
				t.Errorf("moderation %+v", m)
			}
			if res.Detail.Computed.Winner != "" && !strings.Contains(res.Detail.Moderation.Rationale, res.Detail.Computed.Winner+" prevails") {
				t.Errorf("the stub's rationale does not explain the computed winner %s: %q", res.Detail.Computed.Winner, res.Detail.Moderation.Rationale)
			}
			reasked += client.count(PurposeVerdict) - 1
			if len(res.Transcript) != len(res.Detail.Turns)+1 {
				t.Errorf("%d utterances for %d turns", len(res.Transcript), len(res.Detail.Turns))
			}
			for _, want := range []string{"### Round 0: Opening", "### Round 1: Argumentation", "### Round 2: Argumentation",
				"### Round 3: Closing", "## Commitment Stores (Final State)", "### Consensus Solution"} {
				if !strings.Contains(res.Detail.Markdown, want) {
					t.Errorf("markdown lacks %q", want)
				}
			}
		})
	}
	if challenges == 0 {
		t.Error("over 12 seeds the protocol challenged no claim without grounds")
	}
	if rejected == 0 || reasked == 0 {
		t.Errorf("no turn (%d) or judgment (%d) was asked for again over 12 seeds", rejected, reasked)
	}
	if !winners[SidePro] || !winners[SideOpp] {
		t.Errorf("winners over 12 seeds: %v", winners)
	}
}

func TestStubDebateGolden(t *testing.T) {
	cfg := Config{Facts: []string{"The billing service handles 2M invoices a month", "Two of five engineers have written Go in production"},
		Perspective: "on-call load"}
	res, err := run(t.Context(), llm.NewStub(1), cfg, testDebate)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "stub.md.golden", res.Detail.Markdown)
}

func TestRunIsDeterministic(t *testing.T) {
	var first *engine.Result[*Outcome]
	for range 3 {
		res, err := run(t.Context(), llm.NewStub(3), Config{}, testDebate)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = res
			continue
		}
		if diff := cmp.Diff(first.Detail.Turns, res.Detail.Turns); diff != "" {
			t.Fatalf("turns differ between runs (-first +again):\n%s", diff)
		}
		if first.Detail.Markdown != res.Detail.Markdown {
			t.Fatal("markdown differs between runs")
		}
	}
}

// other is a format that is not persuasion.
type other struct{}

func (other) Name() string                                       { return "other" }
func (other) Play(context.Context, *engine.Session) (int, error) { return 0, nil }

func TestResumeOtherFormat(t *testing.T) {
	st := store.NewMemory()
	if _, err := engine.Run(t.Context(), llmtest.New(), other{}, testDebate, engine.WithStore(st)); err != nil {
		t.Fatal(err)
	}
	if _, err := resume(t.Context(), llmtest.New(), testDebate.ID, engine.WithStore(st)); !errors.Is(err, engine.ErrCorruptLog) {
		t.Errorf("a debate of another format: %v", err)
	}
	if _, err := resume(t.Context(), llmtest.New(), "nope", engine.WithStore(st)); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown debate: %v", err)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*Config)
		want   string // the one violation, "field: problem"; "" for none
	}{
		{"defaults", func(*Config) {}, ""},
		{"host personas", func(c *Config) { c.Pro = Persona{Description: "SRE", ModelID: "m"} }, ""},
		{"every semantics", func(c *Config) { c.Semantics = "h-categorizer" }, ""},
		{"empty model", func(c *Config) { c.Opp.ModelID = " " }, "opp.modelId: is empty"},
		{"empty persona", func(c *Config) { c.Mod.Description = "" }, "mod.description: is empty"},
		{"long bias", func(c *Config) { c.Pro.Bias = strings.Repeat("b", 501) }, "pro.bias: has 501 characters; at most 500"},
		{"persona not UTF-8", func(c *Config) { c.Opp.Description = "\xff" }, "opp.description: is not valid UTF-8"},
		{"too many rounds", func(c *Config) { c.MaxRounds = 11 }, "maxRounds: 11 is outside 1..10"},
		{"negative rounds", func(c *Config) { c.MaxRounds = -1 }, "maxRounds: -1 is outside 1..10"},
		{"exchanges", func(c *Config) { c.Exchanges = 6 }, "exchanges: 6 is outside 1..5"},
		{"moves", func(c *Config) { c.MaxMoves = 21 }, "maxMoves: 21 is outside 1..20"},
		{"unknown semantics", func(c *Config) { c.Semantics = "majority" },
			`semantics: "majority" is unknown; want additive, dfquad, quadratic-energy, euler, euler-top or h-categorizer`},
		{"draw margin", func(c *Config) { c.DrawMargin = math.Inf(1) }, "drawMargin: +Inf is not finite"},
		{"perspective lines", func(c *Config) { c.Perspective = "a\nb" }, "perspective: must be one line"},
		{"perspective length", func(c *Config) { c.Perspective = strings.Repeat("x", 201) }, "perspective: has 201 characters; at most 200"},
		{"blank fact", func(c *Config) { c.Facts = []string{"ok", " "} }, "facts[1]: is empty"},
		{"too many facts", func(c *Config) { c.Facts = slices.Repeat([]string{"f"}, 101) }, "facts: 101 facts; at most 100"},
		{"long facts", func(c *Config) { c.Facts = []string{strings.Repeat("x", engine.MaxContextRunes+1)} },
			"facts: have 20001 characters together; at most 20000"},
		{"invalid UTF-8", func(c *Config) { c.Facts = []string{"\xff"} }, "facts[0]: is not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tt.modify(&cfg)
			err := cfg.Validate()
			f, nerr := New(cfg)
			if tt.want == "" {
				if err != nil || nerr != nil {
					t.Fatalf("Validate: %v; New: %v", err, nerr)
				}
				return
			}
			var ve *engine.ValidationError
			if !errors.Is(err, engine.ErrInvalidConfig) || !errors.As(err, &ve) || ve.Format != FormatName {
				t.Fatalf("err = %v, want an *engine.ValidationError of %s", err, FormatName)
			}
			var got []string
			for _, v := range ve.Violations {
				got = append(got, v.Field+": "+v.Problem)
			}
			if diff := cmp.Diff([]string{tt.want}, got); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
			if f != nil || !errors.Is(nerr, engine.ErrInvalidConfig) {
				t.Errorf("New: %v, %v", f, nerr)
			}
			// The engine validates a Format before anything is stored or asked.
			fake := llmtest.New()
			st := store.NewMemory()
			if _, err := engine.Run(t.Context(), fake, &Format{Config: cfg}, testDebate, engine.WithStore(st)); !errors.Is(err, engine.ErrInvalidConfig) || len(fake.Requests()) != 0 {
				t.Errorf("engine.Run: %v after %d requests", err, len(fake.Requests()))
			}
			if _, err := st.Records(t.Context(), testDebate.ID); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("an invalid debate was stored: %v", err)
			}
		})
	}
	// Every problem is named at once, by its field path.
	var ve *engine.ValidationError
	if !errors.As(Config{MaxMoves: -1}.Validate(), &ve) {
		t.Fatal("the zero Config is valid")
	}
	var fields []string
	for _, v := range ve.Violations {
		fields = append(fields, v.Field)
	}
	want := []string{"pro.description", "pro.modelId", "opp.description", "opp.modelId", "mod.description", "mod.modelId",
		"maxRounds", "exchanges", "maxMoves", "semantics"}
	if diff := cmp.Diff(want, fields); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
	if _, err := run(t.Context(), llmtest.New(), Config{}, engine.Debate{}); !errors.Is(err, engine.ErrInvalidDebate) {
		t.Errorf("empty topic: %v", err)
	}
}

func TestDefaults(t *testing.T) {
	got := Config{Pro: Persona{ModelID: "m"}, Opp: Persona{Description: "Security engineer"}}.withDefaults()
	want := DefaultConfig()
	want.Pro.ModelID = "m"
	want.Opp = Persona{Description: "Security engineer", ModelID: DefaultOpp().ModelID}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	if s := DefaultPro().String(); s != "Pragmatic engineer focused on delivery and simplicity. Bias: Prefers solutions that ship fast and are easy to maintain" {
		t.Errorf("persona %q", s)
	}
}
