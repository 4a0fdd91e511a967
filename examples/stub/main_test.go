package main

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStubDebatePrintsEverything(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"-preset", "three_way_ethics", "-exchanges", "3", "-accountability", "strict"}, &out, io.Discard); err != nil {
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
	if err := run([]string{"-jsonl", dir, "-exchanges", "3"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("%d debate files in %s", len(files), dir)
	}
	id := strings.TrimSuffix(filepath.Base(files[0]), ".jsonl")
	before, _ := os.ReadFile(files[0])
	out.Reset()
	if err := run([]string{"-jsonl", dir, "-resume", id}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(files[0])
	if !bytes.Equal(before, after) || !strings.Contains(out.String(), "METRICS") {
		t.Errorf("resuming a finished debate changed its log or printed no metrics:\n%s", out.String())
	}
	if err := run([]string{"-resume", id}, &out, io.Discard); err == nil {
		t.Error("-resume without -jsonl accepted")
	}
	if err := run([]string{"-preset", "nope"}, &out, io.Discard); err == nil {
		t.Error("unknown preset accepted")
	}
}

// TestHelpAndBadFlags: -h prints the usage and exits 0; a bad flag prints
// the usage and the error and exits 2; a failed debate exits 1.
func TestHelpAndBadFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		want string // on stderr
	}{
		{[]string{"-h"}, 0, "-preset string"},
		{[]string{"-help"}, 0, "-preset string"},
		{[]string{"-nope"}, 2, "flag provided but not defined: -nope"},
		{[]string{"-exchanges", "x"}, 2, `invalid value "x" for flag -exchanges`},
		{[]string{"-preset", "nope"}, 1, `stub: unknown preset "nope"`},
	} {
		var out, errb bytes.Buffer
		err := run(tt.args, &out, &errb)
		if code := exitCode(err, &errb); code != tt.code || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("%v: exit %d (want %d), stderr lacks %q:\n%s", tt.args, code, tt.code, tt.want, errb.String())
		}
		if strings.Contains(errb.String(), "help requested") {
			t.Errorf("%v: stderr says %q", tt.args, errb.String())
		}
		if tt.code == 0 && !errors.Is(err, flag.ErrHelp) {
			t.Errorf("%v: run = %v", tt.args, err)
		}
	}
}
