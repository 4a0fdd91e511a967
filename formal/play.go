package formal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
)

// maxConcurrentChecks bounds the source checks running at once.
const maxConcurrentChecks = 4

// play is one run (or resumption) of a formal debate. Its fields are used by
// Play's goroutine only, except the checks' results (see check).
type play struct {
	cfg      Config
	s        *engine.Session
	d        engine.Debate
	verifier SourceVerifier
	seg      engine.Segment
	round    int

	start time.Time
	dir   string
	// live is the output directory's debate-log.jsonl, opened at the
	// first entry this run adds (a finished debate replayed writes
	// nothing); synced entries of the log are in it; liveOff: it is
	// another debate's, and left alone.
	live    *liveLog
	synced  int
	liveOff bool

	log         []Entry
	said        []int64 // said[n]: the Seq of the utterance of entry n
	redacted    map[int]Redaction
	adjudicated map[[2]int]bool // (seq, source index) findings applied
	findings    map[int][]Status
	rulings     map[int]int  // rulings per entry
	ordered     map[int]bool // entries a point of order was ruled on
	warnings    map[Speaker][]warning
	questions   map[Speaker][]string
	marks       []int // marks[r]: log length when round r began (marks[0]: openings)

	checks  []*check
	side    errgroup.Group
	sideCtx context.Context
	sem     chan struct{}

	rounds  int
	endedBy End
	verdict chairVerdict
	docs    Documents
	files   []string
}

// warning is a ruling on an unreliable source, put to its debater in the
// next turn unless the entry has been struck meanwhile.
type warning struct {
	seq  int
	text string
}

// check is the verification of one source, running beside the debate; v and
// err are set before done is closed.
type check struct {
	key      string
	seq, idx int
	src      Source
	done     chan struct{}
	v        Verification
	err      error
	reviewed bool
}

func newPlay(cfg Config, s *engine.Session, build func(SourceVerifier) SourceVerifier) *play {
	p := &play{
		cfg: cfg, s: s, d: s.Debate(),
		redacted:    map[int]Redaction{},
		adjudicated: map[[2]int]bool{},
		findings:    map[int][]Status{},
		rulings:     map[int]int{},
		ordered:     map[int]bool{},
		warnings:    map[Speaker][]warning{},
		questions:   map[Speaker][]string{},
		sem:         make(chan struct{}, maxConcurrentChecks),
	}
	judge := &LLMVerifier{Client: p.client(SegmentVerification, SpeakerVerifier), Model: cfg.VerifierModel}
	p.verifier = build(judge)
	return p
}

// client routes a participant's calls through the session.
func (p *play) client(seg engine.Segment, who Speaker) llm.Client {
	return llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		return p.s.Call(ctx, req, seg, who.voice())
	})
}

// voice is the name a participant goes by in the engine: in the transcript,
// events and usage. The chair is [engine.SpeakerArbiter]; the others keep
// their names.
func (s Speaker) voice() string {
	if s == SpeakerChair {
		return engine.SpeakerArbiter
	}
	return string(s)
}

func (p *play) run(ctx context.Context) error {
	sideCtx, cancel := context.WithCancel(ctx)
	p.sideCtx = sideCtx
	defer func() {
		cancel()
		p.side.Wait() // errors are kept in the checks
		p.closeLive()
	}()
	for _, ph := range []struct {
		seg  engine.Segment
		body func(context.Context) error
	}{
		{SegmentSetup, p.setup},
		{SegmentOpening, p.openings},
		{SegmentRounds, p.debateRounds},
		{SegmentClosing, p.closings},
		{SegmentConclusion, p.conclusion},
		{SegmentReport, p.report},
	} {
		if ph.seg == SegmentClosing && p.void() {
			// Both debaters are disqualified: the debate is void and
			// concludes at once, with no closing statements.
			continue
		}
		p.seg = ph.seg
		if err := p.s.Segment(ctx, ph.seg, ph.body); err != nil {
			return err
		}
	}
	// Every check started runs to its end, even one whose finding no
	// longer matters (its entry settled): it is paid for, so it is stored
	// and counted, and a resumed debate ends with the same log as one that
	// never stopped.
	p.side.Wait()
	p.strikeTranscript()
	return nil
}

// outcome is the finished debate's outcome.
func (p *play) outcome() *Outcome {
	return &Outcome{
		Decision:     p.verdict.Verdict,
		Reason:       p.verdict.Reason,
		Disqualified: p.verdict.Disqualified,
		Started:      p.start,
		Rounds:       p.rounds,
		EndedBy:      p.endedBy,
		Entries:      Strike(p.log),
		Redactions:   p.redactions(),
		Docs:         p.docs,
		Dir:          p.dir,
		Files:        p.files,
	}
}

// strikeTranscript amends the transcript's utterances of the entries
// [Strike] changes, so that the session's transcript, like every other
// output, shows the struck log. The stored utterances keep what was said;
// a resumed debate strikes them again.
func (p *play) strikeTranscript() {
	for i, e := range Strike(p.log) {
		if e.Content != p.log[i].Content {
			p.s.Amend(p.said[i], func(u *engine.Utterance) { u.Content = e.Content })
		}
	}
}

// add appends an entry to the log — a stored step, so a resumed debate sees
// the entry, its seq and its timestamp as they were, announced as
// EventEntry — and says it: the entry's utterance is recorded right after
// it (speaker [Speaker.voice], kind the entry type, the round as its
// exchange, ReplyTo the utterance of the entry it rebuts or is about).
func (p *play) add(ctx context.Context, e Entry) (Entry, error) {
	e.Seq = len(p.log)
	var got Entry
	replayed, err := p.s.Step(ctx, fmt.Sprintf("entry:%d", e.Seq), RecordEntry, e.Speaker.voice(), &got,
		func(context.Context) (any, llm.Usage, error) {
			e.Timestamp = p.s.Now().UTC().Truncate(time.Second)
			return e, llm.Usage{}, nil
		},
		func(int64) *engine.Announcement {
			return &engine.Announcement{Type: EventEntry, Segment: p.seg, Speaker: got.Speaker.voice(), Data: got}
		})
	if err != nil {
		return Entry{}, err
	}
	if got.Seq != e.Seq || got.Type != e.Type || got.Speaker != e.Speaker {
		return Entry{}, fmt.Errorf("%w: entry %d is a %s by %s, the debate expects a %s by %s",
			engine.ErrCorruptLog, got.Seq, got.Type, got.Speaker, e.Type, e.Speaker)
	}
	u := engine.Utterance{Speaker: got.Speaker.voice(), Segment: p.seg, Kind: engine.UtteranceKind(got.Type),
		Exchange: p.round, Content: got.Content}
	if got.Speaker.debater() || got.Speaker == SpeakerAudience {
		u.Model = p.cfg.Model(got.Speaker) // the others' entries are the chair's templates and findings
	}
	ref := got.RebuttalToSeq
	if ref == nil {
		ref = got.TargetSeq
	}
	if ref != nil && *ref >= 0 && *ref < len(p.said) {
		u.ReplyTo = p.said[*ref]
		if got.Type == TypeRuling || got.Type == TypeRedaction {
			u.Target = p.log[*ref].Speaker.voice()
		}
	}
	said, err := p.s.Record(ctx, fmt.Sprintf("said:%d", got.Seq), u)
	if err != nil {
		return Entry{}, err
	}
	p.log = append(p.log, got)
	p.said = append(p.said, said.Seq)
	if !replayed {
		if err := p.syncLive(); err != nil {
			return Entry{}, err
		}
	}
	return got, nil
}

func (p *play) announce(ctx context.Context, phase Phase, format string, args ...any) error {
	_, err := p.add(ctx, Entry{Phase: phase, Speaker: SpeakerChair, Type: TypeAnnouncement, Content: fmt.Sprintf(format, args...)})
	return err
}

// ruling logs a ruling of the chair on entry seq.
func (p *play) ruling(ctx context.Context, seq int, text string) error {
	p.rulings[seq]++
	_, err := p.add(ctx, Entry{Phase: PhaseSystem, Speaker: SpeakerChair, Type: TypeRuling,
		Content: fmt.Sprintf("Ruling on seq %d: %s", seq, text), TargetSeq: &seq})
	return err
}

// setupValue is stored by the setup step.
type setupValue struct {
	Start time.Time `json:"start"`
	Dir   string    `json:"dir,omitempty"`
}

func (p *play) setup(ctx context.Context) error {
	var v setupValue
	if _, err := p.s.Step(ctx, "setup", RecordSetup, SpeakerChair.voice(), &v, func(context.Context) (any, llm.Usage, error) {
		now := p.s.Now().UTC()
		v := setupValue{Start: now}
		if p.cfg.OutputDir != "" {
			// Created now, as the seed's Step C does at startup, so that
			// its log is written as the debate goes. A name already
			// taken (a debate on the same topic in the same second) gets
			// a suffix, "-2", "-3", ...
			dir, err := makeDir(filepath.Join(p.cfg.OutputDir, DirName(now, p.d.Proposition)))
			if err != nil {
				return nil, llm.Usage{}, err
			}
			v.Dir = dir
		}
		return v, llm.Usage{}, nil
	}, func(int64) *engine.Announcement {
		return &engine.Announcement{Type: EventSetup, Segment: SegmentSetup, Speaker: SpeakerChair.voice(),
			Data: Setup{Topic: p.d.Proposition, Started: v.Start, Dir: v.Dir}}
	}); err != nil {
		return err
	}
	p.start, p.dir = v.Start, v.Dir
	if _, err := p.add(ctx, Entry{Phase: PhaseSystem, Speaker: SpeakerChair, Type: TypeSetup,
		Content: "Debate session initialised. Chair is ready."}); err != nil {
		return err
	}
	return p.announce(ctx, PhaseSystem, "All agents confirmed ready. Beginning Phase 1: Opening Statements. Topic: %s", p.d.Proposition)
}

// syncLive appends the entries of the log not yet in the output
// directory's log file, when there is one: opened (made again if it went
// missing) at the first entry a run adds, it gets every entry up to it —
// those a resumed debate replayed and finds in the file already are
// checked against it. A log file that another debate wrote (the debate a
// fork was made from) or an earlier version of this package wrote (it
// wrote the struck log once the debate had finished) is left as it is,
// and no longer appended to.
func (p *play) syncLive() error {
	if p.dir == "" || p.liveOff {
		return nil
	}
	if p.live == nil {
		live, err := openLiveLog(p.dir)
		if err != nil {
			return err
		}
		p.live = live
	}
	for ; p.synced < len(p.log); p.synced++ {
		err := p.live.append(p.log[p.synced])
		if errors.Is(err, errForeignLog) {
			p.s.Logger().Warn("formal: not appending to the output directory's log", "debate", p.s.DebateID(), "err", err)
			p.closeLive()
			p.liveOff = true
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (p *play) closeLive() {
	if p.live != nil {
		p.live.close()
		p.live = nil
	}
}

func (p *play) openings(ctx context.Context) error {
	p.marks = append(p.marks, len(p.log))
	for _, who := range []Speaker{SpeakerPromoter, SpeakerDetractor} {
		task := "Deliver your opening statement: set out your position on the proposition and your main arguments."
		if _, err := p.debaterTurn(ctx, "opening:"+string(who), who, PhaseOpening, task, []EntryType{TypeOpeningStatement}); err != nil {
			return err
		}
	}
	return p.announce(ctx, PhaseSystem, "Phase 1 complete. Opening statements delivered. Proceeding to Phase 2.")
}

func (p *play) debateRounds(ctx context.Context) error {
	for r := 1; r <= p.cfg.MaxRounds; r++ {
		p.round = r
		p.marks = append(p.marks, len(p.log))
		// Every finding on the entries made so far, the previous round's
		// included, is awaited and applied before the round begins: a
		// fabrication is struck at once (rule 20).
		if err := p.review(ctx, fmt.Sprintf("round%d:review", r), p.marks[r]); err != nil {
			return err
		}
		if p.anyDisqualified() {
			// Rule 12: the disqualified side speaks no more, so the
			// rounds end before this one begins.
			p.endedBy = EndDisqualification
			break
		}
		p.rounds = r
		if err := p.announce(ctx, PhaseRebuttal, "Round %d of %d beginning.", r, p.cfg.MaxRounds); err != nil {
			return err
		}
		for _, who := range []Speaker{SpeakerPromoter, SpeakerDetractor} {
			if p.anyDisqualified() {
				break // a source challenge disqualified the other side
			}
			task := fmt.Sprintf("Round %d of at most %d. Make a new point, rebut an entry of the other side, or offer a labelled conjecture.", r, p.cfg.MaxRounds)
			if _, err := p.debaterTurn(ctx, fmt.Sprintf("round%d:%s", r, who), who, PhaseRebuttal, task,
				[]EntryType{TypeNewPoint, TypeRebuttal, TypeConjecture}); err != nil {
				return err
			}
		}
		if p.anyDisqualified() {
			p.endedBy = EndDisqualification
			break
		}
		if err := p.audience(ctx, r); err != nil {
			return err
		}
		if r == p.cfg.MaxRounds {
			p.endedBy = EndMaxRounds
			break
		}
		if r < p.cfg.MinRounds {
			continue
		}
		f, err := p.finishCheck(ctx, r)
		if err != nil {
			return err
		}
		if f.End {
			p.endedBy = f.By
			break
		}
	}
	p.round = 0
	var why string
	switch p.endedBy {
	case EndMaxRounds:
		why = fmt.Sprintf("the maximum of %d %s was reached", p.cfg.MaxRounds, plural(p.cfg.MaxRounds, "round", "rounds"))
	case EndTimeBudget:
		why = fmt.Sprintf("the time budget of %s was spent", p.cfg.TimeBudget)
	case EndDisqualification:
		when := "before its first round"
		if p.rounds > 0 {
			when = fmt.Sprintf("after %d %s", p.rounds, plural(p.rounds, "round", "rounds"))
		}
		if p.void() {
			return p.announce(ctx, PhaseSystem, "Phase 2 ends %s: both debaters are disqualified under rule 12. The debate is void; no closing statements are delivered. Proceeding to the conclusion.", when)
		}
		out := p.disqualifiedSide()
		return p.announce(ctx, PhaseSystem, "Phase 2 ends %s: the %s is disqualified under rule 12. Proceeding to Phase 3: the %s's closing statement.", when, out, out.opponent())
	default:
		why = "the chair judged that the debate had reached a natural conclusion"
	}
	return p.announce(ctx, PhaseSystem, "Phase 2 complete after %d %s: %s. Proceeding to Phase 3: Closing Statements.", p.rounds, plural(p.rounds, "round", "rounds"), why)
}

func (p *play) closings(ctx context.Context) error {
	if err := p.review(ctx, "closing:review", len(p.log)); err != nil {
		return err
	}
	if p.void() {
		return nil // the review disqualified both: the debate concludes at once
	}
	for _, who := range []Speaker{SpeakerDetractor, SpeakerPromoter} {
		if p.disqualified(who) {
			continue // rule 12: it speaks no more
		}
		task := "Deliver your closing statement: sum up your case and answer the strongest points made against it, without new arguments."
		if _, err := p.debaterTurn(ctx, "closing:"+string(who), who, PhaseClosing, task, []EntryType{TypeClosingStatement}); err != nil {
			return err
		}
	}
	if out := p.disqualifiedSide(); out != "" {
		return p.announce(ctx, PhaseSystem, "Phase 3 complete. The %s delivered its closing statement; the %s, disqualified under rule 12, delivered none.", out.opponent(), out)
	}
	return p.announce(ctx, PhaseSystem, "Phase 3 complete. Closing statements delivered.")
}

// disqualified reports whether who is disqualified under rule 12: an
// entry of its was struck for citing a fabricated source.
func (p *play) disqualified(who Speaker) bool {
	for _, r := range p.redacted {
		if r.Speaker == who {
			return true
		}
	}
	return false
}

// anyDisqualified reports whether a debater is disqualified.
func (p *play) anyDisqualified() bool {
	return p.disqualified(SpeakerPromoter) || p.disqualified(SpeakerDetractor)
}

// void reports whether both debaters are disqualified: the debate is void.
func (p *play) void() bool {
	return p.disqualified(SpeakerPromoter) && p.disqualified(SpeakerDetractor)
}

// disqualifiedSide is the one debater disqualified; "" when neither or
// both are.
func (p *play) disqualifiedSide() Speaker {
	switch pro, det := p.disqualified(SpeakerPromoter), p.disqualified(SpeakerDetractor); {
	case pro && !det:
		return SpeakerPromoter
	case det && !pro:
		return SpeakerDetractor
	}
	return ""
}

// disqualify has the chair announce that who, just disqualified under rule
// 12, speaks no more, and what follows in the phase the debate is in.
func (p *play) disqualify(ctx context.Context, who Speaker) error {
	other := who.opponent()
	var next string
	switch {
	case p.disqualified(other):
		return p.announce(ctx, PhaseSystem, "Both debaters are disqualified under rule 12: the debate is void and concludes at once. Neither debater speaks again.")
	case p.seg == SegmentConclusion:
		next = "The outcome follows by rule."
	case p.seg == SegmentClosing:
		next = fmt.Sprintf("It delivers no closing statement; the %s closes, and the outcome follows by rule.", other)
	default:
		next = fmt.Sprintf("The rounds end: the %s delivers its closing statement, and the outcome follows by rule.", other)
	}
	return p.announce(ctx, PhaseSystem, "The %s is disqualified under rule 12 and speaks no more in this debate. %s", who, next)
}

// turnValue is stored by a debater's turn step.
type turnValue struct {
	Turn     turn     `json:"turn"`
	Attempts int      `json:"attempts"`
	Rejected []string `json:"rejected,omitempty"`
	// Forfeit: no reply could be used, even when asked again; Turn is
	// empty.
	Forfeit bool `json:"forfeit,omitempty"`
}

// debaterTurn asks a debater for its turn, asking once more when the reply
// breaks the rules of the phase; runs its source challenge, if any; logs the
// turn and the chair's rulings on it; and starts checking its sources. A
// turn still unusable is forfeited: the chair announces it, and the debate
// goes on (the debater's pending questions and warnings wait for its next
// turn). In a round the debater may first ask the chair for a clarification
// (a "clarification_request"): the request is logged, the chair answers with
// a logged ruling, and the turn resumes — the debater is asked again, with
// the ruling, for a turn of the round's other types.
func (p *play) debaterTurn(ctx context.Context, key string, who Speaker, phase Phase, task string, allowed []EntryType) (Entry, error) {
	asked := allowed
	if phase == PhaseRebuttal {
		asked = append(slices.Clone(allowed), TypeClarificationRequest)
	}
	tv, err := p.askTurn(ctx, key, who, phase, task, asked, nil)
	if err != nil {
		return Entry{}, err
	}
	if !tv.Forfeit && tv.Turn.Type == TypeClarificationRequest {
		c, err := p.clarify(ctx, key, who, phase, tv.Turn.Content)
		if err != nil {
			return Entry{}, err
		}
		key += ":resumed"
		if tv, err = p.askTurn(ctx, key, who, phase, task, allowed, &c); err != nil {
			return Entry{}, err
		}
	}
	return p.settle(ctx, key, who, phase, tv)
}

// askTurn asks a debater for a turn of one of the allowed types (a stored
// step, key), with the chair's ruling on its request for clarification when
// there was one.
func (p *play) askTurn(ctx context.Context, key string, who Speaker, phase Phase, task string, allowed []EntryType, c *clarification) (turnValue, error) {
	rules := turnRules{allowed: allowed}
	view := Strike(p.log)
	for _, e := range view {
		if e.Speaker != who.opponent() || !e.Type.argument() {
			continue
		}
		if _, red := p.redacted[e.Seq]; red {
			continue
		}
		if phase == PhaseRebuttal {
			rules.rebuttable = append(rules.rebuttable, e.Seq)
			if !p.ordered[e.Seq] {
				rules.order = append(rules.order, e.Seq)
			}
		}
		for i, src := range e.Sources {
			if phase == PhaseRebuttal && !p.adjudicated[[2]int{e.Seq, i}] {
				rules.challenge = append(rules.challenge, challengeable{seq: e.Seq, index: i, src: src})
			}
		}
	}
	if phase == PhaseRebuttal && rules.challenge == nil {
		rules.challenge = []challengeable{}
	}
	if phase == PhaseRebuttal && rules.order == nil {
		rules.order = []int{}
	}
	// With nothing to rebut (the other side's arguments all forfeited or
	// struck), a rebuttal is not offered: neither the prompt nor the
	// schema lets the debater pick a type its turn cannot be.
	if len(rules.rebuttable) == 0 && len(allowed) > 1 {
		rules.allowed = slices.DeleteFunc(slices.Clone(allowed), func(t EntryType) bool { return t == TypeRebuttal })
	}
	var warnings []string
	for _, w := range p.warnings[who] {
		if _, red := p.redacted[w.seq]; !red {
			warnings = append(warnings, w.text)
		}
	}
	var tv turnValue
	_, err := p.s.Step(ctx, key, RecordTurn, who.voice(), &tv, func(ctx context.Context) (any, llm.Usage, error) {
		rules.today = today(p.s.Now()) // sources left undated get it: stored with the turn
		prompt := turnPrompt(p.d, who, view, turnTask{
			phase: phase, allowed: rules.allowed, task: task, rebuttable: rules.rebuttable, challenge: rules.challenge, order: rules.order,
			questions: p.questions[who], warnings: warnings, today: rules.today, clarification: c,
		})
		req := llm.Request{Model: p.cfg.Model(who), Purpose: PurposeTurn, Schema: turnSchema(rules.allowed, rules.rebuttable, rules.challenge, rules.order),
			MaxTokens: MaxTokensTurn, Messages: prompt.Messages()}
		var v turnValue
		t, res, usage, err := engine.Judge(ctx, p.s, req, p.seg, who.voice(), func(reply string) (turn, error) {
			v.Attempts++
			t, err := parseTurn(reply, rules)
			if err != nil {
				v.Rejected = append(v.Rejected, err.Error())
			}
			return t, err
		})
		if err != nil {
			return nil, usage, err
		}
		v.Turn, v.Forfeit = t, res.Defaulted
		if n := len(v.Rejected); res.Defaulted && n > 0 && res.Problem != "" {
			// The judgment's account of the last reply, which says when it
			// was cut off at its cap rather than only that it did not parse.
			v.Rejected[n-1] = res.Problem
		}
		return v, usage, nil
	}, nil)
	return tv, err
}

// settle logs the turn tv (key its step) of a debater, or the forfeit of
// an unusable one, with everything that follows from it: the source
// challenge and the point of order it raises, the chair's rulings on the
// conjecture rules, the checks of its sources.
func (p *play) settle(ctx context.Context, key string, who Speaker, phase Phase, tv turnValue) (Entry, error) {
	if tv.Forfeit {
		last := ""
		if n := len(tv.Rejected); n > 0 {
			last = tv.Rejected[n-1]
		}
		e, err := p.add(ctx, Entry{Phase: phase, Speaker: SpeakerChair, Type: TypeAnnouncement,
			Content: fmt.Sprintf("The %s's turn could not be used (%s). The %s forfeits this turn.", who, clip(last, 300), who)})
		return e, err
	}
	delete(p.questions, who)
	delete(p.warnings, who)
	tr := tv.Turn
	if tr.Challenge != nil {
		if err := p.challenge(ctx, key, who, *tr.Challenge); err != nil {
			return Entry{}, err
		}
	}
	if tr.Order != nil {
		if err := p.pointOfOrder(ctx, key, who, *tr.Order); err != nil {
			return Entry{}, err
		}
	}
	e, err := p.add(ctx, Entry{Phase: phase, Speaker: who, Type: tr.Type, Content: tr.Content, Sources: tr.Sources, RebuttalToSeq: tr.RebuttalToSeq})
	if err != nil {
		return Entry{}, err
	}
	for _, v := range violations(tr) {
		if err := p.ruling(ctx, e.Seq, fmt.Sprintf("the %s's %s breaks the rules: %s. The %s is warned.", who, strings.ReplaceAll(string(e.Type), "_", " "), v, who)); err != nil {
			return Entry{}, err
		}
	}
	p.verifyEntry(e)
	return e, nil
}

// orderRuling is the chair's ruling on a point of order.
type orderRuling struct {
	Upheld bool   `json:"upheld"`
	Ruling string `json:"ruling"`
	// Defaulted: the chair's replies could not be read; the point of
	// order is not upheld.
	Defaulted bool `json:"defaulted,omitempty"`
}

// pointOfOrder has the chair rule on a debater's point of order (a
// stored step), as on a source challenge: the turn pauses, the chair logs
// its ruling on the entry named, and the turn resumes. Upheld, the
// ruling counts against the entry's side and warns its debater, who is
// shown the warning in its next turn; dismissed, it does not count. The
// ruling quotes the complaint (see [Strike]).
func (p *play) pointOfOrder(ctx context.Context, key string, who Speaker, o pointOfOrder) error {
	if o.TargetSeq < 0 || o.TargetSeq >= len(p.log) {
		return fmt.Errorf("%w: a point of order on entry %d of %d", engine.ErrCorruptLog, o.TargetSeq, len(p.log))
	}
	target := p.log[o.TargetSeq]
	view := Strike(p.log)
	var v orderRuling
	if _, err := p.s.Step(ctx, key+":order", RecordDecision, SpeakerChair.voice(), &v, func(ctx context.Context) (any, llm.Usage, error) {
		r := llm.Request{Model: p.cfg.ChairModel, Purpose: PurposePointOfOrder, Schema: json.RawMessage(pointOfOrderSchema),
			MaxTokens: MaxTokensPointOfOrder, Messages: pointOfOrderPrompt(p.d, view, who, o, view[o.TargetSeq]).Messages()}
		out, res, usage, err := engine.Judge(ctx, p.s, r, p.seg, SpeakerChair.voice(), parseOrderRuling)
		if res.Defaulted {
			out = orderRuling{Defaulted: true, Ruling: "The chair could not rule on it, so it is not upheld."}
		}
		return out, usage, err
	}, nil); err != nil {
		return err
	}
	p.ordered[o.TargetSeq] = true
	seq := o.TargetSeq
	head := fmt.Sprintf("Ruling on seq %d: %s the %s under rule %d (%s): \"%s\"", seq, orderPrefix, who, o.Rule, ruleName(o.Rule), oneLine(o.Complaint))
	reason := sentence(v.Ruling)
	if !v.Upheld {
		_, err := p.add(ctx, Entry{Phase: PhaseSystem, Speaker: SpeakerChair, Type: TypeRuling, TargetSeq: &seq,
			Content: fmt.Sprintf("%s. Dismissed: %s", head, reason)})
		return err
	}
	p.rulings[seq]++
	if _, err := p.add(ctx, Entry{Phase: PhaseSystem, Speaker: SpeakerChair, Type: TypeRuling, TargetSeq: &seq,
		Content: fmt.Sprintf("%s. Upheld: %s The %s is warned.", head, reason, target.Speaker)}); err != nil {
		return err
	}
	p.warnings[target.Speaker] = append(p.warnings[target.Speaker], warning{seq: seq, text: fmt.Sprintf(
		"Ruling on seq %d: your entry broke rule %d (%s): %s Keep to the rules in your next turns.", seq, o.Rule, ruleName(o.Rule), reason)})
	return nil
}

// sentence is s on one line, ending as a sentence does.
func sentence(s string) string {
	s = oneLine(s)
	if s != "" && !strings.ContainsAny(s[len(s)-1:], ".!?") {
		s += "."
	}
	return s
}

// clarification is a debater's request for clarification and the chair's
// answer to it.
type clarification struct {
	Seq      int    `json:"seq"` // the request's entry
	Question string `json:"question"`
	Ruling   string `json:"ruling"`
}

// clarify logs a debater's request for clarification, has the chair answer
// it (a stored step: the answer, or the default when the chair's reply
// stays unreadable) and logs the answer as a ruling on the request.
func (p *play) clarify(ctx context.Context, key string, who Speaker, phase Phase, question string) (clarification, error) {
	req, err := p.add(ctx, Entry{Phase: phase, Speaker: who, Type: TypeClarificationRequest, Content: question})
	if err != nil {
		return clarification{}, err
	}
	view := Strike(p.log)
	var answer string
	if _, err := p.s.Step(ctx, key+":clarification", RecordDecision, SpeakerChair.voice(), &answer, func(ctx context.Context) (any, llm.Usage, error) {
		r := llm.Request{Model: p.cfg.ChairModel, Purpose: PurposeClarification, Schema: json.RawMessage(clarificationSchema),
			MaxTokens: MaxTokensClarification, Messages: clarificationPrompt(p.d, view, who, question).Messages()}
		out, res, usage, err := engine.Judge(ctx, p.s, r, p.seg, SpeakerChair.voice(), parseClarification)
		if res.Defaulted {
			out = "The chair could not give a ruling on this request; the " + string(who) + " proceeds under the rules as they stand."
		}
		return out, usage, err
	}, nil); err != nil {
		return clarification{}, err
	}
	seq := req.Seq
	if _, err := p.add(ctx, Entry{Phase: PhaseSystem, Speaker: SpeakerChair, Type: TypeRuling, TargetSeq: &seq,
		Content: fmt.Sprintf("Ruling on seq %d: the %s's request for clarification. %s", seq, who, answer)}); err != nil {
		return clarification{}, err
	}
	return clarification{Seq: seq, Question: question, Ruling: answer}, nil
}

// verifyEntry starts checking the sources of e beside the debate, at most
// maxConcurrentChecks at once. Each check is a side step of the session
// before verifyEntry returns — it waits for that, not for the check — so the
// engine's pacing holds the debate's next model call until the checks have
// stored their findings, and a store failure wastes only the calls already
// in flight.
func (p *play) verifyEntry(e Entry) {
	for i, src := range e.Sources {
		c := &check{key: fmt.Sprintf("verify:%d:%d", e.Seq, i), seq: e.Seq, idx: i, src: src, done: make(chan struct{})}
		p.checks = append(p.checks, c)
		claim := e.Content
		begun := make(chan struct{})
		var once sync.Once
		begin := func() { once.Do(func() { close(begun) }) }
		p.side.Go(func() error {
			defer close(c.done)
			defer begin() // a replayed or failed step never runs produce
			var out Verification
			_, c.err = p.s.SideStep(p.sideCtx, c.key, RecordVerification, SpeakerVerifier.voice(), &out,
				func(ctx context.Context) (any, llm.Usage, error) {
					begin()
					select {
					case p.sem <- struct{}{}:
					case <-ctx.Done():
						return nil, llm.Usage{}, ctx.Err()
					}
					defer func() { <-p.sem }()
					v, err := p.verify(ctx, src, claim)
					return v, v.Usage, err
				},
				func(int64) *engine.Announcement {
					return &engine.Announcement{Type: EventVerification, Segment: SegmentVerification, Speaker: SpeakerVerifier.voice(),
						Data: Finding{Seq: c.seq, Index: c.idx, Source: src, Verification: out}}
				})
			c.v = out
			return nil
		})
		<-begun
	}
}

// verify runs the verifier on one source and checks its answer.
func (p *play) verify(ctx context.Context, src Source, claim string) (Verification, error) {
	v, err := p.verifier.Verify(ctx, src, claim)
	if err != nil {
		return Verification{}, err
	}
	if parseStatus(string(v.Status)) != v.Status || v.Status == "" {
		return Verification{}, fmt.Errorf("formal: verifier gave status %q for %s", v.Status, src.URL)
	}
	return v, nil
}

// review applies the findings on the sources of entries before cutoff: it
// waits for those still being checked, stores the findings (so a resumed
// debate applies the same ones) and logs them with the chair's rulings.
func (p *play) review(ctx context.Context, key string, cutoff int) error {
	var pending []*check
	for _, c := range p.checks {
		if !c.reviewed && c.seq < cutoff {
			pending = append(pending, c)
		}
	}
	var found []Finding
	if _, err := p.s.Step(ctx, key, RecordReview, SpeakerChair.voice(), &found, func(ctx context.Context) (any, llm.Usage, error) {
		out := []Finding{}
		for _, c := range pending {
			if _, red := p.redacted[c.seq]; red || p.adjudicated[[2]int{c.seq, c.idx}] {
				// Settled already (a challenge ruled on it, or its entry
				// is struck): its finding would change nothing, so
				// neither waiting for it nor its failure may stop the
				// debate.
				continue
			}
			select {
			case <-c.done:
			case <-ctx.Done():
				return nil, llm.Usage{}, ctx.Err()
			}
			if c.err != nil {
				return nil, llm.Usage{}, c.err
			}
			out = append(out, Finding{Seq: c.seq, Index: c.idx, Source: c.src, Verification: c.v})
		}
		return out, llm.Usage{}, nil
	}, nil); err != nil {
		return err
	}
	for _, c := range pending {
		c.reviewed = true
	}
	for _, f := range found {
		if err := p.apply(ctx, f, -1); err != nil {
			return err
		}
	}
	return nil
}

// challenge runs a debater's source challenge: logged, verified at once,
// ruled on.
func (p *play) challenge(ctx context.Context, key string, who Speaker, c challenge) error {
	target := c.TargetSeq
	if target < 0 || target >= len(p.log) {
		return fmt.Errorf("%w: a challenge of entry %d of %d", engine.ErrCorruptLog, target, len(p.log))
	}
	ce, err := p.add(ctx, Entry{Phase: PhaseRebuttal, Speaker: who, Type: TypeSourceChallenge,
		Content: fmt.Sprintf("Challenge to seq %d, source %d (%s): %s", target, c.Index+1, c.Source.URL, c.Claim),
		Sources: []Source{c.Source}, TargetSeq: &target})
	if err != nil {
		return err
	}
	claim := c.Claim + "\n\nThe entry citing the source said:\n" + p.log[target].Content
	var v Verification
	if _, err := p.s.Step(ctx, key+":challenge", RecordVerification, SpeakerVerifier.voice(), &v, func(ctx context.Context) (any, llm.Usage, error) {
		v, err := p.verify(ctx, c.Source, claim)
		return v, v.Usage, err
	}, nil); err != nil {
		return err
	}
	return p.apply(ctx, Finding{Seq: target, Index: c.Index, Source: c.Source, Verification: v}, ce.Seq)
}

// apply logs a finding and the chair's response to it: a redaction for a
// fabricated source, a warning for an unreliable one, and for a challenge a
// ruling on it (challenge < 0: none). A finding on a struck entry, or on a
// source already ruled on, is moot.
func (p *play) apply(ctx context.Context, f Finding, challenge int) error {
	if f.Seq < 0 || f.Seq >= len(p.log) {
		return fmt.Errorf("%w: a finding on entry %d of %d", engine.ErrCorruptLog, f.Seq, len(p.log))
	}
	k := [2]int{f.Seq, f.Index}
	if _, red := p.redacted[f.Seq]; red || p.adjudicated[k] {
		return nil
	}
	p.adjudicated[k] = true
	p.findings[f.Seq] = append(p.findings[f.Seq], f.Verification.Status)
	target := p.log[f.Seq]
	seq := f.Seq
	if _, err := p.add(ctx, Entry{Phase: PhaseSystem, Speaker: SpeakerVerifier, Type: TypeVerificationResult,
		Content: fmt.Sprintf("%s: seq %d (%s), source %d (%s). %s", f.Verification.Status, seq, target.Speaker, f.Index+1, f.Source.URL, f.Verification.Reason),
		Sources: []Source{f.Source}, TargetSeq: &seq}); err != nil {
		return err
	}
	upheld := ""
	if challenge >= 0 {
		upheld = fmt.Sprintf(" The source challenge at seq %d is upheld.", challenge)
	}
	switch f.Verification.Status {
	case StatusFabricated:
		first := !p.disqualified(target.Speaker)
		reason := fmt.Sprintf("source %d was found fabricated by the verifier", f.Index+1)
		red, err := p.add(ctx, Entry{Phase: PhaseSystem, Speaker: SpeakerChair, Type: TypeRedaction, TargetSeq: &seq,
			Content: fmt.Sprintf("REDACTED: seq %d (%s). Reason: %s. Entry is struck from the record.", seq, target.Speaker, reason)})
		if err != nil {
			return err
		}
		p.redacted[seq] = Redaction{Seq: seq, RedactionSeq: red.Seq, Speaker: target.Speaker, Reason: reason}
		if err := p.ruling(ctx, seq, fmt.Sprintf("citing a fabricated source is an immediate disqualification offence (rule 12). The entry is struck and the %s is disqualified: the %s wins, unless it too is found to have cited a fabricated source, when the debate is void.%s",
			target.Speaker, target.Speaker.opponent(), upheld)); err != nil || !first {
			return err
		}
		return p.disqualify(ctx, target.Speaker)
	case StatusUnreliable:
		p.warnings[target.Speaker] = append(p.warnings[target.Speaker], warning{seq: seq, text: fmt.Sprintf(
			"Ruling on seq %d: the verifier found source %d (%s) unreliable: %s Withdraw or replace it.", seq, f.Index+1, f.Source.URL, f.Verification.Reason)})
		return p.ruling(ctx, seq, fmt.Sprintf("the verifier found source %d unreliable. The %s is warned and asked to withdraw or replace it.%s", f.Index+1, target.Speaker, upheld))
	}
	if challenge >= 0 {
		return p.ruling(ctx, seq, fmt.Sprintf("the source challenge at seq %d is dismissed: the verifier found source %d verified.", challenge, f.Index+1))
	}
	return nil
}

// audience asks the audience for questions after round r and has the chair
// relay the fair ones.
func (p *play) audience(ctx context.Context, r int) error {
	view := Strike(p.log)
	var qs []question
	if _, err := p.s.Step(ctx, fmt.Sprintf("round%d:audience", r), RecordDecision, SpeakerAudience.voice(), &qs, func(ctx context.Context) (any, llm.Usage, error) {
		req := llm.Request{Model: p.cfg.AudienceModel, Purpose: PurposeAudienceQuestions, Schema: json.RawMessage(questionsSchema),
			MaxTokens: MaxTokensAudienceQuestions, Messages: audienceQuestionsPrompt(p.d, view, r).Messages()}
		out, res, usage, err := engine.Judge(ctx, p.s, req, p.seg, SpeakerAudience.voice(), parseQuestions)
		if res.Defaulted || out == nil {
			out = []question{} // unreadable: no questions asked
		}
		return out, usage, err
	}, nil); err != nil {
		return err
	}
	if len(qs) == 0 {
		return nil
	}
	var rel relayDecision
	if _, err := p.s.Step(ctx, fmt.Sprintf("round%d:relay", r), RecordDecision, SpeakerChair.voice(), &rel, func(ctx context.Context) (any, llm.Usage, error) {
		req := llm.Request{Model: p.cfg.ChairModel, Purpose: PurposeRelay, Schema: relaySchema(len(qs)),
			MaxTokens: MaxTokensRelay, Messages: relayPrompt(p.d, view, r, qs).Messages()}
		out, res, usage, err := engine.Judge(ctx, p.s, req, p.seg, SpeakerChair.voice(), func(reply string) (relayDecision, error) {
			return parseRelay(reply, len(qs))
		})
		if res.Defaulted {
			out = relayDecision{Relay: []int{}, Reason: "unreadable"} // no question relayed
		}
		return out, usage, err
	}, nil); err != nil {
		return err
	}
	for _, i := range rel.Relay {
		if i < 1 || i > len(qs) {
			return fmt.Errorf("%w: round %d relays question %d of %d", engine.ErrCorruptLog, r, i, len(qs))
		}
		q := qs[i-1]
		if _, err := p.add(ctx, Entry{Phase: PhaseRebuttal, Speaker: SpeakerAudience, Type: TypeAudienceQuestion,
			Content: fmt.Sprintf("Question for %s: %s", q.forWhom(), q.Text)}); err != nil {
			return err
		}
		for _, who := range q.addressees() {
			p.questions[who] = append(p.questions[who], q.Text)
		}
	}
	return nil
}

// finishCheck decides, after round r (from MinRounds on), whether the rounds
// end: the time budget is read on the session clock and the chair judges a
// natural conclusion, inside a stored step so that a resumed debate decides
// as it did.
func (p *play) finishCheck(ctx context.Context, r int) (finish, error) {
	view := Strike(p.log)
	var f finish
	_, err := p.s.Step(ctx, fmt.Sprintf("round%d:finish", r), RecordDecision, SpeakerChair.voice(), &f, func(ctx context.Context) (any, llm.Usage, error) {
		if b := p.cfg.TimeBudget; b > 0 {
			if el := p.s.Now().Sub(p.start); el >= b {
				return finish{End: true, By: EndTimeBudget, Reason: fmt.Sprintf("%s elapsed of a %s budget", el.Round(time.Second), b)}, llm.Usage{}, nil
			}
		}
		req := llm.Request{Model: p.cfg.ChairModel, Purpose: PurposeConclusionCheck, Schema: json.RawMessage(conclusionCheckSchema),
			MaxTokens: MaxTokensConclusionCheck, Messages: conclusionCheckPrompt(p.d, view, r, p.cfg).Messages()}
		out, res, usage, err := engine.Judge(ctx, p.s, req, p.seg, SpeakerChair.voice(), parseConclusionCheck)
		if res.Defaulted {
			out = finish{Reason: "unreadable"} // the debate goes on
		}
		return out, usage, err
	}, nil)
	return f, err
}

// sides counts each side's record for the verdict.
func (p *play) sides() (promoter, detractor sideRecord) {
	count := func(who Speaker) sideRecord {
		var r sideRecord
		for _, e := range p.log {
			if e.Speaker != who {
				continue
			}
			r.rulings += p.rulings[e.Seq]
			if !e.Type.argument() {
				continue
			}
			r.turns++
			if len(e.Sources) > 0 {
				r.sourced++
			}
			switch e.Type {
			case TypeRebuttal:
				r.rebuttals++
			case TypeConjecture:
				r.conjectures++
			}
			for _, st := range p.findings[e.Seq] {
				switch st {
				case StatusVerified:
					r.verified++
				case StatusUnreliable:
					r.unreliable++
				case StatusFabricated:
					r.fabricated++
				}
			}
			if _, red := p.redacted[e.Seq]; red {
				r.redacted++
			}
		}
		return r
	}
	return count(SpeakerPromoter), count(SpeakerDetractor)
}

func (p *play) conclusion(ctx context.Context) error {
	if err := p.review(ctx, "conclusion:review", len(p.log)); err != nil {
		return err
	}
	pro, det := p.sides()
	view := Strike(p.log)
	if _, err := p.s.Step(ctx, "verdict", RecordDecision, SpeakerChair.voice(), &p.verdict, func(ctx context.Context) (any, llm.Usage, error) {
		if v, ok := disqualification(pro, det); ok {
			return v, llm.Usage{}, nil
		}
		req := llm.Request{Model: p.cfg.ChairModel, Purpose: PurposeVerdict, Schema: json.RawMessage(verdictSchema),
			MaxTokens: MaxTokensVerdict, Messages: verdictPrompt(p.d, view, pro, det, p.cfg.JudgeSwapped).Messages()}
		out, res, usage, err := engine.Judge(ctx, p.s, req, p.seg, SpeakerChair.voice(), parseVerdict)
		if res.Defaulted {
			out = chairVerdict{Verdict: VerdictDraw, Defaulted: true,
				Reason: "The chair's verdict could not be read (" + res.Problem + "), so the debate is declared a draw."}
		}
		return out, usage, err
	}, nil); err != nil {
		return err
	}
	if _, err := p.add(ctx, Entry{Phase: PhaseSystem, Speaker: SpeakerChair, Type: TypeConclusion,
		Content: fmt.Sprintf("Debate concluded. Outcome: %s. Reason: %s", p.verdict.Verdict, p.verdict.Reason)}); err != nil {
		return err
	}
	view = Strike(p.log)
	var text string
	if _, err := p.s.Step(ctx, "audience:conclusion", RecordDecision, SpeakerAudience.voice(), &text, func(ctx context.Context) (any, llm.Usage, error) {
		req := llm.Request{Model: p.cfg.AudienceModel, Purpose: PurposeAudienceConclusion, MaxTokens: MaxTokensAudienceConclusion,
			Messages: audienceConclusionPrompt(p.d, view, p.verdict).Messages()}
		var last string
		usage, err := p.askText(ctx, SpeakerAudience, req, func(reply string) error {
			if reply = strings.TrimSpace(reply); reply != "" {
				last = reply
			}
			if n := len(strings.Fields(reply)); n < 200 || n > 400 {
				return fmt.Errorf("the conclusion has %d words; write 200 to 400 words of plain prose", n)
			}
			return nil
		})
		if errors.Is(err, ErrInvalidReply) && last != "" {
			p.s.Logger().Warn("formal: audience conclusion outside 200-400 words; kept", "debate", p.s.DebateID(), "err", err)
			err = nil
		}
		return last, usage, err
	}, nil); err != nil {
		return err
	}
	_, err := p.add(ctx, Entry{Phase: PhaseSystem, Speaker: SpeakerAudience, Type: TypeAudienceConclusion, Content: text})
	return err
}

// disqualification applies rule 12 ("Citing a non-existent URL is an
// immediate disqualification offence"): a debater with an entry struck for
// a fabricated source is disqualified, and the outcome follows by rule, not
// by the chair model's judgement — the other side wins, unless it was
// disqualified too, when the debate is void. ok is false when neither was.
func disqualification(pro, det sideRecord) (v chairVerdict, ok bool) {
	switch {
	case pro.redacted > 0 && det.redacted > 0:
		return chairVerdict{Verdict: VerdictVoid, Disqualified: []Speaker{SpeakerPromoter, SpeakerDetractor}, Reason: fmt.Sprintf(
			"Both debaters cited fabricated sources (%d struck %s of the promoter, %d of the detractor) and are disqualified under rule 12, so the debate cannot be fairly concluded.",
			pro.redacted, plural(pro.redacted, "entry", "entries"), det.redacted)}, true
	case pro.redacted > 0:
		return chairVerdict{Verdict: VerdictNegativeWins, Disqualified: []Speaker{SpeakerPromoter}, Reason: fmt.Sprintf(
			"The promoter cited a fabricated source (%d struck %s) and is disqualified under rule 12; the detractor, who cited none, wins by rule.",
			pro.redacted, plural(pro.redacted, "entry", "entries"))}, true
	case det.redacted > 0:
		return chairVerdict{Verdict: VerdictAffirmativeWins, Disqualified: []Speaker{SpeakerDetractor}, Reason: fmt.Sprintf(
			"The detractor cited a fabricated source (%d struck %s) and is disqualified under rule 12; the promoter, who cited none, wins by rule.",
			det.redacted, plural(det.redacted, "entry", "entries"))}, true
	}
	return chairVerdict{}, false
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// redactions lists the struck entries in log order.
func (p *play) redactions() []Redaction {
	var out []Redaction
	for _, e := range p.log {
		if r, ok := p.redacted[e.Seq]; ok {
			out = append(out, r)
		}
	}
	return out
}
