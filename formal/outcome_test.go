package formal

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
)

func docNames(docs []engine.Document) []string {
	names := make([]string, len(docs))
	for i, d := range docs {
		names[i] = d.Name
	}
	return names
}

// TestVerdictOfStubDebates: the verdict of real debates on the stub, one of
// each kind the stub's seeds give (a void one is TestVoidSuppressesBlogPost's).
func TestVerdictOfStubDebates(t *testing.T) {
	for _, tc := range []struct {
		seed     int64
		decision Verdict
		want     engine.Verdict
	}{
		{0, VerdictAffirmativeWins, engine.Verdict{Winner: "promoter", Summary: "promoter wins"}},
		{12, VerdictNegativeWins, engine.Verdict{Winner: "detractor", Summary: "detractor wins"}},
		{1, VerdictDraw, engine.Verdict{Draw: true, Summary: "draw"}},
		{87, VerdictAffirmativeWins, engine.Verdict{Winner: "promoter", Summary: "promoter wins (rule 12: detractor disqualified)"}},
		{285, VerdictNegativeWins, engine.Verdict{Winner: "detractor", Summary: "detractor wins (rule 12: promoter disqualified)"}},
	} {
		t.Run(tc.want.Summary, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.MinRounds, cfg.MaxRounds = 1, 2
			res, err := engine.Run(t.Context(), llm.NewStub(tc.seed), newFormat(t, cfg),
				engine.Debate{Proposition: "Cities should ban private cars from their centres."}, engine.WithClock(fixedClock()))
			if err != nil {
				t.Fatal(err)
			}
			o := res.Detail
			if o.Decision != tc.decision {
				t.Fatalf("seed %d decided %s; the table expects %s", tc.seed, o.Decision, tc.decision)
			}
			if diff := cmp.Diff(tc.want, o.Verdict()); diff != "" {
				t.Errorf("Verdict() (-want +got):\n%s", diff)
			}
			if tc.want.Winner != "" && !slices.ContainsFunc(res.Transcript, func(u engine.Utterance) bool { return u.Speaker == tc.want.Winner }) {
				t.Errorf("winner %q is no speaker of the transcript", tc.want.Winner)
			}
			docs := o.Documents()
			if !slices.Equal(docNames(docs), []string{FileTranscript, FileSummary, FileBlogPost, FileAssessorReport}) {
				t.Fatalf("documents %v", docNames(docs))
			}
			for i, text := range []string{o.Docs.Transcript, o.Docs.Summary, o.Docs.BlogPost, o.Docs.AssessorReport} {
				if d := docs[i]; d.Markdown != text || strings.TrimSpace(text) == "" || d.Title == "" {
					t.Errorf("%s (%q): %d bytes, want the outcome's %d", d.Name, d.Title, len(d.Markdown), len(text))
				}
			}
			if !strings.HasPrefix(docs[0].Markdown, "# Transcript: Cities should ban private cars") {
				t.Errorf("transcript.md begins %.60q", docs[0].Markdown)
			}
		})
	}
}

// TestVerdictAndDocumentsOfMadeOutcomes: every verdict, and the documents,
// of outcomes made by hand.
func TestVerdictAndDocumentsOfMadeOutcomes(t *testing.T) {
	docs := Documents{Transcript: "# T\n", Summary: "# S\n", BlogPost: "# B\n", AssessorReport: "# A\n"}
	noBlog := docs
	noBlog.BlogPost = ""
	all := []string{FileTranscript, FileSummary, FileBlogPost, FileAssessorReport}
	for _, tc := range []struct {
		name  string
		o     Outcome
		want  engine.Verdict
		files []string
	}{
		{"promoter", Outcome{Decision: VerdictAffirmativeWins, Docs: docs},
			engine.Verdict{Winner: "promoter", Summary: "promoter wins"}, all},
		{"detractor", Outcome{Decision: VerdictNegativeWins, Docs: docs},
			engine.Verdict{Winner: "detractor", Summary: "detractor wins"}, all},
		{"promoter by rule", Outcome{Decision: VerdictAffirmativeWins, Disqualified: []Speaker{SpeakerDetractor}, Docs: docs},
			engine.Verdict{Winner: "promoter", Summary: "promoter wins (rule 12: detractor disqualified)"}, all},
		{"draw", Outcome{Decision: VerdictDraw, Docs: docs}, engine.Verdict{Draw: true, Summary: "draw"}, all},
		{"void", Outcome{Decision: VerdictVoid, Disqualified: []Speaker{SpeakerPromoter, SpeakerDetractor}, Docs: noBlog},
			engine.Verdict{Void: true, Summary: "void (rule 12: promoter and detractor disqualified)"},
			[]string{FileTranscript, FileSummary, FileAssessorReport}},
		{"no verdict", Outcome{}, engine.Verdict{Summary: "no verdict"},
			[]string{FileTranscript, FileSummary, FileAssessorReport}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.o.Verdict()); diff != "" {
				t.Errorf("Verdict() (-want +got):\n%s", diff)
			}
			got := tc.o.Documents()
			if diff := cmp.Diff(tc.files, docNames(got)); diff != "" {
				t.Errorf("documents (-want +got):\n%s", diff)
			}
			for _, d := range got {
				if d.Title == "" || !strings.HasSuffix(d.Name, ".md") {
					t.Errorf("document %+v", d)
				}
			}
		})
	}
	// Titles, and the texts in the order of the seed's directory.
	want := []engine.Document{
		{Name: FileTranscript, Title: "Transcript", Markdown: "# T\n"},
		{Name: FileSummary, Title: "Summary", Markdown: "# S\n"},
		{Name: FileBlogPost, Title: "Blog post", Markdown: "# B\n"},
		{Name: FileAssessorReport, Title: "Assessor's report", Markdown: "# A\n"},
	}
	if diff := cmp.Diff(want, (&Outcome{Docs: docs}).Documents()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
