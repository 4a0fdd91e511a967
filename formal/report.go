package formal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
)

// ErrOutputExists is matched by the error of a debate whose output
// directory already exists: documents are never written over another
// directory.
var ErrOutputExists = errors.New("formal: output directory exists")

// The documents' file names.
const (
	FileTranscript     = "transcript.md"
	FileSummary        = "summary.md"
	FileBlogPost       = "blog-post.md"
	FileAssessorReport = "assessor-report.md"
	FileLog            = "debate-log.jsonl" // the log: appended as said by the debate (Config.OutputDir), struck by WriteOutput
)

// Slug is the seed's slug of a topic: lower-cased, every character other
// than a-z and 0-9 replaced by '-', runs of '-' squeezed to one, cut to 50
// characters — as its shell snippet computes it (tr, sed, cut) for a topic on
// one line; line breaks are treated like any other character.
func Slug(topic string) string {
	var b strings.Builder
	dash := false
	for _, r := range topic {
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
			continue
		}
		if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	s := b.String()
	return s[:min(len(s), 50)]
}

// DirName is the name of a debate's output directory: the UTC time t as
// YYYYMMDDTHHMMSSZ, a '-', and the topic's [Slug].
func DirName(t time.Time, topic string) string {
	return t.UTC().Format("20060102T150405Z") + "-" + Slug(topic)
}

// report has the reporter write the summary and (unless the debate is void)
// the blog post from the struck log, renders the transcript, has the
// assessor review them, and writes the documents into the output
// directory, beside its log.
func (p *play) report(ctx context.Context) error {
	view := Strike(p.log)
	audience := ""
	for _, e := range view {
		if e.Type == TypeAudienceConclusion {
			audience = e.Content
		}
	}
	void := p.verdict.Verdict == VerdictVoid
	p.docs.Transcript = renderTranscript(p.d, p.s.DebateID(), view, p.verdict, p.rounds, p.endedBy)
	var err error
	if p.docs.Summary, err = p.document(ctx, "report:summary", SpeakerReporter, PurposeSummary,
		summaryPrompt(p.d, view, p.verdict, audience)); err != nil {
		return err
	}
	if !void {
		if p.docs.BlogPost, err = p.document(ctx, "report:blog_post", SpeakerReporter, PurposeBlogPost,
			blogPostPrompt(p.d, view, p.verdict, audience)); err != nil {
			return err
		}
	}
	if p.docs.AssessorReport, err = p.document(ctx, "report:assessment", SpeakerAssessor, PurposeAssessment,
		assessmentPrompt(p.d, p.docs.Transcript, p.docs.Summary, p.docs.BlogPost, void)); err != nil {
		return err
	}
	if p.dir == "" {
		return nil
	}
	// The log is in the directory already, appended entry by entry (a
	// resumed debate that added none makes sure of it).
	_, err = p.s.Step(ctx, "report:files", RecordDocument, SpeakerReporter.voice(), &p.files, func(context.Context) (any, llm.Usage, error) {
		if err := p.syncLive(); err != nil {
			return nil, llm.Usage{}, err
		}
		var files [][2]string
		for _, d := range p.docs.list() {
			files = append(files, [2]string{d.Name, d.Markdown})
		}
		paths, err := addDocuments(p.dir, files)
		if err != nil {
			return nil, llm.Usage{}, err
		}
		return append(paths, filepath.Join(p.dir, FileLog)), llm.Usage{}, nil
	}, nil)
	return err
}

// WriteOutput writes the output directory of a finished debate, o, on
// topic into parent, laid out as the seed's: a directory named [DirName] of
// the debate's recorded start (o.Started) and topic, holding transcript.md,
// summary.md, blog-post.md (none on a void debate), assessor-report.md and
// debate-log.jsonl, the log in the seed's JSONL schema with redacted
// content struck ([ExportLog]); the directory 0755, the files 0644. It
// returns the directory and the files' paths.
//
// The name does not depend on when WriteOutput runs, so writing the same
// outcome again finds the directory it wrote and leaves it as it is. A
// directory of that name that holds anything else is never written over:
// the first of "-2", "-3", ... that is free (or holds this outcome) is used.
func WriteOutput(parent, topic string, o *Outcome) (dir string, files []string, err error) {
	if o == nil || o.Started.IsZero() {
		return "", nil, errors.New("formal: write output: the outcome has no start time")
	}
	out, err := outputFiles(o.Docs, o.Entries)
	if err != nil {
		return "", nil, err
	}
	base := filepath.Join(parent, DirName(o.Started, topic))
	for i := 1; i <= maxOutputSuffix; i++ {
		dir = base
		if i > 1 {
			dir = fmt.Sprintf("%s-%d", base, i)
		}
		files, err = writeDocuments(dir, out)
		if !errors.Is(err, ErrOutputExists) {
			return dir, files, err
		}
	}
	return "", nil, fmt.Errorf("%w: %s and %d more like it", ErrOutputExists, base, maxOutputSuffix-1)
}

// maxOutputSuffix bounds the directories WriteOutput tries.
const maxOutputSuffix = 100

// document has who write one document (a stored step).
func (p *play) document(ctx context.Context, key string, who Speaker, purpose string, prompt engine.Prompt) (string, error) {
	var text string
	_, err := p.s.Step(ctx, key, RecordDocument, who.voice(), &text, func(ctx context.Context) (any, llm.Usage, error) {
		req := llm.Request{Model: p.cfg.Model(who), Purpose: purpose, MaxTokens: MaxTokensDocument, Messages: prompt.Messages()}
		var out string
		usage, err := p.askText(ctx, who, req, func(reply string) error {
			out = strings.TrimSpace(reply)
			if out == "" {
				return errors.New("the document is empty")
			}
			return nil
		})
		if err != nil {
			return nil, usage, fmt.Errorf("formal: %s's %s: %w", who, purpose, err)
		}
		return out + "\n", usage, nil
	}, nil)
	return text, err
}

// outputFiles lists the files of a debate's output directory, names and
// contents, in the order they are written: its documents and its log
// (struck by ExportLog).
func outputFiles(docs Documents, log []Entry) ([][2]string, error) {
	var b bytes.Buffer
	if err := ExportLog(&b, log); err != nil {
		return nil, err
	}
	var files [][2]string
	for _, d := range docs.list() {
		files = append(files, [2]string{d.Name, d.Markdown})
	}
	return append(files, [2]string{FileLog, b.String()}), nil
}

// writeDocuments writes files (names and contents) into the new directory
// dir (mode 0755, files 0644) and returns the files' paths. The files are written into a temporary
// directory beside dir, which is then renamed to dir, so dir appears whole
// or not at all. An existing dir is never written over ([ErrOutputExists]),
// unless it already holds exactly these documents: a resumed debate that
// stopped after writing them.
func writeDocuments(dir string, files [][2]string) ([]string, error) {
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = filepath.Join(dir, f[0])
	}
	if _, err := os.Lstat(dir); err == nil {
		if holds(dir, files) {
			return paths, nil
		}
		return nil, fmt.Errorf("%w: %s", ErrOutputExists, dir)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("formal: output directory: %w", err)
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("formal: output directory: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, ".formal-*")
	if err != nil {
		return nil, fmt.Errorf("formal: output directory: %w", err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, fmt.Errorf("formal: output directory: %w", err)
	}
	for _, f := range files {
		name := filepath.Join(tmp, f[0])
		if err := os.WriteFile(name, []byte(f[1]), 0o644); err != nil {
			return nil, fmt.Errorf("formal: write %s: %w", f[0], err)
		}
		if err := os.Chmod(name, 0o644); err != nil {
			return nil, fmt.Errorf("formal: write %s: %w", f[0], err)
		}
	}
	if _, err := os.Lstat(dir); err == nil {
		return nil, fmt.Errorf("%w: %s", ErrOutputExists, dir)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return nil, fmt.Errorf("formal: output directory: %w", err)
	}
	return paths, nil
}

// holds reports whether dir holds exactly files, with their contents.
func holds(dir string, files [][2]string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) != len(files) {
		return false
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f[0]))
		if err != nil || !bytes.Equal(b, []byte(f[1])) {
			return false
		}
	}
	return true
}

// renderTranscript renders transcript.md from the (struck) log.
func renderTranscript(d engine.Debate, id string, entries []Entry, v chairVerdict, rounds int, end End) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Transcript: %s\n\n", oneLine(d.Proposition))
	if c := strings.TrimSpace(d.Context); c != "" {
		fmt.Fprintf(&b, "> %s\n\n", strings.ReplaceAll(c, "\n", "\n> "))
	}
	fmt.Fprintf(&b, "- Debate: `%s`\n- Rounds: %d (%s)\n- Outcome: **%s**. %s\n", id, rounds, strings.ReplaceAll(string(end), "_", " "), v.Verdict, oneLine(v.Reason))
	struck := 0
	for _, e := range entries {
		if e.Type == TypeRedaction {
			struck++
		}
	}
	fmt.Fprintf(&b, "- Entries struck from the record: %d\n", struck)
	for _, e := range entries {
		fmt.Fprintf(&b, "\n---\n\n**#%d · %s · %s", e.Seq, e.Speaker, strings.ReplaceAll(string(e.Type), "_", " "))
		if e.RebuttalToSeq != nil {
			fmt.Fprintf(&b, " of #%d", *e.RebuttalToSeq)
		}
		if e.TargetSeq != nil {
			fmt.Fprintf(&b, " on #%d", *e.TargetSeq)
		}
		fmt.Fprintf(&b, "** · %s · %s\n\n%s\n", e.Phase, e.Timestamp.UTC().Format(time.RFC3339), strings.TrimSpace(e.Content))
		if len(e.Sources) > 0 {
			b.WriteString("\nSources:\n")
			for i, s := range e.Sources {
				fmt.Fprintf(&b, "%d. [%s](<%s>), accessed %s\n", i+1, mdLinkText(s.Title), strings.ReplaceAll(s.URL, ">", "%3E"), s.Accessed)
			}
		}
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

var mdEscaper = strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`)

func mdLinkText(s string) string {
	if s = oneLine(s); s == "" {
		return "source"
	}
	return mdEscaper.Replace(s)
}
