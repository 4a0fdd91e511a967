package cliapp

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/examples/internal/render"
)

// A finished debate of any format is shown by its verdict
// ([engine.Outcome].Verdict) and written to --out as its documents
// (Documents), beside the command's transcript and the result as JSON.
// What a format's seed asks for beyond that — the podcast's metrics
// against their targets, the formal debate's output directory, the
// moderated decision record — is an outcomeView, which the format's file
// adds from init, keyed by the type of its outcome.

// outcomeView is what the command shows and writes of the outcomes of one
// type beyond their verdict and documents.
type outcomeView struct {
	// show prints more of the outcome after its verdict.
	show func(r *render.Renderer, res *engine.Result[engine.Outcome])
	// more returns documents beside the format's, by file name suffix
	// ("dot" is written as <id>.dot).
	more func(res *engine.Result[engine.Outcome]) (map[string]string, error)
	// finish writes what the format writes whether or not --out is set
	// (the moderated decision record) and returns the paths.
	finish func(e *env, res *engine.Result[engine.Outcome]) ([]string, error)
	// write writes the documents to the --out directory dir in the
	// format's own layout, instead of <id>.<name>, and returns the files
	// written.
	write func(res *engine.Result[engine.Outcome], dir string) ([]string, error)
}

// outcomeViews are the outcomeViews by outcome type, filled from init.
var outcomeViews = map[reflect.Type]outcomeView{}

// view is an outcomeView of the outcomes of type R: each function, when
// set, is given the outcome as an R.
type view[R engine.Outcome] struct {
	show   func(r *render.Renderer, res *engine.Result[engine.Outcome], o R)
	more   func(res *engine.Result[engine.Outcome], o R) (map[string]string, error)
	finish func(e *env, res *engine.Result[engine.Outcome], o R) ([]string, error)
	write  func(res *engine.Result[engine.Outcome], o R, dir string) ([]string, error)
}

// addView adds the view of the outcomes of type R; called from init.
func addView[R engine.Outcome](v view[R]) {
	t := reflect.TypeFor[R]()
	if _, dup := outcomeViews[t]; dup {
		panic("cliapp: addView called twice for " + t.String())
	}
	detail := func(res *engine.Result[engine.Outcome]) R { return res.Detail.(R) }
	var ov outcomeView
	if v.show != nil {
		ov.show = func(r *render.Renderer, res *engine.Result[engine.Outcome]) { v.show(r, res, detail(res)) }
	}
	if v.more != nil {
		ov.more = func(res *engine.Result[engine.Outcome]) (map[string]string, error) { return v.more(res, detail(res)) }
	}
	if v.finish != nil {
		ov.finish = func(e *env, res *engine.Result[engine.Outcome]) ([]string, error) {
			return v.finish(e, res, detail(res))
		}
	}
	if v.write != nil {
		ov.write = func(res *engine.Result[engine.Outcome], dir string) ([]string, error) {
			return v.write(res, detail(res), dir)
		}
	}
	outcomeViews[t] = ov
}

// viewOf is the view of o's type; a zero one when there is none.
func viewOf(o engine.Outcome) outcomeView {
	if o == nil {
		return outcomeView{}
	}
	return outcomeViews[reflect.TypeOf(o)]
}

// showOutcome prints the finished debate's verdict, and what its view adds.
func showOutcome(r *render.Renderer, res *engine.Result[engine.Outcome]) {
	if res.Detail == nil {
		return
	}
	r.Println("\n══════ VERDICT ══════\n" + res.Detail.Verdict().Summary)
	if v := viewOf(res.Detail); v.show != nil {
		v.show(r, res)
	}
}

// transcriptDoc is the name of the document that is a format's transcript.
const transcriptDoc = "transcript.md"

// documents returns the finished debate's documents by file name suffix:
// "json" the result, "md" the transcript (the format's transcript.md, or
// else the command's), and each other document of the format by its name
// ("summary.md", "decision.md"), with those its view adds.
//
// The result document is the debate's, the same however often it is
// written: it leaves out the timing of the process that wrote it, which the
// command prints instead (see timingLine).
func documents(res *engine.Result[engine.Outcome]) (map[string]string, error) {
	debate := *res
	debate.Timing = engine.Timing{}
	js, err := marshal(&debate)
	if err != nil {
		return nil, err
	}
	docs := map[string]string{"json": js}
	if res.Detail != nil {
		for _, d := range res.Detail.Documents() {
			if d.Name != filepath.Base(d.Name) || strings.HasPrefix(d.Name, ".") {
				return nil, fmt.Errorf("write documents: %q is not a file name", d.Name)
			}
			name := d.Name
			if name == transcriptDoc {
				name = "md"
			}
			docs[name] = d.Markdown
		}
		if v := viewOf(res.Detail); v.more != nil {
			more, err := v.more(res)
			if err != nil {
				return nil, err
			}
			for suffix, text := range more {
				docs[suffix] = text
			}
		}
	}
	if _, ok := docs["md"]; !ok {
		docs["md"] = transcript(res)
	}
	return docs, nil
}

// writeDocs writes the documents of the finished debate res to dir, each as
// <id>.<suffix> (an empty one is left out), and returns their names; a
// format with its own layout (outcomeView.write) writes that instead.
func writeDocs(dir string, res *engine.Result[engine.Outcome]) ([]string, error) {
	if v := viewOf(res.Detail); v.write != nil {
		files, err := v.write(res, dir)
		if err != nil {
			return nil, fmt.Errorf("write documents: %w", err)
		}
		return files, nil
	}
	docs, err := documents(res)
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
		p := filepath.Join(dir, res.DebateID+"."+suffix)
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

// transcript is the debate as Markdown (render.Transcript), then the
// tokens it cost: the document of a format that has no transcript of its
// own.
func transcript(res *engine.Result[engine.Outcome]) string {
	h := render.Head{ID: res.DebateID, Format: res.Format, Debate: res.Debate}
	tokens := fmt.Sprintf("\nTokens: %d prompt + %d completion.\n", res.Usage.PromptTokens, res.Usage.CompletionTokens)
	return render.Transcript(h, res.Transcript, title, tokens)
}

// title is s with spaces for underscores and a capital first letter.
func title(s string) string { return render.Title(s) }

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// minTimed is the model time below which the command does not report where
// it went: an offline stub's calls take microseconds, and its output stays
// the same from run to run.
const minTimed = time.Second

// timingLine says where the model's time went in this run, judgments
// against speeches, the slowest purposes first: "model time 3m12s:
// judgments 68% (evaluation 41%, interrupt check 27%), speeches 32%; wall
// 3m20s"; "" when the calls took less than minTimed.
func timingLine(res *engine.Result[engine.Outcome]) string {
	tm := res.Timing
	var total time.Duration
	for _, d := range tm.Calls {
		total += d
	}
	if total < minTimed {
		return ""
	}
	var judged []string
	for p := range res.Judgments {
		judged = append(judged, p)
	}
	slices.SortFunc(judged, func(a, b string) int { return cmp.Compare(tm.Calls[b], tm.Calls[a]) })
	var parts []string
	for _, p := range judged {
		if d := tm.Calls[p]; d > 0 {
			parts = append(parts, fmt.Sprintf("%s %.0f%%", strings.ReplaceAll(p, "_", " "), 100*float64(d)/float64(total)))
		}
	}
	share := tm.Share(judged...)
	line := fmt.Sprintf("model time %s: judgments %.0f%%", total.Round(time.Second), 100*share)
	if len(parts) > 0 {
		line += " (" + strings.Join(parts, ", ") + ")"
	}
	return line + fmt.Sprintf(", speeches %.0f%%; wall %s", 100*(1-share), tm.Wall.Round(time.Second))
}
