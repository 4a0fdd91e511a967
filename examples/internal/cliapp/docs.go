package cliapp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/duelogic/duelogic/engine"
)

// writeDocs writes the documents of the finished debate id to dir, each as
// <id>.<suffix> (an empty one is left out), and returns their names; a
// format with its own layout (outcome.write) writes that instead.
func writeDocs(dir, id string, o *outcome) ([]string, error) {
	if o.write != nil {
		files, err := o.write(dir)
		if err != nil {
			return nil, fmt.Errorf("write documents: %w", err)
		}
		return files, nil
	}
	docs, err := o.docs()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("write documents: %w", err)
	}
	var names []string
	for suffix, text := range docs {
		if text == "" {
			continue
		}
		p := filepath.Join(dir, id+"."+suffix)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return nil, fmt.Errorf("write documents: %w", err)
		}
		names = append(names, p)
	}
	slices.Sort(names)
	return names, nil
}

// marshal is v as indented JSON, with a final newline.
func marshal(v any) (string, error) {
	js, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return "", fmt.Errorf("write documents: %w", err)
	}
	return string(js) + "\n", nil
}

// transcript is the debate as Markdown: who said what, segment by segment,
// with the arbiter's evaluations, the speakers named by name, then tail.
func transcript[R any](res *engine.Result[R], name func(speaker string) string, tail string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", oneLine(res.Debate.Proposition))
	fmt.Fprintf(&b, "Debate `%s`, format %s, %d utterances.\n", res.DebateID, res.Format, len(res.Transcript))
	if res.Debate.Context != "" {
		fmt.Fprintf(&b, "\n> %s\n", strings.ReplaceAll(strings.TrimSpace(res.Debate.Context), "\n", "\n> "))
	}
	var seg engine.Segment
	for _, u := range res.Transcript {
		if u.Segment != seg {
			seg = u.Segment
			fmt.Fprintf(&b, "\n## %s\n", title(string(seg)))
		}
		fmt.Fprintf(&b, "\n**%s**", name(u.Speaker))
		var notes []string
		if u.Kind != "" {
			notes = append(notes, strings.ReplaceAll(string(u.Kind), "_", " "))
		}
		if u.Exchange > 0 {
			notes = append(notes, fmt.Sprintf("round %d", u.Exchange))
		}
		if u.Violation != "" {
			notes = append(notes, fmt.Sprintf("%s, to %s", u.Violation, name(u.Target)))
		}
		if u.Kind == engine.KindInterruption && u.Reason != "" {
			notes = append(notes, u.Reason)
		}
		if u.Interrupted {
			notes = append(notes, "interrupted by "+name(u.InterruptedBy))
		}
		if len(notes) > 0 {
			fmt.Fprintf(&b, " — %s", strings.Join(notes, ", "))
		}
		fmt.Fprintf(&b, "\n\n%s\n", strings.TrimSpace(u.Content))
		if ev := u.Evaluation; ev != nil {
			fmt.Fprintf(&b, "\n> Evaluation: adherence %d · steel-man %s · self-critique %s · consistent %t · honesty %s\n",
				ev.AdherenceScore, ev.SteelManning.Quality, ev.SelfCritique.Quality, ev.FrameworkConsistency.Consistent, ev.IntellectualHonesty.Score)
		}
	}
	b.WriteString(tail)
	fmt.Fprintf(&b, "\nTokens: %d prompt + %d completion.\n", res.Usage.PromptTokens, res.Usage.CompletionTokens)
	return b.String()
}

// title is s with spaces for underscores and a capital first letter.
func title(s string) string {
	s = strings.ReplaceAll(s, "_", " ")
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
