package stubvoice

import (
	"strings"
	"testing"
)

func testSet() *Set {
	return NewSet([]Entry{
		{ID: "utilitarian", Name: "Utilitarian Chair"},
		{ID: "no_such_text", Name: "Nothing Chair"},
		{ID: "performance_advocate", Name: "Performance Advocate", Perspective: true},
		{ID: "autonomy_centered", Name: "Autonomy-Centered Chair"},
	})
}

func TestNewSet(t *testing.T) {
	s := testSet()
	var names []string
	for _, v := range s.List() {
		names = append(names, v.Name+"/"+v.Frame)
	}
	if got, want := strings.Join(names, ", "), "Utilitarian Chair/framework, Performance Advocate/perspective, Autonomy-Centered Chair/framework"; got != want {
		t.Errorf("voices %s, want %s", got, want)
	}
	if _, ok := texts["no_such_text"]; ok {
		t.Fatal("the test's unknown ID has texts")
	}
}

func TestLookup(t *testing.T) {
	s := testSet()
	tests := []struct {
		name, want string // want "" for none
	}{
		{"Utilitarian Chair", "Utilitarian Chair"},
		{"the utilitarian chair", "Utilitarian Chair"},
		{"utilitarian", "Utilitarian Chair"},
		{"autonomy_centered", "Autonomy-Centered Chair"},
		{"Autonomy Centered", "Autonomy-Centered Chair"},
		{"Performance Advocate perspective", "Performance Advocate"},
		{"performance_advocate", "Performance Advocate"},
		{"Nothing Chair", ""},
		{"Stoic Chair", ""},
		{"", ""},
	}
	for _, tt := range tests {
		v, ok := s.Lookup(tt.name)
		if ok != (tt.want != "") || ok && v.Name != tt.want {
			t.Errorf("Lookup(%q) = %v, %v; want %q", tt.name, v, ok, tt.want)
		}
		if got := s.For(tt.name); ok && got != v || !ok && got.Question == "" {
			t.Errorf("For(%q) = %+v", tt.name, got)
		}
	}
}

func TestGeneric(t *testing.T) {
	tests := []struct{ name, wantName, wantFrame, wantLabel, wantRole string }{
		{"Stoic Chair", "Stoic Chair", "framework", "stoic", "Stoic Chair"},
		{"Compliance First perspective", "Compliance First", "perspective", "compliance first", "Compliance First perspective"},
		{"  ", "Chair", "framework", "chair", "Chair"},
	}
	for _, tt := range tests {
		v := Generic(tt.name)
		if v.Name != tt.wantName || v.Frame != tt.wantFrame || v.Label != tt.wantLabel || v.Role() != tt.wantRole {
			t.Errorf("Generic(%q) = %q %q %q %q, want %q %q %q %q", tt.name, v.Name, v.Frame, v.Label, v.Role(), tt.wantName, tt.wantFrame, tt.wantLabel, tt.wantRole)
		}
		if !strings.Contains(v.Claims[0], "{P}") || len(v.Values) == 0 || len(v.Grants) == 0 || len(v.Critique) == 0 || len(v.Blind) == 0 {
			t.Errorf("Generic(%q) lacks texts: %+v", tt.name, v)
		}
	}
}

// TestTexts checks every built-in voice has every kind of text a writer
// draws from.
func TestTexts(t *testing.T) {
	for id, v := range texts {
		if v.Name != "" || v.Frame != "" {
			t.Errorf("%s: texts carry a name or frame, which come from the catalog", id)
		}
		if v.Label == "" || !strings.HasSuffix(v.Question, "?") || v.Stance == "" || v.Takeaway == "" ||
			len(v.Values) < 3 || len(v.Claims) < 3 || len(v.Grants) == 0 || len(v.Critique) == 0 || len(v.Blind) == 0 {
			t.Errorf("%s: incomplete texts: %+v", id, v)
		}
	}
}
