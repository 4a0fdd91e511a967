package cliapp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// checkpointAction is a person's choice at a checkpoint.
type checkpointAction int

const (
	actContinue checkpointAction = iota
	actGuide
	actEnd
	actPause // end of input, or the checkpoint's time ran out
)

// lines reads standard input a line at a time, on demand, so that a
// checkpoint can wait for an answer and for its context at once. Its
// goroutine starts at the first checkpoint and ends at the end of input (or
// with the program: a read from a terminal cannot be interrupted).
type lines struct {
	r    io.Reader
	once sync.Once
	c    chan string // closed at the end of input
	// echo repeats the answers read, when the input is not a terminal
	// (which echoes them itself), so that the output reads as a dialogue.
	echo bool
}

func newLines(r io.Reader) *lines {
	f, ok := r.(*os.File)
	return &lines{r: r, c: make(chan string), echo: !ok || !isTerminal(f)}
}

// next returns the next trimmed line; false at the end of input or when ctx
// is done first.
func (l *lines) next(ctx context.Context) (string, bool) {
	l.once.Do(func() {
		go func() {
			defer close(l.c)
			sc := bufio.NewScanner(l.r)
			for sc.Scan() {
				l.c <- strings.TrimSpace(sc.Text())
			}
		}()
	})
	select {
	case line, ok := <-l.c:
		return line, ok
	case <-ctx.Done():
		return "", false
	}
}

// askCheckpoint shows the [C]ontinue [G]uide [E]nd prompt on w and reads the
// choice (and, for guide, a line of guidance). Unknown answers are asked
// again; the end of input, or of ctx, is actPause.
func askCheckpoint(ctx context.Context, in *lines, w io.Writer, heading, summary string) (checkpointAction, string) {
	fmt.Fprintf(w, "\n═══ %s ═══\n", heading)
	if summary != "" {
		fmt.Fprintf(w, "Moderator: %s\n", summary)
	}
	for {
		fmt.Fprint(w, "\n[C]ontinue  [G]uide  [E]nd early\n> ")
		line, ok := in.answer(ctx, w)
		if !ok {
			return actPause, ""
		}
		switch strings.ToLower(line) {
		case "", "c", "continue":
			return actContinue, ""
		case "e", "end":
			return actEnd, ""
		case "g", "guide":
			fmt.Fprint(w, "Your guidance: ")
			g, ok := in.answer(ctx, w)
			if !ok {
				return actPause, ""
			}
			if g == "" {
				return actContinue, ""
			}
			return actGuide, g
		default:
			fmt.Fprintf(w, "%q: answer c, g or e\n", line)
		}
	}
}

// answer reads the person's answer to a prompt on w: at the end of input
// (or of ctx) it ends the prompt's line and reports false; piped input is
// echoed after the prompt, as a terminal would show it.
func (in *lines) answer(ctx context.Context, w io.Writer) (string, bool) {
	line, ok := in.next(ctx)
	if !ok {
		fmt.Fprintln(w)
		return "", false
	}
	if in.echo {
		fmt.Fprintln(w, line)
	}
	return line, true
}

// askClarification shows the moderator's clarifying question on w and
// reads the answer: a line, or "" (an empty line, the end of input or of
// ctx) for the moderator's assumption.
func askClarification(ctx context.Context, in *lines, w io.Writer, question, assumption string) string {
	fmt.Fprintf(w, "\n═══ Clarifying question ═══\nModerator: %s\n", oneLine(question))
	fmt.Fprintf(w, "Without an answer I will assume: %s\n\nYour answer (Enter: go with that)\n> ", oneLine(assumption))
	line, ok := in.answer(ctx, w)
	if !ok {
		return ""
	}
	return line
}

// approvalAction is a person's answer about the synthesis.
type approvalAction int

const (
	actSkip approvalAction = iota // no review: an empty answer, the end of input
	actApprove
	actReject
)

// askApproval asks whether the synthesis is approved, and for a rejection
// why (optional). Unknown answers are asked again.
func askApproval(ctx context.Context, in *lines, w io.Writer) (approvalAction, string) {
	fmt.Fprint(w, "\n═══ Your decision ═══\n")
	for {
		fmt.Fprint(w, "[A]pprove  [R]eject  [S]kip this synthesis\n> ")
		line, ok := in.answer(ctx, w)
		if !ok {
			return actSkip, ""
		}
		switch strings.ToLower(line) {
		case "", "s", "skip":
			return actSkip, ""
		case "a", "approve":
			return actApprove, ""
		case "r", "reject":
			fmt.Fprint(w, "Why (optional): ")
			note, _ := in.answer(ctx, w)
			return actReject, note
		default:
			fmt.Fprintf(w, "%q: answer a, r or s\n", line)
		}
	}
}

// askYes asks a yes/no question; only y or yes is yes.
func askYes(ctx context.Context, in *lines, w io.Writer, question string) bool {
	fmt.Fprintf(w, "\n%s [y/N]\n> ", question)
	line, ok := in.answer(ctx, w)
	if !ok {
		return false
	}
	switch strings.ToLower(line) {
	case "y", "yes":
		return true
	}
	return false
}
