package argumentation

import "testing"

// sampleMoves is a small debate in the seed's shape, used by the golden and
// verdict tests and the examples.
func sampleMoves() []Move {
	const (
		phi  = "Migrate billing to PostgreSQL"
		acid = "Billing needs multi-row ACID transactions"
		team = "The team already runs PostgreSQL in production"
	)
	return []Move{
		{Speaker: "PRO", Act: Claim, Proposition: phi, Round: 0, Text: "Billing is relational data.\nIt belongs in a relational store."},
		{Speaker: "OPP", Act: Claim, Proposition: "¬" + phi, Target: "M1", Round: 0, Text: "A migration is risky | costly."},
		{Speaker: "PRO", Act: Since, Proposition: phi, Reasons: []string{acid, team}, Round: 1},
		{Speaker: "OPP", Act: Why, Proposition: team, Target: "M3", Round: 1},
		{Speaker: "PRO", Act: Since, Proposition: team, Reasons: []string{"Analytics has used PostgreSQL for two years"}, Target: "M4", Round: 1},
		{Speaker: "OPP", Act: Claim, Proposition: "MongoDB 4.0 has multi-document transactions", Attack: "undercut", Target: "M3", Round: 1},
		{Speaker: "OPP", Act: Since, Proposition: "¬" + phi, Reasons: []string{"A migration freezes billing features for a quarter"}, Round: 2},
		{Speaker: "PRO", Act: Why, Proposition: "A migration freezes billing features for a quarter", Target: "M7", Round: 2},
		{Speaker: "PRO", Act: Concede, Proposition: "MongoDB 4.0 has multi-document transactions", Target: "M6", Round: 2},
		{Speaker: "OPP", Act: Retract, Proposition: "A migration freezes billing features for a quarter", Target: "M8", Round: 2},
		{Speaker: "OPP", Act: Why, Proposition: acid, Target: "M3", Round: 3},
	}
}

func sampleDialogue(t testing.TB) *Dialogue {
	t.Helper()
	d := NewDialogue("PRO", "OPP")
	if err := d.ApplyAll(sampleMoves()); err != nil {
		t.Fatal(err)
	}
	return d
}

func sampleReport(t testing.TB) Report {
	t.Helper()
	r, err := sampleDialogue(t).Judge(Additive, VerdictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r.Topic = "Should billing move from MongoDB to PostgreSQL?"
	r.Participants = []Participant{
		{"PRO", "Pragmatic engineer focused on delivery and simplicity"},
		{"OPP", "Cautious architect focused on quality and long-term health"},
		{"MOD", "Senior staff engineer balancing trade-offs"},
	}
	r.Context = []string{"Billing runs on MongoDB 4.2.", "Analytics runs on PostgreSQL 15."}
	r.Consensus = "Move billing in stages, starting with the ledger tables."
	r.Conditions = []string{"Billing volume grows tenfold", "MongoDB transactions prove reliable | at scale"}
	r.Final = true
	return r
}
