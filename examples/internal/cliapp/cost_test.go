package cliapp

import (
	"regexp"
	"strings"
	"testing"
)

func TestBudgetUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--max-cost", "1", "q?"},
		{"--max-cost", "-1", "--price", "*=1/1", "q?"},
		{"--max-tokens", "-5", "q?"},
		{"--price", "m=1", "q?"},
	} {
		r := debate(t, t.TempDir(), "", args...)
		if r.code != exitUsage {
			t.Errorf("%q: exit %d, want %d; stderr:\n%s", args, r.code, exitUsage, r.stderr)
		}
	}
}

var resumeHintRE = regexp.MustCompile(`continue it with a larger budget: debate --store db --resume (dl-[0-9a-f]{16}) (.*)`)

// summaryOf is the lines of stderr from the usage summary on.
func summaryOf(stderr string) string {
	i := strings.Index(stderr, "\nspent ")
	if i < 0 {
		return ""
	}
	rest := stderr[i+1:]
	if j := strings.Index(rest, "\nwrote"); j >= 0 {
		rest = rest[:j+1]
	}
	return rest
}

// TestBudgetStopsAndResumes: --max-tokens stops the debate with the usage
// so far and the resume command with a larger budget; resumed with that
// (as large as needed), the debate spends what an unbroken run does.
func TestBudgetStopsAndResumes(t *testing.T) {
	dir := t.TempDir()
	price := []string{"--price", "*=3/0.3/15"}
	whole := debate(t, dir, "", append([]string{"--store", "whole", "--max-rounds", "3", "Should we use GraphQL or REST?"}, price...)...)
	if whole.code != 0 {
		t.Fatalf("unbroken run: exit %d\n%s", whole.code, whole.stderr)
	}
	want := summaryOf(whole.stderr)
	for _, s := range []string{"cost $", "by purpose: response", "evaluation", "by speaker: "} {
		if !strings.Contains(want, s) {
			t.Errorf("the summary lacks %q:\n%s", s, want)
		}
	}
	if !strings.Contains(whole.stderr, "debate: spent so far ") {
		t.Errorf("no running line:\n%s", whole.stderr)
	}

	stopped := debate(t, dir, "", append([]string{"--store", "db", "--max-rounds", "3", "--max-tokens", "15000", "Should we use GraphQL or REST?"}, price...)...)
	if stopped.code != exitFail || !strings.Contains(stopped.stderr, "budget spent") || !strings.Contains(stopped.stderr, "\nspent ") {
		t.Fatalf("budget run: exit %d\n%s", stopped.code, stopped.stderr)
	}
	m := resumeHintRE.FindStringSubmatch(stopped.stderr)
	if m == nil || m[2] != "--price '*=3/0.3/15' --max-tokens 30000" {
		t.Fatalf("no resume hint with a larger budget:\n%s", stopped.stderr)
	}
	again := debate(t, dir, "", append([]string{"--store", "db", "--resume", m[1], "--max-tokens", "1000000"}, price...)...)
	if again.code != 0 {
		t.Fatalf("resume: exit %d\n%s", again.code, again.stderr)
	}
	if got := summaryOf(again.stderr); got != want {
		t.Errorf("resumed summary:\n%s\nunbroken:\n%s", got, want)
	}
}
