package formal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
)

// checkSilenced checks rule 12's "immediate disqualification" in a
// finished debate: after the redaction that disqualified it, a debater
// has no entry and is asked for no turn.
func checkSilenced(t *testing.T, o *Outcome, requests []llm.Request, models map[Speaker]string) {
	t.Helper()
	for _, r := range o.Redactions {
		for _, e := range o.Entries[r.RedactionSeq:] {
			if e.Speaker == r.Speaker {
				t.Errorf("the %s, disqualified at #%d, speaks at #%d (%s)", r.Speaker, r.RedactionSeq, e.Seq, e.Type)
			}
		}
		notice := fmt.Sprintf("REDACTED: seq %d (%s)", r.Seq, r.Speaker)
		for _, req := range requests {
			if req.Purpose == PurposeTurn && req.Model == models[r.Speaker] && strings.Contains(text(req), notice) {
				t.Errorf("the %s is asked for a turn after its disqualification: %s", r.Speaker, firstLine(text(req), "Your turn:"))
			}
		}
	}
}

// "12. **No fabricated URLs.** Citing a non-existent URL is an immediate
// disqualification offence." The disqualified side speaks no more, the
// chair announces it, the other side closes and the outcome follows; when
// both are disqualified the debate is void at once.
func TestDisqualificationIsImmediate(t *testing.T) {
	challenge := `{"type": "new_point", "content": "Shops closed.", "sources": [{"url": "https://example.org/d", "title": "D"}],
		"source_challenge": {"target_seq": 8, "url": "https://example.org/fabricated-1", "claim": "It does not say traffic fell."}}`
	for _, tc := range []struct {
		name         string
		pro, det     map[int]string // replies replaced, by turn
		disqualified []Speaker
		rounds       int // rounds begun
		end          End
		closers      []Speaker
		verdict      Verdict
		announced    string
	}{
		{
			name:         "at its opening",
			pro:          map[int]string{0: reply("opening_statement", "promoter opens.", nil, src("fabricated-p"))},
			disqualified: []Speaker{SpeakerPromoter}, rounds: 0, end: EndDisqualification,
			closers: []Speaker{SpeakerDetractor}, verdict: VerdictNegativeWins,
			announced: "The promoter is disqualified under rule 12 and speaks no more in this debate. The rounds end: the detractor delivers its closing statement, and the outcome follows by rule.",
		},
		{
			name:         "by a source challenge in round 1",
			pro:          map[int]string{1: reply("new_point", "Traffic fell.", nil, src("fabricated-1"))},
			det:          map[int]string{1: challenge},
			disqualified: []Speaker{SpeakerPromoter}, rounds: 1, end: EndDisqualification,
			closers: []Speaker{SpeakerDetractor}, verdict: VerdictNegativeWins,
			announced: "The promoter is disqualified under rule 12 and speaks no more in this debate. The rounds end: the detractor delivers its closing statement, and the outcome follows by rule.",
		},
		{
			name:         "before the closings",
			det:          map[int]string{2: reply("new_point", "Shops closed.", nil, src("fabricated-2"))},
			disqualified: []Speaker{SpeakerDetractor}, rounds: 2, end: EndMaxRounds,
			closers: []Speaker{SpeakerPromoter}, verdict: VerdictAffirmativeWins,
			announced: "The detractor is disqualified under rule 12 and speaks no more in this debate. It delivers no closing statement; the promoter closes, and the outcome follows by rule.",
		},
		{
			name:         "both, at their openings",
			pro:          map[int]string{0: reply("opening_statement", "promoter opens.", nil, src("fabricated-p"))},
			det:          map[int]string{0: reply("opening_statement", "detractor opens.", nil, src("fabricated-d"))},
			disqualified: []Speaker{SpeakerPromoter, SpeakerDetractor}, rounds: 0, end: EndDisqualification,
			verdict:   VerdictVoid,
			announced: "Both debaters are disqualified under rule 12: the debate is void and concludes at once. Neither debater speaks again.",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(2, func(f *llmtest.Fake) {
				p, d := turns(SpeakerPromoter, 2), turns(SpeakerDetractor, 2)
				for i, r := range tc.pro {
					p[i] = r
				}
				for i, r := range tc.det {
					d[i] = r
				}
				// A closing is asked for whenever the rounds end.
				for who, replies := range map[Speaker][]string{SpeakerPromoter: p, SpeakerDetractor: d} {
					f.On(func(r llm.Request) bool {
						return r.Model == string(who)+"-model" && strings.Contains(text(r), "\nPhase: closing\n")
					}).Reply(replies[len(replies)-1])
				}
				f.OnModel("promoter-model").Reply(p...)
				f.OnModel("detractor-model").Reply(d...)
			})
			res := mustRun(t, f, testConfig())
			o := res.Detail
			if o.Decision != tc.verdict || !slices.Equal(o.Disqualified, tc.disqualified) || o.Rounds != tc.rounds || o.EndedBy != tc.end {
				t.Errorf("outcome %s, disqualified %v, %d rounds ended by %s; want %s, %v, %d, %s",
					o.Decision, o.Disqualified, o.Rounds, o.EndedBy, tc.verdict, tc.disqualified, tc.rounds, tc.end)
			}
			var closers []Speaker
			for _, e := range ofType(o.Entries, TypeClosingStatement) {
				closers = append(closers, e.Speaker)
			}
			if !slices.Equal(closers, tc.closers) {
				t.Errorf("closing statements by %v, want %v", closers, tc.closers)
			}
			checkSilenced(t, o, f.Requests(), map[Speaker]string{SpeakerPromoter: "promoter-model", SpeakerDetractor: "detractor-model"})
			// The chair announces it right after its ruling.
			i := slices.IndexFunc(o.Entries, func(e Entry) bool { return e.Content == tc.announced })
			if i < 1 || o.Entries[i-1].Type != TypeRuling || !strings.Contains(o.Entries[i-1].Content, "immediate disqualification offence") {
				t.Errorf("announcement %q at %d, not after a rule 12 ruling:\n%s", tc.announced, i, strings.Join(types(o.Entries), " "))
			}
			if tc.verdict == VerdictVoid {
				// At once: no closing is asked for, and the conclusion
				// follows the end of the rounds.
				if n := slices.IndexFunc(requestsOf(f, PurposeTurn), func(r llm.Request) bool {
					return strings.Contains(text(r), "closing statement")
				}); n >= 0 {
					t.Error("a closing statement is asked for in a void debate")
				}
				end := slices.IndexFunc(o.Entries, func(e Entry) bool {
					return strings.HasPrefix(e.Content, "Phase 2 ends before its first round: both debaters")
				})
				if end < 0 || o.Entries[end+1].Type != TypeConclusion {
					t.Errorf("the rounds end at %d; the conclusion does not follow:\n%s", end, strings.Join(types(o.Entries), " "))
				}
			}
		})
	}
}

// The stub's debates in which a debater is disqualified (on the default
// configuration, 3 to 6 rounds): at its opening (seed 285), in round 5
// (seeds 49 and 143), and both, one after the other (seed 1488: the
// detractor in round 1, the promoter for its closing; void). The debater
// speaks no more once disqualified.
func TestStubDisqualifiedDebaterIsSilent(t *testing.T) {
	for _, tc := range []struct {
		seed    int64
		struck  EntryType // the type of the entry that disqualified
		rounds  int
		verdict Verdict
	}{
		{285, TypeOpeningStatement, 0, VerdictNegativeWins},
		{49, TypeRebuttal, 5, VerdictNegativeWins},
		{143, TypeNewPoint, 5, VerdictAffirmativeWins},
		{1488, TypeNewPoint, 1, VerdictVoid},
	} {
		t.Run(fmt.Sprint(tc.seed), func(t *testing.T) {
			rec := &recordingClient{Client: llm.NewStub(tc.seed)}
			res, err := engine.Run(t.Context(), rec, newFormat(t, DefaultConfig()),
				engine.Debate{Proposition: "Cities should ban private cars from their centres."}, engine.WithClock(fixedClock()))
			if err != nil {
				t.Fatal(err)
			}
			o := res.Detail
			if len(o.Redactions) == 0 || o.Entries[o.Redactions[0].Seq].Type != tc.struck || o.Rounds != tc.rounds || o.Decision != tc.verdict {
				t.Fatalf("seed %d: redactions %+v, %d rounds, %s; the table expects a %s struck, %d rounds, %s",
					tc.seed, o.Redactions, o.Rounds, o.Decision, tc.struck, tc.rounds, tc.verdict)
			}
			cfg := DefaultConfig()
			checkSilenced(t, o, rec.requests(), map[Speaker]string{SpeakerPromoter: cfg.PromoterModel, SpeakerDetractor: cfg.DetractorModel})
		})
	}
}

// recordingClient keeps the requests it passes on.
type recordingClient struct {
	llm.Client
	mu   sync.Mutex
	reqs []llm.Request
}

func (c *recordingClient) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	c.mu.Lock()
	c.reqs = append(c.reqs, req)
	c.mu.Unlock()
	return c.Client.Complete(ctx, req)
}

func (c *recordingClient) requests() []llm.Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.reqs)
}

// "6. **No ad hominem.** ... 7. **No misrepresentation.** ..." — "The
// Chair enforces them": a debater raises a point of order on an entry of
// the other side in its turn, and the chair rules on it at once, as on a
// source challenge ("pause the turn, ..., issue ruling, then resume
// turn"). Upheld, the ruling counts against the entry's side and warns its
// debater in its next turn; dismissed, it does neither.
func TestPointOfOrder(t *testing.T) {
	const complaint = "Entry 8 says I want every car banned everywhere; I said city centres."
	order := func(seq, rule int) string {
		return fmt.Sprintf(`{"type": "new_point", "content": "Shops closed.", "sources": [{"url": "https://example.org/d", "title": "D"}],
			"point_of_order": {"target_seq": %d, "rule": %d, "complaint": %q}}`, seq, rule, complaint)
	}
	for _, tc := range []struct {
		name    string
		det     string // the detractor's round-1 turn
		chair   string // the chair's ruling
		ruling  string // the ruling logged on #8, before the turn ("": none)
		warned  bool
		counted int    // rulings on the promoter's entries in the verdict prompt
		reasked string // the re-ask of the turn, if any
	}{
		{
			name: "misrepresentation upheld", det: order(8, 7),
			chair:  `{"upheld": true, "ruling": "The entry states a position the detractor did not take."}`,
			ruling: `Ruling on seq 8: point of order by the detractor under rule 7 (no misrepresentation): "` + complaint + `". Upheld: The entry states a position the detractor did not take. The promoter is warned.`,
			warned: true, counted: 1,
		},
		{
			name: "ad hominem dismissed", det: order(8, 6),
			chair:  `{"upheld": false, "ruling": "The entry criticises the argument, not the debater."}`,
			ruling: `Ruling on seq 8: point of order by the detractor under rule 6 (no ad hominem): "` + complaint + `". Dismissed: The entry criticises the argument, not the debater.`,
		},
		{
			name: "unreadable ruling", det: order(8, 6),
			chair:  `{"upheld": "maybe"}`,
			ruling: `Ruling on seq 8: point of order by the detractor under rule 6 (no ad hominem): "` + complaint + `". Dismissed: The chair could not rule on it, so it is not upheld.`,
		},
		{
			name: "on its own entry", det: order(3, 7),
			reasked: `"point_of_order.target_seq" 3 is not an entry you may raise a point of order on; want one of: 2, 8`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(2, func(f *llmtest.Fake) {
				d := turns(SpeakerDetractor, 2)
				d = append(d[:1:1], append([]string{tc.det}, d[1:]...)...)
				f.OnModel("detractor-model").Reply(d...)
				if tc.chair != "" {
					f.OnPurpose(PurposePointOfOrder).Reply(tc.chair, tc.chair)
				}
				f.OnPurpose(PurposeVerdict).Reply(`{"outcome": "draw", "reason": "Balanced."}`)
			})
			res := mustRun(t, f, testConfig())
			es := res.Detail.Entries
			var logged []Entry
			for _, e := range ofType(es, TypeRuling) {
				if strings.Contains(e.Content, "point of order") {
					logged = append(logged, e)
				}
			}
			switch {
			case tc.ruling == "" && len(logged) > 0:
				t.Errorf("rulings %+v", logged)
			case tc.ruling != "" && (len(logged) != 1 || logged[0].Content != tc.ruling || *logged[0].TargetSeq != 8):
				t.Fatalf("rulings %+v\nwant one on #8: %q", logged, tc.ruling)
			case tc.ruling != "":
				// The turn pauses for it and resumes.
				if next := es[logged[0].Seq+1]; next.Speaker != SpeakerDetractor || next.Type != TypeNewPoint {
					t.Errorf("after the ruling: %+v", next)
				}
			}
			var round2 string
			for _, r := range requestsOf(f, PurposeTurn) {
				if r.Model == "promoter-model" && strings.Contains(text(r), "Your turn: Round 2") {
					round2 = text(r)
				}
			}
			if warned := strings.Contains(round2, "your entry broke rule 7 (no misrepresentation)"); warned != tc.warned {
				t.Errorf("the promoter's round-2 prompt warns it: %v, want %v", warned, tc.warned)
			}
			if v := requestsOf(f, PurposeVerdict); len(v) != 1 || !strings.Contains(text(v[0]), fmt.Sprintf("Promoter (affirmative): 4 turns, 4 of them citing sources, 0 rebuttals, 0 conjectures; verifier findings on its sources: 4 verified, 0 unreliable, 0 fabricated; rulings on its entries: %d;", tc.counted)) {
				t.Errorf("the verdict prompt does not count %d rulings against the promoter", tc.counted)
			}
			if tc.reasked != "" {
				reasked := slices.ContainsFunc(requestsOf(f, PurposeTurn), func(r llm.Request) bool {
					return strings.Contains(r.Messages[len(r.Messages)-1].Content, tc.reasked)
				})
				if !reasked {
					t.Errorf("no re-ask says %q", tc.reasked)
				}
			}
		})
	}
}

// A point of order is offered in the rounds only, on the other side's
// arguments still on the record, each ruled on once.
func TestPointOfOrderIsOfferedInTheRounds(t *testing.T) {
	f := newFake(2, func(f *llmtest.Fake) {
		d := turns(SpeakerDetractor, 2)
		d[1] = `{"type": "new_point", "content": "Shops closed.", "sources": [], "point_of_order": {"target_seq": 8, "rule": 7, "complaint": "Not what I said."}}`
		f.OnModel("detractor-model").Reply(d...)
	})
	res := mustRun(t, f, testConfig())
	for _, r := range requestsOf(f, PurposeTurn) {
		p, last := text(r), r.Messages[len(r.Messages)-1].Content
		offered := strings.Contains(last, "Entries you may raise a point of order on:")
		inSchema := strings.Contains(string(r.Schema), `"point_of_order"`)
		round := strings.Contains(p, "\nPhase: rebuttal\n")
		if offered != round || inSchema != round {
			t.Errorf("%s, %s: point of order in the prompt %v, in the schema %v", r.Model, firstLine(p, "Your turn:"), offered, inSchema)
		}
		if r.Model == "detractor-model" && strings.Contains(p, "Your turn: Round 2") {
			if got := firstLine(last, "Entries you may raise a point of order on:"); got != "Entries you may raise a point of order on: 2, 14" {
				t.Errorf("round 2 offers %q; #8 was ruled on", got)
			}
		}
	}
	if n := len(ofType(res.Detail.Entries, TypeRuling)); n != 2 { // the point of order, and the conjecture rule (no source, no label)
		t.Errorf("%d rulings", n)
	}
}

// A point of order quotes the complaint and gives the chair's reason: once
// the entry it is about is struck, so are they.
func TestStrikeStrikesPointsOfOrder(t *testing.T) {
	log := []Entry{
		{Seq: 0, Speaker: SpeakerPromoter, Type: TypeOpeningStatement, Phase: PhaseOpening, Content: "You fool."},
		{Seq: 1, Speaker: SpeakerChair, Type: TypeRuling, Phase: PhaseSystem, TargetSeq: intp(0),
			Content: `Ruling on seq 0: point of order by the detractor under rule 6 (no ad hominem): "It calls me a fool.". Upheld: It insults the debater. The promoter is warned.`},
		{Seq: 2, Speaker: SpeakerChair, Type: TypeRuling, Phase: PhaseSystem, TargetSeq: intp(0),
			Content: "Ruling on seq 0: the verifier found source 1 unreliable. The promoter is warned and asked to withdraw or replace it."},
		{Seq: 3, Speaker: SpeakerChair, Type: TypeRedaction, Phase: PhaseSystem, TargetSeq: intp(0),
			Content: "REDACTED: seq 0 (promoter). Reason: fabricated. Entry is struck from the record."},
	}
	got := Strike(log)
	if want := "Ruling on seq 0: a point of order on this entry. Details are struck with the redacted entry."; got[1].Content != want {
		t.Errorf("the point of order reads %q, want %q", got[1].Content, want)
	}
	if got[2].Content != log[2].Content {
		t.Errorf("a template ruling was struck: %q", got[2].Content)
	}
	if again := Strike(got); !slicesEqualEntries(again, got) {
		t.Error("Strike is not idempotent")
	}
}

func slicesEqualEntries(a, b []Entry) bool {
	return slices.EqualFunc(a, b, func(x, y Entry) bool { return x.Content == y.Content && x.Seq == y.Seq })
}

// gluedHeadings returns the Markdown headings of doc that run on into
// their body: a heading holding a sentence and more, or not followed by a
// blank line.
func gluedHeadings(doc string) []string {
	lines := strings.Split(strings.TrimRight(doc, "\n"), "\n")
	var glued []string
	for i, l := range lines {
		if !strings.HasPrefix(l, "#") {
			continue
		}
		if strings.Contains(l, ". ") || i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" {
			glued = append(glued, l)
		}
	}
	return glued
}

// The stub's texts keep to the prompts they answer: a turn of 120 to 250
// words, an audience conclusion of 200 to 400, a summary.md of 300 to 600
// and a blog-post.md of 500 to 900, Markdown headings on lines of their
// own followed by a blank line, and a verdict whose reason names the
// entries that decided it by #seq. The default run plays seeds 0 to 3,
// DUELOGIC_EXHAUSTIVE=1 (as CI runs it) 0 to 7.
func TestStubTextsKeepToTheirPrompts(t *testing.T) {
	seeds := int64(4)
	if os.Getenv("DUELOGIC_EXHAUSTIVE") == "1" {
		seeds = 8
	}
	between := func(what, text string, lo, hi int) {
		t.Helper()
		if n := len(strings.Fields(text)); n < lo || n > hi {
			t.Errorf("%s: %d words, the prompt asks %d to %d: %.80q", what, n, lo, hi, text)
		}
	}
	for seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.MinRounds, cfg.MaxRounds = 1, 3
			res, err := runWith(t, llm.NewStub(seed), cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			o := res.Detail
			for _, e := range o.Entries {
				switch {
				case strings.HasPrefix(e.Content, "[REDACTED"):
				case e.Type.argument():
					between(fmt.Sprintf("#%d %s", e.Seq, e.Type), e.Content, 120, 250)
				case e.Type == TypeAudienceConclusion:
					between("the audience's conclusion", e.Content, 200, 400)
				}
			}
			between(FileSummary, o.Docs.Summary, 300, 600)
			if o.Decision != VerdictVoid {
				between(FileBlogPost, o.Docs.BlogPost, 500, 900)
			}
			for name, doc := range map[string]string{FileSummary: o.Docs.Summary, FileBlogPost: o.Docs.BlogPost, FileAssessorReport: o.Docs.AssessorReport, FileTranscript: o.Docs.Transcript} {
				if g := gluedHeadings(doc); len(g) > 0 {
					t.Errorf("%s: headings glued to their body: %q", name, g)
				}
			}
			if len(o.Disqualified) == 0 && !strings.Contains(o.Reason, "could not be read") {
				sentences := strings.Count(o.Reason, ". ") + 1
				if sentences < 2 || sentences > 3 || !strings.Contains(o.Reason, "#") {
					t.Errorf("the verdict's reason (%d sentences) names no entry by #seq: %q", sentences, o.Reason)
				}
			}
		})
	}
}

// The log file is only ever appended to: a torn last line (a write cut
// short) is cut off on opening, lines already there are checked, not
// written again, and a line that is not the entry's is another debate's.
func TestLiveLogAppendsOnly(t *testing.T) {
	dir := t.TempDir()
	entries := []Entry{
		{Seq: 0, Timestamp: testStart, Phase: PhaseSystem, Speaker: SpeakerChair, Type: TypeSetup, Content: "Debate session initialised."},
		{Seq: 1, Timestamp: testStart, Phase: PhaseSystem, Speaker: SpeakerChair, Type: TypeAnnouncement, Content: "Topic: X"},
		{Seq: 2, Timestamp: testStart, Phase: PhaseOpening, Speaker: SpeakerPromoter, Type: TypeOpeningStatement, Content: "Cars out."},
	}
	var lines [][]byte
	for _, e := range entries {
		l, err := logLine(e)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	path := filepath.Join(dir, FileLog)
	torn := append(append(slices.Clone(lines[0]), lines[1]...), lines[2][:10]...)
	if err := os.WriteFile(path, torn, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := openLiveLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	for _, e := range entries {
		if err := l.append(e); err != nil {
			t.Fatalf("entry %d: %v", e.Seq, err)
		}
	}
	b, _ := os.ReadFile(path)
	if want := bytes.Join(lines, nil); !bytes.Equal(b, want) {
		t.Errorf("the log holds %q, want %q", b, want)
	}
	other := entries[1]
	other.Content = "Topic: Y"
	if err := l.append(other); !errors.Is(err, errForeignLog) {
		t.Errorf("a line of another debate: %v", err)
	}
	gap := entries[2]
	gap.Seq = 5
	if err := l.append(gap); err == nil {
		t.Error("an entry after a gap is appended")
	}
}
