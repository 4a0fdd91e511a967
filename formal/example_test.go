package formal_test

import (
	"context"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/formal"
	"github.com/duelogic/duelogic/llm"
)

// A formal debate on the offline stub model. The verifier checks sources
// with the LLM judge alone (JudgeOnly), so nothing is fetched; set
// cfg.OutputDir to have the documents written. The session clock is pinned
// so that the entries' timestamps and the sources' dates are too; the
// stub's debate takes the same course whatever the date.
func Example() {
	cfg := formal.DefaultConfig()
	cfg.MinRounds, cfg.MaxRounds = 1, 2
	now := func() time.Time { return time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC) }
	res, err := formal.Run(context.Background(), llm.NewStub(2), cfg,
		duelogic.Debate{Proposition: "Cities should ban cars from their centres."},
		formal.WithVerifier(formal.JudgeOnly), formal.WithClock(now))
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range res.Entries[:6] {
		fmt.Printf("#%d %s: %s\n", e.Seq, e.Speaker, e.Type)
	}
	fmt.Println("rounds:", res.Rounds, res.EndedBy)
	fmt.Println("outcome:", res.Outcome)
	fmt.Println("struck entries:", len(res.Redactions))
	fmt.Println("blog post:", res.Documents.BlogPost != "")
	// Output:
	// #0 chair: setup
	// #1 chair: announcement
	// #2 promoter: opening_statement
	// #3 detractor: opening_statement
	// #4 chair: announcement
	// #5 chair: announcement
	// rounds: 2 max_rounds
	// outcome: affirmative_wins
	// struck entries: 1
	// blog post: true
}

// The log in the seed's JSONL schema, and back.
func ExampleExportLog() {
	at := time.Date(2026, 2, 21, 14, 0, 0, 0, time.UTC)
	entries := []formal.Entry{
		{Seq: 0, Timestamp: at, Phase: formal.PhaseSystem, Speaker: formal.SpeakerChair, Type: formal.TypeSetup,
			Content: "Debate session initialised. Chair is ready."},
		{Seq: 1, Timestamp: at, Phase: formal.PhaseOpening, Speaker: formal.SpeakerPromoter, Type: formal.TypeOpeningStatement,
			Content: "Traffic fell by 40%.", Sources: []formal.Source{{URL: "https://example.org/r", Title: "R", Accessed: "2026-02-21"}}},
	}
	var b strings.Builder
	if err := formal.ExportLog(&b, entries); err != nil {
		log.Fatal(err)
	}
	fmt.Print(b.String())
	back, err := formal.ImportLog(strings.NewReader(b.String()))
	fmt.Println(len(back), err)

	_, err = formal.ImportLog(strings.NewReader(strings.Replace(b.String(), `"seq":1`, `"seq":2`, 1)))
	fmt.Println(err)
	// Output:
	// {"seq":0,"timestamp":"2026-02-21T14:00:00Z","phase":"system","speaker":"chair","type":"setup","content":"Debate session initialised. Chair is ready.","sources":null,"rebuttal_to_seq":null,"target_seq":null}
	// {"seq":1,"timestamp":"2026-02-21T14:00:00Z","phase":"opening","speaker":"promoter","type":"opening_statement","content":"Traffic fell by 40%.","sources":[{"url":"https://example.org/r","title":"R","accessed":"2026-02-21"}],"rebuttal_to_seq":null,"target_seq":null}
	// 2 <nil>
	// formal: invalid log: line 2: seq 2, want 1
}

// Sources are fetched, never from a private, loopback or link-local
// address.
func ExampleHTTPVerifier() {
	v := formal.NewHTTPVerifier(formal.HTTPOptions{Timeout: 5 * time.Second})
	res, err := v.Verify(context.Background(), formal.Source{URL: "http://169.254.169.254/latest/meta-data/", Title: "Metadata"}, "")
	fmt.Println(res.Status, err)
	fmt.Println(res.Reason)
	// Output:
	// unreliable <nil>
	// The URL leads to a private, loopback or otherwise non-public address, which is not checked.
}
