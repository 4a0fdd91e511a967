// Package catalog holds the frameworks and perspectives a debate's seats
// hold: the ten philosophical frameworks of the Duelogic seed, the six
// engineering perspectives of the moderated-debate seed, and a host's own
// entries ([Catalog.With]). The podcast (package duelogic, which keeps these
// names by alias) and the moderated debate share it.
package catalog

import (
	"fmt"
	"slices"
	"strings"
)

// Framework identifies an entry of a [Catalog]: one of the ten philosophical
// frameworks of the seed, one of the six built-in engineering perspectives, or
// a host's own entry.
type Framework string

// The philosophical frameworks of the Duelogic seed, in its order.
const (
	Utilitarian      Framework = "utilitarian"
	VirtueEthics     Framework = "virtue_ethics"
	Deontological    Framework = "deontological"
	Pragmatic        Framework = "pragmatic"
	Libertarian      Framework = "libertarian"
	Communitarian    Framework = "communitarian"
	Cosmopolitan     Framework = "cosmopolitan"
	Precautionary    Framework = "precautionary"
	AutonomyCentered Framework = "autonomy_centered"
	CareEthics       Framework = "care_ethics"
)

// The engineering perspectives of the moderated-debate seed, in its order. A
// chair may hold one of these instead of a philosophical framework.
const (
	PerformanceAdvocate   Framework = "performance_advocate"
	SimplicityAdvocate    Framework = "simplicity_advocate"
	SecurityAdvocate      Framework = "security_advocate"
	FutureFlexibility     Framework = "future_flexibility"
	UserExperience        Framework = "user_experience"
	OperationalSimplicity Framework = "operational_simplicity"
)

// FrameworkKind tells a philosophical framework from an engineering perspective.
type FrameworkKind string

// The kinds of catalog entries.
const (
	KindPhilosophical FrameworkKind = "philosophical"
	KindPerspective   FrameworkKind = "perspective"
)

// FrameworkInfo is one catalog entry. For philosophical frameworks every field
// is the seed's PHILOSOPHICAL_CHAIR_INFO text; perspectives carry Priorities
// and TradeOffs (the seed's perspective catalog) and derived descriptions.
type FrameworkInfo struct {
	ID           Framework     `json:"id"`
	Kind         FrameworkKind `json:"kind"`
	Name         string        `json:"name"`
	Description  string        `json:"description"`
	CoreQuestion string        `json:"coreQuestion"`
	Strengths    []string      `json:"strengthsToAcknowledge"`
	BlindSpots   []string      `json:"blindSpotsToAdmit"`
	Priorities   []string      `json:"priorities,omitempty"`
	TradeOffs    string        `json:"tradeOffs,omitempty"`
}

// ShortName is Name without a trailing " Chair": "Utilitarian" for
// "Utilitarian Chair".
func (f FrameworkInfo) ShortName() string { return strings.TrimSuffix(f.Name, " Chair") }

// RoleName is how a prompt names the seat: "Utilitarian Chair" or
// "Performance Advocate perspective".
func (f FrameworkInfo) RoleName() string {
	if f.Kind == KindPerspective {
		return f.Name + " perspective"
	}
	return f.Name
}

func (f FrameworkInfo) clone() FrameworkInfo {
	f.Strengths = slices.Clone(f.Strengths)
	f.BlindSpots = slices.Clone(f.BlindSpots)
	f.Priorities = slices.Clone(f.Priorities)
	return f
}

var philosophical = ofKind(KindPhilosophical, []FrameworkInfo{
	{
		ID: Utilitarian, Name: "Utilitarian Chair",
		Description:  "Argues from maximizing aggregate welfare and outcomes",
		CoreQuestion: "What produces the greatest good for the greatest number?",
		Strengths: []string{
			"Forces calculation of real-world consequences",
			"Egalitarian - each person counts equally",
			"Provides measurable decision framework",
		},
		BlindSpots: []string{
			"Can justify sacrificing minorities for majority benefit",
			"Difficult to measure and compare utilities",
			"May ignore rights and justice concerns",
		},
	},
	{
		ID: VirtueEthics, Name: "Virtue Ethics Chair",
		Description:  "Argues from character, wisdom, and human flourishing",
		CoreQuestion: "What would a person of good character do?",
		Strengths: []string{
			"Centers human development and excellence",
			"Recognizes moral complexity requiring judgment",
			"Integrates emotion and reason",
		},
		BlindSpots: []string{
			"Virtues can be culturally relative",
			"Offers less guidance for novel dilemmas",
			"May prioritize individual flourishing over collective welfare",
		},
	},
	{
		ID: Deontological, Name: "Deontological Chair",
		Description:  "Argues from duty, rules, and moral obligations",
		CoreQuestion: "What does moral duty require, regardless of consequences?",
		Strengths: []string{
			"Provides clear moral boundaries",
			"Protects individual rights absolutely",
			"Offers consistency and predictability",
		},
		BlindSpots: []string{
			"Can be inflexible in complex situations",
			"May lead to worse outcomes by ignoring consequences",
			"Rules can conflict with each other",
		},
	},
	{
		ID: Pragmatic, Name: "Pragmatic Chair",
		Description:  "Argues from what works in practice and real-world feasibility",
		CoreQuestion: "What approach will actually work in the real world?",
		Strengths: []string{
			"Grounded in practical reality",
			"Flexible and adaptive to circumstances",
			"Focuses on achievable outcomes",
		},
		BlindSpots: []string{
			"May sacrifice principle for expediency",
			"Short-term thinking can miss long-term consequences",
			`"What works" can be defined by those in power`,
		},
	},
	{
		ID: Libertarian, Name: "Libertarian Chair",
		Description:  "Argues from individual liberty and minimal coercion",
		CoreQuestion: "Does this respect individual freedom and consent?",
		Strengths: []string{
			"Protects individual autonomy",
			"Skeptical of concentrated power",
			"Values voluntary cooperation",
		},
		BlindSpots: []string{
			"May ignore structural inequalities",
			"Underweights positive obligations to help others",
			"Assumes level playing field that may not exist",
		},
	},
	{
		ID: Communitarian, Name: "Communitarian Chair",
		Description:  "Argues from community bonds, social obligations, and shared values",
		CoreQuestion: "What do we owe to our communities and what do they owe us?",
		Strengths: []string{
			"Recognizes humans as social beings",
			"Values tradition and social cohesion",
			"Emphasizes mutual obligations",
		},
		BlindSpots: []string{
			"Can suppress individual dissent",
			"May privilege in-group over outsiders",
			"Traditions can encode past injustices",
		},
	},
	{
		ID: Cosmopolitan, Name: "Cosmopolitan Chair",
		Description:  "Argues from universal human rights and global perspective",
		CoreQuestion: "What do we owe to all humans, regardless of nationality?",
		Strengths: []string{
			"Recognizes universal human dignity",
			"Challenges arbitrary borders and boundaries",
			"Promotes global cooperation",
		},
		BlindSpots: []string{
			"May be culturally imperialistic",
			"Underweights local knowledge and context",
			"Can seem abstract and detached from lived reality",
		},
	},
	{
		ID: Precautionary, Name: "Precautionary Chair",
		Description:  "Argues from caution, risk-aversion, and avoiding irreversible harm",
		CoreQuestion: "What are the risks of getting this wrong, and can we afford them?",
		Strengths: []string{
			"Takes catastrophic risks seriously",
			"Protects against irreversible harm",
			"Acknowledges uncertainty honestly",
		},
		BlindSpots: []string{
			"Can paralyze decision-making",
			"May ignore the risks of inaction",
			"Can be used to block any change",
		},
	},
	{
		ID: AutonomyCentered, Name: "Autonomy-Centered Chair",
		Description:  "Argues from self-determination and personal agency",
		CoreQuestion: "Does this respect people's right to make their own choices?",
		Strengths: []string{
			"Respects individual self-determination",
			"Protects against paternalism",
			"Values informed consent",
		},
		BlindSpots: []string{
			"May ignore how choices are shaped by circumstances",
			"Underweights relational aspects of selfhood",
			"Assumes capacity for autonomous choice exists",
		},
	},
	{
		ID: CareEthics, Name: "Care Ethics Chair",
		Description:  "Argues from relationships, vulnerability, and caring obligations",
		CoreQuestion: "How do we best care for those who depend on us?",
		Strengths: []string{
			"Centers human relationships and connection",
			"Attends to vulnerability and dependency",
			"Values emotional responsiveness",
		},
		BlindSpots: []string{
			"May privilege close relationships over strangers",
			"Can reinforce gendered care expectations",
			"Less guidance for impersonal policy decisions",
		},
	},
})

func ofKind(k FrameworkKind, fs []FrameworkInfo) []FrameworkInfo {
	for i := range fs {
		fs[i].Kind = k
	}
	return fs
}

// perspective builds a catalog entry from the seed's perspective fields: name,
// priorities and the trade-off the perspective will accept.
func perspective(id Framework, name string, priorities []string, tradeOffs string) FrameworkInfo {
	return FrameworkInfo{
		ID: id, Kind: KindPerspective, Name: name,
		Description:  "Argues for " + strings.Join(priorities, ", "),
		CoreQuestion: "Which option best serves " + strings.Join(priorities, ", ") + "?",
		Priorities:   priorities,
		TradeOffs:    tradeOffs,
		Strengths:    []string{"Keeps " + strings.Join(priorities, ", ") + " in view"},
		BlindSpots:   []string{tradeOffs},
	}
}

var perspectives = []FrameworkInfo{
	perspective(PerformanceAdvocate, "Performance Advocate",
		[]string{"latency", "throughput", "resource efficiency"}, "Will accept complexity for speed"),
	perspective(SimplicityAdvocate, "Simplicity Advocate",
		[]string{"readability", "fewer dependencies", "team familiarity"}, "Will accept slower performance for maintainability"),
	perspective(SecurityAdvocate, "Security Advocate",
		[]string{"attack surface", "data protection", "compliance"}, "Will accept UX friction for security guarantees"),
	perspective(FutureFlexibility, "Future Flexibility",
		[]string{"extensibility", "schema evolution", "decoupling"}, "Will accept upfront investment for adaptability"),
	perspective(UserExperience, "User Experience",
		[]string{"responsiveness", "intuitiveness", "error recovery"}, "Will accept backend complexity for frontend simplicity"),
	perspective(OperationalSimplicity, "Operational Simplicity",
		[]string{"debuggability", "monitoring", "deployment ease"}, "Will accept feature limitations for operational clarity"),
}

// Frameworks returns the ten built-in philosophical frameworks in the seed's
// order. The result is a fresh copy each call.
func Frameworks() []FrameworkInfo { return cloneInfos(philosophical) }

// Perspectives returns the six built-in engineering perspectives in the seed's
// order. The result is a fresh copy each call.
func Perspectives() []FrameworkInfo { return cloneInfos(perspectives) }

// LookupFramework finds a built-in philosophical framework or engineering
// perspective by ID.
func LookupFramework(id Framework) (FrameworkInfo, bool) { return builtin.Lookup(id) }

func cloneInfos(in []FrameworkInfo) []FrameworkInfo {
	out := make([]FrameworkInfo, len(in))
	for i, f := range in {
		out[i] = f.clone()
	}
	return out
}

// Catalog is an immutable set of frameworks and perspectives a chair may hold.
// [DefaultCatalog] holds the built-in entries; [Catalog.With] returns a new
// catalog extended with a host's own, so extending never changes shared state.
// A nil *Catalog behaves as the default catalog.
type Catalog struct {
	entries []FrameworkInfo
	index   map[Framework]int
}

var builtin = mustCatalog(append(slices.Clone(philosophical), perspectives...))

func mustCatalog(entries []FrameworkInfo) *Catalog {
	c, err := extend(nil, entries)
	if err != nil {
		panic(err)
	}
	return c
}

// DefaultCatalog returns the built-in catalog: the ten philosophical frameworks
// followed by the six engineering perspectives.
func DefaultCatalog() *Catalog { return builtin }

// With returns a new catalog holding c's entries followed by entries. An entry
// whose ID is already present replaces it in place. Entries need an ID made of
// lower-case letters, digits and underscores, a Name and a Description; Kind
// defaults to KindPerspective when Priorities are given, else KindPhilosophical.
func (c *Catalog) With(entries ...FrameworkInfo) (*Catalog, error) {
	if c == nil {
		c = builtin
	}
	return extend(c.entries, entries)
}

func extend(base, entries []FrameworkInfo) (*Catalog, error) {
	out := &Catalog{entries: cloneInfos(base), index: make(map[Framework]int, len(base)+len(entries))}
	for i, e := range out.entries {
		out.index[e.ID] = i
	}
	for _, e := range entries {
		if err := checkEntry(e); err != nil {
			return nil, err
		}
		e = e.clone()
		if e.Kind == "" {
			e.Kind = KindPhilosophical
			if len(e.Priorities) > 0 {
				e.Kind = KindPerspective
			}
		}
		if i, ok := out.index[e.ID]; ok {
			out.entries[i] = e
			continue
		}
		out.index[e.ID] = len(out.entries)
		out.entries = append(out.entries, e)
	}
	return out, nil
}

func checkEntry(e FrameworkInfo) error {
	switch {
	case !validID(string(e.ID), 64):
		return fmt.Errorf("duelogic: catalog entry %q: ID must be 1-64 of [a-z0-9_]", e.ID)
	case strings.TrimSpace(e.Name) == "":
		return fmt.Errorf("duelogic: catalog entry %q: empty name", e.ID)
	case strings.TrimSpace(e.Description) == "":
		return fmt.Errorf("duelogic: catalog entry %q: empty description", e.ID)
	case e.Kind != "" && e.Kind != KindPhilosophical && e.Kind != KindPerspective:
		return fmt.Errorf("duelogic: catalog entry %q: unknown kind %q", e.ID, e.Kind)
	}
	return nil
}

func validID(s string, max int) bool {
	if s == "" || len(s) > max {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// Lookup finds an entry by ID.
func (c *Catalog) Lookup(id Framework) (FrameworkInfo, bool) {
	if c == nil {
		c = builtin
	}
	i, ok := c.index[id]
	if !ok {
		return FrameworkInfo{}, false
	}
	return c.entries[i].clone(), true
}

// All returns every entry in order (a fresh copy).
func (c *Catalog) All() []FrameworkInfo {
	if c == nil {
		c = builtin
	}
	return cloneInfos(c.entries)
}

// Info is Lookup without the copy, for read-only use (its slices are the
// catalog's own: do not modify them); an unknown ID yields a generic entry
// named after the ID. A nil Catalog is the default one.
func (c *Catalog) Info(id Framework) FrameworkInfo {
	if c == nil {
		c = builtin
	}
	if i, ok := c.index[id]; ok {
		return c.entries[i]
	}
	return FrameworkInfo{ID: id, Name: string(id), Description: "Argues from the " + string(id) + " position"}
}
