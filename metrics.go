package duelogic

// The seed's success metrics: steel-manning attempted in more than 80% of
// critique responses, self-critique present in more than 70% of substantive
// responses.
const (
	SteelManningTarget = 0.80
	SelfCritiqueTarget = 0.70
)

// Metrics measure a debate against the seed's success metrics. Rates are over
// the evaluated exchange responses; a debate with none evaluated (relaxed
// accountability) has zero rates and meets no target.
type Metrics struct {
	// Responses counts the chairs' exchange responses; Evaluated those the
	// arbiter scored.
	Responses int `json:"responses"`
	Evaluated int `json:"evaluated"`
	// SteelManningRate is the share of evaluated responses that attempted a
	// steel-man; SelfCritiqueRate the share that acknowledged a weakness.
	SteelManningRate float64 `json:"steelManningRate"`
	SelfCritiqueRate float64 `json:"selfCritiqueRate"`
	// MeetsSteelManning and MeetsSelfCritique compare the rates with the
	// seed's targets (SteelManningTarget, SelfCritiqueTarget).
	MeetsSteelManning bool `json:"meetsSteelManning"`
	MeetsSelfCritique bool `json:"meetsSelfCritique"`
	// MeanAdherence is the mean adherence score, 0..100.
	MeanAdherence float64 `json:"meanAdherence"`
	// FrameworkConsistency is the share of evaluated responses judged
	// consistent with the chair's framework.
	FrameworkConsistency float64 `json:"frameworkConsistency"`
	Interruptions        int     `json:"interruptions"`
	Interjections        int     `json:"interjections"`
	// ByChair splits the figures by chair position.
	ByChair map[string]ChairMetrics `json:"byChair"`
}

// ChairMetrics are one chair's figures.
type ChairMetrics struct {
	Responses            int     `json:"responses"`
	Evaluated            int     `json:"evaluated"`
	SteelManningRate     float64 `json:"steelManningRate"`
	SelfCritiqueRate     float64 `json:"selfCritiqueRate"`
	MeanAdherence        float64 `json:"meanAdherence"`
	FrameworkConsistency float64 `json:"frameworkConsistency"`
	InterruptionsMade    int     `json:"interruptionsMade"`
	TimesInterrupted     int     `json:"timesInterrupted"`
	InterjectionsAgainst int     `json:"interjectionsAgainst"`
}

type tally struct {
	responses, evaluated, steel, self, consistent, adherence int
}

func (t *tally) add(u Utterance) {
	t.responses++
	if u.Evaluation == nil {
		return
	}
	ev := u.Evaluation
	t.evaluated++
	t.adherence += ev.AdherenceScore
	if ev.SteelManning.Attempted && ev.SteelManning.Quality != QualityAbsent {
		t.steel++
	}
	if ev.SelfCritique.Attempted && ev.SelfCritique.Quality != QualityAbsent {
		t.self++
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
// it carries an evaluation (an unparseable one leaves it without).
func computeMetrics(cfg Config, transcript []Utterance) Metrics {
	var all tally
	per := map[string]*tally{}
	m := Metrics{ByChair: map[string]ChairMetrics{}}
	cm := map[string]*ChairMetrics{}
	for _, ch := range cfg.Chairs {
		per[ch.Position] = &tally{}
		cm[ch.Position] = &ChairMetrics{}
	}
	for _, u := range transcript {
		switch {
		case u.Kind == KindResponse && u.Segment == SegmentExchange:
			all.add(u)
			if t, ok := per[u.Speaker]; ok {
				t.add(u)
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
	m.Responses, m.Evaluated = all.responses, all.evaluated
	m.SteelManningRate = ratio(all.steel, all.evaluated)
	m.SelfCritiqueRate = ratio(all.self, all.evaluated)
	m.MeanAdherence = ratio(all.adherence, all.evaluated)
	m.FrameworkConsistency = ratio(all.consistent, all.evaluated)
	m.MeetsSteelManning = all.evaluated > 0 && m.SteelManningRate > SteelManningTarget
	m.MeetsSelfCritique = all.evaluated > 0 && m.SelfCritiqueRate > SelfCritiqueTarget
	for pos, t := range per {
		c := cm[pos]
		c.Responses, c.Evaluated = t.responses, t.evaluated
		c.SteelManningRate = ratio(t.steel, t.evaluated)
		c.SelfCritiqueRate = ratio(t.self, t.evaluated)
		c.MeanAdherence = ratio(t.adherence, t.evaluated)
		c.FrameworkConsistency = ratio(t.consistent, t.evaluated)
		m.ByChair[pos] = *c
	}
	return m
}
