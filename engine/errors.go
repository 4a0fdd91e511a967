package engine

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors callers branch on.
var (
	// ErrInvalidDebate: the Debate (ID, proposition, context) is unusable.
	ErrInvalidDebate = errors.New("engine: invalid debate")
	// ErrDebateExists: Run was given the ID of a debate the store holds.
	ErrDebateExists = errors.New("engine: debate already exists")
	// ErrAlreadyRunning: Run or Resume of a debate this process is playing
	// on the same store.
	ErrAlreadyRunning = errors.New("engine: debate already running")
	// ErrCorruptLog: the stored records do not describe a debate this
	// engine can continue.
	ErrCorruptLog = errors.New("engine: corrupt debate log")
	// ErrUnsupportedOption: an option was given to a format that cannot
	// honour it; the debate does not start rather than run without it.
	ErrUnsupportedOption = errors.New("engine: option not supported by this format")
	// ErrInvalidConfig is matched (errors.Is) by every format's
	// configuration error, a [*ValidationError].
	ErrInvalidConfig = errors.New("engine: invalid config")
	// ErrSinkPanicked: the event sink panicked. The debate stops at once
	// (the record the event announced is stored, and Resume continues);
	// the panic is logged ([WithLogger]) and named in the error.
	ErrSinkPanicked = errors.New("engine: event sink panicked")
	// ErrMisuse: a Format used its Session against the engine's contract —
	// a step key used twice, a record type the engine owns, a step or a
	// model call after Play returned. enginetest's rules fail on it.
	ErrMisuse = errors.New("engine: format misuses its session")
	// ErrEmptyReply: the model answered a speech with nothing, and again
	// when asked once more; it is wrapped by the [*TurnError] that stops
	// the debate (a resume asks again).
	ErrEmptyReply = errors.New("engine: empty reply")
)

// TurnError is the error that stops a debate when a model call fails: it
// names the segment, the speaker and the purpose of the call, and wraps the
// cause. Everything said before it is stored; [Resume] continues.
type TurnError struct {
	Segment Segment
	Speaker string
	Purpose string
	Err     error
}

// Error says where the debate stopped and why.
func (e *TurnError) Error() string {
	return fmt.Sprintf("engine: %s segment, %s (%s): %v", e.Segment, e.Speaker, e.Purpose, e.Err)
}

// Unwrap returns the cause.
func (e *TurnError) Unwrap() error { return e.Err }

// Violation is one problem of a configuration: the JSON path of the field
// and why.
type Violation struct {
	Field   string `json:"field"`
	Problem string `json:"problem"`
}

// ValidationError lists every violation of a configuration. Every format's
// Validate returns one; errors.Is(err, ErrInvalidConfig) holds for it and
// errors.As gives the list.
type ValidationError struct {
	// Format names the format whose configuration this is ("" when
	// unknown).
	Format     string
	Violations []Violation
}

// Error lists the violations as "field: problem" separated by "; ".
func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString(ErrInvalidConfig.Error())
	if e.Format != "" {
		b.WriteString(" (" + e.Format + ")")
	}
	for i, v := range e.Violations {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(v.Field + ": " + v.Problem)
	}
	return b.String()
}

// DebateError is [ValidateDebate]'s error: every problem of a [Debate], by
// field ("id", "proposition", "context") and what is wrong with it ("is
// empty"). errors.Is(err, ErrInvalidDebate) holds.
type DebateError struct {
	Violations []Violation
}

// Error reads "engine: invalid debate: proposition is empty; context has
// ...".
func (e *DebateError) Error() string {
	var b strings.Builder
	b.WriteString(ErrInvalidDebate.Error())
	for i, v := range e.Violations {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(v.Field + " " + v.Problem)
	}
	return b.String()
}

// Unwrap returns ErrInvalidDebate.
func (e *DebateError) Unwrap() error { return ErrInvalidDebate }

// add records that field has problem, formatted with args.
func (e *DebateError) add(field, problem string, args ...any) {
	e.Violations = append(e.Violations, Violation{Field: field, Problem: fmt.Sprintf(problem, args...)})
}

// Unwrap returns ErrInvalidConfig.
func (e *ValidationError) Unwrap() error { return ErrInvalidConfig }

// Add records that field has problem (formatted with args).
func (e *ValidationError) Add(field, problem string, args ...any) {
	if len(args) > 0 {
		problem = fmt.Sprintf(problem, args...)
	}
	e.Violations = append(e.Violations, Violation{Field: field, Problem: problem})
}

// Err returns e when it holds a violation, else nil: the last line of a
// Validate method.
func (e *ValidationError) Err() error {
	if len(e.Violations) == 0 {
		return nil
	}
	return e
}
