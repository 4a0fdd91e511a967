package duelogic

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/llm"
)

// WithArgumentMap turns argument mapping on: after each chair turn the
// arbiter's model turns what was said into speech-act moves of a Prakken
// persuasion dialogue (purpose "argument_extraction"). The moves are checked
// against the protocol — an illegal move is recorded, not applied — and
// build the debate's bipolar argument graph, scored with s (for instance
// argumentation.Additive, the seed's formula). Extraction runs beside the
// debate, one turn after another, so only the last turn's extraction comes
// before the closing, which then receives the strongest surviving arguments
// and the key clashes. The moves are stored (record type "moves") and
// announced (EventArgumentMap); Resume rebuilds the graph from them; the
// Result carries the map.
//
// Whether a debate maps its arguments is stored with it: Resume maps a
// debate that was mapped (with this option's semantics, or
// argumentation.Additive without it) and never maps one that was not.
func WithArgumentMap(s argumentation.Semantics) Option {
	return func(o *Orchestrator) { o.mapping = &s }
}

// ArgumentMap is a debate's argument map: the moves, the graph they imply,
// its scores and the moderator's verdict.
type ArgumentMap struct {
	// Moves are the moves applied, in order; Illegal those rejected by the
	// protocol.
	Moves   []argumentation.Move `json:"moves"`
	Illegal []IllegalMove        `json:"illegal,omitempty"`
	// Arguments are the graph's arguments with their strengths, Relations
	// its direct relations.
	Arguments []argumentation.ScoredArgument `json:"arguments"`
	Relations []argumentation.Relation       `json:"relations"`
	Verdict   argumentation.Verdict          `json:"verdict"`
	// Report holds the dialogue, graph and scores, for rendering the seed's
	// markdown (Report.WriteMarkdown) or a Graphviz graph (Report.WriteDOT).
	Report argumentation.Report `json:"-"`
}

// IllegalMove is a move the protocol rejected.
type IllegalMove struct {
	UtteranceSeq int64              `json:"utteranceSeq"`
	Move         argumentation.Move `json:"move"`
	Reason       string             `json:"reason"`
}

// MovesUpdate is the Data of an EventArgumentMap event: the moves extracted
// from one utterance, as applied.
type MovesUpdate struct {
	UtteranceSeq int64                `json:"utteranceSeq"`
	Applied      []argumentation.Move `json:"applied"`
	Illegal      []IllegalMove        `json:"illegal,omitempty"`
	// Error says why no moves could be read from the model's reply.
	Error string `json:"error,omitempty"`
}

// movesValue is the stored value of an extraction step.
type movesValue struct {
	Moves []argumentation.Move `json:"moves"`
	Error string               `json:"error,omitempty"`
}

// maxPromptMoves bounds the moves an extraction prompt lists.
const maxPromptMoves = 24

// ArgumentExtractionPrompt builds the request that turns one chair's turn
// into moves: the speech acts and their legal replies, the JSON to return,
// the recent moves (by ID, so replies can target them) and the turn, fenced.
func ArgumentExtractionPrompt(cfg Config, cat *Catalog, d Debate, speaker string, recent []argumentation.Move, content string) Prompt {
	sys := `You map a debate onto a Prakken persuasion dialogue. Turn what one speaker just said into speech-act moves.

Speech acts:
- claim φ: assert φ.
- why φ: challenge φ, asking for reasons (φ must be a proposition another speaker put forward).
- concede φ: admit φ, put forward by another speaker.
- retract φ: withdraw one's own commitment to φ.
- since: "φ since S" gives reasons S (a list) for φ.

Legal replies (target = the move replied to, by its ID):
- to claim φ: why φ, concede φ, or an attacking claim/since of ¬φ (attack "rebut").
- to φ since S: why ψ or concede ψ for ψ in S; a rebutting claim/since (attack "rebut");
  a since whose conclusion breaks the inference from S to φ (attack "undercut").
- to why φ (aimed at this speaker): φ since S, or retract φ.
A claim or since with no target opens a new line of argument.

Write each proposition as one short declarative sentence (at most 20 words); write a negation as "¬" followed
by the proposition it negates. Use at most 4 moves, and only what the speaker actually argued.

Respond with one JSON object and nothing else:
{"moves": [{"act": "claim" | "why" | "concede" | "retract" | "since", "proposition": "...",
  "reasons": ["..."], "target": "M3", "attack": "rebut" | "undercut" | ""}]}

**DATA:** ` + dataNote
	var u strings.Builder
	fmt.Fprintf(&u, "Speaker: %s\n", speaker)
	fmt.Fprintf(&u, "Who that is: %s\n", speakerLabel(cfg, cat, speaker))
	u.WriteString("The proposition under debate:\n" + fence("proposition", d.Proposition) + "\n")
	u.WriteString("Moves so far (most recent last):\n")
	lines := []string{"(none)"}
	if len(recent) > 0 {
		lines = lines[:0]
	}
	for _, m := range recent {
		line := fmt.Sprintf("- %s [%s] %s: %s", m.ID, m.Speaker, m.Act, oneLine(m.Proposition))
		if len(m.Reasons) > 0 {
			line += " | reasons: " + oneLine(strings.Join(m.Reasons, "; "))
		}
		lines = append(lines, truncateRunes(line, 400))
	}
	// The propositions are the debaters' words, as mapped: fenced as data.
	u.WriteString(fence("moves", strings.Join(lines, "\n")) + "\n")
	u.WriteString("The turn to map:\n" + fence("response", content))
	return Prompt{System: sys, User: u.String()}
}

// mapper extracts moves from chair turns, in order, beside the debate, and
// applies them to the dialogue.
type mapper struct {
	r        *run
	sem      argumentation.Semantics
	dialogue *argumentation.Dialogue
	jobs     chan Utterance
	done     chan struct{}
	illegal  []IllegalMove
	applied  []argumentation.Move

	mu  sync.Mutex
	err error // the first extraction failure
}

// failure returns the first extraction failure, if any; the debate stops
// on it at its next turn boundary.
func (m *mapper) failure() error {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

func (r *run) startMapper(ctx context.Context) {
	if r.mapSem == nil {
		return
	}
	var positions []string
	for _, ch := range r.cfg.Chairs {
		positions = append(positions, ch.Position)
	}
	m := &mapper{
		r: r, sem: *r.mapSem, dialogue: argumentation.NewDialogue(positions...),
		jobs: make(chan Utterance, 1024), done: make(chan struct{}),
	}
	r.mapper = m
	go func() {
		defer close(m.done)
		for u := range m.jobs {
			if m.failure() != nil {
				continue
			}
			if err := m.extract(ctx, u); err != nil {
				m.mu.Lock()
				m.err = err
				m.mu.Unlock()
			}
		}
	}()
}

// mapTurn queues a chair's stored (or replayed) utterance for extraction.
func (r *run) mapTurn(u Utterance) {
	if r.mapper != nil && u.Speaker != SpeakerArbiter {
		r.mapper.jobs <- u
	}
}

// finishMapping waits for every queued extraction and returns the first
// failure; it is safe to call more than once.
func (r *run) finishMapping() error {
	m := r.mapper
	if m == nil {
		return nil
	}
	select {
	case <-m.done:
	default:
		close(m.jobs)
		<-m.done
	}
	return m.failure()
}

func (m *mapper) extract(ctx context.Context, u Utterance) error {
	r := m.r
	key := fmt.Sprintf("moves:%d", u.Seq)
	if _, stored := r.j.sideRecord(key); !stored && r.j.done() {
		// A finished debate's missing extraction (lost in a crash) is not
		// made up afterwards: the log of a finished debate does not grow.
		return nil
	}
	var v movesValue
	applied := false
	replayed, err := r.session().SideStep(ctx, key, RecordMoves, SpeakerArbiter, &v, func(ctx context.Context) (any, llm.Usage, error) {
		moves := m.dialogue.Moves()
		recent := moves[max(0, len(moves)-maxPromptMoves):]
		req := r.request(PurposeArgumentExtraction, SpeakerArbiter,
			ArgumentExtractionPrompt(r.cfg, r.cat, r.d, u.Speaker, recent, u.Content))
		req.JSON, req.Temperature, req.MaxTokens = true, ptr(0.2), 800
		resp, err := r.rec.call(ctx, r.o.client, req, u.Segment, SpeakerArbiter, false)
		if err != nil {
			return nil, llm.Usage{}, err
		}
		out := movesValue{}
		if out.Moves, err = argumentation.ParseMoves([]byte(resp.Content)); err != nil {
			out.Error = err.Error()
			r.o.logger.Warn("duelogic: no moves read", "debate", r.d.ID, "utterance", u.Seq, "err", err)
		}
		return out, resp.Usage, nil
	}, func(int64) *Event {
		// Applied as the record is queued, so the event, right behind it,
		// carries the moves as applied.
		applied = true
		update := m.apply(u, v)
		return &Event{Type: EventArgumentMap, Segment: u.Segment, Speaker: u.Speaker, Data: update}
	})
	if err != nil {
		return err
	}
	if replayed || !applied {
		m.apply(u, v)
	}
	return nil
}

// apply applies the moves extracted from u to the dialogue, in order,
// recording the illegal ones.
func (m *mapper) apply(u Utterance, v movesValue) MovesUpdate {
	update := MovesUpdate{UtteranceSeq: u.Seq, Error: v.Error}
	for _, mv := range v.Moves {
		mv.Speaker = u.Speaker
		mv.Round = u.Exchange
		mv.ID = ""
		if err := m.dialogue.Apply(mv); err != nil {
			ill := IllegalMove{UtteranceSeq: u.Seq, Move: mv, Reason: err.Error()}
			m.illegal = append(m.illegal, ill)
			update.Illegal = append(update.Illegal, ill)
			continue
		}
		all := m.dialogue.Moves()
		m.applied = append(m.applied, all[len(all)-1])
		update.Applied = append(update.Applied, all[len(all)-1])
	}
	return update
}

// argumentMap scores the graph and judges the dialogue.
func (m *mapper) argumentMap() (*ArgumentMap, error) {
	rep, err := m.dialogue.Judge(m.sem, argumentation.VerdictOptions{})
	if err != nil {
		return nil, err
	}
	r := m.r
	rep.Topic = r.d.Proposition
	if r.d.Context != "" {
		rep.Context = []string{r.d.Context}
	}
	for _, ch := range r.cfg.Chairs {
		info := r.cat.info(ch.Framework)
		rep.Participants = append(rep.Participants, argumentation.Participant{
			Side: ch.Position, Persona: fmt.Sprintf("%s, holding the %s (%s)", ch.DisplayName(), info.roleName(), info.Description),
		})
	}
	rep.Final = true
	am := &ArgumentMap{
		Moves: slices.Clone(m.applied), Illegal: slices.Clone(m.illegal),
		Relations: rep.Graph.Relations(), Verdict: rep.Verdict, Report: rep,
	}
	for _, a := range rep.Graph.Arguments() {
		am.Arguments = append(am.Arguments, argumentation.ScoredArgument{Argument: a, Score: rep.Scores.Strength[a.ID]})
	}
	return am, nil
}

// closingArguments names the strongest surviving arguments and the key
// clashes of the map for the arbiter's closing.
func (am *ArgumentMap) closingArguments(label func(string) string) (args, clashes []string) {
	for _, a := range am.Verdict.Surviving[:min(6, len(am.Verdict.Surviving))] {
		args = append(args, fmt.Sprintf("%s (%s, strength %.2f): %s", a.ID, label(a.Side), a.Score, truncateRunes(a.Text, 200)))
	}
	byID := map[string]argumentation.ScoredArgument{}
	for _, a := range am.Arguments {
		byID[a.ID] = a
	}
	var attacks []argumentation.Relation
	for _, rel := range am.Relations {
		if rel.Type == argumentation.Attack && byID[rel.From].Side != byID[rel.To].Side {
			attacks = append(attacks, rel)
		}
	}
	slices.SortStableFunc(attacks, func(a, b argumentation.Relation) int {
		return cmp.Compare(byID[b.From].Score+byID[b.To].Score, byID[a.From].Score+byID[a.To].Score)
	})
	for _, rel := range attacks[:min(3, len(attacks))] {
		from, to := byID[rel.From], byID[rel.To]
		clashes = append(clashes, fmt.Sprintf("%s's %q %ss %s's %q", label(from.Side), truncateRunes(from.Text, 120),
			rel.Kind, label(to.Side), truncateRunes(to.Text, 120)))
	}
	return args, clashes
}
