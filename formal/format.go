package formal

import (
	"context"
	"log/slog"
	"time"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
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
	PurposeVerdict            = "formal_verdict"          // the chair's outcome (JSON)
	PurposeAudienceConclusion = "audience_conclusion"     // the audience's final 200-400 words
	PurposeSummary            = "formal_summary"          // the reporter's summary.md
	PurposeBlogPost           = "formal_blog_post"        // the reporter's blog-post.md
	PurposeAssessment         = "assessment"              // the assessor's assessor-report.md
)

// Segments of a formal debate (duelogic.Session.Segment), in order.
// Verification calls, which run beside them, are labelled
// SegmentVerification in errors.
const (
	SegmentSetup        duelogic.Segment = "setup"
	SegmentOpening      duelogic.Segment = "opening"
	SegmentRounds       duelogic.Segment = "rounds"
	SegmentClosing      duelogic.Segment = "closing"
	SegmentConclusion   duelogic.Segment = "conclusion"
	SegmentReport       duelogic.Segment = "report"
	SegmentVerification duelogic.Segment = "verification"
)

// Record types a formal debate writes besides the engine's.
const (
	RecordSetup        = "formal_setup"        // start time and output directory
	RecordEntry        = "formal_entry"        // one log entry (see EntriesFromRecords)
	RecordTurn         = "formal_turn"         // a debater's accepted reply
	RecordVerification = "formal_verification" // a finding on one source
	RecordReview       = "formal_review"       // the findings the chair applied at a review
	RecordDecision     = "formal_decision"     // audience questions, relays, ends of rounds, the verdict
	RecordDocument     = "formal_document"     // a document, or the files written
)

// Event types a formal debate emits.
const (
	// EventEntry announces a log entry: Data is the Entry, Utterance a view
	// of it (Kind is the entry type) for sinks that show utterances.
	EventEntry duelogic.EventType = "formal_entry"
	// EventVerification announces a finding on a source, made beside the
	// debate: Data is a Finding.
	EventVerification duelogic.EventType = "formal_verification"
)

// End says why the debate rounds ended.
type End string

// The ends of the rounds.
const (
	EndMaxRounds         End = "max_rounds"
	EndNaturalConclusion End = "natural_conclusion"
	EndTimeBudget        End = "time_budget"
)

// Finding is a verification of one source of one entry.
type Finding struct {
	// Seq is the entry citing the source; Index the source's place in its
	// Sources.
	Seq          int          `json:"seq"`
	Index        int          `json:"index"`
	Source       Source       `json:"source"`
	Verification Verification `json:"verification"`
}

// Option configures [Run], [Resume] and [New].
type Option func(*settings)

type settings struct {
	engine   []duelogic.Option
	verifier func(judge SourceVerifier) SourceVerifier
}

// WithStore sets where the debate is recorded (default: a new in-memory
// store). Like the other engine options it takes effect through Run and
// Resume; a Format given to duelogic.RunFormat uses the options given there.
func WithStore(st store.Store) Option {
	return func(s *settings) { s.engine = append(s.engine, duelogic.WithStore(st)) }
}

// WithSink sets who hears the debate's events (default: nobody).
func WithSink(sink duelogic.EventSink) Option {
	return func(s *settings) { s.engine = append(s.engine, duelogic.WithSink(sink)) }
}

// WithClock sets the session clock: entry timestamps, the output directory's
// name and the time budget read it (default: time.Now).
func WithClock(now func() time.Time) Option {
	return func(s *settings) { s.engine = append(s.engine, duelogic.WithClock(now)) }
}

// WithLogger sets the logger for what the debate notices but survives (an
// unreadable audience reply, say).
func WithLogger(l *slog.Logger) Option {
	return func(s *settings) { s.engine = append(s.engine, duelogic.WithLogger(l)) }
}

// WithPromptHook lets the host see or rewrite every call's messages.
func WithPromptHook(h func(purpose string, msgs []llm.Message) []llm.Message) Option {
	return func(s *settings) { s.engine = append(s.engine, duelogic.WithPromptHook(h)) }
}

// WithVerifier sets how sources are checked: build gets the debate's LLM
// judge (an [LLMVerifier] on the verifier model, called through the debate's
// client) and returns the verifier to use. The default is
//
//	func(judge SourceVerifier) SourceVerifier {
//		return Combine(NewHTTPVerifier(HTTPOptions{}), judge)
//	}
//
// which fetches every cited page; [JudgeOnly] checks offline.
func WithVerifier(build func(judge SourceVerifier) SourceVerifier) Option {
	return func(s *settings) { s.verifier = build }
}

func defaultVerifier(judge SourceVerifier) SourceVerifier {
	return Combine(NewHTTPVerifier(HTTPOptions{}), judge)
}

// Format is the formal debate as a [duelogic.Format]: hosts that run
// formats generically give it to duelogic.RunFormat and ResumeFormat; others
// call [Run] and [Resume]. Its exported (embedded) Config is stored with the
// debate; a Format plays one debate at a time.
type Format struct {
	Config
	set  settings
	last *play
}

// New returns the format for cfg.
func New(cfg Config, opts ...Option) *Format {
	f := &Format{Config: cfg, set: settings{verifier: defaultVerifier}}
	for _, o := range opts {
		o(&f.set)
	}
	return f
}

// Name returns FormatName.
func (f *Format) Name() string { return FormatName }

// Play runs the debate on s; see the package documentation for its course.
func (f *Format) Play(ctx context.Context, s *duelogic.Session) error {
	if err := f.Config.Validate(); err != nil {
		return err
	}
	p := newPlay(f.Config, s, f.set.verifier)
	f.last = p
	return p.run(ctx)
}

// Result is a finished formal debate.
type Result struct {
	DebateID string          `json:"debateId"`
	Debate   duelogic.Debate `json:"debate"`
	Config   Config          `json:"config"`
	Outcome  Outcome         `json:"outcome"`
	Reason   string          `json:"reason"`
	// Rounds is how many rounds were played; EndedBy why they ended.
	Rounds  int `json:"rounds"`
	EndedBy End `json:"endedBy"`
	// Entries is the debate log with redacted content struck (see
	// [Strike]); the store keeps it as it was said.
	Entries    []Entry     `json:"entries"`
	Redactions []Redaction `json:"redactions,omitempty"`
	// Documents are the documents' texts; Dir the output directory they were
	// written to and Files their paths ("" and nil without Config.OutputDir).
	Documents Documents `json:"documents"`
	Dir       string    `json:"dir,omitempty"`
	Files     []string  `json:"files,omitempty"`
	// Usage is the total of every call; UsageBySpeaker splits it by
	// participant.
	Usage          llm.Usage            `json:"usage"`
	UsageBySpeaker map[string]llm.Usage `json:"usageBySpeaker"`
}

// Documents are the texts of a debate's documents, in Markdown.
type Documents struct {
	Transcript     string `json:"transcript"`     // transcript.md, rendered from the log
	Summary        string `json:"summary"`        // summary.md, by the reporter
	BlogPost       string `json:"blogPost"`       // blog-post.md, by the reporter; "" on a void debate
	AssessorReport string `json:"assessorReport"` // assessor-report.md, by the assessor
}

// Result returns the result of the debate f last played, given the engine's
// result of it; nil if f has not finished a debate.
func (f *Format) Result(res *duelogic.Result) *Result {
	p := f.last
	if p == nil || res == nil || !p.done {
		return nil
	}
	return &Result{
		DebateID:       res.DebateID,
		Debate:         res.Debate,
		Config:         f.Config,
		Outcome:        p.verdict.Outcome,
		Reason:         p.verdict.Reason,
		Rounds:         p.rounds,
		EndedBy:        p.endedBy,
		Entries:        Strike(p.log),
		Redactions:     p.redactions(),
		Documents:      p.docs,
		Dir:            p.dir,
		Files:          p.files,
		Usage:          res.Usage,
		UsageBySpeaker: res.UsageBySpeaker,
	}
}

// Run plays a formal debate of d from the start with client for every
// model call (each participant's requests carry its model ID from cfg) and
// returns its result. It fails before any model call when cfg or d is
// invalid. A model error, an unusable reply ([ErrInvalidReply]), a store
// error or ctx's end stops the debate; what was said stays stored, and
// [Resume] finishes it.
func Run(ctx context.Context, client llm.Client, cfg Config, d duelogic.Debate, opts ...Option) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	f := New(cfg, opts...)
	res, err := duelogic.RunFormat(ctx, client, f, d, f.set.engine...)
	if err != nil {
		return nil, err
	}
	return f.Result(res), nil
}

// Resume continues a stopped formal debate from the records in the store
// (WithStore), with the configuration stored when it started: stored steps
// are replayed, nothing stored is asked again, and the debate continues at
// the first step not stored. Resuming a finished debate returns its result
// without calling a model or writing a file.
func Resume(ctx context.Context, client llm.Client, debateID string, opts ...Option) (*Result, error) {
	f := New(Config{}, opts...)
	res, err := duelogic.ResumeFormat(ctx, client, f, debateID, f.set.engine...)
	if err != nil {
		return nil, err
	}
	return f.Result(res), nil
}
