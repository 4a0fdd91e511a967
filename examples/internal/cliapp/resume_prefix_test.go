package cliapp

import (
	"os"
	"strings"
	"testing"
)

// Seed 004: "amelia debate --resume DEB-abc123" — people type a short ID.
// The full ID stays as engine.NewDebateID makes it; --resume accepts any
// prefix that names one debate, like git's abbreviated commits.
func TestResumeByPrefix(t *testing.T) {
	dir := t.TempDir()
	var ids []string
	for range 2 {
		r := debate(t, dir, "", "--store", "st", "--max-rounds", "3", "Should cities ban cars?")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		ids = append(ids, debateIDRE.FindStringSubmatch(r.stdout)[1])
	}
	// The shortest prefix of ids[0] that ids[1] does not share.
	n := len("dl-") + 1
	for strings.HasPrefix(ids[1], ids[0][:n]) {
		n++
	}
	tests := []struct {
		name, arg string
		code      int
		want      string // in stderr
	}{
		{"full ID", ids[0], 0, "debate: debate " + ids[0] + " had already finished; showing it\n"},
		{"prefix", ids[0][:n], 0, "debate: debate " + ids[0] + " had already finished; showing it\n"},
		{"prefix without dl-", ids[0][3:n], 0, "debate: debate " + ids[0] + " had already finished; showing it\n"},
		// "d" is not a prefix of "dl-": without its dl-, a prefix is of the hex.
		{"a letter of dl-", "l", 1, "no debate l"},
		{"ambiguous", "dl-", 2, "--resume dl- is ambiguous: 2 debates start with it"},
		{"unknown", "dl-zz", 1, "no debate dl-zz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := debate(t, dir, "", "--store", "st", "--resume", tt.arg)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("--resume %s: exit %d (want %d), output lacks %q:\nstdout: %s\nstderr: %s", tt.arg, r.code, tt.code, tt.want, r.stdout, r.stderr)
			}
		})
	}
}

// A postgres:// --store in a build without PostgreSQL is a usage error that
// names the build that has it, and never echoes the URL's password.
func TestStoreURLWithoutOpener(t *testing.T) {
	r := debate(t, t.TempDir(), "", "--store", "postgres://app:s3cret@db.example:5432/debates", "Should cities ban cars?")
	if r.code != 2 || !strings.Contains(r.stderr, "examples/pgcli") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "s3cret") {
		t.Errorf("stderr shows the password: %q", r.stderr)
	}
}

// A sqlite: --store in a build without the SQL stores is a usage error
// that names the build that has it, and creates nothing.
func TestSQLiteStoreWithoutOpener(t *testing.T) {
	dir := t.TempDir()
	r := debate(t, dir, "", "--store", "sqlite:debates.db", "Should cities ban cars?")
	if r.code != 2 || !strings.Contains(r.stderr, "examples/pgcli") || !strings.Contains(r.stderr, "sqlite:FILE") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("created %v", es)
	}
}
