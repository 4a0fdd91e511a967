package acceptance

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// formatPackages are the packages of the built-in formats: the root
// package is the podcast.
var formatPackages = []string{
	"github.com/duelogic/duelogic",
	"github.com/duelogic/duelogic/formal",
	"github.com/duelogic/duelogic/moderated",
	"github.com/duelogic/duelogic/persuasion",
	"github.com/duelogic/duelogic/scored",
}

// deps lists the packages pkgs depend on, with go list run at the module's
// root.
func deps(t *testing.T, pkgs ...string) []string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", append([]string{"list", "-deps", "-f", "{{.ImportPath}}"}, pkgs...)...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %v: %v", pkgs, err)
	}
	return strings.Fields(string(out))
}

// TestNoFormatBelowItsPlace: the engine, the event sinks and the stores
// import no format, and no format imports another (a catalog the formats
// share is a package of its own).
func TestNoFormatBelowItsPlace(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	below := deps(t, "./engine/...", "./events/...", "./store/...")
	if !slices.Contains(below, "github.com/duelogic/duelogic/engine") {
		t.Fatalf("go list names %q, not the engine", below)
	}
	for _, p := range below {
		if slices.Contains(formatPackages, p) {
			t.Errorf("engine, events or store imports the format package %s", p)
		}
	}
	for _, f := range formatPackages {
		for _, p := range deps(t, f) {
			if p != f && slices.Contains(formatPackages, p) {
				t.Errorf("format %s imports format %s", f, p)
			}
		}
	}
}
