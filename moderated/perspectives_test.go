package moderated

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/catalog"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
)

const (
	perf  = catalog.PerformanceAdvocate
	simp  = catalog.SimplicityAdvocate
	sec   = catalog.SecurityAdvocate
	flex  = catalog.FutureFlexibility
	ux    = catalog.UserExperience
	ops   = catalog.OperationalSimplicity
	compl = catalog.Framework("compliance_first")
	speed = catalog.Framework("ship_speed")
)

// hostConfig adds two host perspectives, one of them declared opposite to
// Security Advocate.
func hostConfig() Config {
	cfg := DefaultConfig()
	cfg.CustomPerspectives = []catalog.FrameworkInfo{
		{ID: compl, Name: "Compliance First", Description: "Argues for audit trails", Kind: catalog.KindPerspective,
			Priorities: []string{"audit trails", "data residency", "SOC2 requirements"}, TradeOffs: "Will accept development slowdown for compliance"},
		{ID: speed, Name: "Ship Speed", Description: "Argues for shipping now",
			Priorities: []string{"time to market", "iteration speed"}, TradeOffs: "Will accept rough edges for speed"},
	}
	cfg.Opposites = [][2]catalog.Framework{{compl, speed}}
	return cfg
}

func TestBalanced(t *testing.T) {
	ps, err := newPerspectives(hostConfig())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ids  []catalog.Framework
		want bool
	}{
		{[]catalog.Framework{perf, simp}, true},
		{[]catalog.Framework{perf, ops}, true},
		{[]catalog.Framework{sec, ux}, true},
		{[]catalog.Framework{flex, simp}, true},
		{[]catalog.Framework{simp, flex, ux}, true},
		{[]catalog.Framework{compl, speed}, true},
		{[]catalog.Framework{perf, ux}, false},
		{[]catalog.Framework{sec, flex, ops}, false},
		{[]catalog.Framework{simp, ops}, false},
		{[]catalog.Framework{compl, sec}, false},
		{[]catalog.Framework{perf}, false},
	}
	for _, tt := range tests {
		if got := ps.balanced(tt.ids); got != tt.want {
			t.Errorf("balanced(%v) = %v, want %v", tt.ids, got, tt.want)
		}
	}
}

func TestBalance(t *testing.T) {
	ps, _ := newPerspectives(hostConfig())
	tests := []struct {
		name string
		in   []catalog.Framework
		keep catalog.Framework // the domain's best match
		want []catalog.Framework
	}{
		{"balanced stays", []catalog.Framework{perf, simp}, "", []catalog.Framework{perf, simp}},
		{"the last seat opposes the first", []catalog.Framework{perf, ux}, "", []catalog.Framework{perf, simp}},
		{"three seats", []catalog.Framework{sec, flex, ops}, "", []catalog.Framework{sec, flex, ux}},
		{"host pair", []catalog.Framework{compl, sec}, "", []catalog.Framework{compl, speed}},
		{"opposite found for the first", []catalog.Framework{ops, flex, ux}, "", []catalog.Framework{ops, flex, perf}},
		// Issue 24: the domain's perspective is never the one replaced.
		{"the domain's perspective stays", []catalog.Framework{perf, sec}, sec, []catalog.Framework{ux, sec}},
		{"the domain's perspective in the last seat of three", []catalog.Framework{perf, flex, sec}, sec, []catalog.Framework{perf, simp, sec}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ps.balance(tt.in, tt.keep)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("balance (-want +got):\n%s", diff)
			}
			if !ps.balanced(got) {
				t.Errorf("balance(%v) = %v is not balanced", tt.in, got)
			}
		})
	}

	// Perspectives with no known opposite fall back to the first pair.
	cfg := DefaultConfig()
	cfg.CustomPerspectives = hostConfig().CustomPerspectives
	ps, _ = newPerspectives(cfg)
	if diff := cmp.Diff([]catalog.Framework{compl, perf, simp}, ps.balance([]catalog.Framework{compl, speed, simp}, "")); diff != "" {
		t.Errorf("fallback (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]catalog.Framework{perf, simp}, ps.balance([]catalog.Framework{compl, speed}, "")); diff != "" {
		t.Errorf("fallback of two (-want +got):\n%s", diff)
	}
	// The only perspective with an opposite holds the last seat: the seat
	// before it is given up.
	if diff := cmp.Diff([]catalog.Framework{sec, ux}, ps.balance([]catalog.Framework{compl, ux}, "")); diff != "" {
		t.Errorf("last seat (-want +got):\n%s", diff)
	}
}

// TestChooseIsAlwaysBalanced tries every suggestion the moderator could make.
func TestChooseIsAlwaysBalanced(t *testing.T) {
	ps, _ := newPerspectives(hostConfig())
	var all []string
	for _, f := range ps.all {
		all = append(all, f.Name)
	}
	all = append(all, "Chaos Engineer")
	for n := 2; n <= 4; n++ {
		for i := range all {
			for j := range all {
				suggested := []string{all[i], all[j]}
				got := ps.choose("", "", suggested, n)
				if len(got) != n || !ps.balanced(got) || len(slices.Compact(slices.Sorted(slices.Values(got)))) != n {
					t.Fatalf("choose(%v, %d) = %v", suggested, n, got)
				}
			}
		}
	}
}

func TestKeywordHeuristic(t *testing.T) {
	ps, _ := newPerspectives(hostConfig())
	tests := []struct {
		question string
		n        int
		want     []catalog.Framework
	}{
		{"Should we add a caching layer to cut p99 latency?", 2, []catalog.Framework{perf, simp}},
		{"How should authentication and password resets work?", 2, []catalog.Framework{sec, ux}},
		{"We need to ship fast: is a monolith simpler to maintain?", 2, []catalog.Framework{simp, perf}},
		{"Which schema design keeps the plugin API extensible?", 2, []catalog.Framework{flex, simp}},
		{"Where should the audit trails live for data residency?", 2, []catalog.Framework{compl, speed}},
		{"What should we do?", 3, []catalog.Framework{perf, simp, sec}},
		{"How do we deploy and monitor the new database on-call?", 2, []catalog.Framework{ops, perf}},
	}
	for _, tt := range tests {
		t.Run(tt.question, func(t *testing.T) {
			got := ps.choose(tt.question, "", nil, tt.n)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("choose (-want +got):\n%s", diff)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	ps, _ := newPerspectives(hostConfig())
	for name, want := range map[string]catalog.Framework{
		"Performance Advocate": perf, "performance_advocate": perf, "the User Experience perspective": ux,
		"OPERATIONAL SIMPLICITY": ops, "Compliance First": compl, "Chaos Engineer": "", "": "", "Utilitarian": "",
	} {
		got, ok := ps.resolve(name)
		if got != want || ok != (want != "") {
			t.Errorf("resolve(%q) = %q, %v", name, got, ok)
		}
	}
}

// TestAssignment runs the analysis and assignment against replies that
// need clamping and balancing.
func TestAssignment(t *testing.T) {
	tests := []struct {
		name     string
		cfg      func(*Config)
		analysis []string
		question string
		want     []catalog.Framework
		debaters int
		fallback bool
	}{
		{"moderator's choice", nil, []string{analysisTwo}, cachingQuestion.Proposition, []catalog.Framework{perf, simp}, 2, false},
		{"too many debaters clamped", nil, []string{`{"debaters":9,"perspectives":["Security Advocate","User Experience","Performance Advocate","Simplicity Advocate","Future Flexibility"]}`},
			"q", []catalog.Framework{sec, ux, perf, simp}, 4, false},
		{"too few clamped", nil, []string{`{"debaters":1,"perspectives":["Security Advocate"]}`}, "q", []catalog.Framework{sec, ux}, 2, false},
		{"aligned suggestion balanced", nil, []string{`{"debaters":2,"perspectives":["Performance Advocate","User Experience"]}`}, "q", []catalog.Framework{perf, simp}, 2, false},
		{"unknown names dropped", nil, []string{`{"debaters":2,"perspectives":["Chaos Engineer","Security Advocate"]}`}, "q", []catalog.Framework{sec, ux}, 2, false},
		{"missing count read from the question", nil, []string{`{"perspectives":["Future Flexibility"]}`}, "GraphQL or REST?", []catalog.Framework{flex, simp}, 2, false},
		{"config debaters win", func(c *Config) { c.Debaters = 3 }, []string{analysisTwo}, cachingQuestion.Proposition, []catalog.Framework{perf, simp, ops}, 2, false},
		{"forced perspectives", func(c *Config) { c.Perspectives = []catalog.Framework{ux, sec} }, []string{analysisTwo}, "q", []catalog.Framework{ux, sec}, 2, false},
		{"prose then JSON", nil, []string{"Let me think.", analysisTwo}, "q", []catalog.Framework{perf, simp}, 2, false},
		{"no JSON: the keyword heuristic decides", nil, []string{"I cannot answer."}, "How should authentication work?", []catalog.Framework{sec, perf, simp}, 3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeWith(tt.analysis, texts("argument", 50), judgeAgree)
			cfg := testConfig()
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			res := mustRun(t, f, cfg, engine.Debate{Proposition: tt.question}, nil)
			if diff := cmp.Diff(tt.want, idsOf(res.Perspectives)); diff != "" {
				t.Errorf("perspectives (-want +got):\n%s", diff)
			}
			if res.Analysis.Debaters != tt.debaters || res.Analysis.Fallback != tt.fallback {
				t.Errorf("analysis %+v", res.Analysis)
			}
			if tt.fallback && f.Calls(PurposeAnalysis) != 2 {
				t.Errorf("%d analysis calls, want 2", f.Calls(PurposeAnalysis))
			}
			if want := fmt.Sprint(len(tt.want)); len(res.Rounds[0].Arguments) != len(tt.want) {
				t.Errorf("%d arguments, want %s", len(res.Rounds[0].Arguments), want)
			}
		})
	}
}

// TestSecurityQuestionSeatsTheSecurityAdvocate (issue 24): a question
// whose domain is security seats the Security Advocate, however the
// seats are balanced — on the stub, with the seed's two debaters and with
// the moderator's choice, whatever it suggests (now and then, two
// perspectives on one side, or none for security). The default run plays
// seeds 1 to 10 (among them suggestions without the Security Advocate, and
// with a third perspective); DUELOGIC_EXHAUSTIVE=1, as CI runs it, 1 to 30.
func TestSecurityQuestionSeatsTheSecurityAdvocate(t *testing.T) {
	seeds := int64(10)
	if os.Getenv("DUELOGIC_EXHAUSTIVE") == "1" {
		seeds = 30
	}
	ps, _ := newPerspectives(DefaultConfig())
	for _, debaters := range []int{DefaultPerspectives, 0} {
		for seed := int64(1); seed <= seeds; seed++ {
			cfg := DefaultConfig()
			cfg.Debaters, cfg.MaxRounds = debaters, 1
			d := engine.Debate{ID: fmt.Sprint("sec-", seed), Proposition: "How should we structure the plugin system for security, speed and UX?"}
			res := mustRun(t, llm.NewStub(seed), cfg, d, nil)
			ids := idsOf(res.Perspectives)
			if res.Analysis.Domain != "security" || !slices.Contains(ids, sec) || !ps.balanced(ids) {
				t.Errorf("%d debaters, seed %d: domain %s, suggested %v, seated %v; want the Security Advocate among balanced seats",
					debaters, seed, res.Analysis.Domain, res.Analysis.Suggested, ids)
			}
		}
	}
}

// TestAssignmentKeepsCapitals (issue 24): the moderator's announcement of
// the seats quotes each perspective's trade-offs after a semicolon,
// lower-casing only the first letter: "UX" stays "UX", "SOC2" stays.
func TestAssignmentKeepsCapitals(t *testing.T) {
	cfg := testConfig()
	cfg.CustomPerspectives = []catalog.FrameworkInfo{{ID: compl, Name: "Compliance First", Description: "Argues for audit trails", Kind: catalog.KindPerspective,
		Priorities: []string{"audit trails"}, TradeOffs: "SOC2 evidence before features"}}
	cfg.Opposites = [][2]catalog.Framework{{compl, ux}}
	cfg.Perspectives = []catalog.Framework{sec, ux, compl}
	res := mustRun(t, newFake(judgeAgree), cfg, cachingQuestion, nil)
	var said string
	for _, u := range res.Transcript {
		if u.Kind == KindAssignment {
			said = u.Content
		}
	}
	for _, want := range []string{
		"- Security Advocate: priorities attack surface, data protection, compliance; will accept UX friction for security guarantees\n",
		"- User Experience: priorities responsiveness, intuitiveness, error recovery; will accept backend complexity for frontend simplicity\n",
		"- Compliance First: priorities audit trails; SOC2 evidence before features",
	} {
		if !strings.Contains(said, want) {
			t.Errorf("the assignment lacks %q:\n%s", want, said)
		}
	}
	for in, want := range map[string]string{"Will accept": "will accept", "UX first": "UX first", "SOC2 first": "SOC2 first", "A plan": "a plan", "": "", "é": "é", "Élan": "élan"} {
		if got := lowerFirst(in); got != want {
			t.Errorf("lowerFirst(%q) = %q; want %q", in, got, want)
		}
	}
}
