package formal

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/duelogic/duelogic/engine"
)

// FormatName names the formal format in a debate's first record.
const FormatName = "formal"

// Purpose values put on the requests of a formal debate.
const (
	PurposeTurn               = "formal_turn"             // a debater's opening, round turn or closing (JSON)
	PurposeVerification       = "verification"            // the LLM judge's finding on a source (JSON)
	PurposeAudienceQuestions  = "audience_questions"      // the audience's questions after a round (JSON)
	PurposeRelay              = "formal_relay"            // the chair's choice of questions to relay (JSON)
	PurposeConclusionCheck    = "formal_conclusion_check" // the chair: has the debate run its course? (JSON)
	PurposeVerdict            = "formal_verdict"          // the chair's verdict (JSON)
	PurposeAudienceConclusion = "audience_conclusion"     // the audience's final 200-400 words
	PurposeSummary            = "formal_summary"          // the reporter's summary.md
	PurposeBlogPost           = "formal_blog_post"        // the reporter's blog-post.md
	PurposeAssessment         = "assessment"              // the assessor's assessor-report.md
	PurposeClarification      = "formal_clarification"    // the chair's ruling on a request for clarification (JSON)
	PurposePointOfOrder       = "formal_point_of_order"   // the chair's ruling on a point of order under rule 6 or 7 (JSON)
)

// Segments of a formal debate ([engine.Session.Segment]), in order.
// Verification calls, which run beside them, are labelled
// SegmentVerification in errors and events.
const (
	SegmentSetup        engine.Segment = "setup"
	SegmentOpening      engine.Segment = "opening"
	SegmentRounds       engine.Segment = "rounds"
	SegmentClosing      engine.Segment = "closing"
	SegmentConclusion   engine.Segment = "conclusion"
	SegmentReport       engine.Segment = "report"
	SegmentVerification engine.Segment = "verification"
)

// Record types a formal debate writes besides the engine's (every log entry
// is also said: an [engine.RecordUtterance] record follows its
// RecordEntry).
const (
	RecordSetup        = "formal_setup"        // start time and output directory
	RecordEntry        = "formal_entry"        // one log entry (see EntriesFromRecords)
	RecordTurn         = "formal_turn"         // a debater's accepted reply
	RecordVerification = "formal_verification" // a finding on one source
	RecordReview       = "formal_review"       // the findings the chair applied at a review
	RecordDecision     = "formal_decision"     // audience questions, relays, ends of rounds, the verdict
	RecordDocument     = "formal_document"     // a document, or the files written
)

// Event types a formal debate emits besides the engine's
// (debate_started, segment_started and segment_ended, utterance — one for
// every log entry, right after its EventEntry — and debate_ended, whose
// [engine.Ended] Detail is the [*Outcome]).
const (
	// EventEntry announces a log entry; Data is an [Entry] (decode it
	// with engine.DataAs[formal.Entry]), as said: the entry is struck
	// from the outputs only once the chair redacts it.
	EventEntry engine.EventType = "formal_entry"
	// EventSetup announces the debate's setup, the seed's Steps B and C:
	// the topic and the output directory created (Data a [Setup]).
	EventSetup engine.EventType = "formal_setup"
	// EventVerification announces a finding on a source, made beside the
	// debate (segment SegmentVerification, speaker "verifier"); Data is a
	// [Finding].
	EventVerification engine.EventType = "formal_verification"
)

// End says why the debate rounds ended.
type End string

// The ends of the rounds.
const (
	EndMaxRounds         End = "max_rounds"
	EndNaturalConclusion End = "natural_conclusion"
	EndTimeBudget        End = "time_budget"
	// EndDisqualification: a debater was disqualified under rule 12, so
	// the rounds ended at once (Outcome.Rounds counts those begun).
	EndDisqualification End = "disqualification"
)

// Setup is the data of [EventSetup].
type Setup struct {
	// Topic is the debate's proposition.
	Topic string `json:"topic"`
	// Started is when the debate started (UTC); it names the output
	// directory ([DirName]).
	Started time.Time `json:"started"`
	// Dir is the output directory the debate created, where its log is
	// appended as it goes and its documents are written at its end; ""
	// without Config.OutputDir.
	Dir string `json:"dir,omitempty"`
}

// Finding is a verification of one source of one entry.
type Finding struct {
	// Seq is the entry citing the source; Index the source's place in its
	// Sources.
	Seq          int          `json:"seq"`
	Index        int          `json:"index"`
	Source       Source       `json:"source"`
	Verification Verification `json:"verification"`
}

// Format is the formal debate as an [engine.Format]: make one with [New]
// (or [engine.Open]) and give it to [engine.Run]. Its exported (embedded)
// Config is its configuration, and its JSON is the Config's: that is what
// engine.Run stores with the debate. To resume, give [engine.Resume] a
// &Format{} — the stored configuration is decoded into it, whatever it held
// — or call [engine.ResumeStored], which opens the format by the name
// stored with the debate. Its hooks ([Option]) are not stored: to resume
// with a verifier other than the default, give them to [New] and resume
// with that Format. A Format holds no state of a debate, so it may play
// several at once.
type Format struct {
	Config
	verifier func(judge SourceVerifier) SourceVerifier
}

// An Option configures a [Format]: the formal debate's own behaviour.
// The engine's options (store, sink, clock, logger, prompt hook, argument
// map) are given to [engine.Run] and [engine.Resume].
type Option func(*Format)

// WithVerifier sets how sources are checked: build gets the debate's LLM
// judge (an [LLMVerifier] on the verifier model, called through the debate's
// client) and returns the verifier to use. The default is [JudgeOnly], which
// fetches nothing; [FetchThenJudge] fetches every cited page first.
func WithVerifier(build func(judge SourceVerifier) SourceVerifier) Option {
	return func(f *Format) { f.verifier = build }
}

// FetchThenJudge returns a verifier builder for [WithVerifier] that fetches
// every cited page with an [HTTPVerifier] configured by o and then asks the
// judge:
//
//	func(judge SourceVerifier) SourceVerifier {
//		return Combine(NewHTTPVerifier(o), judge)
//	}
func FetchThenJudge(o HTTPOptions) func(judge SourceVerifier) SourceVerifier {
	return func(judge SourceVerifier) SourceVerifier { return Combine(NewHTTPVerifier(o), judge) }
}

// New returns the format for cfg with opts, or cfg's [*engine.ValidationError].
// A zero field of cfg takes [DefaultConfig]'s value (see [Config] for the
// time budget), so New(Config{}) is the default debate.
func New(cfg Config, opts ...Option) (*Format, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	f := &Format{Config: cfg}
	for _, o := range opts {
		o(f)
	}
	return f, nil
}

// Name returns FormatName.
func (f *Format) Name() string { return FormatName }

// Purposes are the purposes of a formal debate's model calls, for
// [engine.Purposer].
func (f *Format) Purposes() []string {
	return []string{PurposeTurn, PurposeVerification, PurposeAudienceQuestions, PurposeRelay, PurposeConclusionCheck,
		PurposeVerdict, PurposeAudienceConclusion, PurposeSummary, PurposeBlogPost, PurposeAssessment, PurposeClarification,
		PurposePointOfOrder}
}

// Participants returns the debaters, "promoter" and "detractor": their
// turns are the ones argument mapping ([engine.WithArgumentMap]) maps.
// Part of [engine.Cast].
func (f *Format) Participants() []string {
	return []string{string(SpeakerPromoter), string(SpeakerDetractor)}
}

// Label names a speaker of the transcript for prompts and reports: "Chair"
// for [engine.SpeakerArbiter], "Promoter (affirmative)" and "Detractor
// (negative)" for the debaters, the capitalised name for the others. Part of
// [engine.Cast].
func (f *Format) Label(speaker string) string {
	switch Speaker(speaker) {
	case SpeakerPromoter, SpeakerDetractor:
		return capital(speaker) + " (" + Speaker(speaker).side() + ")"
	}
	if speaker == engine.SpeakerArbiter {
		return "Chair"
	}
	return capital(speaker)
}

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// JudgeModel is the chair's model, which extracts the arguments when
// argument mapping is on. Part of [engine.Cast].
func (f *Format) JudgeModel() string { return f.ChairModel }

// Propose is the seed's Step B for a debate given no topic, called by
// [engine.Run] when the debate's proposition is blank (an
// [engine.Proposer]): the topic prompt (Config.TopicPrompt) when it is
// set; else the answer of the debate's person, h, to [TopicQuestion]
// (kind [engine.QuestionTopic], free text). With nobody to ask (h nil: no
// [engine.WithHuman], or an unattended debate) or a blank answer, the
// error wraps [ErrNoTopic]; an error of h (such as [engine.ErrPaused]) is
// returned wrapped. Either way Run stops before anything is stored.
func (f *Format) Propose(ctx context.Context, d engine.Debate, h engine.Human) (string, error) {
	if t, err := f.Config.Topic(d.Proposition); err == nil || h == nil {
		return t, err
	}
	a, err := h.Ask(ctx, engine.Question{Kind: engine.QuestionTopic, Text: TopicQuestion})
	if err != nil {
		return "", fmt.Errorf("formal: asking for the topic: %w", err)
	}
	if t := strings.TrimSpace(a.Text); t != "" {
		return t, nil
	}
	return "", fmt.Errorf("%w (the answer to %q was blank)", ErrNoTopic, TopicQuestion)
}

// Play runs the debate on s and returns its outcome; see the package
// documentation for its course. It is called by [engine.Run] and
// [engine.Resume].
func (f *Format) Play(ctx context.Context, s *engine.Session) (*Outcome, error) {
	build := f.verifier
	if build == nil {
		build = JudgeOnly
	}
	p := newPlay(f.Config, s, build)
	if err := p.run(ctx); err != nil {
		return nil, err
	}
	return p.outcome(), nil
}

// Outcome is what a finished formal debate leaves besides the engine's
// result ([engine.Result] has its ID, transcript and usage): the chair's
// verdict, the log, the redactions and the documents. It is the Detail of
// the result, and an [engine.Outcome]: [Outcome.Verdict] and
// [Outcome.Documents] say the same in the terms every format shares.
type Outcome struct {
	// Decision is the chair's verdict (JSON "verdict"), Reason why.
	Decision Verdict `json:"verdict"`
	Reason   string  `json:"reason"`
	// Disqualified are the debaters disqualified under rule 12 for citing
	// a fabricated source; when any is, the verdict follows by rule (see
	// the package documentation).
	Disqualified []Speaker `json:"disqualified,omitempty"`
	// Started is when the debate started (UTC, as its setup step stored
	// it): it names the output directory ([DirName], [WriteOutput]).
	Started time.Time `json:"started"`
	// Rounds is how many rounds were played; EndedBy why they ended.
	Rounds  int `json:"rounds"`
	EndedBy End `json:"endedBy"`
	// Entries is the debate log with redacted content struck (see
	// [Strike]); the store keeps it as it was said.
	Entries    []Entry     `json:"entries"`
	Redactions []Redaction `json:"redactions,omitempty"`
	// Docs are the documents' texts (JSON "documents"; see also
	// [Outcome.Documents]); Dir the output directory they were written to
	// and Files their paths ("" and nil without Config.OutputDir).
	Docs  Documents `json:"documents"`
	Dir   string    `json:"dir,omitempty"`
	Files []string  `json:"files,omitempty"`
}

// Documents are the texts of a debate's documents, in Markdown.
type Documents struct {
	Transcript     string `json:"transcript"`     // transcript.md, rendered from the log
	Summary        string `json:"summary"`        // summary.md, by the reporter
	BlogPost       string `json:"blogPost"`       // blog-post.md, by the reporter; "" on a void debate
	AssessorReport string `json:"assessorReport"` // assessor-report.md, by the assessor
}
