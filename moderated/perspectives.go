package moderated

import (
	"fmt"
	"slices"
	"strings"

	"github.com/duelogic/duelogic/catalog"
	"github.com/duelogic/duelogic/engine"
)

// Perspective is a debater's assigned viewpoint: a perspective of the
// catalog, with the model that argues it. Its ID is the debater's Speaker.
type Perspective struct {
	ID         catalog.Framework `json:"id"`
	Name       string            `json:"name"`
	Priorities []string          `json:"priorities"`
	TradeOffs  string            `json:"tradeOffs"`
	Model      string            `json:"model"`
}

// builtinOpposites are the pairs of built-in perspectives whose trade-offs
// pull against each other: a debate seating one of a pair with the other is
// balanced.
var builtinOpposites = [][2]catalog.Framework{
	{catalog.PerformanceAdvocate, catalog.SimplicityAdvocate},
	{catalog.PerformanceAdvocate, catalog.OperationalSimplicity},
	{catalog.SecurityAdvocate, catalog.UserExperience},
	{catalog.FutureFlexibility, catalog.SimplicityAdvocate},
}

// builtinKeywords map words of a question to the built-in perspectives they
// call for. A keyword ending in '*' matches words it begins; one of several
// words matches those words in a row and weighs double.
var builtinKeywords = map[catalog.Framework][]string{
	catalog.PerformanceAdvocate: {"cach*", "latenc*", "throughput", "fast", "faster", "speed*", "perform*", "scal*",
		"real time", "realtime", "memory", "cpu", "load", "benchmark*", "millisecond*", "redis", "hot path", "efficien*"},
	catalog.SimplicityAdvocate: {"simpl*", "maintain*", "readab*", "dependenc*", "familiar*", "ship fast", "ship quickly",
		"quick*", "deadline*", "mvp", "small team", "prototype*", "boring", "complexity", "complicated"},
	catalog.SecurityAdvocate: {"auth*", "secur*", "encrypt*", "password*", "credential*", "token*", "complian*", "gdpr",
		"hipaa", "privacy", "vulnerab*", "secret*", "attack*", "permission*", "access control", "pii", "sso"},
	catalog.FutureFlexibility: {"extensib*", "plugin*", "schema*", "evolv*", "future", "migrat*", "flexib*", "decoupl*",
		"microservice*", "modular*", "api", "apis", "graphql", "rest", "version*", "long term"},
	catalog.UserExperience: {"user*", "ux", "ui", "frontend", "front end", "usab*", "onboard*", "responsive*", "customer*",
		"mobile", "accessib*", "interface*", "design system"},
	catalog.OperationalSimplicity: {"deploy*", "operat*", "ops", "devops", "monitor*", "observab*", "debug*", "infrastructure",
		"kubernetes", "on call", "oncall", "database*", "postgres*", "postgresql", "backup*", "upgrade*", "incident*", "logging"},
}

// perspectives is the catalog's perspectives with what the assignment needs
// to know of them.
type perspectives struct {
	all       []catalog.FrameworkInfo
	byID      map[catalog.Framework]catalog.FrameworkInfo
	opposites map[catalog.Framework][]catalog.Framework
	pairs     [][2]catalog.Framework
	keywords  map[catalog.Framework][]string
}

// newPerspectives builds the catalog of cfg: the built-in perspectives and
// the host's, with the opposite pairs of both. An invalid custom
// perspective or opposite pair is an [*engine.ValidationError].
func newPerspectives(cfg Config) (*perspectives, error) {
	v := &engine.ValidationError{Format: FormatName}
	ps := buildPerspectives(cfg, v)
	return ps, v.Err()
}

// buildPerspectives builds the catalog of cfg, leaving out the custom
// perspectives and opposite pairs that are invalid, each of which it adds
// to v by its field path.
func buildPerspectives(cfg Config, v *engine.ValidationError) *perspectives {
	cat := catalog.DefaultCatalog()
	for i, e := range cfg.CustomPerspectives {
		next, err := cat.With(e)
		if err != nil {
			v.Add(fmt.Sprintf("customPerspectives[%d]", i), "%v", err)
			continue
		}
		cat = next
	}
	ps := &perspectives{
		byID:      map[catalog.Framework]catalog.FrameworkInfo{},
		opposites: map[catalog.Framework][]catalog.Framework{},
		keywords:  map[catalog.Framework][]string{},
	}
	for _, f := range cat.All() {
		if f.Kind != catalog.KindPerspective {
			continue
		}
		ps.all = append(ps.all, f)
		ps.byID[f.ID] = f
		if kw, ok := builtinKeywords[f.ID]; ok {
			ps.keywords[f.ID] = kw
			continue
		}
		for _, p := range f.Priorities {
			ps.keywords[f.ID] = append(ps.keywords[f.ID], strings.Join(wordsOf(p), " "))
			for _, w := range wordsOf(p) {
				if len(w) >= 4 {
					ps.keywords[f.ID] = append(ps.keywords[f.ID], w+"*")
				}
			}
		}
	}
	for i, pair := range slices.Concat(builtinOpposites, cfg.Opposites) {
		a, b := pair[0], pair[1]
		_, okA := ps.byID[a]
		_, okB := ps.byID[b]
		switch {
		case (!okA || !okB) && i < len(builtinOpposites):
			continue // a host entry replaced a built-in perspective
		case !okA || !okB || a == b:
			v.Add(fmt.Sprintf("opposites[%d]", i-len(builtinOpposites)), "%s/%s: both must be different perspectives of the catalog", a, b)
			continue
		}
		if !slices.Contains(ps.opposites[a], b) {
			ps.opposites[a] = append(ps.opposites[a], b)
			ps.opposites[b] = append(ps.opposites[b], a)
			ps.pairs = append(ps.pairs, pair)
		}
	}
	return ps
}

// resolve finds a perspective by ID or name ("Performance Advocate",
// "performance_advocate", "the Performance Advocate perspective").
func (ps *perspectives) resolve(name string) (catalog.Framework, bool) {
	norm := func(s string) string {
		s = strings.Join(wordsOf(s), " ")
		s = strings.TrimPrefix(s, "the ")
		return strings.TrimSuffix(s, " perspective")
	}
	want := norm(name)
	if want == "" {
		return "", false
	}
	for _, f := range ps.all {
		if norm(string(f.ID)) == want || norm(f.Name) == want {
			return f.ID, true
		}
	}
	return "", false
}

func (ps *perspectives) opposed(a, b catalog.Framework) bool {
	return slices.Contains(ps.opposites[a], b)
}

// balanced reports whether ids seat at least one pair of opposites, so the
// debaters are not all on the same side of the trade-offs.
func (ps *perspectives) balanced(ids []catalog.Framework) bool {
	for i, a := range ids {
		for _, b := range ids[i+1:] {
			if ps.opposed(a, b) {
				return true
			}
		}
	}
	return false
}

// rank returns the perspectives whose keywords occur in text, those with
// more (and longer) matches first, ties in catalog order.
func (ps *perspectives) rank(text string) []catalog.Framework {
	words := wordsOf(text)
	type scored struct {
		id    catalog.Framework
		score int
	}
	var hits []scored
	for _, f := range ps.all {
		score := 0
		for _, kw := range ps.keywords[f.ID] {
			if k := strings.Fields(kw); containsRun(words, k) {
				score += len(k)
			}
		}
		if score > 0 {
			hits = append(hits, scored{f.ID, score})
		}
	}
	slices.SortStableFunc(hits, func(a, b scored) int { return b.score - a.score })
	out := make([]catalog.Framework, len(hits))
	for i, h := range hits {
		out[i] = h.id
	}
	return out
}

// containsRun reports whether words holds the keyword's words in a row; a
// keyword word ending in '*' matches any word it begins.
func containsRun(words, kw []string) bool {
	if len(kw) == 0 {
		return false
	}
	match := func(w, k string) bool {
		if p, ok := strings.CutSuffix(k, "*"); ok {
			return strings.HasPrefix(w, p)
		}
		return w == k
	}
outer:
	for i := 0; i+len(kw) <= len(words); i++ {
		for j, k := range kw {
			if !match(words[i+j], k) {
				continue outer
			}
		}
		return true
	}
	return false
}

// choose picks n perspectives: those the moderator suggested (when the
// catalog has them), then those the question's keywords call for, then the
// catalog's in order. The perspective that best matches the domain
// ([perspectives.domainMatch]) always has a seat — the last one, when the
// moderator did not name it — and the choice is balanced around it.
func (ps *perspectives) choose(text, domain string, suggested []string, n int) []catalog.Framework {
	n = min(n, len(ps.all))
	var ids []catalog.Framework
	add := func(id catalog.Framework) {
		if len(ids) < n && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	for _, s := range suggested {
		if id, ok := ps.resolve(s); ok {
			add(id)
		}
	}
	for _, id := range ps.rank(text) {
		add(id)
	}
	for _, f := range ps.all {
		add(f.ID)
	}
	keep := ps.domainMatch(domain)
	if keep != "" && len(ids) > 0 && !slices.Contains(ids, keep) {
		ids[len(ids)-1] = keep
	}
	return ps.balance(ids, keep)
}

// domainMatch is the perspective whose keywords the domain of the
// moderator's analysis calls for most ("security" → Security Advocate);
// "" when it calls for none ("architecture", "general").
func (ps *perspectives) domainMatch(domain string) catalog.Framework {
	if r := ps.rank(domain); len(r) > 0 {
		return r[0]
	}
	return ""
}

// balance returns ids unchanged when they are balanced. Otherwise one seat
// is given to an opposite of a perspective that stays — the first opposite
// of the most relevant one that has one —: the least relevant seat that
// can be (the last, else the one before, and so on), never keep's (the
// domain's best match). When no seat can be, the last two seats that are
// not keep's go to the first pair of opposites.
func (ps *perspectives) balance(ids []catalog.Framework, keep catalog.Framework) []catalog.Framework {
	if len(ids) < 2 || ps.balanced(ids) {
		return ids
	}
	for j := len(ids) - 1; j >= 0; j-- {
		if ids[j] == keep {
			continue
		}
		for i, stays := range ids {
			if i == j {
				continue
			}
			for _, opp := range ps.opposites[stays] {
				if !slices.Contains(ids, opp) {
					out := slices.Clone(ids)
					out[j] = opp
					return out
				}
			}
		}
	}
	if len(ps.pairs) == 0 {
		return ids
	}
	pair := ps.pairs[0]
	out := slices.DeleteFunc(slices.Clone(ids), func(id catalog.Framework) bool { return id == pair[0] || id == pair[1] })
	for i := len(out) - 1; i >= 0 && len(out) > len(ids)-2; i-- {
		if out[i] != keep || len(ids) == 2 {
			out = slices.Delete(out, i, i+1)
		}
	}
	return append(out, pair[0], pair[1])
}

func (ps *perspectives) perspective(id catalog.Framework, model string) Perspective {
	f := ps.byID[id]
	return Perspective{ID: f.ID, Name: f.Name, Priorities: slices.Clone(f.Priorities), TradeOffs: f.TradeOffs, Model: model}
}
