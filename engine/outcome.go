package engine

// Outcome is what every format's outcome ([Result.Detail]) tells in common:
// who won, and the documents the debate produced. Every built-in format's
// outcome implements it, so a front end, a job queue or an evaluation
// harness handles a debate of any format without knowing it (see [Open]).
type Outcome interface {
	// Verdict says how the debate ended.
	Verdict() Verdict
	// Documents returns the format's documents, Markdown: at least one.
	Documents() []Document
}

// Verdict is how a debate ended, in terms every format shares.
type Verdict struct {
	// Winner is the speaker ID of the side that won; "" when none did or
	// the format names no winner.
	Winner string `json:"winner,omitempty"`
	// Draw: the format decides winners and none won.
	Draw bool `json:"draw,omitempty"`
	// Void: the debate was voided (formal: both sides disqualified).
	Void bool `json:"void,omitempty"`
	// Summary is one line for a list or a log, e.g. "promoter wins (rule
	// 12: detractor disqualified)".
	Summary string `json:"summary"`
}

// Document is one document a debate produced.
type Document struct {
	// Name is a file name: "summary.md", "decision.md".
	Name string `json:"name"`
	// Title is what a reader calls it: "Summary", "Decision".
	Title string `json:"title"`
	// Markdown is the document.
	Markdown string `json:"markdown"`
}
