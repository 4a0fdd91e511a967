package formal

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
)

// TestStubIgnoresTheDate runs Example's debate (seed 2) and others on the
// stub with two clocks years apart: the debates must take the same course,
// differing only in the dates they print. (The debate has an ID, so that
// the results can be compared whole.) The default run plays seeds 0 to 2,
// DUELOGIC_EXHAUSTIVE=1 (as CI runs it) 0 to 5.
func TestStubIgnoresTheDate(t *testing.T) {
	seeds := int64(3)
	if os.Getenv("DUELOGIC_EXHAUSTIVE") == "1" {
		seeds = 6
	}
	clocks := []time.Time{
		time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC),
		time.Date(2031, 11, 23, 8, 59, 1, 0, time.FixedZone("east", 5*3600)),
	}
	for seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			var runs []string
			for _, at := range clocks {
				cfg := DefaultConfig()
				cfg.MinRounds, cfg.MaxRounds = 1, 2
				res, err := runWith(t, llm.NewStub(seed), cfg, nil, engine.WithClock(func() time.Time { return at }))
				if err != nil {
					t.Fatal(err)
				}
				// Side records (findings) land in the log where timing
				// puts them: the utterances' Seqs are left out.
				for i := range res.Transcript {
					res.Transcript[i].Seq, res.Transcript[i].ReplyTo = 0, 0
				}
				b, err := json.MarshalIndent(struct {
					Transcript []engine.Utterance
					Usage      llm.Usage
					Detail     *Outcome
				}{res.Transcript, res.Usage, res.Detail}, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(b), at.UTC().Format(time.DateOnly)) {
					t.Fatalf("the clock's date %s appears nowhere in the result", at.UTC().Format(time.DateOnly))
				}
				runs = append(runs, stubMaskDates(string(b)))
			}
			if diff := cmp.Diff(runs[0], runs[1]); diff != "" {
				t.Errorf("the debate depends on the date (-%s +%s):\n%s", clocks[0], clocks[1], diff)
			}
		})
	}
}

// stubDates is what stubMaskDates masks, as a regular expression.
var stubDates = regexp.MustCompile(`\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?)?|\d{8}T\d{6}Z`)

func TestStubDates(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Today: 2026-11-23\n", "Today: <date>\n"},
		{"(accessed 2026-02-21)", "(accessed <date>)"},
		{"chair · 2026-02-21T14:00:00Z\n", "chair · <date>\n"},
		{"at 2026-02-21T14:00:00.123+05:00.", "at <date>."},
		{"20260221T140000Z-cities", "<date>-cities"},
		{"entry 12, seq 2026", "entry 12, seq 2026"},
		{"12026-02-21", "1<date>"},
		{"2026-02-21T14:00:00.Z", "<date>.Z"},
		{"2026-02-21 14:00", "<date> 14:00"},
		{"2026-02-21T14:00:00-05:0", "<date>-05:0"},
		{"2026-02-212026-02-21", "<date><date>"},
		{"20260221T140000", "20260221T140000"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := stubDates.ReplaceAllString(tt.in, "<date>"); got != tt.want {
			t.Errorf("the expression masks %q as %q, want %q", tt.in, got, tt.want)
		}
		if got := stubMaskDates(tt.in); got != tt.want {
			t.Errorf("stubMaskDates(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzStubMaskDates holds stubMaskDates to its regular expression.
func FuzzStubMaskDates(f *testing.F) {
	for _, s := range []string{"Today: 2026-11-23", "2026-02-21T14:00:00.123+05:00", "20260221T140000Z", "x 2026-02-21 14:00:00Z y", "1111-11-11T11:11:11.1-11:11"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := stubMaskDates(s), stubDates.ReplaceAllString(s, "<date>"); got != want {
			t.Errorf("stubMaskDates(%q) = %q, want %q", s, got, want)
		}
	})
}

type stubTestTurn struct {
	Type          string   `json:"type"`
	Content       string   `json:"content"`
	Sources       []Source `json:"sources"`
	RebuttalToSeq *int     `json:"rebuttal_to_seq"`
}

// TestStubReadsTheTurnPrompt runs the stub on turnPrompt, so that a change
// to the prompt that the stub no longer reads fails here.
func TestStubReadsTheTurnPrompt(t *testing.T) {
	log := []Entry{
		{Seq: 2, Speaker: SpeakerPromoter, Type: TypeOpeningStatement, Content: "Cars out."},
		{Seq: 3, Speaker: SpeakerDetractor, Type: TypeOpeningStatement, Content: "Cars in."},
	}
	tests := []struct {
		name    string
		who     Speaker
		task    turnTask
		check   func(stubTestTurn) string // what is wrong, or ""
		claimed []string                  // one of these sentences opens some turn's case
	}{
		{
			name: "a rebuttal is all the promoter may give",
			who:  SpeakerPromoter,
			task: turnTask{phase: PhaseRebuttal, allowed: []EntryType{TypeRebuttal}, rebuttable: []int{3}, today: "2031-04-05"},
			check: func(r stubTestTurn) string {
				if r.Type != string(TypeRebuttal) || r.RebuttalToSeq == nil || *r.RebuttalToSeq != 3 {
					return "not a rebuttal of #3"
				}
				return ""
			},
			claimed: stubAffirmative,
		},
		{
			name: "the detractor argues the negative",
			who:  SpeakerDetractor,
			task: turnTask{phase: PhaseOpening, allowed: []EntryType{TypeOpeningStatement}, today: "2031-04-05"},
			check: func(r stubTestTurn) string {
				if r.Type != string(TypeOpeningStatement) || r.RebuttalToSeq != nil {
					return "not an opening statement"
				}
				return ""
			},
			claimed: stubNegative,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := turnPrompt(testDebate, tt.who, log, tt.task)
			req := llm.Request{Purpose: PurposeTurn, JSON: true, Messages: p.Messages()}
			dated, claimed := false, false
			for seed := range int64(30) {
				resp, err := llm.NewStub(seed).Complete(t.Context(), req)
				if err != nil {
					t.Fatal(err)
				}
				var r stubTestTurn
				if err := json.Unmarshal([]byte(resp.Content), &r); err != nil {
					t.Fatalf("seed %d: %v: %s", seed, err, resp.Content)
				}
				if problem := tt.check(r); problem != "" {
					t.Errorf("seed %d: %s: %s", seed, problem, resp.Content)
				}
				for _, s := range r.Sources {
					if s.Accessed != tt.task.today {
						t.Errorf("seed %d: source accessed %q, want today, %s", seed, s.Accessed, tt.task.today)
					}
					dated = true
				}
				claimed = claimed || slices.ContainsFunc(tt.claimed, func(c string) bool {
					head, _, _ := strings.Cut(c, "{P}")
					return strings.Contains(r.Content, head)
				})
			}
			if !dated || !claimed {
				t.Errorf("over 30 seeds: some source dated today: %v; some turn argues its side: %v", dated, claimed)
			}
		})
	}
}

// TestStubReadsTheChairPrompts runs the stub on the verdict and report
// prompts.
func TestStubReadsTheChairPrompts(t *testing.T) {
	struck := sideRecord{turns: 3, redacted: 1}
	verdictReq := llm.Request{Purpose: PurposeVerdict, JSON: true, Messages: verdictPrompt(testDebate, nil, struck, sideRecord{turns: 3}, false).Messages()}
	rejected := verdictReq
	rejected.Messages = append(slices.Clone(verdictReq.Messages),
		llm.Message{Role: llm.Assistant, Content: "{}"}, llm.Message{Role: llm.User, Content: rejectedPrefix + ": no outcome."})
	summaryReq := llm.Request{Purpose: PurposeSummary, Messages: summaryPrompt(testDebate, nil, chairVerdict{Verdict: VerdictNegativeWins, Reason: "Better sourced."}, "Fine.").Messages()}
	verifyReq := llm.Request{Purpose: PurposeVerification, JSON: true, Messages: verificationPrompt(Source{URL: "https://stats.example.org/a", Title: "A", Accessed: "2026-01-01"}, "Traffic fell.").Messages()}
	invalid := 0
	for seed := range int64(60) {
		var v chairVerdict
		mustDecode(t, complete(t, seed, verdictReq), &v)
		switch {
		case v.Verdict == VerdictNegativeWins && strings.TrimSpace(v.Reason) != "":
		case strings.TrimSpace(v.Reason) == "": // the stub's occasional unusable reply, in the schema's shape
			invalid++
		default:
			t.Errorf("seed %d: outcome %q although the promoter had an entry struck", seed, v.Verdict)
		}
		mustDecode(t, complete(t, seed, rejected), &v)
		if !v.Verdict.valid() {
			t.Errorf("seed %d: invalid outcome %q when asked again", seed, v.Verdict)
		}
		if s := complete(t, seed, summaryReq); !strings.Contains(s, "declared the outcome: negative wins.") {
			t.Errorf("seed %d: the summary misreports the outcome:\n%s", seed, s)
		}
		var f struct{ Status, Reason string }
		mustDecode(t, complete(t, seed, verifyReq), &f)
		if strings.TrimSpace(f.Reason) != "" && !strings.Contains(f.Reason, "stats.example.org") {
			t.Errorf("seed %d: finding %+v does not name the source's host", seed, f)
		}
	}
	if invalid == 0 {
		t.Error("no first verdict over 60 seeds is invalid, so asking again goes untested")
	}
}

func complete(t *testing.T, seed int64, req llm.Request) string {
	t.Helper()
	resp, err := llm.NewStub(seed).Complete(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	return resp.Content
}

func mustDecode(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
}
