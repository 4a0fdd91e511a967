package eval_test

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/eval"
)

func TestReadItems(t *testing.T) {
	good := `{"id": "q1", "question": "What is 2+2?", "answer": "4"}

{"id": "q2", "question": "Is the sky green?", "answer": "no", "choices": ["yes", "no"]}
`
	items, err := eval.ReadItems(strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	want := []eval.Item{
		{ID: "q1", Question: "What is 2+2?", Answer: "4"},
		{ID: "q2", Question: "Is the sky green?", Answer: "no", Choices: []string{"yes", "no"}},
	}
	if diff := cmp.Diff(want, items); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}

	bad := []struct {
		name, in, want string
	}{
		{"empty", "\n\n", "no items"},
		{"not JSON", `{"id": "q1"`, "line 1"},
		{"unknown field", `{"id": "q1", "question": "q", "answer": "a", "gold": "a"}`, `unknown field "gold"`},
		{"two values", `{"id": "q1", "question": "q", "answer": "a"} {}`, "more than one JSON value"},
		{"no id", `{"question": "q", "answer": "a"}`, "line 1: id"},
		{"blank question", `{"id": "q1", "question": "  ", "answer": "a"}`, "question: empty"},
		{"no answer", `{"id": "q1", "question": "q"}`, "answer: empty"},
		{"answer not a choice", `{"id": "q1", "question": "q", "answer": "maybe", "choices": ["yes", "no"]}`, "not one of the choices"},
		{"one choice", `{"id": "q1", "question": "q", "answer": "yes", "choices": ["yes"]}`, "1 of them"},
		{"duplicate choice", `{"id": "q1", "question": "q", "answer": "yes", "choices": ["yes", "Yes"]}`, "twice"},
		{"duplicate id", "{\"id\": \"q1\", \"question\": \"q\", \"answer\": \"a\"}\n{\"id\": \"q1\", \"question\": \"r\", \"answer\": \"b\"}", "line 2: id \"q1\" is also line 1's"},
		{"line too long", `{"id": "q1", "question": "` + strings.Repeat("x", eval.MaxLineBytes) + `", "answer": "a"}`, "longer than"},
	}
	// encoding/json makes invalid UTF-8 valid; an Item built in Go is
	// checked.
	if err := (eval.Item{ID: "q1", Question: "\xff", Answer: "a"}).Check(); err == nil || !strings.Contains(err.Error(), "UTF-8") {
		t.Errorf("Check of invalid UTF-8: %v", err)
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := eval.ReadItems(strings.NewReader(tt.in))
			if !errors.Is(err, eval.ErrBadItems) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ReadItems: %v; want an ErrBadItems saying %q", err, tt.want)
			}
		})
	}
}

// FuzzReadItems: whatever the input, ReadItems returns valid, uniquely
// named items or an ErrBadItems, and what it returns writes and reads
// back the same.
func FuzzReadItems(f *testing.F) {
	f.Add(`{"id": "q1", "question": "What is 2+2?", "answer": "4"}`)
	f.Add(`{"id": "q2", "question": "Is it?", "answer": "no", "choices": ["yes", "no"]}` + "\n" + `{"id": "q3", "question": "x", "answer": "1.0"}`)
	f.Add(`{"id": "", "question": 1}`)
	f.Add("\n\n{}\n")
	f.Fuzz(func(t *testing.T, in string) {
		items, err := eval.ReadItems(strings.NewReader(in))
		if err != nil {
			if !errors.Is(err, eval.ErrBadItems) {
				t.Fatalf("error %v is not an ErrBadItems", err)
			}
			return
		}
		if err := eval.CheckItems(items); err != nil {
			t.Fatalf("ReadItems returned items that fail CheckItems: %v", err)
		}
		var buf bytes.Buffer
		if err := eval.WriteItems(&buf, items); err != nil {
			t.Fatal(err)
		}
		again, err := eval.ReadItems(&buf)
		if err != nil {
			t.Fatalf("items written do not read back: %v", err)
		}
		if diff := cmp.Diff(items, again); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
		for _, it := range items {
			if !it.Correct(it.Answer) {
				t.Fatalf("item %q: its own answer %q is not correct", it.ID, it.Answer)
			}
		}
	})
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"42":           "42",
		" 42.0 ":       "42",
		"+42":          "42",
		"-0":           "0",
		"1,234":        "1234",
		"1,2,3":        "1,2,3",
		"1e3":          "1000",
		"\"Yes\".":     "yes",
		"`No`":         "no",
		"  Paris  is ": "paris is",
		"Inf":          "inf",
		"0x10":         "0x10",
	} {
		if got := eval.Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
	it := eval.Item{ID: "x", Question: "q", Answer: "-12"}
	for ans, want := range map[string]bool{"-12": true, "-12.0": true, "12": false, "": false} {
		if got := it.Correct(ans); got != want {
			t.Errorf("Correct(%q) = %v, want %v", ans, got, want)
		}
	}
}

var arithmeticQ = regexp.MustCompile(`^What is the result of (\d+)\+(\d+)\*(\d+)\+(\d+)-(\d+)\*(\d+)\? Make sure to state your answer as a single number\.$`)

// TestArithmetic checks Du et al.'s items: operands 0..29, the gold answer
// a+b*c+d-e*f, the same items for the same seed, others for another.
func TestArithmetic(t *testing.T) {
	items := eval.Arithmetic(200, 7)
	if len(items) != 200 || items[0].ID != "arith-001" || items[199].ID != "arith-200" {
		t.Fatalf("got %d items, first %q, last %q", len(items), items[0].ID, items[len(items)-1].ID)
	}
	seenHigh := false
	for _, it := range items {
		m := arithmeticQ.FindStringSubmatch(it.Question)
		if m == nil {
			t.Fatalf("%s: question %q is not Du et al.'s form", it.ID, it.Question)
		}
		var x [6]int
		for i := range x {
			x[i], _ = strconv.Atoi(m[i+1])
			if x[i] < 0 || x[i] > 29 {
				t.Fatalf("%s: operand %d outside 0..29", it.ID, x[i])
			}
			seenHigh = seenHigh || x[i] == 29
		}
		if want := strconv.Itoa(x[0] + x[1]*x[2] + x[3] - x[4]*x[5]); it.Answer != want {
			t.Errorf("%s: %q has answer %s, want %s", it.ID, it.Question, it.Answer, want)
		}
	}
	if !seenHigh {
		t.Error("no operand reached 29 in 1200 draws")
	}
	if err := eval.CheckItems(items); err != nil {
		t.Error(err)
	}
	if diff := cmp.Diff(items, eval.Arithmetic(200, 7)); diff != "" {
		t.Error("the same seed gave other items")
	}
	if cmp.Equal(items, eval.Arithmetic(200, 8)) {
		t.Error("another seed gave the same items")
	}
}

var claimQ = regexp.MustCompile(`^Is the following claim true: (\d+)\+(\d+)\*(\d+)\+(\d+)-(\d+)\*(\d+) = (-?\d+)\? Answer yes or no\.$`)

func TestClaims(t *testing.T) {
	items := eval.Claims(300, 3)
	yes := 0
	for _, it := range items {
		m := claimQ.FindStringSubmatch(it.Question)
		if m == nil {
			t.Fatalf("%s: question %q is not a claim", it.ID, it.Question)
		}
		var x [7]int
		for i := range x {
			x[i], _ = strconv.Atoi(m[i+1])
		}
		v := x[0] + x[1]*x[2] + x[3] - x[4]*x[5]
		want := "no"
		if v == x[6] {
			want = "yes"
			yes++
		} else if d := v - x[6]; d < -10 || d > 10 {
			t.Errorf("%s: a false claim off by %d, want 1 to 10", it.ID, d)
		}
		if it.Answer != want || fmt.Sprint(it.Choices) != "[yes no]" {
			t.Errorf("%s: %q answer %q choices %v, want %q of [yes no]", it.ID, it.Question, it.Answer, it.Choices, want)
		}
	}
	if yes < 120 || yes > 180 { // half, give or take
		t.Errorf("%d of 300 claims true; want about half", yes)
	}
	if _, err := eval.Generate("nope", 3, 1); !errors.Is(err, eval.ErrBadItems) {
		t.Errorf("Generate of an unknown generator: %v", err)
	}
}
