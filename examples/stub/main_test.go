package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStubDebatePrintsEverything(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"-preset", "three_way_ethics", "-exchanges", "3", "-accountability", "strict"}, &out); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{"══════ INTRODUCTION", "══════ OPENING", "══════ EXCHANGE", "══════ SYNTHESIS",
		"▶ ARBITER", "Utilitarian Chair", "Virtue Ethics Chair", "Deontological Chair", "✓ evaluation:",
		"⚑ interjection", "══════ METRICS", "steel-manning", "This has been Duelogic."} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

func TestStubRecordsAndResumes(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if err := run([]string{"-jsonl", dir, "-exchanges", "3"}, &out); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("%d debate files in %s", len(files), dir)
	}
	id := strings.TrimSuffix(filepath.Base(files[0]), ".jsonl")
	before, _ := os.ReadFile(files[0])
	out.Reset()
	if err := run([]string{"-jsonl", dir, "-resume", id}, &out); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(files[0])
	if !bytes.Equal(before, after) || !strings.Contains(out.String(), "METRICS") {
		t.Errorf("resuming a finished debate changed its log or printed no metrics:\n%s", out.String())
	}
	if err := run([]string{"-resume", id}, &out); err == nil {
		t.Error("-resume without -jsonl accepted")
	}
	if err := run([]string{"-preset", "nope"}, &out); err == nil {
		t.Error("unknown preset accepted")
	}
}
