package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Item is one question of an evaluation with its gold answer. Its JSON is
// a line of an items file: {"id", "question", "answer", "choices"?}.
type Item struct {
	// ID names the item, unique in its set.
	ID string `json:"id"`
	// Question is what every arm is asked.
	Question string `json:"question"`
	// Answer is the gold answer. An arm's answer is right when it equals
	// Answer as [Normalize] compares them.
	Answer string `json:"answer"`
	// Choices, when given, are the answers allowed: an arm must answer
	// with one of them (its reply's schema says so), and Answer is one.
	Choices []string `json:"choices,omitempty"`
}

// Limits of an [Item].
const (
	MaxIDLen         = 200
	MaxQuestionRunes = 8000
	MaxAnswerRunes   = 200
	MaxChoices       = 26
)

// ErrBadItems: an items file or set is not usable; the error names the
// line or item and why.
var ErrBadItems = errors.New("eval: bad items")

// Check reports what is wrong with it, or nil: an ID of 1 to MaxIDLen
// bytes of valid UTF-8, a question and an answer that are not blank and
// within their limits, and choices, when given, between 2 and MaxChoices
// distinct (as [Normalize] compares them), none blank, the answer among
// them.
func (it Item) Check() error {
	var probs []string
	switch {
	case it.ID == "" || len(it.ID) > MaxIDLen || !utf8.ValidString(it.ID):
		probs = append(probs, fmt.Sprintf("id: want 1 to %d bytes of UTF-8", MaxIDLen))
	}
	text := func(field, s string, limit int) {
		switch {
		case !utf8.ValidString(s):
			probs = append(probs, field+": not valid UTF-8")
		case strings.TrimSpace(s) == "":
			probs = append(probs, field+": empty")
		case utf8.RuneCountInString(s) > limit:
			probs = append(probs, fmt.Sprintf("%s: longer than %d characters", field, limit))
		}
	}
	text("question", it.Question, MaxQuestionRunes)
	text("answer", it.Answer, MaxAnswerRunes)
	if it.Choices != nil {
		seen := map[string]bool{}
		switch n := len(it.Choices); {
		case n < 2 || n > MaxChoices:
			probs = append(probs, fmt.Sprintf("choices: %d of them; want 2 to %d", n, MaxChoices))
		}
		for i, c := range it.Choices {
			text(fmt.Sprintf("choices[%d]", i), c, MaxAnswerRunes)
			k := Normalize(c)
			if seen[k] {
				probs = append(probs, fmt.Sprintf("choices[%d]: %q twice", i, c))
			}
			seen[k] = true
		}
		if !seen[Normalize(it.Answer)] {
			probs = append(probs, fmt.Sprintf("answer: %q is not one of the choices", it.Answer))
		}
	}
	if len(probs) > 0 {
		return errors.New(strings.Join(probs, "; "))
	}
	return nil
}

// CheckItems checks every item ([Item.Check]) and that their IDs are
// unique; the error wraps [ErrBadItems] and names the items by index.
func CheckItems(items []Item) error {
	if len(items) == 0 {
		return fmt.Errorf("%w: no items", ErrBadItems)
	}
	seen := map[string]int{}
	var probs []string
	for i, it := range items {
		if err := it.Check(); err != nil {
			probs = append(probs, fmt.Sprintf("item %d: %v", i+1, err))
		}
		if j, dup := seen[it.ID]; dup {
			probs = append(probs, fmt.Sprintf("item %d: id %q is also item %d's", i+1, it.ID, j))
		} else {
			seen[it.ID] = i + 1
		}
		if len(probs) >= 10 {
			probs = append(probs, "...")
			break
		}
	}
	if len(probs) > 0 {
		return fmt.Errorf("%w: %s", ErrBadItems, strings.Join(probs, "; "))
	}
	return nil
}

// MaxLineBytes bounds a line of an items file.
const MaxLineBytes = 1 << 20

// ReadItems reads an items file: JSON Lines, one [Item] object a line,
// blank lines skipped. A line that is not such an object (an unknown field
// included), an item that fails [Item.Check], an ID used twice, a line
// longer than MaxLineBytes or no item at all is an error wrapping
// [ErrBadItems] that names the line (1 is the first).
func ReadItems(r io.Reader) ([]Item, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), MaxLineBytes)
	var items []Item
	seen := map[string]int{}
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var it Item
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&it); err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", ErrBadItems, line, err)
		}
		if dec.More() {
			return nil, fmt.Errorf("%w: line %d: more than one JSON value", ErrBadItems, line)
		}
		if err := it.Check(); err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", ErrBadItems, line, err)
		}
		if first, dup := seen[it.ID]; dup {
			return nil, fmt.Errorf("%w: line %d: id %q is also line %d's", ErrBadItems, line, it.ID, first)
		}
		seen[it.ID] = line
		items = append(items, it)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%w: line %d: longer than %d bytes", ErrBadItems, line+1, MaxLineBytes)
		}
		return nil, fmt.Errorf("eval: read items: %w", err)
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("%w: no items", ErrBadItems)
	}
	return items, nil
}

// WriteItems writes items as an items file that [ReadItems] reads back.
func WriteItems(w io.Writer, items []Item) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			return fmt.Errorf("eval: write item %s: %w", it.ID, err)
		}
	}
	return nil
}

// Normalize is how answers are compared: white space collapsed, quotes,
// backticks and a final full stop removed, letters lower-cased, and a
// number written in its shortest decimal form ("42.0", "+42" and "42"
// are "42"; "1,234" is "1234").
func Normalize(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for prev := ""; prev != s; {
		prev = s
		s = strings.TrimSpace(strings.TrimSuffix(strings.Trim(s, "\"'`“”‘’"), "."))
	}
	s = strings.ToLower(s)
	num := s
	if thousands.MatchString(num) {
		num = strings.ReplaceAll(num, ",", "")
	}
	if f, err := strconv.ParseFloat(num, 64); err == nil && !strings.ContainsAny(num, "xXpP_") && !strings.Contains(num, "inf") && !strings.Contains(num, "nan") {
		if f == 0 {
			f = 0 // -0
		}
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return s
}

// thousands matches a number with its thousands grouped by commas.
var thousands = regexp.MustCompile(`^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$`)

// Correct reports whether answer is it's gold answer, as [Normalize]
// compares them; an empty answer is never right.
func (it Item) Correct(answer string) bool {
	a := Normalize(answer)
	return a != "" && a == Normalize(it.Answer)
}

// The generators' question templates.
const (
	arithmeticQuestion = "What is the result of %s? Make sure to state your answer as a single number."
	claimQuestion      = "Is the following claim true: %s = %d? Answer yes or no."
)

// Arithmetic returns n arithmetic items of Du et al. (2023), "Improving
// Factuality and Reasoning in Language Models through Multiagent Debate":
// "What is the result of a+b*c+d-e*f?" with each of a..f drawn uniformly
// from 0..29, and the gold answer computed. The items depend only on n and
// seed; their IDs are "arith-001", "arith-002", ....
func Arithmetic(n int, seed uint64) []Item {
	rng := rand.New(rand.NewPCG(seed, 0xa1))
	items := make([]Item, 0, max(n, 0))
	for i := range max(n, 0) {
		expr, v := arithmeticExpr(rng)
		items = append(items, Item{
			ID:       fmt.Sprintf("arith-%03d", i+1),
			Question: fmt.Sprintf(arithmeticQuestion, expr),
			Answer:   strconv.Itoa(v),
		})
	}
	return items
}

// arithmeticExpr draws a+b*c+d-e*f and returns it with its value.
func arithmeticExpr(rng *rand.Rand) (string, int) {
	var x [6]int
	for j := range x {
		x[j] = rng.IntN(30)
	}
	expr := fmt.Sprintf("%d+%d*%d+%d-%d*%d", x[0], x[1], x[2], x[3], x[4], x[5])
	return expr, x[0] + x[1]*x[2] + x[3] - x[4]*x[5]
}

// Claims returns n yes/no items built from the arithmetic of [Arithmetic]:
// "Is the following claim true: a+b*c+d-e*f = v?", where v is the value
// for half the items (drawn at random) and otherwise off by 1 to 10 either
// way; the choices are "yes" and "no". The items depend only on n and seed;
// their IDs are "claim-001", ....
func Claims(n int, seed uint64) []Item {
	rng := rand.New(rand.NewPCG(seed, 0xc1))
	items := make([]Item, 0, max(n, 0))
	for i := range max(n, 0) {
		expr, v := arithmeticExpr(rng)
		answer, shown := "yes", v
		if rng.IntN(2) == 0 {
			answer = "no"
			off := 1 + rng.IntN(10)
			if rng.IntN(2) == 0 {
				off = -off
			}
			shown += off
		}
		items = append(items, Item{
			ID:       fmt.Sprintf("claim-%03d", i+1),
			Question: fmt.Sprintf(claimQuestion, expr, shown),
			Answer:   answer,
			Choices:  []string{"yes", "no"},
		})
	}
	return items
}

// Generate returns the items of the built-in generator named gen
// ("arith" for [Arithmetic], "claims" for [Claims]).
func Generate(gen string, n int, seed uint64) ([]Item, error) {
	switch gen {
	case "arith", "arithmetic":
		return Arithmetic(n, seed), nil
	case "claims", "yesno":
		return Claims(n, seed), nil
	}
	return nil, fmt.Errorf("%w: no generator %q (have %s)", ErrBadItems, gen, strings.Join(Generators(), ", "))
}

// Generators names the built-in generators.
func Generators() []string { return slices.Clone([]string{"arith", "claims"}) }
