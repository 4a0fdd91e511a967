// Package stubvoice holds how the offline stub model (llm.Stub) speaks for
// each built-in framework and perspective of the duelogic catalog: the
// values, claims, concessions and admissions it draws a voice's texts from.
// The names come from the catalog itself: the writers of package duelogic
// and package moderated pair it with these texts through [NewSet].
package stubvoice

import "strings"

// Voice is how the stub speaks for one framework or perspective.
type Voice struct {
	Name     string   // as prompts name it: "Utilitarian Chair", "Performance Advocate"
	Frame    string   // "framework" or "perspective"
	Label    string   // as in "the utilitarian view"
	Question string   // its core question, starting lower-case, ending in "?"
	Stance   string   // completes "..., arguing that ..." in an introduction
	Values   []string // what it puts first
	Claims   []string // whole sentences; {P} is the proposition
	Grants   []string // what an opponent concedes to it: completes "X makes a compelling case that ..."
	Critique []string // its objection to others: completes "here is where I part ways: ..."
	Blind    []string // its weaknesses: completes "the blind spot in my framework: ..."
	Takeaway string   // completes "X showed us that ..."
}

// Role is how a host names the seat: "Utilitarian Chair", "Performance
// Advocate perspective".
func (v *Voice) Role() string {
	if v.Frame == "perspective" {
		return v.Name + " perspective"
	}
	return v.Name
}

// Entry is a catalog entry as a [Set] needs it.
type Entry struct {
	ID          string // the catalog ID: "utilitarian", "performance_advocate"
	Name        string // the catalog name: "Utilitarian Chair"
	Perspective bool   // an engineering perspective, not a philosophical framework
}

// Set is the voices of a catalog's built-in entries.
type Set struct {
	list  []*Voice
	byKey map[string]*Voice
}

// NewSet returns the voices of the entries that have built-in texts, in the
// order of entries, named as the entries name them.
func NewSet(entries []Entry) *Set {
	s := &Set{byKey: make(map[string]*Voice)}
	for _, e := range entries {
		t, ok := texts[e.ID]
		if !ok {
			continue
		}
		v := t
		v.Name, v.Frame = e.Name, "framework"
		if e.Perspective {
			v.Frame = "perspective"
		}
		s.list = append(s.list, &v)
		s.byKey[Key(v.Name)] = &v
	}
	return s
}

// List returns the set's voices in order. The caller must not change them.
func (s *Set) List() []*Voice { return s.list }

// Lookup returns the set's voice for a framework or perspective name, an ID
// or a role ("the Utilitarian Chair"), and whether there is one.
func (s *Set) Lookup(name string) (*Voice, bool) {
	v, ok := s.byKey[Key(name)]
	return v, ok
}

// For returns the set's voice for name, as [Set.Lookup] finds it, or a
// generic voice built around the name.
func (s *Set) For(name string) *Voice {
	if v, ok := s.Lookup(name); ok {
		return v
	}
	return Generic(name)
}

// Key normalizes a framework or perspective name, an ID like
// "virtue_ethics", or a role like "the Utilitarian Chair", to a lookup key.
func Key(name string) string {
	k := strings.ToLower(name)
	k = strings.NewReplacer("_", " ", "-", " ").Replace(k)
	k = strings.Join(strings.Fields(k), " ")
	k = strings.TrimPrefix(k, "the ")
	k = strings.TrimSuffix(k, " perspective")
	k = strings.TrimSuffix(k, " chair")
	return k
}

// Generic returns a voice built around name, for a framework or perspective
// that has no built-in texts; a name ending in " perspective" makes a
// perspective.
func Generic(name string) *Voice {
	name = strings.TrimSpace(name)
	frame := "framework"
	if n, ok := strings.CutSuffix(name, " perspective"); ok {
		name, frame = n, "perspective"
	}
	if name == "" {
		name = "Chair"
	}
	label := Key(name)
	if label == "" {
		label = "my"
	}
	return &Voice{
		Name:     name,
		Frame:    frame,
		Label:    label,
		Question: "what does the " + label + " view see that the others miss?",
		Stance:   "bringing the " + label + " view to bear on every argument",
		Values:   []string{"what the " + label + " view puts first", "the considerations others overlook", "consistency with " + label + " principles", "the practical stakes for the people affected"},
		Claims: []string{
			"From the " + label + " standpoint, any answer to {P} has to be judged by what this view puts first, not by what is easiest to measure.",
			"The " + label + " view asks us to slow down and name what is really being traded away here.",
			"A good answer has to hold up under the " + label + " view, and most of the quick answers on offer do not.",
			"I would rather argue from a clear standpoint and be wrong in an instructive way than hedge into saying nothing.",
		},
		Grants:   []string{"the " + label + " view notices something the rest of us are liable to overlook"},
		Critique: []string{"an argument that ignores what the " + label + " view puts first leaves a real consideration out"},
		Blind: []string{
			"it can weigh its own priorities too heavily",
			"it may miss considerations outside its focus",
			"it is hard to apply consistently to cases it was not built for",
		},
		Takeaway: "the " + label + " view brings considerations the others are liable to overlook",
	}
}

// texts are the built-in voices without their names, by catalog ID.
var texts = map[string]Voice{
	"utilitarian": {
		Label:    "utilitarian",
		Question: "what produces the greatest good for the greatest number?",
		Stance:   "arguing that the right choice is whatever does the most good for the most people",
		Values:   []string{"aggregate welfare", "the expected consequences for everyone affected", "the number of lives made better or worse", "measurable outcomes"},
		Claims: []string{
			"If we add up who gains and who loses whichever way we answer {P}, the ledger matters more than how the choice feels.",
			"Every person affected counts, and counts equally, so the quiet majority who never show up in a debate deserve a line in the calculation.",
			"A policy that prevents large harms at a modest cost is worth adopting even when it offends our intuitions.",
			"The honest move is to estimate the consequences, even roughly, rather than hide behind principles that never say what they cost.",
		},
		Grants:   []string{"ignoring consequences is itself a choice with victims", "the scale of what is at stake has to be counted, not waved away"},
		Critique: []string{"good intentions do not feed anyone, and a rule that leaves the world worse off is hard to call moral", "refusing to weigh outcomes just hands the decision to whoever is loudest"},
		Blind: []string{
			"it can justify sacrificing a minority for the benefit of a majority",
			"welfare is notoriously hard to measure and compare across people",
			"a focus on totals can crowd out rights and justice",
		},
		Takeaway: "the consequences have to be counted honestly, even when the counting is uncomfortable",
	},
	"virtue_ethics": {
		Label:    "virtue ethics",
		Question: "what would a person of good character do here?",
		Stance:   "arguing that good judgment comes from cultivated character and practical wisdom, not from a formula",
		Values:   []string{"practical wisdom", "character", "human flourishing", "the kind of people our choices make us"},
		Claims: []string{
			"The question is not only what our answer to {P} produces but what deciding it this way makes of us.",
			"Practical wisdom is the capacity to see what a situation asks of us, and no formula can do that seeing for us.",
			"Courage, honesty and temperance are not decorations on a decision; they are how good decisions get made.",
			"A society that outsources its judgment to calculation slowly forgets how to judge at all.",
		},
		Grants:   []string{"character is formed by the choices we make, and a choice that corrodes our judgment costs more than any spreadsheet shows", "wisdom is a practiced skill that no rulebook can replace"},
		Critique: []string{"a decision can score well on paper and still be the act of a careless or cowardly agent", "a procedure cannot tell us which features of a situation matter; only judgment can"},
		Blind: []string{
			"what counts as a virtue differs across cultures and eras",
			"it gives thin guidance for genuinely novel dilemmas like this one",
			"it can put individual excellence ahead of collective welfare",
		},
		Takeaway: "wisdom is a practiced capacity for judgment, not a formula",
	},
	"deontological": {
		Label:    "deontological",
		Question: "what does duty require of us, whatever the consequences?",
		Stance:   "arguing that some duties and rights hold no matter what the outcome",
		Values:   []string{"duty", "rights that cannot be traded away", "treating persons as ends and never merely as means", "promises and obligations"},
		Claims: []string{
			"Some things may not be done to people, however attractive the outcome, and any answer to {P} has to be tested against that line first.",
			"A right that evaporates whenever the numbers turn against it was never a right.",
			"We should be able to will the principle behind our choice as a rule for everyone in our position.",
			"Consent and honesty are not obstacles to good outcomes; they are limits on how we may pursue them.",
		},
		Grants:   []string{"there are lines we must not cross, and clear rules protect the people most likely to be traded away", "a right that bends to every calculation protects no one"},
		Critique: []string{"a result bought by using people as instruments is not a good result at all", "outcomes cannot license what duty forbids"},
		Blind: []string{
			"rigid rules can be inflexible when a situation is genuinely complex",
			"ignoring consequences can lead to visibly worse outcomes",
			"duties can conflict with one another, and my framework does not always say which wins",
		},
		Takeaway: "some protections must hold even when breaking them looks profitable",
	},
	"pragmatic": {
		Label:    "pragmatic",
		Question: "what approach will actually work in the real world?",
		Stance:   "cutting through abstraction to ask what actually works",
		Values:   []string{"what is actually feasible", "implementation and enforcement", "incentives as they really are", "evidence from what has worked before"},
		Claims: []string{
			"Whatever we think of {P} in theory, the question is whether anyone can implement it, enforce it and keep it running.",
			"Institutions move slowly, incentives leak, and a plan that ignores that will fail no matter how principled it is.",
			"I would rather take a modest step that survives contact with reality than a grand one that collapses within a year.",
			"We learn what works by trying, measuring and adjusting, not by settling the metaphysics first.",
		},
		Grants:   []string{"ideals nobody can implement protect no one, and a policy is tested by what it does once it meets real institutions", "an answer that cannot be enforced is only a wish"},
		Critique: []string{"an elegant principle that cannot be enforced is a statement, not a solution", "the debate keeps skipping the part where somebody has to make this work"},
		Blind: []string{
			"it can trade away principle for expediency",
			"short-term fixes can miss long-term consequences",
			"what counts as working is often defined by whoever already holds power",
		},
		Takeaway: "any answer has to survive contact with real institutions and real incentives",
	},
	"libertarian": {
		Label:    "libertarian",
		Question: "does this respect individual freedom and consent?",
		Stance:   "arguing for individual liberty and against coercion that consent has not authorized",
		Values:   []string{"individual liberty", "voluntary cooperation", "consent", "limits on concentrated power"},
		Claims: []string{
			"Before we settle {P}, we should ask who gets to decide and by what right they compel everyone else.",
			"Free people cooperating voluntarily have solved more problems than mandates ever have.",
			"Every new power we hand to an authority outlives the emergency that justified it.",
			"Coercion needs a justification strong enough to override consent, and good intentions are not that justification.",
		},
		Grants:   []string{"freedom from coercion is the default a free society owes its members, and power once granted is rarely returned", "consent is what separates cooperation from command"},
		Critique: []string{"a goal pursued by compelling unwilling people carries a cost its supporters rarely pay themselves", "every mandate in this debate quietly assumes the people issuing it will use the power well"},
		Blind: []string{
			"it can ignore structural inequalities that make consent less than free",
			"it underweights positive obligations to help others",
			"it assumes a level playing field that often does not exist",
		},
		Takeaway: "every expansion of power needs a justification that survives the consent of the governed",
	},
	"communitarian": {
		Label:    "communitarian",
		Question: "what do we owe our communities, and what do they owe us?",
		Stance:   "arguing from community bonds, shared values and the obligations we inherit",
		Values:   []string{"shared values", "social trust", "mutual obligation", "the institutions that hold communities together"},
		Claims: []string{
			"None of us meets {P} as an isolated chooser; we meet it as members of families, towns and traditions.",
			"Social trust is slow to build and quick to spend, and that should weigh heavily in what we decide here.",
			"Rights talk alone cannot explain why people sacrifice for neighbours they will never meet.",
			"A decision that strengthens the bonds between people is often wiser than one that maximizes any single measure.",
		},
		Grants:   []string{"we are shaped by our communities and owe them more than we ever chose to owe", "social trust is a shared resource that individual choices can drain"},
		Critique: []string{"an argument that treats people as unattached individuals leaves out most of what gives their lives meaning", "no one reasons from nowhere, and pretending otherwise hides whose values are doing the work"},
		Blind: []string{
			"community can silence the dissenter who turns out to be right",
			"it can favour insiders over outsiders",
			"traditions can encode past injustices",
		},
		Takeaway: "our answers are made together, inside relationships and institutions we inherit",
	},
	"cosmopolitan": {
		Label:    "cosmopolitan",
		Question: "what do we owe to all people, wherever they happen to live?",
		Stance:   "arguing from universal human dignity and a global point of view",
		Values:   []string{"universal human dignity", "people beyond our borders", "global cooperation", "the interests of those with no voice in our debate"},
		Claims: []string{
			"The people most affected by how we answer {P} may live far from the rooms where it is decided, and they count just as much.",
			"A border is an accident of birth, not a moral boundary on who deserves our concern.",
			"Problems that cross borders need cooperation that crosses them too.",
			"If a principle only protects our own, it is a preference dressed up as ethics.",
		},
		Grants:   []string{"human dignity does not stop at a border, and neither do the consequences of what we decide", "the people with the least say often bear the largest costs"},
		Critique: []string{"a view that stops its concern at the edge of one community quietly discounts everyone else", "local loyalty is not a license to export our costs to strangers"},
		Blind: []string{
			"it can be culturally imperialistic",
			"it underweights local knowledge and context",
			"it can sound abstract and detached from lived reality",
		},
		Takeaway: "the circle of concern has to include people who will never be in the room",
	},
	"precautionary": {
		Label:    "precautionary",
		Question: "what are the risks of getting this wrong, and can we afford them?",
		Stance:   "arguing for caution wherever the harm could be irreversible",
		Values:   []string{"irreversible harm", "tail risks", "margins of safety", "what we do not yet know"},
		Claims: []string{
			"When getting {P} wrong could mean harms we cannot undo, the burden of proof belongs with those who want to move fast.",
			"Uncertainty is not a reason for confidence; it is a reason to build in margins.",
			"We can recover from being too careful far more easily than from a catastrophe.",
			"The worst outcomes deserve weight beyond their probability, because there is no second attempt after them.",
		},
		Grants:   []string{"when a harm is irreversible, the burden of proof should sit with those who want to take the risk", "uncertainty cuts toward caution when the downside is permanent"},
		Critique: []string{"an argument that only tallies likely outcomes ignores the catastrophe sitting in the tail", "confidence about a future nobody has seen is not evidence"},
		Blind: []string{
			"caution can paralyze decisions that cannot wait",
			"it can ignore the real risks of inaction",
			"it can be used to block any change at all",
		},
		Takeaway: "irreversible harms deserve a weight that ordinary cost-benefit talk does not give them",
	},
	"autonomy_centered": {
		Label:    "autonomy-centered",
		Question: "does this respect people's right to make their own choices?",
		Stance:   "arguing for self-determination and against paternalism",
		Values:   []string{"self-determination", "informed consent", "freedom from paternalism", "people's authority over their own lives"},
		Claims: []string{
			"Whatever we decide about {P}, the people who live with the consequences should be the ones choosing.",
			"Protecting people from their own choices is a slippery kind of respect.",
			"Informed consent is the line between helping someone and managing them.",
			"Agency is not just a right; it is how people become capable of governing their own lives.",
		},
		Grants:   []string{"people are the authors of their own lives, and paternalism, however kind, treats them as less than that", "a choice made for someone is not a choice they made"},
		Critique: []string{"a plan that decides for people instead of with them treats adults as wards", "good outcomes imposed without consent still take something from the people who receive them"},
		Blind: []string{
			"it can ignore how circumstances shape people's choices",
			"it underweights the relational side of selfhood",
			"it assumes a capacity for autonomous choice that not everyone has",
		},
		Takeaway: "respect means letting people author their own choices, informed and uncoerced",
	},
	"care_ethics": {
		Label:    "care ethics",
		Question: "how do we best care for those who depend on us?",
		Stance:   "arguing from relationships, vulnerability and the obligations of care",
		Values:   []string{"relationships", "vulnerability", "the people who depend on us", "attentiveness to particular needs"},
		Claims: []string{
			"I keep asking who will be left holding the consequences of how we answer {P}, and who will be caring for them.",
			"Abstract principles tend to forget the people doing the unglamorous work of care.",
			"Responsibility grows out of relationships, and the most vulnerable have the first claim on our attention.",
			"Listening to the particular needs of real people is a moral skill, not a distraction from ethics.",
		},
		Grants:   []string{"the most vulnerable people in this story have the first claim on us, and they are easy to lose in abstraction", "responsibility begins in relationships, not in theories"},
		Critique: []string{"an argument that never asks who does the caring has skipped the most human part of the problem", "impartial rules are easy to write and hard to live under for people who depend on others"},
		Blind: []string{
			"it can favour those close to us over strangers",
			"it can reinforce gendered expectations of who does the caring",
			"it offers less guidance for impersonal policy decisions",
		},
		Takeaway: "every policy lands on particular people, and someone has to care for them",
	},
	"performance_advocate": {
		Label:    "performance",
		Question: "which option keeps latency low and throughput high under real load?",
		Stance:   "pushing for latency, throughput and resource efficiency",
		Values:   []string{"latency", "throughput", "resource efficiency", "tail latency under load"},
		Claims: []string{
			"Measured under realistic load, the options behind {P} will not perform alike, and users feel every extra millisecond.",
			"Tail latency is what users remember, so I care about the p99, not the average.",
			"I will accept more moving parts if they buy us an order of magnitude in speed.",
			"Efficiency is also cost: fewer cycles per request means fewer machines to run and pay for.",
		},
		Grants:   []string{"speed is a feature users feel directly, and headroom under load is cheaper to build in than to retrofit", "performance problems found in production are the most expensive kind"},
		Critique: []string{"a design that is simple but falls over at peak load is simple only on paper", "nobody has benchmarked the option being defended, and intuition about speed is usually wrong"},
		Blind: []string{
			"I can overvalue speed the product does not need yet",
			"performance work adds complexity someone has to maintain",
			"benchmarks mislead when they do not match real traffic",
		},
		Takeaway: "speed under real load is a feature users feel directly",
	},
	"simplicity_advocate": {
		Label:    "simplicity",
		Question: "what is the simplest design that does the job?",
		Stance:   "pushing for readable code, fewer dependencies and what the team already knows",
		Values:   []string{"readability", "fewer dependencies", "team familiarity", "code a newcomer can follow"},
		Claims: []string{
			"Whatever we choose for {P}, the team will read this code far more often than they write it.",
			"Every dependency is a liability we sign up to upgrade, patch and understand.",
			"I will trade some speed for a design that fits in one person's head.",
			"The boring solution the team already knows usually beats the clever one nobody can debug.",
		},
		Grants:   []string{"complexity is a cost paid every day by everyone who touches the code", "a design the team understands is a design the team can fix"},
		Critique: []string{"a clever design that only its author understands is a debt with interest", "each extra layer here solves a problem we do not have yet"},
		Blind: []string{
			"simple designs can hit a wall when requirements grow",
			"I can mistake familiar for simple",
			"avoiding dependencies can mean reinventing what already exists",
		},
		Takeaway: "complexity is paid for every day, by everyone who touches the system",
	},
	"security_advocate": {
		Label:    "security",
		Question: "what does this do to our attack surface and to the data we protect?",
		Stance:   "pushing for a small attack surface, data protection and compliance",
		Values:   []string{"attack surface", "data protection", "compliance", "least privilege"},
		Claims: []string{
			"Whatever we decide on {P}, every component we add is another thing an attacker can probe.",
			"Data we never store is data we can never leak.",
			"I will accept some friction for users if it buys guarantees we can defend in an audit.",
			"Least privilege and defence in depth are cheapest when designed in from the start.",
		},
		Grants:   []string{"a breach costs more than any feature is worth, and security bolted on later is always weaker", "every new component widens what an attacker can reach"},
		Critique: []string{"a design that trusts every input is fast and simple right up to its first incident", "nobody has asked who can read this data and why"},
		Blind: []string{
			"security friction can push users toward worse workarounds",
			"I can overestimate unlikely threats",
			"compliance checklists can stand in for real risk analysis",
		},
		Takeaway: "every component is attack surface, and data not stored cannot leak",
	},
	"future_flexibility": {
		Label:    "flexibility",
		Question: "which choice keeps our options open as requirements change?",
		Stance:   "pushing for extensibility, schema evolution and decoupling",
		Values:   []string{"extensibility", "schema evolution", "decoupling", "the cost of changing our minds later"},
		Claims: []string{
			"Whatever answers {P} today, requirements will change, and the real question is what changing course will cost.",
			"Decoupled components let us replace one part without rewriting the rest.",
			"I will pay some upfront investment to avoid being locked into today's assumptions.",
			"Schemas and interfaces outlive the code behind them, so they deserve the most care.",
		},
		Grants:   []string{"requirements always change, and the cost of changing course is set by decisions made now", "interfaces outlive implementations"},
		Critique: []string{"a design tuned for today's numbers tends to calcify around assumptions that will not last", "locking in now means paying for a migration later, with interest"},
		Blind: []string{
			"flexibility can turn into speculative generality nobody needs",
			"abstraction layers cost performance and clarity",
			"I can overpay for futures that never arrive",
		},
		Takeaway: "the cost of changing our minds later is decided by choices made now",
	},
	"user_experience": {
		Label:    "user experience",
		Question: "what will this feel like for the people using it?",
		Stance:   "pushing for responsiveness, intuitiveness and graceful recovery from errors",
		Values:   []string{"responsiveness", "intuitiveness", "graceful error recovery", "what users actually experience"},
		Claims: []string{
			"Users will never see the architecture behind {P}; they will only see whether it responds and recovers gracefully.",
			"An error message that helps someone recover is worth more than a clever backend.",
			"I will accept backend complexity if it makes the front end feel effortless.",
			"Perceived speed and clarity decide whether people trust a product.",
		},
		Grants:   []string{"users judge the system by what they experience, not by how elegant it is inside", "a confusing product fails no matter how well it is built"},
		Critique: []string{"a design that is elegant inside but confusing outside has optimized for the wrong audience", "we keep debating internals while nobody has asked a user"},
		Blind: []string{
			"I can push complexity onto the backend team without counting its cost",
			"user preferences are easy to assume and hard to measure",
			"polish can delay shipping what users need",
		},
		Takeaway: "users judge the system by what they experience, not by its internals",
	},
	"operational_simplicity": {
		Label:    "operations",
		Question: "can we deploy, monitor and debug this at three in the morning?",
		Stance:   "pushing for debuggability, monitoring and easy deployment",
		Values:   []string{"debuggability", "monitoring", "deployment ease", "fewer moving parts in production"},
		Claims: []string{
			"Whatever we decide on {P}, someone will be paged at three in the morning, and they need to understand what broke.",
			"Every extra service is another thing to deploy, monitor, back up and upgrade.",
			"I will accept feature limits for a system whose failures are obvious and recoverable.",
			"Good observability turns outages into quick fixes instead of long investigations.",
		},
		Grants:   []string{"every moving part in production is something that can break at the worst moment", "a system nobody can debug is a system nobody can trust"},
		Critique: []string{"a design that is hard to observe turns every incident into archaeology", "the proposal adds a service without saying who will run it"},
		Blind: []string{
			"I can resist changes that would pay off once the tooling matures",
			"operational caution can hold back features users want",
			"the familiar stack is not always the simplest to run",
		},
		Takeaway: "systems must be debuggable by whoever is on call, not only by their authors",
	},
}
