package cliapp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/examples/internal/render"
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

// transcript is the debate as Markdown (render.Transcript), then tail and
// the tokens it cost.
func transcript[R any](res *engine.Result[R], name func(speaker string) string, tail string) string {
	h := render.Head{ID: res.DebateID, Format: res.Format, Debate: res.Debate}
	tokens := fmt.Sprintf("\nTokens: %d prompt + %d completion.\n", res.Usage.PromptTokens, res.Usage.CompletionTokens)
	return render.Transcript(h, res.Transcript, name, tail+tokens)
}

// title is s with spaces for underscores and a capital first letter.
func title(s string) string { return render.Title(s) }

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
