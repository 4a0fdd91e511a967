package duelogic

import (
	"fmt"
	"math"
)

// The seed's success metrics: "Steel-manning attempts in >80% of critique
// responses" and "Self-critique present in >70% of substantive responses".
const (
	SteelManningTarget = 0.80
	SelfCritiqueTarget = 0.70
)

// Metrics measure a debate against the seed's success metrics, and its
// length against its target duration.
//
// The rates have the seed's denominators. Steel-manning is counted over the
// critique responses: the evaluated exchange responses that, as the arbiter
// judged them, critique an opponent's position (the mandate is to steel-man
// "before critiquing"). Self-critique is counted over the substantive
// responses: the evaluated ones that argue a position ("in each substantive
// response"), not a response cut off before it said much, a bare question or
// a hand-off. An evaluation that does not say (an older stored debate, a
// model that left the fields out) counts its response as both.
//
// A response cut off by an interruption (Utterance.Cut) is judged on what
// it said, and the arbiter is told it was cut. It counts toward
// steel-manning as any response does — a steel-man is owed before a
// critique, and the critique it made was said — but not toward
// self-critique, which it might have made in what it never said: it is
// left out of that rate's denominator whatever it said (counting only the
// cut responses that did admit a weakness would flatter the rate, counting
// the others as lapses would blame the chair for the interruption).
// CutResponses counts them. A response interrupted after it was said whole
// (marked, not cut) counts in full. A rate whose
// denominator is 0 — nothing evaluated (relaxed accountability), or nothing
// that critiqued — is 0 and not measured: it meets no target, and a report
// should say "not measured", not 0%.
type Metrics struct {
	// Responses counts the chairs' exchange responses; Evaluated those the
	// arbiter scored.
	Responses int `json:"responses"`
	Evaluated int `json:"evaluated"`
	// CritiqueResponses counts the evaluated responses that critique an
	// opponent: SteelManningRate's denominator. SubstantiveResponses
	// counts the evaluated substantive responses said whole (not cut):
	// SelfCritiqueRate's. CutResponses counts the evaluated responses cut
	// off by an interruption, which SubstantiveResponses leaves out.
	CritiqueResponses    int `json:"critiqueResponses"`
	SubstantiveResponses int `json:"substantiveResponses"`
	CutResponses         int `json:"cutResponses,omitempty"`
	// SteelManningRate is the share of critique responses that attempted a
	// steel-man; SelfCritiqueRate the share of substantive responses that
	// acknowledged a weakness of the chair's own framework.
	SteelManningRate float64 `json:"steelManningRate"`
	SelfCritiqueRate float64 `json:"selfCritiqueRate"`
	// MeetsSteelManning and MeetsSelfCritique compare the rates with the
	// seed's targets (SteelManningTarget, SelfCritiqueTarget); both are
	// false when the rate was not measured.
	MeetsSteelManning bool `json:"meetsSteelManning"`
	MeetsSelfCritique bool `json:"meetsSelfCritique"`
	// MeanAdherence is the mean adherence score, 0..100, of the evaluated
	// responses.
	MeanAdherence float64 `json:"meanAdherence"`
	// FrameworkConsistency is the share of evaluated responses judged
	// consistent with the chair's framework.
	FrameworkConsistency float64 `json:"frameworkConsistency"`
	Interruptions        int     `json:"interruptions"`
	Interjections        int     `json:"interjections"`
	// Exchanges counts the exchange rounds played: Flow.MaxExchanges, or
	// fewer when the target duration paced the episode down to them.
	Exchanges int `json:"exchanges,omitempty"`
	// Words counts the words of the whole transcript, the arbiter's
	// included; SpokenMinutes estimates how long it takes to say them, at
	// SpokenWordsPerMinute. TargetMinutes is Flow.TargetDurationMinutes (0:
	// none), which paces the episode (see [FlowConfig]).
	Words         int     `json:"words"`
	SpokenMinutes float64 `json:"spokenMinutes"`
	TargetMinutes int     `json:"targetMinutes,omitempty"`
	// With a target, OnTarget reports that SpokenMinutes is within 20% of
	// it, and MinMinutes and MaxMinutes are the spoken lengths the bounds
	// pacing works within allow this debate: its introduction, turns and
	// closing all at the least of the seed's ranges and the seed's 3
	// exchanges, or all at the most and Flow.MaxExchanges, with as many
	// words of interjections and interruptions a round as were said. A
	// target they keep out of reach ([Metrics.TargetReachable] false) is
	// missed by any pacing; one within reach that is missed, pacing missed.
	OnTarget   bool    `json:"onTarget,omitempty"`
	MinMinutes float64 `json:"minMinutes,omitempty"`
	MaxMinutes float64 `json:"maxMinutes,omitempty"`
	// ByChair splits the figures by chair position.
	ByChair map[string]ChairMetrics `json:"byChair"`
}

// TargetTolerance is how far from the target duration a debate's spoken
// length may fall and be on target: 20% either way.
const TargetTolerance = 0.20

// TargetReachable reports whether a debate with a target duration could
// have been spoken within TargetTolerance of it, within the bounds pacing
// works within (MinMinutes to MaxMinutes); false without a target.
func (m Metrics) TargetReachable() bool {
	t := float64(m.TargetMinutes)
	return t > 0 && m.MinMinutes <= t*(1+TargetTolerance) && m.MaxMinutes >= t*(1-TargetTolerance)
}

// Length says the debate's spoken length, and with a target duration how
// it came out against it: "length 3569 words, about 23.8 spoken minutes at
// 150 words a minute (target 20: on target, within 20%)", "... (target 10:
// out of reach, the bounds allow 12.4-41.7 minutes)", or "... (target 20:
// missed by more than 20%)".
func (m Metrics) Length() string {
	s := fmt.Sprintf("length %d words, about %.1f spoken minutes at %d words a minute", m.Words, m.SpokenMinutes, SpokenWordsPerMinute)
	switch {
	case m.TargetMinutes <= 0:
		return s
	case m.OnTarget:
		return s + fmt.Sprintf(" (target %d: on target, within %.0f%%)", m.TargetMinutes, 100*TargetTolerance)
	case !m.TargetReachable():
		return s + fmt.Sprintf(" (target %d: out of reach, the bounds allow %.1f-%.1f minutes)", m.TargetMinutes, m.MinMinutes, m.MaxMinutes)
	}
	return s + fmt.Sprintf(" (target %d: missed by more than %.0f%%)", m.TargetMinutes, 100*TargetTolerance)
}

// SteelManningMeasured reports whether any response critiqued an opponent,
// so that SteelManningRate means something.
func (m Metrics) SteelManningMeasured() bool { return m.CritiqueResponses > 0 }

// SelfCritiqueMeasured reports whether any response was substantive, so
// that SelfCritiqueRate means something.
func (m Metrics) SelfCritiqueMeasured() bool { return m.SubstantiveResponses > 0 }

// ChairMetrics are one chair's figures, with the denominators of
// [Metrics].
type ChairMetrics struct {
	Responses            int     `json:"responses"`
	Evaluated            int     `json:"evaluated"`
	CritiqueResponses    int     `json:"critiqueResponses"`
	SubstantiveResponses int     `json:"substantiveResponses"`
	CutResponses         int     `json:"cutResponses,omitempty"`
	SteelManningRate     float64 `json:"steelManningRate"`
	SelfCritiqueRate     float64 `json:"selfCritiqueRate"`
	MeanAdherence        float64 `json:"meanAdherence"`
	FrameworkConsistency float64 `json:"frameworkConsistency"`
	InterruptionsMade    int     `json:"interruptionsMade"`
	TimesInterrupted     int     `json:"timesInterrupted"`
	InterjectionsAgainst int     `json:"interjectionsAgainst"`
	// Words counts the words the chair said (openings, responses and
	// interruptions).
	Words int `json:"words"`
}

// responseScope says which of the seed's success metrics a response counts
// toward, as the arbiter judged it beside its evaluation.
type responseScope struct {
	// CritiquesOpponent: the response critiques an opponent's position,
	// so the steel-manning mandate applies to it.
	CritiquesOpponent bool `json:"critiquesOpponent"`
	// Substantive: the response argues a position, so the self-critique
	// mandate applies to it.
	Substantive bool `json:"substantive"`
}

// fullScope is the scope of a response whose evaluation does not say: both
// mandates apply.
var fullScope = responseScope{CritiquesOpponent: true, Substantive: true}

type tally struct {
	responses, evaluated, critiques, steel, substantive, self, cut, consistent, adherence int
}

func (t *tally) add(u Utterance, sc responseScope) {
	t.responses++
	if u.Evaluation == nil {
		return
	}
	ev := u.Evaluation
	t.evaluated++
	t.adherence += ev.AdherenceScore
	if sc.CritiquesOpponent {
		t.critiques++
		if ev.SteelManning.Attempted && ev.SteelManning.Quality != QualityAbsent {
			t.steel++
		}
	}
	switch {
	case u.Cut:
		// Its self-critique may have been in what it never said.
		t.cut++
	case sc.Substantive:
		t.substantive++
		if ev.SelfCritique.Attempted && ev.SelfCritique.Quality != QualityAbsent {
			t.self++
		}
	}
	if ev.FrameworkConsistency.Consistent {
		t.consistent++
	}
}

func ratio(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

// computeMetrics measures a transcript. A response counts as evaluated when
// it carries an evaluation (an unparseable one leaves it without); scopes
// holds, by utterance Seq, the scope the arbiter judged each evaluated
// response to have (fullScope when it is not there).
func computeMetrics(cfg Config, transcript []Utterance, scopes map[int64]responseScope) Metrics {
	var all tally
	per := map[string]*tally{}
	m := Metrics{ByChair: map[string]ChairMetrics{}, TargetMinutes: cfg.Flow.TargetDurationMinutes}
	cm := map[string]*ChairMetrics{}
	for _, ch := range cfg.Chairs {
		per[ch.Position] = &tally{}
		cm[ch.Position] = &ChairMetrics{}
	}
	for _, u := range transcript {
		words := countWords(u.Content)
		m.Words += words
		if c, ok := cm[u.Speaker]; ok {
			c.Words += words
		}
		switch {
		case u.Kind == KindResponse && u.Segment == SegmentExchange:
			sc, ok := scopes[u.Seq]
			if !ok {
				sc = fullScope
			}
			all.add(u, sc)
			if t, ok := per[u.Speaker]; ok {
				t.add(u, sc)
			}
			if u.Interrupted {
				if c, ok := cm[u.Speaker]; ok {
					c.TimesInterrupted++
				}
			}
		case u.Kind == KindInterruption:
			m.Interruptions++
			if c, ok := cm[u.Speaker]; ok {
				c.InterruptionsMade++
			}
		case u.Kind == KindInterjection:
			m.Interjections++
			if c, ok := cm[u.Target]; ok {
				c.InterjectionsAgainst++
			}
		}
	}
	m.SpokenMinutes = float64(m.Words) / SpokenWordsPerMinute
	for _, u := range transcript {
		if u.Kind == KindResponse && u.Segment == SegmentExchange {
			m.Exchanges = max(m.Exchanges, u.Exchange)
		}
	}
	if m.TargetMinutes > 0 {
		m.MinMinutes, m.MaxMinutes = lengthBounds(cfg, transcript, m.Exchanges)
		m.OnTarget = math.Abs(m.SpokenMinutes-float64(m.TargetMinutes)) <= TargetTolerance*float64(m.TargetMinutes)
	}
	m.Responses, m.Evaluated = all.responses, all.evaluated
	m.CritiqueResponses, m.SubstantiveResponses, m.CutResponses = all.critiques, all.substantive, all.cut
	m.SteelManningRate = ratio(all.steel, all.critiques)
	m.SelfCritiqueRate = ratio(all.self, all.substantive)
	m.MeanAdherence = ratio(all.adherence, all.evaluated)
	m.FrameworkConsistency = ratio(all.consistent, all.evaluated)
	m.MeetsSteelManning = all.critiques > 0 && m.SteelManningRate > SteelManningTarget
	m.MeetsSelfCritique = all.substantive > 0 && m.SelfCritiqueRate > SelfCritiqueTarget
	for pos, t := range per {
		c := cm[pos]
		c.Responses, c.Evaluated = t.responses, t.evaluated
		c.CritiqueResponses, c.SubstantiveResponses, c.CutResponses = t.critiques, t.substantive, t.cut
		c.SteelManningRate = ratio(t.steel, t.critiques)
		c.SelfCritiqueRate = ratio(t.self, t.substantive)
		c.MeanAdherence = ratio(t.adherence, t.evaluated)
		c.FrameworkConsistency = ratio(t.consistent, t.evaluated)
		m.ByChair[pos] = *c
	}
	return m
}

// lengthBounds are the shortest and longest spoken lengths, in minutes, the
// bounds pacing works within allow a debate that played exchanges rounds
// of the transcript: the introduction and closing at the least (most) of
// their ranges, the chairs' openings and responses at 150 (300) words, the
// seed's 3 exchanges (Flow.MaxExchanges), and the interjections and
// interruptions as said: those of the exchange as many a round as were
// said a round, the others as they are.
func lengthBounds(cfg Config, transcript []Utterance, exchanges int) (lo, hi float64) {
	extra, roundExtra := 0, 0
	for _, u := range transcript {
		if u.Kind == KindInterjection || u.Kind == KindInterruption {
			if u.Segment == SegmentExchange {
				roundExtra += countWords(u.Content)
			} else {
				extra += countWords(u.Content)
			}
		}
	}
	perRound := 0.0
	if exchanges > 0 {
		perRound = float64(roundExtra) / float64(exchanges)
	}
	n := len(cfg.Chairs)
	introLo, introHi := introBounds(cfg)
	closingLo, closingHi := closingBounds(cfg)
	words := func(intro, closing, turn, rounds int) float64 {
		return float64(intro+closing+extra+n*turn*(rounds+1)) + perRound*float64(rounds)
	}
	lo = words(introLo, closingLo, MinTurnWords, MinExchanges) / SpokenWordsPerMinute
	hi = words(introHi, closingHi, MaxTurnWords, max(cfg.Flow.MaxExchanges, MinExchanges)) / SpokenWordsPerMinute
	return math.Round(lo*10) / 10, math.Round(hi*10) / 10
}
