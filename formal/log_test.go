package formal

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/store"
)

func intp(n int) *int { return &n }

// sampleLog is a small valid log with a redaction.
func sampleLog() []Entry {
	at := time.Date(2026, 2, 21, 14, 0, 0, 0, time.UTC)
	s := []Source{{URL: "https://example.org/a", Title: "A", Accessed: "2026-02-21"}}
	return []Entry{
		{Seq: 0, Timestamp: at, Phase: PhaseSystem, Speaker: SpeakerChair, Type: TypeSetup, Content: "Debate session initialised."},
		{Seq: 1, Timestamp: at, Phase: PhaseOpening, Speaker: SpeakerPromoter, Type: TypeOpeningStatement, Content: "Secret claim.", Sources: s},
		{Seq: 2, Timestamp: at, Phase: PhaseRebuttal, Speaker: SpeakerDetractor, Type: TypeRebuttal, Content: "No.", Sources: s, RebuttalToSeq: intp(1)},
		{Seq: 3, Timestamp: at, Phase: PhaseRebuttal, Speaker: SpeakerDetractor, Type: TypeSourceChallenge, Content: "The Secret claim is unsupported.", Sources: s, TargetSeq: intp(1)},
		{Seq: 4, Timestamp: at, Phase: PhaseSystem, Speaker: SpeakerVerifier, Type: TypeVerificationResult, Content: "fabricated: seq 1. It says Secret claim.", Sources: s, TargetSeq: intp(1)},
		{Seq: 5, Timestamp: at, Phase: PhaseSystem, Speaker: SpeakerChair, Type: TypeRedaction, Content: "REDACTED: seq 1 (promoter).", TargetSeq: intp(1)},
		{Seq: 6, Timestamp: at.Add(time.Second), Phase: PhaseSystem, Speaker: SpeakerChair, Type: TypeConclusion, Content: "Debate concluded."},
	}
}

func TestExportLog(t *testing.T) {
	var buf bytes.Buffer
	if err := ExportLog(&buf, sampleLog()[:3]); err != nil {
		t.Fatal(err)
	}
	want := `{"seq":0,"timestamp":"2026-02-21T14:00:00Z","phase":"system","speaker":"chair","type":"setup","content":"Debate session initialised.","sources":null,"rebuttal_to_seq":null,"target_seq":null}
{"seq":1,"timestamp":"2026-02-21T14:00:00Z","phase":"opening","speaker":"promoter","type":"opening_statement","content":"Secret claim.","sources":[{"url":"https://example.org/a","title":"A","accessed":"2026-02-21"}],"rebuttal_to_seq":null,"target_seq":null}
{"seq":2,"timestamp":"2026-02-21T14:00:00Z","phase":"rebuttal","speaker":"detractor","type":"rebuttal","content":"No.","sources":[{"url":"https://example.org/a","title":"A","accessed":"2026-02-21"}],"rebuttal_to_seq":1,"target_seq":null}
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("JSONL (-want +got):\n%s", diff)
	}
	// Timestamps in other zones are written in UTC; empty sources as null.
	e := sampleLog()[0]
	e.Timestamp = time.Date(2026, 2, 21, 15, 0, 0, 5e8, time.FixedZone("CET", 3600))
	e.Sources = []Source{}
	buf.Reset()
	ExportLog(&buf, []Entry{e})
	if !strings.Contains(buf.String(), `"timestamp":"2026-02-21T14:00:00.5Z"`) || !strings.Contains(buf.String(), `"sources":null`) {
		t.Errorf("got %s", buf.String())
	}
}

func TestExportStrikesRedactedEntries(t *testing.T) {
	var buf bytes.Buffer
	if err := ExportLog(&buf, sampleLog()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "Secret") {
		t.Errorf("redacted content exported:\n%s", buf.String())
	}
	got, err := ImportLog(&buf)
	if err != nil {
		t.Fatal(err)
	}
	want := Strike(sampleLog())
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("imported (-struck +got):\n%s", diff)
	}
	for seq, content := range map[int]string{
		1: "[REDACTED: struck from the record by the chair, see seq 5.]",
		3: "Challenge to seq 1. Details are struck with the redacted entry.",
		4: "fabricated: seq 1. Details are struck with the redacted entry.",
		5: "REDACTED: seq 1 (promoter).",
		2: "No.",
	} {
		if got[seq].Content != content {
			t.Errorf("entry %d: %q, want %q", seq, got[seq].Content, content)
		}
	}
	if got[1].Sources != nil || got[3].Sources != nil || got[4].Sources != nil || got[2].Sources == nil {
		t.Error("sources not struck as they should be")
	}
	if diff := cmp.Diff(got, Strike(got)); diff != "" {
		t.Errorf("Strike is not idempotent:\n%s", diff)
	}
}

func TestStrikeSeedRedactionWithoutTarget(t *testing.T) {
	log := sampleLog()
	log[5].TargetSeq = nil
	log[5].Content = "REDACTED: seq 1 (promoter). Reason: fabricated. Entry is struck from the record."
	if got := Strike(log); got[1].Content == log[1].Content || got[1].Sources != nil {
		t.Errorf("a seed-style redaction is not honoured: %+v", got[1])
	}
	if got := Strike(sampleLog()[:3]); got[1].Content != "Secret claim." {
		t.Error("Strike changed a log without redactions")
	}
}

func TestImportLogRejects(t *testing.T) {
	line := func(fields string) string {
		return `{"seq":0,"timestamp":"2026-02-21T14:00:00Z","phase":"system","speaker":"chair","type":"setup","content":"x","sources":null` + fields + "}\n"
	}
	first := line("")
	opening := `{"seq":1,"timestamp":"2026-02-21T14:00:00Z","phase":"opening","speaker":"promoter","type":"opening_statement","content":"x","sources":null}` + "\n"
	for _, tc := range []struct {
		name, log, want string
	}{
		{"not JSON", "nope\n", "line 1"},
		{"two values", first[:len(first)-1] + " {}\n", "more than one JSON value"},
		{"unknown field", line(`,"extra":1`), `unknown field "extra"`},
		{"missing fields", `{"seq":0}` + "\n", "missing timestamp, phase, speaker, type, content, sources"},
		{"seq not from 0", strings.Replace(first, `"seq":0`, `"seq":1`, 1), "seq 1, want 0"},
		{"seq gap", first + strings.Replace(opening, `"seq":1`, `"seq":2`, 1), "line 2: seq 2, want 1"},
		{"fractional seq", strings.Replace(first, `"seq":0`, `"seq":0.5`, 1), "line 1"},
		{"bad timestamp", strings.Replace(first, "2026-02-21T14:00:00Z", "yesterday", 1), "not ISO 8601"},
		{"not UTC", strings.Replace(first, "14:00:00Z", "14:00:00+01:00", 1), "not UTC"},
		{"unknown phase", strings.Replace(first, `"phase":"system"`, `"phase":"lunch"`, 1), `unknown phase "lunch"`},
		{"unknown speaker", strings.Replace(first, `"speaker":"chair"`, `"speaker":"judge"`, 1), `unknown speaker "judge"`},
		{"unknown type", strings.Replace(first, `"type":"setup"`, `"type":"speech"`, 1), `unknown type "speech"`},
		{"speaker not allowed", first + strings.Replace(opening, `"speaker":"promoter"`, `"speaker":"audience"`, 1), "audience may not write opening_statement entries"},
		{"wrong phase", first + strings.Replace(opening, `"phase":"opening"`, `"phase":"closing"`, 1), "opening_statement in phase closing, want opening"},
		{"sources not a list", strings.Replace(first, `"sources":null`, `"sources":{}`, 1), "sources:"},
		{"bad source url", strings.Replace(first, `"sources":null`, `"sources":[{"url":"ftp://x","title":"t","accessed":"2026-02-21"}]`, 1), `url "ftp://x"`},
		{"bad source date", strings.Replace(first, `"sources":null`, `"sources":[{"url":"https://x","title":"t","accessed":"21/02/2026"}]`, 1), `accessed "21/02/2026"`},
		{"source field", strings.Replace(first, `"sources":null`, `"sources":[{"url":"https://x","author":"me"}]`, 1), `unknown field "author"`},
		{"rebuttal without target", first + opening + `{"seq":2,"timestamp":"2026-02-21T14:00:00Z","phase":"rebuttal","speaker":"detractor","type":"rebuttal","content":"x","sources":null}` + "\n", "rebuttal without rebuttal_to_seq"},
		{"rebuttal_to_seq on a point", first + opening + `{"seq":2,"timestamp":"2026-02-21T14:00:00Z","phase":"rebuttal","speaker":"detractor","type":"new_point","content":"x","sources":null,"rebuttal_to_seq":1}` + "\n", "rebuttal_to_seq on a new_point"},
		{"rebuttal of own entry", first + opening + `{"seq":2,"timestamp":"2026-02-21T14:00:00Z","phase":"rebuttal","speaker":"promoter","type":"rebuttal","content":"x","sources":null,"rebuttal_to_seq":1}` + "\n", "not an argument of the other debater"},
		{"rebuttal of the future", first + opening + `{"seq":2,"timestamp":"2026-02-21T14:00:00Z","phase":"rebuttal","speaker":"detractor","type":"rebuttal","content":"x","sources":null,"rebuttal_to_seq":2}` + "\n", "names no earlier entry"},
		{"challenge without target", first + opening + `{"seq":2,"timestamp":"2026-02-21T14:00:00Z","phase":"rebuttal","speaker":"detractor","type":"source_challenge","content":"x","sources":null}` + "\n", "source_challenge without target_seq"},
		{"target on a point", first + opening + `{"seq":2,"timestamp":"2026-02-21T14:00:00Z","phase":"rebuttal","speaker":"detractor","type":"new_point","content":"x","sources":null,"target_seq":1}` + "\n", "target_seq on a new_point"},
		{"target out of range", line(`,"target_seq":-1`), "target_seq on a setup"},
		{"long line", strings.Repeat(" ", MaxLogLineBytes+1), "longer than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ImportLog(strings.NewReader(tc.log))
			if !errors.Is(err, ErrInvalidLog) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestImportLogAccepts(t *testing.T) {
	// A log as the seed's write-log.sh writes it: rulings and redactions
	// without target_seq, rebuttal_to_seq and target_seq left out, blank
	// lines.
	log := `{"seq":0,"timestamp":"2026-02-21T14:00:00Z","phase":"system","speaker":"chair","type":"setup","content":"Debate session initialised. Chair is ready.","sources":null,"rebuttal_to_seq":null,"target_seq":null}

{"seq":1,"timestamp":"2026-02-21T14:01:00.250Z","phase":"opening","speaker":"promoter","type":"opening_statement","content":"Open.","sources":[{"url":"https://example.org/a","title":"A","accessed":"2026-02-21"}]}
{"seq":2,"timestamp":"2026-02-21T14:02:00+00:00","phase":"rebuttal","speaker":"detractor","type":"rebuttal","content":"Rebut.","sources":[],"rebuttal_to_seq":1}
{"seq":3,"timestamp":"2026-02-21T14:03:00Z","phase":"system","speaker":"verifier","type":"verification_result","content":"fabricated","sources":null,"target_seq":1}
{"seq":4,"timestamp":"2026-02-21T14:04:00Z","phase":"system","speaker":"chair","type":"redaction","content":"REDACTED: seq 1 (promoter). Reason: fabricated. Entry is struck from the record.","sources":null}
`
	got, err := ImportLog(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 || got[2].Sources != nil || *got[2].RebuttalToSeq != 1 || got[4].TargetSeq != nil ||
		!got[1].Timestamp.Equal(time.Date(2026, 2, 21, 14, 1, 0, 25e7, time.UTC)) || got[2].Timestamp.Location() != time.UTC {
		t.Errorf("imported %+v", got)
	}
	if s := Strike(got); s[1].Content == "Open." {
		t.Error("the seed's redaction is not honoured")
	}
}

func FuzzImportLog(f *testing.F) {
	var buf bytes.Buffer
	ExportLog(&buf, sampleLog())
	f.Add(buf.String())
	f.Add(`{"seq":0,"timestamp":"2026-02-21T14:00:00Z","phase":"system","speaker":"chair","type":"setup","content":"x","sources":null}`)
	f.Add("\n\n")
	f.Add(`{"seq":0,"timestamp":"2026-02-21T14:00:00Z","phase":"system","speaker":"chair","type":"redaction","content":"REDACTED: seq 0","sources":null}`)
	f.Fuzz(func(t *testing.T, log string) {
		entries, err := ImportLog(strings.NewReader(log))
		if err != nil {
			if !errors.Is(err, ErrInvalidLog) {
				t.Fatalf("error not ErrInvalidLog: %v", err)
			}
			return
		}
		// A valid log exports, and what it exports imports and exports the
		// same.
		var a, b bytes.Buffer
		if err := ExportLog(&a, entries); err != nil {
			t.Fatal(err)
		}
		again, err := ImportLog(bytes.NewReader(a.Bytes()))
		if err != nil {
			t.Fatalf("exported log does not import: %v\n%s", err, a.String())
		}
		if err := ExportLog(&b, again); err != nil {
			t.Fatal(err)
		}
		if a.String() != b.String() {
			t.Fatalf("export not stable:\n%s\n%s", a.String(), b.String())
		}
	})
}

func TestEntriesFromRecords(t *testing.T) {
	res := mustRunStore(t)
	recs, err := res.st.Records(t.Context(), testDebate.ID)
	if err != nil {
		t.Fatal(err)
	}
	got, err := EntriesFromRecords(recs)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(res.res.Detail.Entries, got); diff != "" {
		t.Errorf("entries (-result +records):\n%s", diff)
	}
	// A missing entry record breaks the log.
	var gap []store.Record
	dropped := false
	for _, r := range recs {
		if r.Type == RecordEntry && !dropped && bytes.Contains(r.Data, []byte(`"key":"entry:3"`)) {
			dropped = true
			continue
		}
		gap = append(gap, r)
	}
	if _, err := EntriesFromRecords(gap); !errors.Is(err, ErrInvalidLog) {
		t.Errorf("gap: %v", err)
	}
	bad := append([]store.Record(nil), recs...)
	for i := range bad {
		if bad[i].Type == RecordEntry {
			bad[i].Data = []byte(`{"value": 7}`)
			break
		}
	}
	if _, err := EntriesFromRecords(bad); !errors.Is(err, ErrInvalidLog) {
		t.Errorf("bad record: %v", err)
	}
}

type runWithStore struct {
	res *result
	st  *store.Memory
}

func mustRunStore(t *testing.T) runWithStore {
	st := store.NewMemory()
	return runWithStore{res: mustRun(t, newFake(2, nil), testConfig(), engine.WithStore(st)), st: st}
}
