package moderated

import (
	"strings"
	"unicode"
)

// RepetitionThreshold is the seed's guardrail: an argument repeating more
// than this share of what was said in the previous round (its arguments and
// rebuttals) is flagged as repetition.
const RepetitionThreshold = 0.6

// shingleSize is the length, in words, of the word sequences compared.
const shingleSize = 3

// Repetition measures how much of cur repeats prev: the share of cur's
// distinct word trigrams (lower-cased words of letters and digits) that also
// occur in prev, from 0 (nothing repeated) to 1 (every trigram repeated).
// Texts of fewer than three words are compared word by word. An empty cur
// repeats nothing.
func Repetition(prev, cur string) float64 {
	cw := wordsOf(cur)
	if len(cw) == 0 {
		return 0
	}
	n := min(shingleSize, len(cw))
	have := shingles(wordsOf(prev), n)
	mine := shingles(cw, n)
	repeated := 0
	for s := range mine {
		if have[s] {
			repeated++
		}
	}
	return float64(repeated) / float64(len(mine))
}

// Repeats reports whether cur repeats more than [RepetitionThreshold] of
// prev.
func Repeats(prev, cur string) bool { return Repetition(prev, cur) > RepetitionThreshold }

func wordsOf(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

func shingles(words []string, n int) map[string]bool {
	out := map[string]bool{}
	for i := 0; i+n <= len(words); i++ {
		out[strings.Join(words[i:i+n], " ")] = true
	}
	return out
}
