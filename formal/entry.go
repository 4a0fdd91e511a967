package formal

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Phase is the seed's "phase" field of a log entry.
type Phase string

// The phases of the seed's log.
const (
	PhaseSystem   Phase = "system"
	PhaseOpening  Phase = "opening"
	PhaseRebuttal Phase = "rebuttal"
	PhaseClosing  Phase = "closing"
)

// Speaker is a participant of a formal debate.
type Speaker string

// The participants. Each has its own model in [Config].
const (
	SpeakerChair     Speaker = "chair"
	SpeakerPromoter  Speaker = "promoter"
	SpeakerDetractor Speaker = "detractor"
	SpeakerReporter  Speaker = "reporter"
	SpeakerVerifier  Speaker = "verifier"
	SpeakerAudience  Speaker = "audience"
	SpeakerAssessor  Speaker = "assessor"
)

// opponent returns the other debater.
func (s Speaker) opponent() Speaker {
	if s == SpeakerPromoter {
		return SpeakerDetractor
	}
	return SpeakerPromoter
}

func (s Speaker) debater() bool { return s == SpeakerPromoter || s == SpeakerDetractor }

// side names a debater's side of the proposition.
func (s Speaker) side() string {
	if s == SpeakerPromoter {
		return "affirmative"
	}
	return "negative"
}

// EntryType is the seed's "type" field of a log entry.
type EntryType string

// The fifteen entry types of the seed.
const (
	TypeSetup                EntryType = "setup"
	TypeAnnouncement         EntryType = "announcement"
	TypeRuling               EntryType = "ruling"
	TypeRedaction            EntryType = "redaction"
	TypeConclusion           EntryType = "conclusion"
	TypeOpeningStatement     EntryType = "opening_statement"
	TypeNewPoint             EntryType = "new_point"
	TypeRebuttal             EntryType = "rebuttal"
	TypeConjecture           EntryType = "conjecture"
	TypeClarificationRequest EntryType = "clarification_request"
	TypeClosingStatement     EntryType = "closing_statement"
	TypeSourceChallenge      EntryType = "source_challenge"
	TypeVerificationResult   EntryType = "verification_result"
	TypeAudienceQuestion     EntryType = "audience_question"
	TypeAudienceConclusion   EntryType = "audience_conclusion"
)

// entryTypes maps every entry type to the speakers that may use it (the
// seed's "Used by" column).
var entryTypes = map[EntryType][]Speaker{
	TypeSetup:                {SpeakerChair},
	TypeAnnouncement:         {SpeakerChair},
	TypeRuling:               {SpeakerChair},
	TypeRedaction:            {SpeakerChair},
	TypeConclusion:           {SpeakerChair},
	TypeOpeningStatement:     {SpeakerPromoter, SpeakerDetractor},
	TypeNewPoint:             {SpeakerPromoter, SpeakerDetractor},
	TypeRebuttal:             {SpeakerPromoter, SpeakerDetractor},
	TypeConjecture:           {SpeakerPromoter, SpeakerDetractor},
	TypeClarificationRequest: {SpeakerPromoter, SpeakerDetractor},
	TypeClosingStatement:     {SpeakerPromoter, SpeakerDetractor},
	TypeSourceChallenge:      {SpeakerPromoter, SpeakerDetractor},
	TypeVerificationResult:   {SpeakerVerifier},
	TypeAudienceQuestion:     {SpeakerAudience},
	TypeAudienceConclusion:   {SpeakerAudience},
}

// argument reports whether entries of type t argue the proposition (and so
// may be rebutted).
func (t EntryType) argument() bool {
	switch t {
	case TypeOpeningStatement, TypeNewPoint, TypeRebuttal, TypeConjecture, TypeClosingStatement:
		return true
	}
	return false
}

// Verdict is how the chair ends a formal debate: the seed's "outcome".
type Verdict string

// The verdicts (the seed's outcomes).
const (
	VerdictAffirmativeWins Verdict = "affirmative_wins"
	VerdictNegativeWins    Verdict = "negative_wins"
	VerdictDraw            Verdict = "draw"
	VerdictVoid            Verdict = "void"
)

func (o Verdict) valid() bool {
	switch o {
	case VerdictAffirmativeWins, VerdictNegativeWins, VerdictDraw, VerdictVoid:
		return true
	}
	return false
}

// Source is a source a debater cites, in the seed's schema.
type Source struct {
	URL   string `json:"url"`
	Title string `json:"title"`
	// Accessed is the date the source was read, "YYYY-MM-DD".
	Accessed string `json:"accessed"`
}

// Entry is one line of the debate log, in the seed's JSONL schema: its JSON
// encoding (with a UTC Timestamp) is the seed's line.
type Entry struct {
	// Seq numbers the entries from 0 without gaps.
	Seq       int       `json:"seq"`
	Timestamp time.Time `json:"timestamp"`
	Phase     Phase     `json:"phase"`
	Speaker   Speaker   `json:"speaker"`
	Type      EntryType `json:"type"`
	Content   string    `json:"content"`
	// Sources is nil when the entry cites none.
	Sources []Source `json:"sources"`
	// RebuttalToSeq is set exactly on rebuttals: the entry rebutted.
	RebuttalToSeq *int `json:"rebuttal_to_seq"`
	// TargetSeq is the entry a challenge, verification, ruling or redaction
	// is about.
	TargetSeq *int `json:"target_seq"`
}

// Redaction is an entry the chair struck from the record.
type Redaction struct {
	// Seq is the struck entry; RedactionSeq the redaction entry.
	Seq          int     `json:"seq"`
	RedactionSeq int     `json:"redactionSeq"`
	Speaker      Speaker `json:"speaker"`
	Reason       string  `json:"reason"`
}

// ConjectureLabel starts every conjecture and labels unsourced claims.
const ConjectureLabel = "[CONJECTURE]"

// redactionContent matches the seed's redaction notice, "REDACTED: seq N".
var redactionContent = regexp.MustCompile(`(?i)^\s*REDACTED:\s*seq\s+(\d+)`)

// redactionTarget returns the entry a redaction entry strikes: its TargetSeq
// or, in a log written without one, the seq its notice names.
func redactionTarget(e Entry) (int, bool) {
	if e.Type != TypeRedaction {
		return 0, false
	}
	if e.TargetSeq != nil {
		return *e.TargetSeq, true
	}
	m := redactionContent.FindStringSubmatch(e.Content)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// redactedSeqs maps each struck entry to the redaction entry that struck it.
func redactedSeqs(entries []Entry) map[int]int {
	red := map[int]int{}
	for _, e := range entries {
		if t, ok := redactionTarget(e); ok {
			if _, dup := red[t]; !dup {
				red[t] = e.Seq
			}
		}
	}
	return red
}

// orderPrefix begins what follows "Ruling on seq N: " in the chair's
// ruling on a point of order; orderStruck replaces it once the entry is
// struck.
const (
	orderPrefix = "point of order by"
	orderStruck = "a point of order on this entry"
)

// isOrderRuling reports whether e is the chair's ruling on a point of order.
func isOrderRuling(e Entry) bool {
	if e.Type != TypeRuling || e.TargetSeq == nil {
		return false
	}
	rest, ok := strings.CutPrefix(e.Content, fmt.Sprintf("Ruling on seq %d: ", *e.TargetSeq))
	return ok && (strings.HasPrefix(rest, orderPrefix) || strings.HasPrefix(rest, orderStruck))
}

// Strike returns a copy of entries with redacted content removed: a
// redacted entry keeps its place, type and speaker, but its content is
// replaced by a notice and its sources by nil; so are the source challenges
// and verification results about it, which may quote it (a finding keeps its
// status), and the chair's rulings on a point of order about it, which
// quote the complaint and give the chair's reason. The chair's other
// rulings and its redactions are written from templates that never quote
// an entry, and stay. Strike is idempotent. Every output of
// this package — prompts written after a redaction, [Outcome.Entries],
// [ExportLog], the documents — goes through it.
func Strike(entries []Entry) []Entry {
	red := redactedSeqs(entries)
	out := slices.Clone(entries)
	if len(red) == 0 {
		return out
	}
	for i := range out {
		e := &out[i]
		if r, ok := red[e.Seq]; ok {
			e.Content = fmt.Sprintf("[REDACTED: struck from the record by the chair, see seq %d.]", r)
			e.Sources = nil
			continue
		}
		if e.TargetSeq == nil || (e.Type != TypeSourceChallenge && e.Type != TypeVerificationResult && !isOrderRuling(*e)) {
			continue
		}
		t := *e.TargetSeq
		if _, ok := red[t]; !ok {
			continue
		}
		e.Sources = nil
		if e.Type == TypeRuling {
			e.Content = fmt.Sprintf("Ruling on seq %d: %s. Details are struck with the redacted entry.", t, orderStruck)
			continue
		}
		if e.Type == TypeSourceChallenge {
			e.Content = fmt.Sprintf("Challenge to seq %d. Details are struck with the redacted entry.", t)
			continue
		}
		status := "finding"
		if f := strings.Fields(e.Content); len(f) > 0 {
			if st := parseStatus(strings.TrimRight(f[0], ":")); st != "" {
				status = string(st)
			}
		}
		e.Content = fmt.Sprintf("%s: seq %d. Details are struck with the redacted entry.", status, t)
	}
	return out
}
