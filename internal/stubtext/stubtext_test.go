package stubtext

import (
	"slices"
	"testing"
)

func TestShorten(t *testing.T) {
	tests := []struct {
		in    string
		limit int
		want  string
	}{
		{"short", 10, "short"},
		{"  spread \n out  ", 10, "spread out"},
		{"one two three four", 9, "one two…"},
		{"one two, three", 8, "one two…"},
		{"abcdefghij", 4, "abcd…"},
		{"ééééé ééé", 6, "ééééé…"},
		{"", 5, ""},
	}
	for _, tt := range tests {
		if got := Shorten(tt.in, tt.limit); got != tt.want {
			t.Errorf("Shorten(%q, %d) = %q, want %q", tt.in, tt.limit, got, tt.want)
		}
	}
}

func TestExpand(t *testing.T) {
	vars := map[string]string{"opp": "my opponent", "x": "X", "e": "élan"}
	tests := []struct{ in, want string }{
		{"{opp} said", "my opponent said"},
		{"{Opp} said", "My opponent said"},
		{"{X} and {x}", "X and X"},
		{"{E}", "Élan"},
		{"{unknown} {", "{unknown} {"},
		{"no keys", "no keys"},
	}
	for _, tt := range tests {
		if got := Expand(tt.in, vars); got != tt.want {
			t.Errorf("Expand(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestJoin(t *testing.T) {
	tests := []struct {
		name  string
		paras [][]string
		want  string
	}{
		{"sentences and paragraphs", [][]string{{"one.", " two. "}, {"three."}}, "One. Two.\n\nThree."},
		{"blank sentences and empty paragraphs dropped", [][]string{{"", "  "}, nil, {"a.", ""}}, "A."},
		{"quoted question", [][]string{{`he asks "Why?".`, `she asks "How?"?`}}, `He asks "Why?" She asks "How?"`},
		{"nothing", nil, ""},
	}
	for _, tt := range tests {
		if got := Join(tt.paras...); got != tt.want {
			t.Errorf("%s: Join = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestQuote(t *testing.T) {
	tests := []struct {
		in    string
		limit int
		want  string
	}{
		{"Should AI development be paused?", 90, `"Should AI development be paused?"`},
		{"AI labs should pause frontier training.", 90, `"AI labs should pause frontier training"`},
		{`"Quoted already."`, 90, `"Quoted already"`},
		{"a very long proposition indeed", 12, `"a very long…"`},
		{"", 90, "fallback"},
		{`""`, 90, "fallback"},
	}
	for _, tt := range tests {
		if got := Quote(tt.in, tt.limit, "fallback"); got != tt.want {
			t.Errorf("Quote(%q, %d) = %q, want %q", tt.in, tt.limit, got, tt.want)
		}
	}
}

func TestCaseAndWords(t *testing.T) {
	tests := []struct{ in, upper, lower string }{
		{"abc", "Abc", "abc"},
		{"Abc", "Abc", "abc"},
		{"élan", "Élan", "élan"},
		{"", "", ""},
		{"1x", "1x", "1x"},
	}
	for _, tt := range tests {
		if got := UpperFirst(tt.in); got != tt.upper {
			t.Errorf("UpperFirst(%q) = %q, want %q", tt.in, got, tt.upper)
		}
		if got := LowerFirst(tt.in); got != tt.lower {
			t.Errorf("LowerFirst(%q) = %q, want %q", tt.in, got, tt.lower)
		}
	}
	if n := Words(" one two\nthree  "); n != 3 {
		t.Errorf("Words = %d, want 3", n)
	}
}

func TestSentences(t *testing.T) {
	if got := SplitList(" a, b ,, c ,"); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("SplitList = %q", got)
	}
	snippets := []struct{ in, want string }{
		{"First  one. Second one.", "First one"},
		{"No stop at all", "No stop at all"},
		{"Question? Answer.", "Question"},
	}
	for _, tt := range snippets {
		if got := Snippet(tt.in, 40); got != tt.want {
			t.Errorf("Snippet(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	rests := []struct{ in, want string }{
		{"First one. Second\n one. Third.", "Second one. Third."},
		{"Only one.", "Only one."},
		{"Ends with a stop. ", "Ends with a stop."},
	}
	for _, tt := range rests {
		if got := FromSecondSentence(tt.in); got != tt.want {
			t.Errorf("FromSecondSentence(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestJSON(t *testing.T) {
	if got := JSON(map[string]any{"b": 1, "a": []string{"x"}}); got != `{"a":["x"],"b":1}` {
		t.Errorf("JSON = %s", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("JSON of a channel did not panic")
		}
	}()
	JSON(make(chan int))
}
