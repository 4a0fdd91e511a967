package cliapp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/moderated"
)

// lines reads standard input a line at a time, on demand, so that a
// question can wait for an answer and for its context at once. Its
// goroutine starts at the first question and ends at the end of input, or
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

// answer reads the person's answer to a prompt on w: at the end of input
// (or of ctx) it ends the prompt's line and reports false; piped input is
// echoed after the prompt, as a terminal would show it.
func (l *lines) answer(ctx context.Context, w prompter) (string, bool) {
	line, ok := l.next(ctx)
	if !ok {
		w.Prompt("\n")
		return "", false
	}
	if l.echo {
		w.Prompt(line + "\n")
	}
	return line, true
}

// prompter writes to the person asked: the renderer, which prints nothing
// else meanwhile and neutralises control characters (render.Renderer.Prompt).
type prompter interface {
	Prompt(text string)
}

// showLimit is the longest a question waits for the event it follows to be
// shown: far longer than the engine takes to hand the renderer an event it
// stored, for a format that no longer announces that event.
const showLimit = 5 * time.Second

// human is the person at the terminal, who answers every question of every
// format (engine.WithHuman). The engine hands the renderer the debate's
// events from a goroutine of its own, once it has stored them, while the
// format's goroutine goes on to ask: so a question first waits until the
// renderer has shown the event it follows (follows, the format's; nil:
// none) and every event before it. Then it is asked through the renderer,
// which holds the events that come meanwhile and prints them once it is
// answered: the question is printed whole, after the events emitted before
// it, and nothing inside it.
func (e *env) human(follows func(engine.Question) func(engine.Event) bool) engine.Human {
	return engine.HumanFunc(func(ctx context.Context, q engine.Question) (engine.Answer, error) {
		if follows != nil {
			if after := follows(q); after != nil {
				e.render.Await(ctx, after, showLimit)
			}
		}
		defer e.render.Answered()
		return askPerson(ctx, e.stdin, e.render, q)
	})
}

// askPerson puts q to the person: its kind as a heading, its text, its
// choices, and reads the answer. An empty answer is the question's first
// choice (what happens when nobody answers), or "" for a free-text
// question; an answer that is not a choice is asked again. At the end of
// input a checkpoint, or a question of a kind the command does not know,
// pauses the debate (engine.ErrPaused: --resume asks again); the other
// questions take what nothing else decides — the clarification keeps the
// moderator's assumption (nothing has been debated yet, and the first
// checkpoint is where a debate whose input ended pauses), the synthesis
// stays unreviewed, no workflow is made, and a debate asking for its topic
// has none (it does not start). When ctx ends first — the time the debate
// gives an answer ran out (its cause is then engine.ErrPaused, and the
// debate pauses there), or the debate was stopped — no question is
// answered: the error wraps ctx's cause.
func askPerson(ctx context.Context, in *lines, w prompter, q engine.Question) (engine.Answer, error) {
	a, err := readAnswer(ctx, in, w, q)
	if ctx.Err() != nil {
		return engine.Answer{}, fmt.Errorf("the %s question was not answered: %w", q.Kind, context.Cause(ctx))
	}
	return a, err
}

// readAnswer is askPerson but for an answer read while ctx ended.
func readAnswer(ctx context.Context, in *lines, w prompter, q engine.Question) (engine.Answer, error) {
	paused := func() (engine.Answer, error) {
		return engine.Answer{}, fmt.Errorf("%w: the input ended at the %s question", engine.ErrPaused, q.Kind)
	}
	switch q.Kind {
	case engine.QuestionClarification:
		w.Prompt(heading("Clarifying question") + block(q.Text) + "> ")
		text, _ := in.answer(ctx, w)
		return engine.Answer{Text: text}, nil
	case engine.QuestionTopic:
		// Before the debate exists: at the end of input there is no
		// topic, and nothing to pause.
		w.Prompt(heading("Topic") + block(q.Text) + "> ")
		text, _ := in.answer(ctx, w)
		return engine.Answer{Text: text}, nil
	case engine.QuestionCheckpoint:
		w.Prompt(heading("Checkpoint") + block(q.Text))
		choice, ok := choose(ctx, in, w, q.Choices)
		if !ok {
			return paused()
		}
		if choice != string(moderated.Guide) {
			return engine.Answer{Choice: choice}, nil
		}
		w.Prompt("Your guidance: ")
		guidance, ok := in.answer(ctx, w)
		if !ok {
			return paused()
		}
		if guidance == "" {
			return engine.Answer{Choice: q.Choices[0]}, nil
		}
		return engine.Answer{Choice: choice, Text: guidance}, nil
	case engine.QuestionApproval:
		// Its text is the synthesis document, printed just above as the
		// moderator's last utterance (the question follows it).
		w.Prompt(heading("Your decision") + "Approve or reject the synthesis above, or skip the review.\n")
		choice, ok := choose(ctx, in, w, q.Choices)
		if !ok {
			return engine.Answer{Choice: q.Choices[0]}, nil
		}
		if choice != moderated.ChoiceReject {
			return engine.Answer{Choice: choice}, nil
		}
		w.Prompt("Why (optional): ")
		note, _ := in.answer(ctx, w)
		return engine.Answer{Choice: choice, Text: note}, nil
	case engine.QuestionWorkflow:
		w.Prompt(heading("Workflow") + block(q.Text))
		choice, ok := choose(ctx, in, w, q.Choices)
		if !ok && slices.Contains(q.Choices, moderated.ChoiceNo) {
			return engine.Answer{Choice: moderated.ChoiceNo}, nil
		}
		if !ok {
			return paused()
		}
		return engine.Answer{Choice: choice}, nil
	}
	w.Prompt(heading(title(q.Kind)) + block(q.Text))
	if len(q.Choices) == 0 {
		w.Prompt("> ")
		text, ok := in.answer(ctx, w)
		if !ok {
			return paused()
		}
		return engine.Answer{Text: text}, nil
	}
	choice, ok := choose(ctx, in, w, q.Choices)
	if !ok {
		return paused()
	}
	return engine.Answer{Choice: choice}, nil
}

// heading is a question's heading line.
func heading(name string) string { return fmt.Sprintf("\n═══ %s ═══\n", name) }

// block is text as a paragraph of its own: trimmed, ending its line.
func block(text string) string {
	if text = strings.TrimSpace(text); text == "" {
		return ""
	}
	return text + "\n"
}

// choose shows choices ("[C]ontinue  [G]uide  [E]nd  (Enter: continue)")
// and reads one: the choice, its letter when the choices' first letters
// differ, or an empty line for the first. Another answer is asked again.
// false at the end of input or of ctx.
func choose(ctx context.Context, in *lines, w prompter, choices []string) (string, bool) {
	keys := letters(choices)
	var shown []string
	for i, c := range choices {
		if keys != nil {
			_, n := utf8.DecodeRuneInString(c)
			shown = append(shown, "["+string(unicode.ToUpper(keys[i]))+"]"+c[n:])
		} else {
			shown = append(shown, c)
		}
	}
	line := strings.Join(shown, "  ") + "  (Enter: " + choices[0] + ")\n> "
	for {
		w.Prompt("\n" + line)
		answer, ok := in.answer(ctx, w)
		if !ok {
			return "", false
		}
		if answer == "" {
			return choices[0], true
		}
		for i, c := range choices {
			if strings.EqualFold(answer, c) || keys != nil && strings.EqualFold(answer, string(keys[i])) {
				return c, true
			}
		}
		want := choices
		if keys != nil {
			want = nil
			for _, k := range keys {
				want = append(want, string(k))
			}
		}
		w.Prompt(fmt.Sprintf("%q: answer %s\n", answer, orList(want)))
	}
}

// letters are the lower-case first letters of choices, when each is a
// letter and they differ; nil otherwise.
func letters(choices []string) []rune {
	var keys []rune
	for _, c := range choices {
		r, _ := utf8.DecodeRuneInString(c)
		r = unicode.ToLower(r)
		if !unicode.IsLetter(r) || slices.Contains(keys, r) {
			return nil
		}
		keys = append(keys, r)
	}
	return keys
}

// orList is "a", "a or b", "a, b or c".
func orList(words []string) string {
	if n := len(words); n > 1 {
		return strings.Join(words[:n-1], ", ") + " or " + words[n-1]
	}
	return strings.Join(words, "")
}
