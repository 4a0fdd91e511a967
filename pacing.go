package duelogic

// Pacing fits an episode to Flow.TargetDurationMinutes (see [FlowConfig]):
// the words of the target, at SpokenWordsPerMinute, are shared out as the
// debate goes, from what has been said so far.
//
//   - The chairs' turns come first: each opening and response is asked for
//     a part of the seed's 150-300 words whose middle is its share of the
//     words left (turnRange).
//   - When even the shortest turns (150-170 words) of every exchange the
//     config allows would run past the target, fewer exchanges are played,
//     never fewer than the seed's 3 (plannedExchanges); there are never
//     more than Flow.MaxExchanges.
//   - The arbiter's introduction is asked to be as long, within its
//     range, as the chairs' turns are planned to be within theirs
//     (introRange), and its closing takes what is left, within its range
//     (closingRange).
//
// What pacing cannot set — the arbiter's interjections and the chairs'
// interruptions — is counted as it is said, and expected at
// interjectionWordsPerTurn and interruptionWordsPerTurn a response before
// any is (extraPerTurn).

// The lengths the arbiter's introduction and closing are asked for: the
// seed's podcast prompts' (200-350 and 350-500 words), and the plain
// debate's when podcast mode is off.
const (
	introMinWords, introMaxWords               = 200, 350
	plainIntroMinWords, plainIntroMaxWords     = 100, 200
	closingMinWords, closingMaxWords           = 350, 500
	plainClosingMinWords, plainClosingMaxWords = 250, 400
)

const (
	// shortTurnWords is the middle of the shortest turns pacing asks for
	// (150-170 words): what an exchange's turns cost at the least.
	shortTurnWords = (MinTurnWords + MinTurnWords + minRangeWords) / 2
	// minRangeWords is the narrowest range of words a turn is asked for.
	minRangeWords = 20
	// interjectionWordsPerTurn and interruptionWordsPerTurn are what
	// pacing expects beside a chair's exchange response before the debate
	// has said: an interjection (30-75 words) after about one response in
	// three, an interruption (40-100 words after its opener) after about
	// one in five.
	interjectionWordsPerTurn, interruptionWordsPerTurn = 15, 15
)

// episode is what pacing reads of the debate so far.
type episode struct {
	// spoken counts the words said; extra those of the interjections and
	// interruptions of the exchange, beside its responses.
	spoken, extra, responses int
}

// measure reads a transcript.
func measure(tr []Utterance) episode {
	var e episode
	for _, u := range tr {
		n := countWords(u.Content)
		e.spoken += n
		switch {
		case u.Segment != SegmentExchange:
		case u.Kind == KindResponse:
			e.responses++
		default:
			e.extra += n
		}
	}
	return e
}

// targetWords is the target duration in words; 0: no target.
func targetWords(cfg Config) int {
	return max(cfg.Flow.TargetDurationMinutes, 0) * SpokenWordsPerMinute
}

// extraPerTurn is the words pacing expects beside each exchange response
// still to come: what was said beside those so far, as if two more had
// drawn the prior (interjectionWordsPerTurn and interruptionWordsPerTurn,
// less what the config rules out).
func extraPerTurn(cfg Config, e episode) int {
	prior := 0
	if cfg.Mandates.ArbiterCanInterject && cfg.Arbiter.AccountabilityLevel != Relaxed {
		prior += interjectionWordsPerTurn
	}
	i := cfg.Interruptions
	if i.Enabled && ((i.AllowChairInterruptions && len(cfg.Chairs) > 1) || i.AllowArbiterInterruptions) {
		prior += interruptionWordsPerTurn
	}
	return (e.extra + 2*prior) / (e.responses + 2)
}

// introRange is the words the introduction is asked for: the seed's range
// (200-350, or 100-200 outside podcast mode) without a target; with one,
// the part of it as far up the range as the chairs' first turns are planned
// to be up theirs.
func introRange(cfg Config) (lo, hi int) {
	lo, hi = introBounds(cfg)
	if targetWords(cfg) == 0 || len(cfg.Chairs) == 0 {
		return lo, hi
	}
	n := len(cfg.Chairs)
	e := episode{spoken: (lo + hi) / 2}
	x := plannedExchanges(cfg, e, 0, n)
	share := turnShare(cfg, e, n*(x+1), n*x)
	at := min(max(share, MinTurnWords), MaxTurnWords) - MinTurnWords
	return fitRange(lo, hi, lo+(hi-lo)*at/(MaxTurnWords-MinTurnWords), minRangeWords)
}

// closingRange is the words the closing is asked for once spoken words
// are said: the seed's range (350-500, or 250-400 outside podcast mode)
// without a target; with one, the part of it whose middle is what is left
// of the target.
func closingRange(cfg Config, spoken int) (lo, hi int) {
	lo, hi = closingBounds(cfg)
	if w := targetWords(cfg); w > 0 {
		return fitRange(lo, hi, w-spoken, minRangeWords)
	}
	return lo, hi
}

// introBounds and closingBounds are the seed's lengths of the
// introduction and the closing, in podcast mode or out of it.
func introBounds(cfg Config) (lo, hi int) {
	if !cfg.Podcast.Enabled {
		return plainIntroMinWords, plainIntroMaxWords
	}
	return introMinWords, introMaxWords
}

func closingBounds(cfg Config) (lo, hi int) {
	if !cfg.Podcast.Enabled {
		return plainClosingMinWords, plainClosingMaxWords
	}
	return closingMinWords, closingMaxWords
}

// closingReserve is what pacing keeps for the closing: its range's middle.
func closingReserve(cfg Config) int {
	lo, hi := closingBounds(cfg)
	return (lo + hi) / 2
}

// plannedExchanges is the number of exchange rounds to play, decided
// before round played+1 with openingsLeft openings still to come: every
// round the config allows (Flow.MaxExchanges) when the words left to the
// target hold them at the shortest turns (their middle, shortTurnWords,
// with what is expected beside them); else as many as they hold, and never
// fewer than the seed's 3, nor than those played. Without a target, every
// round.
func plannedExchanges(cfg Config, e episode, played, openingsLeft int) int {
	m := cfg.Flow.MaxExchanges
	w := targetWords(cfg)
	n := len(cfg.Chairs)
	if w == 0 || n == 0 {
		return m
	}
	left := w - e.spoken - closingReserve(cfg) - openingsLeft*shortTurnWords
	fit := max(left, 0) / (n * (shortTurnWords + extraPerTurn(cfg, e)))
	return min(m, max(MinExchanges, played, played+fit))
}

// turnShare is the words a chair turn gets of what is left to the target:
// turnsLeft chair turns to go, this one included, exchangeTurnsLeft of
// them exchange responses, which are expected to bring extraPerTurn words
// each beside them.
func turnShare(cfg Config, e episode, turnsLeft, exchangeTurnsLeft int) int {
	left := targetWords(cfg) - e.spoken - closingReserve(cfg) - exchangeTurnsLeft*extraPerTurn(cfg, e)
	return left / max(turnsLeft, 1)
}

// turnRange is the length a chair's opening or response is asked for.
// Without a target duration it is the seed's 150-300 words. With one, it
// is the part of 150-300, at least 50 words wide, whose middle is the
// turn's share of the words left (turnShare): 150-N for a share under the
// seed range's middle (N about twice the share less 150, 200 at the
// least), N-300 for one over it (N about twice the share less 300, 250 at
// the most). A debate running long for its target is shortened; one that
// falls behind is lengthened; never past the seed's bounds.
func turnRange(cfg Config, e episode, turnsLeft, exchangeTurnsLeft int) (lo, hi int) {
	if targetWords(cfg) == 0 || turnsLeft <= 0 {
		return MinTurnWords, MaxTurnWords
	}
	return fitRange(MinTurnWords, MaxTurnWords, turnShare(cfg, e, turnsLeft, exchangeTurnsLeft), minRangeWords)
}

// fitRange returns the part of lo-hi whose middle is want, at least width
// wide, its inner bound a multiple of ten: lo-N (N = 2*want - lo) for a
// want under the range's middle, N-hi (N = 2*want - hi) for one over it.
func fitRange(lo, hi, want, width int) (int, int) {
	if want <= (lo+hi)/2 {
		top := (2*want - lo) / 10 * 10
		return lo, min(max(top, lo+width), hi)
	}
	bottom := (2*want - hi + 9) / 10 * 10
	return max(min(bottom, hi-width), lo), hi
}
