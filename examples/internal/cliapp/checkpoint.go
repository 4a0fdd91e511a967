package cliapp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/duelogic/duelogic/engine"
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
// goroutine starts at the first checkpoint and ends at the end of input, or
// once stop is called and its read returns (a read from a terminal cannot
// be interrupted: then it ends with the program).
type lines struct {
	r    io.Reader
	once sync.Once
	c    chan string   // closed at the end of input
	done chan struct{} // closed by stop
	// echo repeats the answers read, when the input is not a terminal
	// (which echoes them itself), so that the output reads as a dialogue.
	echo bool
}

func newLines(r io.Reader) *lines {
	f, ok := r.(*os.File)
	return &lines{r: r, c: make(chan string), done: make(chan struct{}), echo: !ok || !isTerminal(f)}
}

// stop says that nothing more will be asked: the lines read are not kept.
func (l *lines) stop() { close(l.done) }

// next returns the next trimmed line; false at the end of input or when ctx
// is done first.
func (l *lines) next(ctx context.Context) (string, bool) {
	l.once.Do(func() {
		go func() {
			defer close(l.c)
			sc := bufio.NewScanner(l.r)
			for sc.Scan() {
				select {
				case l.c <- strings.TrimSpace(sc.Text()):
				case <-l.done:
					return
				}
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

// prompter writes to the person asked: the renderer, which prints nothing
// else meanwhile and neutralises control characters (render.Renderer.Prompt).
type prompter interface {
	Prompt(text string)
}

// askCheckpoint shows the [C]ontinue [G]uide [E]nd prompt on w and reads the
// choice (and, for guide, a line of guidance). Unknown answers are asked
// again; the end of input, or of ctx, is actPause.
func askCheckpoint(ctx context.Context, in *lines, w prompter, heading, summary string) (checkpointAction, string) {
	text := fmt.Sprintf("\n═══ %s ═══\n", heading)
	if summary != "" {
		text += fmt.Sprintf("Moderator: %s\n", summary)
	}
	w.Prompt(text)
	for {
		w.Prompt("\n[C]ontinue  [G]uide  [E]nd early\n> ")
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
			w.Prompt("Your guidance: ")
			g, ok := in.answer(ctx, w)
			if !ok {
				return actPause, ""
			}
			if g == "" {
				return actContinue, ""
			}
			return actGuide, g
		default:
			w.Prompt(fmt.Sprintf("%q: answer c, g or e\n", line))
		}
	}
}

// answer reads the person's answer to a prompt on w: at the end of input
// (or of ctx) it ends the prompt's line and reports false; piped input is
// echoed after the prompt, as a terminal would show it.
func (in *lines) answer(ctx context.Context, w prompter) (string, bool) {
	line, ok := in.next(ctx)
	if !ok {
		w.Prompt("\n")
		return "", false
	}
	if in.echo {
		w.Prompt(line + "\n")
	}
	return line, true
}

// askClarification shows the moderator's clarifying question on w and
// reads the answer: a line, or "" (an empty line, the end of input or of
// ctx) for the moderator's assumption.
func askClarification(ctx context.Context, in *lines, w prompter, question, assumption string) string {
	w.Prompt(fmt.Sprintf("\n═══ Clarifying question ═══\nModerator: %s\nWithout an answer I will assume: %s\n\nYour answer (Enter: go with that)\n> ",
		oneLine(question), oneLine(assumption)))
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
func askApproval(ctx context.Context, in *lines, w prompter) (approvalAction, string) {
	w.Prompt("\n═══ Your decision ═══\n")
	for {
		w.Prompt("[A]pprove  [R]eject  [S]kip this synthesis\n> ")
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
			w.Prompt("Why (optional): ")
			note, _ := in.answer(ctx, w)
			return actReject, note
		default:
			w.Prompt(fmt.Sprintf("%q: answer a, r or s\n", line))
		}
	}
}

// askYes asks a yes/no question; only y or yes is yes.
func askYes(ctx context.Context, in *lines, w prompter, question string) bool {
	w.Prompt(fmt.Sprintf("\n%s [y/N]\n> ", question))
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

// showLimit is the longest a question waits for the event it follows to be
// shown: far longer than the engine takes to hand the renderer an event it
// stored, for a format that no longer announces that event.
const showLimit = 5 * time.Second

// ask puts a question to the person at the terminal, after the event that
// after matches. The engine gives the renderer the debate's events from a
// goroutine of its own, once it has stored them, while the format's
// goroutine goes on to call the hook that asks: so ask first waits until
// the renderer has shown that event — the last the format announces
// before it asks — and every event before it. Then q writes the question
// and reads the answer through p, the renderer, which holds the events that
// come meanwhile and prints them once q returns: the question is printed
// whole, after the events emitted before it, and nothing inside it.
func ask[T any](ctx context.Context, e *env, after func(engine.Event) bool, q func(p prompter) T) T {
	e.render.Await(ctx, after, showLimit)
	defer e.render.Answered()
	return q(e.render)
}
