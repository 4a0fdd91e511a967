package formal

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/duelogic/duelogic/store"
)

// ErrInvalidLog is matched (errors.Is) by the errors of [ImportLog] and
// [EntriesFromRecords] for a log that breaks the seed's schema.
var ErrInvalidLog = errors.New("formal: invalid log")

// MaxLogLineBytes bounds one line of a log read by [ImportLog].
const MaxLogLineBytes = 1 << 20

// ExportLog writes entries to w as the seed's JSONL debate log: one JSON
// object per line with the fields seq, timestamp (ISO 8601, UTC), phase,
// speaker, type, content, sources (an array or null), rebuttal_to_seq and
// target_seq (an integer or null), in that order. Redacted content is struck
// first (see [Strike]), so the log can be shared. Give it [Outcome.Entries]
// or, for a debate in a store, the entries of [EntriesFromRecords].
func ExportLog(w io.Writer, entries []Entry) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, e := range Strike(entries) {
		e.Timestamp = e.Timestamp.UTC()
		if len(e.Sources) == 0 {
			e.Sources = nil
		}
		if err := enc.Encode(e); err != nil {
			return fmt.Errorf("formal: export log entry %d: %w", e.Seq, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("formal: export log: %w", err)
	}
	return nil
}

// wireEntry is a log line as read: pointers tell a missing field from a zero
// one.
type wireEntry struct {
	Seq           *int            `json:"seq"`
	Timestamp     *string         `json:"timestamp"`
	Phase         *string         `json:"phase"`
	Speaker       *string         `json:"speaker"`
	Type          *string         `json:"type"`
	Content       *string         `json:"content"`
	Sources       json.RawMessage `json:"sources"`
	RebuttalToSeq *int            `json:"rebuttal_to_seq"`
	TargetSeq     *int            `json:"target_seq"`
}

// ImportLog reads a JSONL debate log in the seed's schema (as [ExportLog]
// writes it, or as the seed's write-log.sh does) and checks it: every line
// one object with exactly the schema's fields (seq, timestamp, phase,
// speaker, type, content and sources present; rebuttal_to_seq and target_seq
// may be left out), seq contiguous from 0, a UTC ISO 8601 timestamp, a known
// phase, speaker and type, a speaker the type allows (the seed's "Used by"),
// opening, round and closing turns in their phases, sources with absolute
// http(s) URLs and dates as YYYY-MM-DD, rebuttal_to_seq set exactly on
// rebuttals and naming an earlier argument of the other debater, target_seq
// set on challenges and verifications, allowed on rulings and redactions
// only, and naming an earlier entry. Blank lines are skipped. The error
// wraps [ErrInvalidLog] and names the line.
func ImportLog(r io.Reader) ([]Entry, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLogLineBytes)
	var entries []Entry
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		e, err := decodeLine(b)
		if err == nil {
			err = checkEntry(e, entries)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", ErrInvalidLog, line, err)
		}
		entries = append(entries, e)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%w: line %d: longer than %d bytes", ErrInvalidLog, line+1, MaxLogLineBytes)
		}
		return nil, fmt.Errorf("formal: read log: %w", err)
	}
	return entries, nil
}

func decodeLine(b []byte) (Entry, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var w wireEntry
	if err := dec.Decode(&w); err != nil {
		return Entry{}, err
	}
	if dec.More() {
		return Entry{}, errors.New("more than one JSON value")
	}
	var missing []string
	for _, f := range []struct {
		name string
		ok   bool
	}{
		{"seq", w.Seq != nil}, {"timestamp", w.Timestamp != nil}, {"phase", w.Phase != nil},
		{"speaker", w.Speaker != nil}, {"type", w.Type != nil}, {"content", w.Content != nil},
		{"sources", w.Sources != nil},
	} {
		if !f.ok {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return Entry{}, fmt.Errorf("missing %s", strings.Join(missing, ", "))
	}
	ts, err := time.Parse(time.RFC3339Nano, *w.Timestamp)
	if err != nil {
		return Entry{}, fmt.Errorf("timestamp %q: not ISO 8601", *w.Timestamp)
	}
	if _, off := ts.Zone(); off != 0 {
		return Entry{}, fmt.Errorf("timestamp %q: not UTC", *w.Timestamp)
	}
	e := Entry{
		Seq: *w.Seq, Timestamp: ts.UTC(), Phase: Phase(*w.Phase), Speaker: Speaker(*w.Speaker),
		Type: EntryType(*w.Type), Content: *w.Content, RebuttalToSeq: w.RebuttalToSeq, TargetSeq: w.TargetSeq,
	}
	if string(w.Sources) != "null" {
		sd := json.NewDecoder(bytes.NewReader(w.Sources))
		sd.DisallowUnknownFields()
		if err := sd.Decode(&e.Sources); err != nil {
			return Entry{}, fmt.Errorf("sources: %v", err)
		}
		if len(e.Sources) == 0 {
			e.Sources = nil
		}
	}
	return e, nil
}

// checkEntry checks e, the entry after prev, against the seed's rules.
func checkEntry(e Entry, prev []Entry) error {
	var probs []string
	bad := func(format string, args ...any) { probs = append(probs, fmt.Sprintf(format, args...)) }
	if e.Seq != len(prev) {
		bad("seq %d, want %d", e.Seq, len(prev))
	}
	switch e.Phase {
	case PhaseSystem, PhaseOpening, PhaseRebuttal, PhaseClosing:
	default:
		bad("unknown phase %q", e.Phase)
	}
	switch e.Speaker {
	case SpeakerChair, SpeakerPromoter, SpeakerDetractor, SpeakerReporter, SpeakerVerifier, SpeakerAudience, SpeakerAssessor:
	default:
		bad("unknown speaker %q", e.Speaker)
	}
	if !utf8.ValidString(e.Content) {
		bad("content is not valid UTF-8")
	}
	speakers, known := entryTypes[e.Type]
	switch {
	case !known:
		bad("unknown type %q", e.Type)
	case !slices.Contains(speakers, e.Speaker):
		bad("%s may not write %s entries", e.Speaker, e.Type)
	}
	if want, ok := typePhase[e.Type]; ok && e.Phase != want {
		bad("%s in phase %s, want %s", e.Type, e.Phase, want)
	}
	for i, s := range e.Sources {
		if err := checkSource(s); err != nil {
			bad("sources[%d]: %v", i, err)
		}
	}
	switch {
	case e.Type == TypeRebuttal && e.RebuttalToSeq == nil:
		bad("rebuttal without rebuttal_to_seq")
	case e.Type != TypeRebuttal && e.RebuttalToSeq != nil:
		bad("rebuttal_to_seq on a %s", e.Type)
	case e.RebuttalToSeq != nil:
		t := *e.RebuttalToSeq
		if t < 0 || t >= len(prev) {
			bad("rebuttal_to_seq %d names no earlier entry", t)
		} else if p := prev[t]; p.Speaker != e.Speaker.opponent() || !p.Type.argument() {
			bad("rebuttal_to_seq %d is a %s by %s, not an argument of the other debater", t, p.Type, p.Speaker)
		}
	}
	switch e.Type {
	case TypeSourceChallenge, TypeVerificationResult:
		if e.TargetSeq == nil {
			bad("%s without target_seq", e.Type)
		}
	case TypeRuling, TypeRedaction:
	default:
		if e.TargetSeq != nil {
			bad("target_seq on a %s", e.Type)
		}
	}
	if e.TargetSeq != nil && (*e.TargetSeq < 0 || *e.TargetSeq >= len(prev)) {
		bad("target_seq %d names no earlier entry", *e.TargetSeq)
	}
	if len(probs) > 0 {
		return errors.New(strings.Join(probs, "; "))
	}
	return nil
}

// typePhase is the phase each debater turn belongs to.
var typePhase = map[EntryType]Phase{
	TypeSetup:            PhaseSystem,
	TypeOpeningStatement: PhaseOpening,
	TypeNewPoint:         PhaseRebuttal,
	TypeRebuttal:         PhaseRebuttal,
	TypeConjecture:       PhaseRebuttal,
	TypeClosingStatement: PhaseClosing,
}

// checkSource checks one cited source: an absolute http(s) URL with a host,
// and an access date, when given, as YYYY-MM-DD.
func checkSource(s Source) error {
	u, err := url.Parse(s.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("url %q: want an absolute http(s) URL", s.URL)
	}
	if s.Accessed != "" {
		if _, err := time.Parse(time.DateOnly, s.Accessed); err != nil {
			return fmt.Errorf("accessed %q: want YYYY-MM-DD", s.Accessed)
		}
	}
	return nil
}

// entryValue is the part of a record's Data that holds an entry: the engine
// stores every record's Data as {"key", "side", "speaker", "usage",
// "value", "event"}, and the value of a RecordEntry record is the [Entry].
type entryValue struct {
	Value *Entry `json:"value"`
}

// EntriesFromRecords returns the log of a formal debate from its store
// records (store.Store.Records; the records of one debate, in order): the
// entries of its [RecordEntry] records exactly as recorded, redacted content
// included — give them to [Strike] or [ExportLog] before showing them. Other
// records are skipped. The error wraps [ErrInvalidLog] when a record holds no
// entry or the entries are not contiguous from 0.
func EntriesFromRecords(recs []store.Record) ([]Entry, error) {
	var entries []Entry
	for _, rec := range recs {
		if rec.Type != RecordEntry {
			continue
		}
		var v entryValue
		if err := json.Unmarshal(rec.Data, &v); err != nil {
			return nil, fmt.Errorf("%w: record %d: %v", ErrInvalidLog, rec.Seq, err)
		}
		if v.Value == nil {
			return nil, fmt.Errorf("%w: record %d holds no entry", ErrInvalidLog, rec.Seq)
		}
		if v.Value.Seq != len(entries) {
			return nil, fmt.Errorf("%w: record %d holds entry %d, want %d", ErrInvalidLog, rec.Seq, v.Value.Seq, len(entries))
		}
		entries = append(entries, *v.Value)
	}
	return entries, nil
}
