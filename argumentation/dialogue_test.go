package argumentation

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// protocolBase is the state the legal-reply cases start from.
var protocolBase = []Move{
	{Speaker: "PRO", Act: Claim, Proposition: "φ"},                              // M1
	{Speaker: "PRO", Act: Since, Proposition: "φ", Reasons: []string{"a", "b"}}, // M2
	{Speaker: "OPP", Act: Why, Proposition: "a", Target: "M2"},                  // M3
	{Speaker: "OPP", Act: Concede, Proposition: "b", Target: "M2"},              // M4
	{Speaker: "PRO", Act: Retract, Proposition: "b"},                            // M5
}

func TestLegalReplies(t *testing.T) {
	tests := []struct {
		name string
		m    Move
		err  string // "" : legal; otherwise a substring of the error
	}{
		// Replies to claim φ.
		{"why the claim", Move{Speaker: "OPP", Act: Why, Proposition: "φ", Target: "M1"}, ""},
		{"concede the claim", Move{Speaker: "OPP", Act: Concede, Proposition: "φ", Target: "M1"}, ""},
		{"claim the negation", Move{Speaker: "OPP", Act: Claim, Proposition: "¬φ", Target: "M1"}, ""},
		{"argue the negation", Move{Speaker: "OPP", Act: Since, Proposition: "~ φ", Reasons: []string{"c"}, Target: "M1"}, ""},
		{"marked rebut", Move{Speaker: "OPP", Act: Claim, Proposition: "ψ", Attack: "rebut", Target: "M1"}, ""},
		{"target by position", Move{Speaker: "OPP", Act: Why, Proposition: "φ", Target: "1"}, ""},
		{"own claim", Move{Speaker: "PRO", Act: Why, Proposition: "φ", Target: "M1"}, "same speaker"},
		{"why of another proposition", Move{Speaker: "OPP", Act: Why, Proposition: "ψ", Target: "M1"}, `must challenge "φ"`},
		{"concede another proposition", Move{Speaker: "OPP", Act: Concede, Proposition: "ψ", Target: "M1"}, "does not put forward"},
		{"unmarked non-negation", Move{Speaker: "OPP", Act: Claim, Proposition: "ψ", Target: "M1"}, "must be ¬φ or be marked rebut"},
		{"undercut a claim", Move{Speaker: "OPP", Act: Claim, Proposition: "χ", Attack: "undercut", Target: "M1"}, "without an inference"},
		// Replies to φ since {a, b}.
		{"why a reason", Move{Speaker: "OPP", Act: Why, Proposition: "b", Target: "M2"}, ""},
		{"concede the conclusion", Move{Speaker: "OPP", Act: Concede, Proposition: "φ", Target: "M2"}, ""},
		{"rebut a premise", Move{Speaker: "OPP", Act: Claim, Proposition: "¬a", Target: "M2"}, ""},
		{"rebut the conclusion", Move{Speaker: "OPP", Act: Since, Proposition: "¬φ", Reasons: []string{"c"}, Target: "M2"}, ""},
		{"undercut", Move{Speaker: "OPP", Act: Claim, Proposition: "χ", Attack: "undercut", Target: "M2"}, ""},
		{"rebut with the conclusion itself", Move{Speaker: "OPP", Act: Claim, Proposition: "φ", Attack: "rebut", Target: "M2"}, "itself puts forward"},
		{"undercut with a reason", Move{Speaker: "OPP", Act: Claim, Proposition: "a", Attack: "undercut", Target: "M2"}, "itself puts forward"},
		{"why the conclusion", Move{Speaker: "OPP", Act: Why, Proposition: "φ", Target: "M2"}, "must challenge a reason"},
		{"unmarked unrelated", Move{Speaker: "OPP", Act: Claim, Proposition: "χ", Target: "M2"}, "must negate its conclusion or a reason"},
		// Replies to why a (asked of PRO).
		{"answer why", Move{Speaker: "PRO", Act: Since, Proposition: "a", Reasons: []string{"c"}, Target: "M3"}, ""},
		{"retract on why", Move{Speaker: "PRO", Act: Retract, Proposition: "a", Target: "M3"}, ""},
		{"answer someone else's why", Move{Speaker: "OPP", Act: Since, Proposition: "a", Reasons: []string{"c"}, Target: "M3"}, "who was challenged"},
		{"answer with another proposition", Move{Speaker: "PRO", Act: Since, Proposition: "b", Reasons: []string{"c"}, Target: "M3"}, `answers why "a"`},
		{"claim on why", Move{Speaker: "PRO", Act: Claim, Proposition: "a", Target: "M3"}, "replies to why are since and retract"},
		{"attack on why", Move{Speaker: "PRO", Act: Since, Proposition: "a", Reasons: []string{"c"}, Attack: "rebut", Target: "M3"}, "not an attack"},
		{"retract another proposition on why", Move{Speaker: "PRO", Act: Retract, Proposition: "φ", Target: "M3"}, `in reply to why "a"`},
		// Concede and retract admit no reply.
		{"reply to concede", Move{Speaker: "PRO", Act: Why, Proposition: "b", Target: "M4"}, "admits no reply"},
		{"reply to retract", Move{Speaker: "OPP", Act: Concede, Proposition: "b", Target: "M5"}, "admits no reply"},
		{"retract replying to a claim", Move{Speaker: "PRO", Act: Retract, Proposition: "φ", Target: "M1"}, "only reply to why"},
		// Moves without a target.
		{"open claim", Move{Speaker: "OPP", Act: Claim, Proposition: "ψ"}, ""},
		{"open argument", Move{Speaker: "OPP", Act: Since, Proposition: "ψ", Reasons: []string{"c", "c", " c "}}, ""},
		{"retract a commitment", Move{Speaker: "PRO", Act: Retract, Proposition: "a"}, ""},
		{"retract without commitment", Move{Speaker: "OPP", Act: Retract, Proposition: "φ"}, "not committed"},
		{"retract a retracted one", Move{Speaker: "PRO", Act: Retract, Proposition: "b"}, "not committed"},
		{"why without target", Move{Speaker: "OPP", Act: Why, Proposition: "φ"}, "needs a target"},
		{"concede without target", Move{Speaker: "OPP", Act: Concede, Proposition: "φ"}, "needs a target"},
		{"attack without target", Move{Speaker: "OPP", Act: Claim, Proposition: "ψ", Attack: "rebut"}, "needs a target"},
		// A store never holds φ and ¬φ (PRO holds φ and a).
		{"claim against own commitment", Move{Speaker: "PRO", Act: Claim, Proposition: "¬φ"}, `committed to "φ"`},
		{"since with a reason against own commitment", Move{Speaker: "PRO", Act: Since, Proposition: "ψ", Reasons: []string{"¬a"}}, `committed to "a"`},
		{"since with a reason and its negation", Move{Speaker: "OPP", Act: Since, Proposition: "ψ", Reasons: []string{"c", "¬c"}}, `both "c" and "¬c"`},
		{"since against its own reason", Move{Speaker: "OPP", Act: Since, Proposition: "¬c", Reasons: []string{"c"}}, `both "¬c" and "c"`},
		// Malformed moves.
		{"no speaker", Move{Act: Claim, Proposition: "ψ"}, "no speaker"},
		{"not a participant", Move{Speaker: "MOD", Act: Claim, Proposition: "ψ"}, "not a participant"},
		{"unknown act", Move{Speaker: "OPP", Act: "shout", Proposition: "ψ"}, "unknown act"},
		{"empty proposition", Move{Speaker: "OPP", Act: Claim, Proposition: " ¬ "}, "empty proposition"},
		{"since without reasons", Move{Speaker: "OPP", Act: Since, Proposition: "ψ"}, "at least one reason"},
		{"empty reason", Move{Speaker: "OPP", Act: Since, Proposition: "ψ", Reasons: []string{" "}}, "empty reason"},
		{"circular since", Move{Speaker: "OPP", Act: Since, Proposition: "ψ", Reasons: []string{"¬¬ψ"}}, "conclusion itself"},
		{"reasons on a claim", Move{Speaker: "OPP", Act: Claim, Proposition: "ψ", Reasons: []string{"c"}}, "only since has reasons"},
		{"unknown target", Move{Speaker: "OPP", Act: Why, Proposition: "φ", Target: "M9"}, "unknown target"},
		{"duplicate ID", Move{ID: "M1", Speaker: "OPP", Act: Claim, Proposition: "ψ"}, "already used"},
		{"negative round", Move{Speaker: "OPP", Act: Claim, Proposition: "ψ", Round: -1}, "negative round"},
		{"bad attack", Move{Speaker: "OPP", Act: Claim, Proposition: "ψ", Attack: "sideways", Target: "M1"}, "attack"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDialogue("PRO", "OPP")
			if err := d.ApplyAll(protocolBase); err != nil {
				t.Fatal(err)
			}
			before := snapshot(d)
			checkErr := d.Check(tc.m)
			err := d.Apply(tc.m)
			if (checkErr == nil) != (err == nil) {
				t.Errorf("Check = %v but Apply = %v", checkErr, err)
			}
			if tc.err == "" {
				if err != nil {
					t.Fatalf("Apply: %v, want legal", err)
				}
				return
			}
			if !errors.Is(err, ErrIllegalMove) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Apply error = %v, want ErrIllegalMove saying %q", err, tc.err)
			}
			if diff := cmp.Diff(before, snapshot(d)); diff != "" {
				t.Errorf("illegal move changed the dialogue (-before +after):\n%s", diff)
			}
		})
	}
}

// snapshot is everything observable about a dialogue.
type dialogueState struct {
	Moves       []Move
	Commitments map[string][]string
	Retracted   map[string][]string
	Arguments   []Argument
	Relations   []Relation
}

func snapshot(d *Dialogue) dialogueState {
	s := dialogueState{Moves: d.Moves(), Commitments: map[string][]string{}, Retracted: map[string][]string{}}
	for _, p := range d.Participants() {
		s.Commitments[p] = d.Commitments(p)
		s.Retracted[p] = d.Retracted(p)
	}
	g := d.Graph()
	s.Arguments, s.Relations = g.Arguments(), g.Relations()
	return s
}

// TestConcedingTheNegationRetracts: conceding ¬φ withdraws the speaker's
// φ — recorded as a retraction, its argument gone once nobody holds it —
// so no store holds φ and ¬φ together, and the speaker may then argue ¬φ.
func TestConcedingTheNegationRetracts(t *testing.T) {
	d := NewDialogue("PRO", "OPP")
	if err := d.ApplyAll([]Move{
		{Speaker: "PRO", Act: Since, Proposition: "φ", Reasons: []string{"a"}},       // M1
		{Speaker: "OPP", Act: Claim, Proposition: "¬a", Target: "M1"},                // M2
		{Speaker: "PRO", Act: Concede, Proposition: "¬a", Target: "M2"},              // M3
		{Speaker: "PRO", Act: Since, Proposition: "φ", Reasons: []string{"¬a", "b"}}, // M4: now consistent
	}); err != nil {
		t.Fatal(err)
	}
	if got, want := d.Commitments("PRO"), []string{"φ", "¬a", "b"}; !cmp.Equal(got, want) {
		t.Errorf("PRO's commitments %q, want %q", got, want)
	}
	if got := d.Retracted("PRO"); !cmp.Equal(got, []string{"a"}) {
		t.Errorf("PRO's retractions %q, want [a]", got)
	}
	for _, a := range d.Graph().Arguments() {
		if a.Text == "a" {
			t.Errorf("a is still argument %s though nobody holds it", a.ID)
		}
	}
	for _, p := range d.Participants() {
		held := map[string]bool{}
		for _, c := range d.Commitments(p) {
			held[c] = true
		}
		for c := range held {
			if held[Negate(c)] {
				t.Errorf("%s holds %q and its negation", p, c)
			}
		}
	}
}

func TestCommitmentsAndGraph(t *testing.T) {
	d := sampleDialogue(t)
	got := snapshot(d)
	want := dialogueState{
		Commitments: map[string][]string{
			"PRO": {"Migrate billing to PostgreSQL", "Billing needs multi-row ACID transactions",
				"The team already runs PostgreSQL in production", "Analytics has used PostgreSQL for two years",
				"MongoDB 4.0 has multi-document transactions"},
			"OPP": {"¬Migrate billing to PostgreSQL", "MongoDB 4.0 has multi-document transactions"},
		},
		Retracted: map[string][]string{"PRO": {}, "OPP": {"A migration freezes billing features for a quarter"}},
		Arguments: []Argument{
			{ID: "A1", Base: DefaultBase, Text: "Migrate billing to PostgreSQL", Side: "PRO", Move: "M1"},
			{ID: "A2", Base: DefaultBase, Text: "¬Migrate billing to PostgreSQL", Side: "OPP", Move: "M2"},
			{ID: "A3", Base: ChallengedBase, Text: "Billing needs multi-row ACID transactions", Side: "PRO", Move: "M3"},
			{ID: "A4", Base: DefaultBase, Text: "The team already runs PostgreSQL in production", Side: "PRO", Move: "M3"},
			{ID: "A5", Base: DefaultBase, Text: "Analytics has used PostgreSQL for two years", Side: "PRO", Move: "M5"},
			{ID: "A6", Base: ConcededBase, Text: "MongoDB 4.0 has multi-document transactions", Side: "OPP", Move: "M6"},
			// A7, the retracted "A migration freezes …", is gone.
		},
		Relations: []Relation{
			{From: "A2", To: "A1", Type: Attack, Kind: Rebut},
			{From: "A3", To: "A1", Type: Support},
			{From: "A4", To: "A1", Type: Support},
			{From: "A5", To: "A4", Type: Support},
			{From: "A6", To: "A1", Type: Attack, Kind: Undercut},
			{From: "A1", To: "A2", Type: Attack, Kind: Rebut},
		},
	}
	got.Moves = nil
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if id, ok := d.ArgumentID(" A migration  freezes billing features for a quarter"); !ok || id != "A7" {
		t.Errorf("ArgumentID(retracted) = %q, %v; want A7", id, ok)
	}
	if _, ok := d.ArgumentID("never said"); ok {
		t.Error("ArgumentID(never said) found")
	}
	moves := d.Moves()
	if m := moves[1]; m.ID != "M2" || m.Attack != "rebut" || m.Target != "M1" {
		t.Errorf("stored M2 = %+v, want ID M2, attack rebut (inferred), target M1", m)
	}
}

// TestRetractionRemovesOnlyUnheld: an argument stays while anyone is still
// committed to it, and reappears (same ID) when asserted again.
func TestRetractionRemovesOnlyUnheld(t *testing.T) {
	d := NewDialogue()
	steps := []Move{
		{Speaker: "A", Act: Claim, Proposition: "p"},
		{Speaker: "B", Act: Concede, Proposition: "p", Target: "M1"},
		{Speaker: "A", Act: Retract, Proposition: "p"},
	}
	if err := d.ApplyAll(steps); err != nil {
		t.Fatal(err)
	}
	if g := d.Graph(); !g.Has("A1") {
		t.Fatal("p removed although B is committed to it")
	}
	if err := d.Apply(Move{Speaker: "B", Act: Retract, Proposition: "p"}); err != nil {
		t.Fatal(err)
	}
	if g := d.Graph(); g.Len() != 0 {
		t.Fatalf("graph after both retracted: %v", g.Arguments())
	}
	if err := d.Apply(Move{Speaker: "C", Act: Claim, Proposition: "p"}); err != nil {
		t.Fatal(err)
	}
	a, ok := d.Graph().Argument("A1")
	if !ok || a.Side != "A" || a.Base != DefaultBase {
		t.Errorf("re-asserted p = %+v, %v; want A1 of side A (first to put it forward)", a, ok)
	}
	if diff := cmp.Diff([]string{"A", "B", "C"}, d.Participants()); diff != "" {
		t.Errorf("Participants (-want +got):\n%s", diff)
	}
}

func TestDialogueConcurrentApply(t *testing.T) {
	d := NewDialogue()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 20 {
				_ = d.Apply(Move{Speaker: fmt.Sprint("S", i), Act: Claim, Proposition: fmt.Sprintf("p%d-%d", i, j)})
				_ = d.Graph()
			}
		})
	}
	wg.Wait()
	moves := d.Moves()
	if len(moves) != 160 {
		t.Fatalf("%d moves applied, want 160", len(moves))
	}
	for i, m := range moves {
		if m.ID != fmt.Sprint("M", i+1) {
			t.Fatalf("move %d has ID %q", i, m.ID)
		}
	}
}

func TestAutoIDAvoidsExplicitIDs(t *testing.T) {
	d := NewDialogue()
	for _, m := range []Move{
		{ID: "M2", Speaker: "A", Act: Claim, Proposition: "p"},
		{Speaker: "B", Act: Claim, Proposition: "q"},
		{Speaker: "B", Act: Why, Proposition: "p", Target: "1"},
	} {
		if err := d.Apply(m); err != nil {
			t.Fatal(err)
		}
	}
	var ids []string
	for _, m := range d.Moves() {
		ids = append(ids, m.ID+">"+m.Target)
	}
	if diff := cmp.Diff([]string{"M2>", "M2-2>", "M3>M2"}, ids); diff != "" {
		t.Errorf("IDs>targets (-want +got):\n%s", diff)
	}
}

// FuzzDialogueApply drives a dialogue with moves decoded from bytes over a
// small vocabulary, so that most inputs are protocol-relevant: six bytes
// per move (speaker, act, proposition, target, attack, reasons).
func FuzzDialogueApply(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 4, 0, 0, 0, 6, 1, 1, 2, 3, 0, 0})
	f.Add([]byte{0, 4, 0, 0, 0, 3, 1, 1, 2, 1, 0, 0, 0, 3, 2, 2, 0, 0, 1, 0, 4, 1, 2, 0})
	props := []string{"p", "¬p", "q", "¬q", "r", "~p"}
	f.Fuzz(func(t *testing.T, data []byte) {
		d := NewDialogue()
		for len(data) >= 6 {
			b := data[:6]
			data = data[6:]
			m := Move{
				Speaker:     []string{"A", "B", "C"}[int(b[0])%3],
				Act:         []Act{Claim, Why, Concede, Retract, Since}[int(b[1])%5],
				Proposition: props[int(b[2])%len(props)],
				Attack:      []string{"", "rebut", "undercut"}[int(b[4])%3],
			}
			if t := int(b[3]) % 8; t > 0 {
				m.Target = fmt.Sprint(t)
			}
			for k := range props {
				if b[5]&(1<<k) != 0 {
					m.Reasons = append(m.Reasons, props[k])
				}
			}
			before := snapshot(d)
			if err := d.Apply(m); err != nil {
				if !errors.Is(err, ErrIllegalMove) {
					t.Fatalf("Apply error %v does not wrap ErrIllegalMove", err)
				}
				if diff := cmp.Diff(before, snapshot(d)); diff != "" {
					t.Fatalf("illegal move %+v changed the dialogue:\n%s", m, diff)
				}
			}
		}
		checkDialogueInvariants(t, d)
	})
}

// checkDialogueInvariants checks what must hold after any sequence of
// moves, and that evaluating, judging and rendering work.
func checkDialogueInvariants(t *testing.T, d *Dialogue) {
	t.Helper()
	g := d.Graph()
	for _, a := range g.Arguments() {
		if a.Base < 0 || a.Base > 1 {
			t.Fatalf("argument %+v has base outside [0,1]", a)
		}
	}
	// Every commitment is an argument of the graph.
	for _, p := range d.Participants() {
		for _, c := range d.Commitments(p) {
			id, ok := d.ArgumentID(c)
			if !ok || !g.Has(id) {
				t.Fatalf("%s is committed to %q, which has no argument", p, c)
			}
		}
	}
	sc, err := EvaluateWith(g, Additive, Options{Method: Auto, MaxIterations: 200})
	if err != nil {
		t.Fatal(err)
	}
	v := d.Verdict(g, sc, VerdictOptions{})
	if !v.Draw && v.Winner == "" || v.Draw && v.Winner != "" {
		t.Fatalf("verdict winner %q with draw %v", v.Winner, v.Draw)
	}
	r := Report{Dialogue: d, Graph: g, Scores: sc, Semantics: Additive, Verdict: v}
	if err := r.WriteMarkdown(io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteDOT(io.Discard); err != nil {
		t.Fatal(err)
	}
}

func FuzzDialogue(f *testing.F) {
	seed, _ := json.Marshal(sampleMoves())
	f.Add(seed)
	base, _ := json.Marshal(protocolBase)
	f.Add(base)
	f.Add([]byte(`[{"act":"claim","proposition":"p","speaker":"A"},{"act":"claim","proposition":"¬p","speaker":"B","target":1},` +
		`{"act":"since","proposition":"¬p","reasons":["q"],"speaker":"B"},{"act":"claim","proposition":"x","speaker":"A","target":3,"attack":"undercut"},` +
		`{"act":"why","proposition":"q","speaker":"A","target":3},{"act":"retract","proposition":"q","speaker":"B","target":5}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		moves, err := ParseMoves(data)
		if err != nil {
			return
		}
		d := NewDialogue()
		for _, m := range moves {
			before := snapshot(d)
			if err := d.Apply(m); err != nil {
				if !errors.Is(err, ErrIllegalMove) {
					t.Fatalf("Apply error %v does not wrap ErrIllegalMove", err)
				}
				if diff := cmp.Diff(before, snapshot(d)); diff != "" {
					t.Fatalf("illegal move %+v changed the dialogue:\n%s", m, diff)
				}
			}
		}
		checkDialogueInvariants(t, d)
	})
}

// TestWhyAnsweredBySinceOfItsProposition: a why is answered by the
// challenged participant's since or retract replying to it, or by a later
// since of the same proposition (or retract of it) replying to anything;
// OpenChallenges lists the others.
func TestWhyAnsweredBySinceOfItsProposition(t *testing.T) {
	base := []Move{
		{Speaker: "PRO", Act: Claim, Proposition: "φ"},             // M1
		{Speaker: "OPP", Act: Why, Proposition: "φ", Target: "M1"}, // M2
		{Speaker: "OPP", Act: Claim, Proposition: "ψ"},             // M3
		{Speaker: "PRO", Act: Why, Proposition: "ψ", Target: "M3"}, // M4
	}
	tests := []struct {
		name string
		more []Move
		open []string // the IDs of PRO's open challenges
	}{
		{"unanswered", nil, []string{"M2"}},
		{"since replying to the why", []Move{{Speaker: "PRO", Act: Since, Proposition: "φ", Reasons: []string{"a"}, Target: "M2"}}, nil},
		{"since opening a line", []Move{{Speaker: "PRO", Act: Since, Proposition: "φ", Reasons: []string{"a"}}}, nil},
		{"retract replying to the why", []Move{{Speaker: "PRO", Act: Retract, Proposition: "φ", Target: "M2"}}, nil},
		{"since of another proposition", []Move{{Speaker: "PRO", Act: Since, Proposition: "χ", Reasons: []string{"a"}}}, []string{"M2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDialogue("PRO", "OPP")
			if err := d.ApplyAll(append(slices.Clone(base), tt.more...)); err != nil {
				t.Fatal(err)
			}
			var open []string
			for _, m := range d.OpenChallenges("PRO") {
				open = append(open, m.ID)
			}
			if !slices.Equal(open, tt.open) {
				t.Errorf("PRO's open challenges %v, want %v", open, tt.open)
			}
			if got := d.OpenChallenges("OPP"); len(got) != 1 || got[0].ID != "M4" {
				t.Errorf("OPP's open challenges %v, want [M4]", got)
			}
		})
	}
}
