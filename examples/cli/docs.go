package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/duelogic/duelogic"
)

// writeDocs writes the debate's documents to dir: <id>.md (the transcript),
// <id>.json (the result) and the format's own, and returns their names.
func writeDocs(dir string, f *format, o *outcome) ([]string, error) {
	full := o.full
	if full == nil {
		full = o.result
	}
	if full == nil {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("write documents: %w", err)
	}
	js, err := json.MarshalIndent(full, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("write documents: %w", err)
	}
	files := map[string][]byte{o.id + ".json": append(js, '\n')}
	if o.result != nil {
		files[o.id+".md"] = []byte(transcript(f, o.result))
	}
	for suffix, text := range o.docs {
		if text != "" {
			files[o.id+"."+suffix] = []byte(text)
		}
	}
	var names []string
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return nil, fmt.Errorf("write documents: %w", err)
		}
		names = append(names, p)
	}
	slices.Sort(names)
	return names, nil
}

// transcript is the debate as Markdown: who said what, segment by segment,
// with the arbiter's evaluations, and the metrics of a Duelogic debate.
func transcript(f *format, res *duelogic.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", oneLine(res.Debate.Proposition))
	fmt.Fprintf(&b, "Debate `%s`, format %s, %d utterances.\n", res.DebateID, f.name, len(res.Transcript))
	if res.Debate.Context != "" {
		fmt.Fprintf(&b, "\n> %s\n", strings.ReplaceAll(strings.TrimSpace(res.Debate.Context), "\n", "\n> "))
	}
	var seg duelogic.Segment
	for _, u := range res.Transcript {
		if u.Segment != seg {
			seg = u.Segment
			fmt.Fprintf(&b, "\n## %s\n", title(string(seg)))
		}
		fmt.Fprintf(&b, "\n**%s**", speakerName(res.Config, u.Speaker))
		var notes []string
		if u.Kind != "" {
			notes = append(notes, strings.ReplaceAll(string(u.Kind), "_", " "))
		}
		if u.Exchange > 0 {
			notes = append(notes, fmt.Sprintf("round %d", u.Exchange))
		}
		if u.Violation != "" {
			notes = append(notes, fmt.Sprintf("%s, to %s", u.Violation, speakerName(res.Config, u.Target)))
		}
		if u.Kind == duelogic.KindInterruption && u.Reason != "" {
			notes = append(notes, u.Reason)
		}
		if u.Interrupted {
			notes = append(notes, "interrupted by "+speakerName(res.Config, u.InterruptedBy))
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
	if f.metrics {
		m := res.Metrics
		fmt.Fprintf(&b, "\n## Metrics\n\n")
		fmt.Fprintf(&b, "| metric | value |\n|---|---|\n")
		fmt.Fprintf(&b, "| responses (evaluated) | %d (%d) |\n", m.Responses, m.Evaluated)
		fmt.Fprintf(&b, "| steel-manning | %.0f%% (target >%.0f%%) |\n", 100*m.SteelManningRate, 100*duelogic.SteelManningTarget)
		fmt.Fprintf(&b, "| self-critique | %.0f%% (target >%.0f%%) |\n", 100*m.SelfCritiqueRate, 100*duelogic.SelfCritiqueTarget)
		fmt.Fprintf(&b, "| mean adherence | %.1f |\n", m.MeanAdherence)
		fmt.Fprintf(&b, "| framework consistency | %.0f%% |\n", 100*m.FrameworkConsistency)
		fmt.Fprintf(&b, "| interruptions | %d |\n| interjections | %d |\n", m.Interruptions, m.Interjections)
	}
	fmt.Fprintf(&b, "\nTokens: %d prompt + %d completion.\n", res.Usage.PromptTokens, res.Usage.CompletionTokens)
	return b.String()
}

// speakerName is "Arbiter", a chair's "Model (Framework)", or the speaker.
func speakerName(cfg duelogic.Config, speaker string) string {
	if speaker == duelogic.SpeakerArbiter {
		return "Arbiter"
	}
	for _, c := range cfg.Chairs {
		if c.Position == speaker {
			info, _ := duelogic.LookupFramework(c.Framework)
			return fmt.Sprintf("%s (%s)", c.DisplayName(), info.ShortName())
		}
	}
	return title(speaker)
}

func title(s string) string {
	s = strings.ReplaceAll(s, "_", " ")
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
