package enginetest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMaskSeqs(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"seq":12,"x":"seq"}`, `{"seq":#,"x":"seq"}`},
		{`{"utteranceSeq":3,"replyTo":40}`, `{"utteranceSeq":#,"replyTo":#}`},
		{`moves:7 moves:x "seq":"a"`, `moves:# moves:x "seq":"a"`},
		{`{"subseq":5,"Seq":5}`, `{"subseq":5,"Seq":5}`},
		{`no numbers`, `no numbers`},
		{`"seq":`, `"seq":`},
	} {
		if got := maskSeqs(tt.in); got != tt.want {
			t.Errorf("maskSeqs(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestFailurePointsCoverEveryType(t *testing.T) {
	var recs []string
	for i := range 100 {
		typ := "utterance"
		switch {
		case i == 0:
			typ = "debate"
		case i == 57:
			typ = "rare"
		case i%5 == 0:
			typ = "evaluation"
		}
		recs = append(recs, typ+" {}")
	}
	got := failurePoints(recs, false)
	if len(got) > 10 {
		t.Errorf("%d points, want a sample: %v", len(got), got)
	}
	for _, k := range []int{0, 1, 5, 50, 57, 99} {
		if !slices.Contains(got, k) {
			t.Errorf("the sample %v leaves out record %d", got, k)
		}
	}
	if !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
		t.Errorf("the sample %v is not sorted and unique", got)
	}
	all := failurePoints(recs, true)
	if diff := cmp.Diff(100, len(all)); diff != "" || all[99] != 99 {
		t.Errorf("exhaustive: %d points", len(all))
	}
	if got := failurePoints(recs[:2], false); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("two records: %v, want [0 1]", got)
	}
}

func TestFailurePointsCapManyTypes(t *testing.T) {
	var recs []string
	for i := range 40 {
		recs = append(recs, fmt.Sprintf("type%d {}", i/2))
	}
	got := failurePoints(recs, false)
	if len(got) > 10 {
		t.Errorf("%d points, want at most 10: %v", len(got), got)
	}
	for _, k := range []int{0, 1, 20, 39, 38} { // 38: the first of the last type
		if !slices.Contains(got, k) {
			t.Errorf("the sample %v leaves out record %d", got, k)
		}
	}
}
