package llmtext

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestObject(t *testing.T) {
	tests := []struct {
		reply string
		want  map[string]any
	}{
		{`{"a": 1}`, map[string]any{"a": 1.0}},
		{"Sure!\n```json\n{\"a\": [1, 2,], \"b\": \"}\",}\n```\nBye {", map[string]any{"a": []any{1.0, 2.0}, "b": "}"}},
		{`{not json} then {"ok": true}`, map[string]any{"ok": true}},
		{`{broken {"a": 5}`, map[string]any{"a": 5.0}},
		{`{"s": "a \" { quote"}`, map[string]any{"s": `a " { quote`}},
		// Numbers beyond float64's range: a grammar lets a model write them.
		{`{"urgency": 1e999, "low": -2E+400, "tiny": 1e-999, "n": [5e308]}`,
			map[string]any{"urgency": math.MaxFloat64, "low": -math.MaxFloat64, "tiny": 0.0, "n": []any{math.MaxFloat64}}},
		{`{"a": 1} {"b": 2}`, map[string]any{"a": 1.0}},
		{`no object`, nil},
		{`{}`, map[string]any{}},
		{`{"open": 1`, nil},
	}
	for _, tt := range tests {
		got, err := Object(tt.reply)
		if tt.want == nil {
			if err == nil {
				t.Errorf("Object(%q) = %v, want an error", tt.reply, got)
			}
			continue
		}
		if err != nil {
			t.Errorf("Object(%q): %v", tt.reply, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Object(%q) (-want +got):\n%s", tt.reply, diff)
		}
	}
}

func TestCoercions(t *testing.T) {
	m := map[string]any{"steel_manning": 1.0}
	if v, ok := Lookup(m, "steelManning"); !ok || v != 1.0 {
		t.Errorf("Lookup = %v, %v", v, ok)
	}
	for _, tt := range []struct {
		v    any
		want float64
		ok   bool
	}{{0.5, 0.5, true}, {"85%", 85, true}, {" 7 ", 7, true}, {"NaN", 0, false}, {true, 1, true}, {nil, 0, false}} {
		if got, ok := Number(tt.v); ok != tt.ok || ok && got != tt.want {
			t.Errorf("Number(%v) = %v, %v", tt.v, got, ok)
		}
	}
	for _, tt := range []struct {
		v      any
		want   bool
		wantOK bool
	}{{"Yes", true, true}, {"0", false, true}, {2.0, true, true}, {"maybe", false, false}} {
		if got, ok := Bool(tt.v); got != tt.want || ok != tt.wantOK {
			t.Errorf("Bool(%v) = %v, %v", tt.v, got, ok)
		}
	}
	if got := Strings([]any{"a", " ", 3.0}); !cmp.Equal(got, []string{"a", "3"}) {
		t.Errorf("Strings = %v", got)
	}
	if got := Truncate("héllo world", 5); got != "héllo…" {
		t.Errorf("Truncate = %q", got)
	}
	if got := OneLine(" a \n b\t"); got != "a b" {
		t.Errorf("OneLine = %q", got)
	}
}

func FuzzObject(f *testing.F) {
	for _, s := range []string{`{"a":1,}`, "```{\"b\":[1,]}```", `{"a":"}"}`, `{{`, `"{"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if m, err := Object(s); err == nil && m == nil {
			t.Fatal("nil object without error")
		}
	})
}

// FuzzOneLine: the fast path (no copy when nothing needs squeezing) says
// exactly what strings.Fields joined by spaces says.
func FuzzOneLine(f *testing.F) {
	for _, s := range []string{"", " ", "a b", "a  b", " a\tb\n", "già  fatto", "a\u00a0b", "a\u2003 b", "x. y!"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := OneLine(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("OneLine(%q) = %q; want %q", s, got, want)
		}
	})
}
